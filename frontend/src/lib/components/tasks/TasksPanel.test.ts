import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import TasksPanel from './TasksPanel.svelte';
import TopBar from '../ui/TopBar.svelte';
import { fakeTask } from '../../backend/fake';
import { settle, startedStores } from '../../test/helpers';
import { duration } from './format';

const iso = (ms: number) => new Date(ms).toISOString();
const now = Date.now();

async function setup() {
  const t = await startedStores((be) => {
    be.conversations = [
      { id: 'c1', title: 'Build the release', providerId: 'p1', model: 'm1', createdAt: iso(now), updatedAt: iso(now) },
      { id: 'c2', title: 'Reports', providerId: 'p1', model: 'm1', createdAt: iso(now), updatedAt: iso(now) },
    ];
    be.messages = { c1: [], c2: [] };
    be.tasks = [
      fakeTask({ id: 'run', conversationId: 'c1', tool: 'jobs__slow_task', statusMessage: 'compiling', createdAt: iso(now - 30_000) }),
      fakeTask({ id: 'bad', conversationId: 'c2', tool: 'jobs__report', status: 'failed', error: 'disk full', createdAt: iso(now - 60_000), endedAt: iso(now - 48_000) }),
      fakeTask({ id: 'ok', conversationId: 'c2', tool: 'jobs__report', status: 'completed', createdAt: iso(now - 90_000), endedAt: iso(now - 88_500) }),
    ];
  });
  render(TasksPanel, { context: t.context });
  await settle();
  return t;
}

describe('TasksPanel', () => {
  it('lists every task with status, message, duration and conversation; filters running ones', async () => {
    await setup();
    const rows = () => screen.getAllByTestId('task-row');
    expect(rows().map((r) => [r.dataset.id, r.dataset.status])).toEqual([['run', 'working'], ['bad', 'failed'], ['ok', 'completed']]);
    const [run, bad, ok] = rows();
    expect(within(run).getByTestId('task-row-status').textContent).toBe('working');
    expect(within(run).getByTestId('task-row-message').textContent).toBe('compiling');
    expect(within(run).getByTestId('task-row-duration').textContent).toMatch(/^running for \d+ s$/);
    expect(within(run).getByTestId('task-open-conversation').textContent).toContain('Build the release');
    expect(within(run).getByTestId('task-row-cancel').getAttribute('aria-label')).toBe('Cancel task jobs__slow_task');
    expect(within(bad).getByTestId('task-row-status').textContent).toBe('failed');
    expect(within(bad).getByTestId('task-row-message').textContent).toBe('disk full');
    expect(within(bad).getByTestId('task-row-duration').textContent).toBe('took 12 s');
    expect(within(bad).queryByTestId('task-row-cancel')).toBeNull();
    expect(within(ok).getByTestId('task-row-duration').textContent).toBe(`took ${duration(1500)}`);

    await fireEvent.click(screen.getByTestId('tasks-filter-running'));
    expect(rows().map((r) => r.dataset.id)).toEqual(['run']);
    expect(screen.getByTestId('tasks-filter-running').getAttribute('aria-pressed')).toBe('true');
    await fireEvent.click(screen.getByTestId('tasks-filter-all'));
    expect(rows()).toHaveLength(3);
  });

  it('cancels a running task, and opens the conversation of a task', async () => {
    const { be, s } = await setup();
    await fireEvent.click(screen.getByTestId('tasks-filter-running'));
    await fireEvent.click(screen.getByTestId('task-row-cancel'));
    await settle();
    expect(be.callsOf('cancelTask')).toEqual([['run']]);
    expect(screen.queryAllByTestId('task-row')).toHaveLength(0);
    expect(screen.getByTestId('tasks-empty').textContent).toContain('No task is running');

    await fireEvent.click(screen.getByTestId('tasks-filter-all'));
    s.ui.show('tasks');
    await fireEvent.click(within(screen.getAllByTestId('task-row')[1]).getByTestId('task-open-conversation'));
    await settle();
    expect(s.chat.conversationId).toBe('c2');
    expect(s.ui.tab).toBe('chat');
  });

  it('says so when there is no task yet', async () => {
    const t = await startedStores();
    render(TasksPanel, { context: t.context });
    await settle();
    expect(screen.getByTestId('tasks-empty').textContent).toContain('No tasks yet');
  });

  it('the top bar counts running tasks on the Tasks button', async () => {
    const { be, context, s } = await setup();
    render(TopBar, { context });
    expect(screen.getByTestId('tasks-count').textContent).toBe('(1 running)');
    be.updateTask(fakeTask({ id: 'more', createdAt: iso(Date.now()) }));
    await settle();
    expect(screen.getByTestId('tasks-count').textContent).toBe('(2 running)');
    await fireEvent.click(screen.getByTestId('open-tasks'));
    expect(s.ui.tab).toBe('tasks');
    await s.tasks.cancel('run');
    await s.tasks.cancel('more');
    await settle();
    expect(screen.queryByTestId('tasks-count')).toBeNull();
  });
});

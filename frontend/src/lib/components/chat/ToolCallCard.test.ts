import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ToolCallCard from './ToolCallCard.svelte';
import { fakeTask } from '../../backend/fake';
import type { ToolCallView } from '../../stores/toolcalls';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

function runningView(id: string): ToolCallView {
  return {
    key: id,
    tool: 'jobs__slow_task',
    serverId: 'jobs',
    serverName: 'Jobs',
    arguments: '{"label":"build"}',
    status: 'running',
    record: {
      id, callId: 'call_1', conversationId: 'c1', messageId: 3, serverId: 'jobs', serverName: 'Jobs', tool: 'slow_task', arguments: '{"label":"build"}',
      status: 'running', decision: 'allow_once', decidedBy: 'user', result: null, isError: false, error: '', requestedAt: iso(Date.now()), startedAt: iso(Date.now()), durationMs: 0,
    },
  };
}

describe('ToolCallCard with a task', () => {
  it('shows a running task with its elapsed time and message, and Cancel calls cancelTask', async () => {
    vi.useFakeTimers();
    const t = await startedStores((be) => {
      be.tasks = [fakeTask({ id: 'tk1', toolCallId: 'rec1', statusMessage: 'step 2 of 5', createdAt: iso(Date.now() - 65_000) })];
    });
    render(ToolCallCard, { props: { view: runningView('rec1'), openURL: () => {} }, context: t.context });
    await settle();
    const card = screen.getByTestId('toolcall');
    expect(within(card).getByTestId('toolcall-status').textContent).toBe('Running as a task');
    const task = within(card).getByTestId('toolcall-task');
    expect(task.dataset.taskStatus).toBe('working');
    expect(within(task).getByTestId('toolcall-task-line').textContent).toMatch(/^Task working · 1 min 0[5-6] s · step 2 of 5$/);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(within(task).getByTestId('toolcall-task-line').textContent).toMatch(/^Task working · 1 min 1[5-6] s/);

    t.be.updateTask({ ...t.be.tasks[0], status: 'input_required', statusMessage: 'declined: Switchboard cannot answer input requests yet', updatedAt: iso(Date.now()) });
    await settle();
    expect(task.dataset.taskStatus).toBe('input_required');
    expect(within(task).getByTestId('toolcall-task-line').textContent).toMatch(/^Task waiting for input · .* · declined/);

    await fireEvent.click(within(card).getByTestId('task-cancel'));
    await settle();
    expect(t.be.callsOf('cancelTask')).toEqual([['tk1']]);
    expect(task.dataset.taskStatus).toBe('cancelled');
    expect(within(task).getByTestId('toolcall-task-line').textContent).toBe('Task cancelled');
    expect(within(card).queryByTestId('task-cancel')).toBeNull();
    vi.useRealTimers();
  });

  it('says why a task failed, and why a cancel did not go through', async () => {
    const t = await startedStores((be) => {
      be.tasks = [fakeTask({ id: 'tk1', toolCallId: 'rec1' })];
      be.failures.cancelTask = 'the server is not connected';
    });
    render(ToolCallCard, { props: { view: runningView('rec1'), openURL: () => {} }, context: t.context });
    await settle();
    await fireEvent.click(screen.getByTestId('task-cancel'));
    await settle();
    expect(screen.getByRole('alert').textContent).toBe('Could not cancel the task: the server is not connected');
    t.be.updateTask({ ...t.be.tasks[0], status: 'failed', error: 'out of memory', updatedAt: iso(Date.now() + 1), endedAt: iso(Date.now() + 1) });
    await settle();
    expect(screen.getByTestId('toolcall-task-line').textContent).toBe('Task failed: out of memory');
    expect(screen.queryByTestId('task-cancel')).toBeNull();
  });

  it('a call without a task shows no task line', async () => {
    const t = await startedStores((be) => {
      be.tasks = [fakeTask({ id: 'tk1', toolCallId: 'other' })];
    });
    render(ToolCallCard, { props: { view: runningView('rec1'), openURL: () => {} }, context: t.context });
    await settle();
    expect(screen.queryByTestId('toolcall-task')).toBeNull();
    expect(screen.getByTestId('toolcall-status').textContent).toMatch(/^Running /);
    expect(screen.getByTestId('toolcall-status').textContent).not.toContain('task');
  });
});

import { describe, expect, it } from 'vitest';
import { FakeBackend, fakeTask } from '../backend/fake';
import { TasksStore, taskEnded } from './tasks.svelte';

const iso = (ms: number) => new Date(ms).toISOString();

describe('TasksStore', () => {
  it('loads every task, newest first, and applies task:update by id', async () => {
    const be = new FakeBackend();
    be.tasks = [fakeTask({ id: 'old', createdAt: iso(1000), updatedAt: iso(1000) }), fakeTask({ id: 'mid', createdAt: iso(2000), updatedAt: iso(2000), toolCallId: 'rec-mid' })];
    const s = new TasksStore(be);
    s.start();
    await s.load();
    expect(be.callsOf('listTasks')).toEqual([['', false]]);
    expect(s.tasks.map((t) => t.id)).toEqual(['mid', 'old']);
    expect(s.loaded).toBe(true);

    // A new task goes first; a change replaces the task in its place.
    be.emit('task:update', fakeTask({ id: 'new', createdAt: iso(3000), updatedAt: iso(3000) }));
    be.emit('task:update', fakeTask({ id: 'old', createdAt: iso(1000), updatedAt: iso(4000), statusMessage: 'half way' }));
    expect(s.tasks.map((t) => t.id)).toEqual(['new', 'mid', 'old']);
    expect(s.tasks[2].statusMessage).toBe('half way');
    // An update that arrives after a newer one is older news.
    be.emit('task:update', fakeTask({ id: 'old', createdAt: iso(1000), updatedAt: iso(3500), statusMessage: 'stale' }));
    expect(s.tasks[2].statusMessage).toBe('half way');

    be.emit('task:update', fakeTask({ id: 'mid', createdAt: iso(2000), updatedAt: iso(5000), toolCallId: 'rec-mid', status: 'completed', endedAt: iso(5000) }));
    expect(s.active.map((t) => t.id)).toEqual(['new', 'old']);
    expect(s.byToolCall('rec-mid')?.status).toBe('completed');
    expect(s.byToolCall('nope')).toBeUndefined();
    expect(s.byToolCall(undefined)).toBeUndefined();

    expect(s.visible).toHaveLength(3);
    s.setFilter('running');
    expect(s.visible.map((t) => t.id)).toEqual(['new', 'old']);

    s.dispose();
    expect(be.listeners('task:update')).toBe(0);
  });

  it('keeps an event that came before the load answered when the load is older', async () => {
    const be = new FakeBackend();
    be.tasks = [fakeTask({ id: 'a', updatedAt: iso(1000), status: 'working' })];
    const s = new TasksStore(be);
    s.start();
    const loading = s.load();
    be.emit('task:update', fakeTask({ id: 'a', updatedAt: iso(2000), status: 'completed', endedAt: iso(2000) }));
    await loading;
    expect(s.tasks.map((t) => t.status)).toEqual(['completed']);
  });

  it('cancels through the backend; the update shows it cancelled', async () => {
    const be = new FakeBackend();
    be.tasks = [fakeTask({ id: 'a' })];
    const s = new TasksStore(be);
    s.start();
    await s.load();
    const p = s.cancel('a');
    expect(s.cancelling('a')).toBe(true);
    await p;
    expect(be.callsOf('cancelTask')).toEqual([['a']]);
    expect(s.cancelling('a')).toBe(false);
    expect(s.tasks[0].status).toBe('cancelled');
    expect(taskEnded(s.tasks[0])).toBe(true);
    expect(s.active).toEqual([]);
  });

  it('says why a cancel failed, and why a load failed', async () => {
    const be = new FakeBackend();
    be.tasks = [fakeTask({ id: 'a' })];
    const s = new TasksStore(be);
    s.start();
    await s.load();
    be.failures.cancelTask = 'the server is not connected';
    await s.cancel('a');
    expect(s.cancelError('a')).toBe('Could not cancel the task: the server is not connected');
    expect(s.tasks[0].status).toBe('working');
    delete be.failures.cancelTask;
    await s.cancel('a');
    expect(s.cancelError('a')).toBe('');

    be.failures.listTasks = 'database is locked';
    await s.load();
    expect(s.error).toBe('Could not load the tasks: database is locked');
  });

  it('caps the list, dropping the oldest finished tasks first', async () => {
    const be = new FakeBackend();
    const s = new TasksStore(be, { cap: 3 });
    s.start();
    be.emit('task:update', fakeTask({ id: 'run', createdAt: iso(1000) }));
    be.emit('task:update', fakeTask({ id: 'done1', createdAt: iso(2000), status: 'completed', endedAt: iso(2000) }));
    be.emit('task:update', fakeTask({ id: 'done2', createdAt: iso(3000), status: 'failed', endedAt: iso(3000) }));
    be.emit('task:update', fakeTask({ id: 'run2', createdAt: iso(4000) }));
    expect(s.tasks.map((t) => t.id)).toEqual(['run2', 'done2', 'run']);
  });
});

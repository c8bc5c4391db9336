import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { Completer } from './completion.svelte';

describe('Completer', () => {
  afterEach(() => vi.useRealTimers());

  it('asks after a pause, with the other arguments filled, and shows only the latest answer', async () => {
    vi.useFakeTimers();
    const be = new FakeBackend();
    be.completions = { name: ['Alice', 'Bob', 'Charlie'], department: ['Engineering', 'Sales'] };
    const ref = { type: 'ref/prompt', name: 'team' };
    const c = new Completer(be, 'ev', ref, { delay: 100 });
    c.ask('department', 'E', {});
    c.ask('department', 'En', {});
    await vi.advanceTimersByTimeAsync(100);
    expect(be.callsOf('completeArgument')).toEqual([['ev', ref, 'department', 'En', {}]]);
    expect(c.values).toEqual(['Engineering']);

    c.ask('name', '', { department: 'Engineering', name: 'x', empty: '' });
    expect(c.values).toEqual([]); // another argument's values go at once
    await vi.advanceTimersByTimeAsync(100);
    expect(be.callsOf('completeArgument')[1]).toEqual(['ev', ref, 'name', '', { department: 'Engineering' }]);
    expect(c.values).toEqual(['Alice', 'Bob', 'Charlie']);
    expect(c.arg).toBe('name');

    be.failures.completeArgument = 'Everything does not offer completion of arguments';
    c.ask('name', 'A', {});
    await vi.advanceTimersByTimeAsync(100);
    expect(c.values).toEqual([]);
  });
});

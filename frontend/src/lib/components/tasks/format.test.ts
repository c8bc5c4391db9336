import { describe, expect, it } from 'vitest';
import { fakeTask } from '../../backend/fake';
import { duration, taskLine } from './format';

const iso = (ms: number) => new Date(ms).toISOString();

describe('task wording', () => {
  it('says durations for people', () => {
    expect([400, 9_950, 12_400, 185_000, 7_800_000].map(duration)).toEqual(['0.4 s', '9.9 s', '12 s', '3 min 05 s', '2 h 10 min']);
  });

  it('says a status in the same words everywhere', () => {
    const t = fakeTask({ id: 'a', createdAt: iso(0), statusMessage: 'step 2' });
    expect(taskLine(t, 12_000)).toBe('Task working · 12 s · step 2');
    expect(taskLine({ ...t, status: 'input_required', statusMessage: '' }, 1_000)).toBe('Task waiting for input · 1.0 s');
    expect(taskLine({ ...t, status: 'completed', endedAt: iso(5_000) }, 60_000)).toBe('Task completed');
    expect(taskLine({ ...t, status: 'cancelled', endedAt: iso(5_000) }, 60_000)).toBe('Task cancelled');
    expect(taskLine({ ...t, status: 'failed', error: 'disk full', endedAt: iso(5_000) }, 60_000)).toBe('Task failed: disk full');
    expect(taskLine({ ...t, status: 'failed', statusMessage: '', endedAt: iso(5_000) }, 60_000)).toBe('Task failed');
  });
});

import { describe, expect, it } from 'vitest';
import { afterTask, FrameBatch } from './frame';

describe('FrameBatch with afterTask', () => {
  it('applies what one task pushed together, once that task is done', async () => {
    const seen: number[][] = [];
    const b = new FrameBatch<number>((xs) => seen.push(xs), afterTask);
    b.push(1);
    b.push(2, 3);
    expect(seen).toEqual([]); // not inside the task that pushed
    await Promise.resolve();
    expect(seen).toEqual([[1, 2, 3]]);
    b.push(4); // a later task: its own run, with no frame to wait for
    await Promise.resolve();
    expect(seen).toEqual([[1, 2, 3], [4]]);
  });
});

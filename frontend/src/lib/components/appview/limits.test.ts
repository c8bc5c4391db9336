import { describe, expect, it } from 'vitest';
import { TokenBucket, clampHeight, formatBytes, messageSize } from './limits';
import { MAX_COMPOSER_CHARS, applyDraft } from './draft';

describe('clampHeight', () => {
  it('keeps a view between 60 and 720 px and ignores what is no number', () => {
    expect(clampHeight(300)).toBe(300);
    expect(clampHeight(1e9)).toBe(720);
    expect(clampHeight(Infinity)).toBe(720);
    expect(clampHeight(-Infinity)).toBe(60);
    expect(clampHeight(0)).toBe(60);
    expect(clampHeight(250.6)).toBe(251);
    for (const bad of [NaN, '500', null, undefined, {}]) expect(clampHeight(bad)).toBeNull();
  });
});

describe('TokenBucket', () => {
  it('lets a burst through, then refills at its rate', () => {
    let t = 0;
    const b = new TokenBucket(200, 100, () => t);
    let passed = 0;
    for (let i = 0; i < 10_000; i++) if (b.take()) passed++;
    expect(passed).toBe(200);
    t += 50; // 5 more in 50 ms
    passed = 0;
    for (let i = 0; i < 100; i++) if (b.take()) passed++;
    expect(passed).toBe(5);
    t += 60_000; // never more than the burst
    passed = 0;
    for (let i = 0; i < 1000; i++) if (b.take()) passed++;
    expect(passed).toBe(200);
  });
});

describe('messageSize', () => {
  it('counts about as JSON would, and stops past the limit without reading the rest', () => {
    expect(messageSize({ jsonrpc: '2.0', id: 1, method: 'ping' }, 1000)).toBeLessThan(60);
    const big = 'x'.repeat(20 << 20);
    expect(messageSize({ params: { data: big } }, 4 << 20)).toBeGreaterThan(20 << 20);
    expect(messageSize(new ArrayBuffer(5 << 20), 4 << 20)).toBe(5 << 20);
    expect(messageSize(new Uint8Array(10), 100)).toBe(10);
    // A million small parts: too many, whatever their size.
    expect(messageSize({ a: new Array(1_000_000).fill(0) }, 100 << 20)).toBe(Infinity);
    // A cycle (postMessage clones those) ends at the node cap.
    const o: Record<string, unknown> = {};
    o.self = o;
    expect(messageSize(o, 100 << 20)).toBe(Infinity);
  });

  it('says sizes plainly', () => {
    expect(formatBytes(20 << 20)).toBe('20.0 MB');
    expect(formatBytes(4 << 20)).toBe('4.0 MB');
    expect(formatBytes(2048)).toBe('2 KB');
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(Infinity)).toBe('too many parts');
  });
});

describe('applyDraft', () => {
  it('puts a view’s draft after the user’s words, replaces its own untouched draft, and refuses past the limit', () => {
    let d = applyDraft('', 'Summarise this', null)!;
    expect(d.merged).toBe('Summarise this');
    d = applyDraft(d.merged, 'No, explain it', d)!;
    expect(d.merged).toBe('No, explain it');
    d = applyDraft('My question:  \n', 'the chart', null)!;
    expect(d.merged).toBe('My question:\n\nthe chart');
    // The user edited the draft: the next one comes after, nothing is lost.
    const edited = `${d.merged}?`;
    d = applyDraft(edited, 'more', d)!;
    expect(d.merged).toBe(`${edited}\n\nmore`);
    // The user's own text stays when the view's draft is replaced.
    d = applyDraft(d.merged, 'other', d)!;
    expect(d.merged).toBe(`${edited}\n\nother`);
    expect(applyDraft('x'.repeat(MAX_COMPOSER_CHARS - 5), 'longer than five', null)).toBeNull();
  });
});

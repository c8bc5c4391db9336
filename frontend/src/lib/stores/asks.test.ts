import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { fakeElicitation, fakeSampling } from '../test/asks';
import { ElicitationsStore, SamplingsStore, reportVisibility } from './asks.svelte';

describe('ElicitationsStore', () => {
  it('shows what waits, oldest first, after a reload too', async () => {
    const be = new FakeBackend();
    be.elicitations = [fakeElicitation('a')];
    const s = new ElicitationsStore(be);
    s.start();
    await s.load();
    be.emit('elicit:requested', fakeElicitation('b'));
    be.emit('elicit:requested', fakeElicitation('a')); // never twice
    expect(s.pending.map((r) => r.id)).toEqual(['a', 'b']);
    expect(s.current?.id).toBe('a');
  });

  it('sends the answer for the current request', async () => {
    const be = new FakeBackend();
    be.elicitations = [fakeElicitation('a'), fakeElicitation('b')];
    const s = new ElicitationsStore(be);
    s.start();
    await s.load();
    expect(await s.answer({ action: 'accept', content: { name: 'Ada' } })).toBe(true);
    expect(be.callsOf('answerElicitation')).toEqual([['a', { action: 'accept', content: { name: 'Ada' } }]]);
    expect(s.current?.id).toBe('b');
    expect(s.ended).toBeNull(); // answered: no notice
  });

  it('keeps a refused answer with its reason; drops one that ended meanwhile', async () => {
    const be = new FakeBackend();
    be.elicitations = [fakeElicitation('a'), fakeElicitation('b')];
    const s = new ElicitationsStore(be);
    await s.load();
    be.failures.answerElicitation = 'the answer does not match what the server asked for: name: required';
    expect(await s.answer({ action: 'accept', content: {} })).toBe(false);
    expect(s.current?.id).toBe('a');
    expect(s.error).toMatch(/name: required/);
    be.failures.answerElicitation = 'this request is no longer waiting for an answer';
    await s.answer({ action: 'decline' });
    expect(s.current?.id).toBe('b');
  });

  it('says when the request shown expires or is withdrawn', async () => {
    const be = new FakeBackend();
    be.elicitations = [fakeElicitation('a'), fakeElicitation('b')];
    const s = new ElicitationsStore(be);
    s.start();
    await s.load();
    be.emit('elicit:ended', { id: 'b', serverId: 'everything', serverName: 'Everything', outcome: 'cancelled', reason: 'the server stopped waiting', summary: '' });
    expect(s.ended).toBeNull(); // not the one shown
    be.emit('elicit:ended', { id: 'a', serverId: 'everything', serverName: 'Everything', outcome: 'expired', reason: 'nobody answered within 10m0s', summary: '' });
    expect(s.pending).toEqual([]);
    expect(s.ended?.request.id).toBe('a');
    expect(s.ended?.ended.outcome).toBe('expired');
    s.dismissEnded();
    expect(s.ended).toBeNull();
  });
});

describe('SamplingsStore', () => {
  it('approves and denies through the backend', async () => {
    const be = new FakeBackend();
    be.samplings = [fakeSampling('a'), fakeSampling('b')];
    const s = new SamplingsStore(be);
    s.start();
    await s.load();
    await s.answer({ approve: true, model: 'm2' });
    await s.answer({ approve: false });
    expect(be.callsOf('answerSampling')).toEqual([
      ['a', { approve: true, model: 'm2' }],
      ['b', { approve: false }],
    ]);
    expect(s.count).toBe(0);
  });

  it('stops listening on dispose', () => {
    const be = new FakeBackend();
    const s = new SamplingsStore(be);
    s.start();
    expect(be.listeners('sampling:requested')).toBe(1);
    s.dispose();
    expect(be.listeners('sampling:requested')).toBe(0);
  });
});

describe('reportVisibility', () => {
  it('says at once and on every change whether the page is visible', async () => {
    const be = new FakeBackend();
    let state: DocumentVisibilityState = 'visible';
    const doc = new EventTarget() as Document;
    Object.defineProperty(doc, 'visibilityState', { get: () => state });
    const stop = reportVisibility(be, doc);
    state = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    stop();
    state = 'visible';
    doc.dispatchEvent(new Event('visibilitychange'));
    await Promise.resolve();
    expect(be.callsOf('windowVisible')).toEqual([[true], [false]]);
  });
});

import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { AppViewsStore, MAX_OPEN_VIEWS } from './appviews.svelte';
import { settle, startedStores } from '../test/helpers';

function setup() {
  const be = new FakeBackend();
  const s = new AppViewsStore(be, () => 'c1');
  s.start();
  return { be, s };
}

describe('AppViewsStore', () => {
  it('opens by itself the view of a call seen running here, never one from history', () => {
    const { s } = setup();
    // From history: done when first seen.
    expect(s.follow('old', 'done')).toBe(false);
    // Live: waiting, then running.
    expect(s.follow('new', 'waiting_approval')).toBe(false);
    expect(s.follow('new', 'running')).toBe(true);
    s.show('new', 'Clock');
    expect(s.slot('new')?.state).toBe('open');
    // Once shown, never again by itself (closed by the user, it stays closed).
    s.hide('new');
    expect(s.follow('new', 'done')).toBe(false);
    expect(s.slot('new')).toMatchObject({ state: 'closed', note: '' });
    // A live call that was denied never ran: nothing opens.
    expect(s.follow('denied', 'waiting_approval')).toBe(false);
    expect(s.follow('denied', 'denied')).toBe(false);
  });

  it(`keeps at most ${MAX_OPEN_VIEWS} views open, closing the least recently used with a note`, () => {
    const { s } = setup();
    for (let i = 1; i <= MAX_OPEN_VIEWS; i++) s.show(`k${i}`, 'Clock');
    s.touch('k1'); // used: k2 is now the oldest
    expect(s.openCount).toBe(MAX_OPEN_VIEWS);
    s.show('k11', 'Clock');
    expect(s.openCount).toBe(MAX_OPEN_VIEWS);
    expect(s.slot('k1')?.state).toBe('open');
    expect(s.slot('k2')).toMatchObject({ state: 'closed', note: `This view was closed to keep at most ${MAX_OPEN_VIEWS} views open; Show view opens it again.` });
    expect(s.slot('k11')?.state).toBe('open');
    // Showing it again closes the next oldest.
    s.show('k2', 'Clock');
    expect(s.slot('k2')).toMatchObject({ state: 'open', note: '' });
    expect(s.slot('k3')?.state).toBe('closed');
  });

  it('says why a view stopped, or why Go closed it', () => {
    const { s, be } = setup();
    s.show('a', 'Clock');
    s.bind('a', 'view7');
    s.stopped('a', 'it sent too many messages');
    expect(s.slot('a')).toMatchObject({ state: 'stopped', note: 'The view from Clock was stopped: it sent too many messages', viewId: '' });
    s.show('b', 'Monitor');
    s.bind('b', 'view8');
    be.emit('appview:closed', { viewId: 'view8', reason: 'its server disconnected' });
    expect(s.slot('b')).toMatchObject({ state: 'stopped', note: 'The view from Monitor was closed: its server disconnected' });
    be.emit('appview:closed', { viewId: 'unknown', reason: 'x' });
  });

  it('forgets every view when the conversation changes', async () => {
    const t = await startedStores();
    const s = t.s.appviews;
    await t.s.chat.open('c1');
    await settle();
    s.follow('a', 'running');
    s.show('a', 'Clock');
    await t.s.chat.open('c2');
    await settle();
    expect(s.slot('a')).toBeUndefined();
    // Back again: the call is history now.
    await t.s.chat.open('c1');
    await settle();
    expect(s.follow('a', 'done')).toBe(false);
    expect(s.slot('a')).toBeUndefined();
  });

  it('puts a draft in the composer only through it, and says whose it is', () => {
    const { s } = setup();
    expect(s.offerDraft('hi', 'Clock')).toBe(false); // no composer
    const got: string[] = [];
    const stop = s.setComposer((t) => (got.push(t), true));
    expect(s.offerDraft('hi', 'Clock')).toBe(true);
    expect(got).toEqual(['hi']);
    expect(s.draftFrom).toBe('Clock');
    s.dismissDraft();
    expect(s.draftFrom).toBe('');
    stop();
    expect(s.offerDraft('again', 'Clock')).toBe(false);
  });
});

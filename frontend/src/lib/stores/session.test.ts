import { beforeEach, describe, expect, it } from 'vitest';
import { recallConversation, recallDraft, rememberConversation, rememberDraft } from './session';

describe('session', () => {
  beforeEach(() => sessionStorage.clear());

  it('keeps the open conversation and forgets it for a new chat', () => {
    rememberConversation('c1');
    expect(recallConversation()).toBe('c1');
    rememberConversation(null);
    expect(recallConversation()).toBeNull();
  });

  it('keeps unsent text with its conversation, and forgets empty text', () => {
    rememberDraft({ conversationId: 'c1', text: 'half a thought' });
    expect(recallDraft()).toEqual({ conversationId: 'c1', text: 'half a thought' });
    rememberDraft({ conversationId: 'c1', text: '' });
    expect(recallDraft()).toBeNull();
  });

  it('ignores what it did not write', () => {
    sessionStorage.setItem('switchboard.draft', '{"text": 5}');
    expect(recallDraft()).toBeNull();
    sessionStorage.setItem('switchboard.draft', 'not json');
    expect(recallDraft()).toBeNull();
  });
});

describe('a reload of the window', () => {
  beforeEach(() => sessionStorage.clear());

  it('opens the conversation that was open, says why it reloaded, and keeps the unsent text', async () => {
    const { FakeBackend } = await import('../backend/fake');
    const { Stores } = await import('./root.svelte');
    const iso = (ms: number) => new Date(ms).toISOString();
    const be = new FakeBackend();
    be.providers = [{ id: 'p1', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
    be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1) }];
    be.info.notice = 'A server’s view stopped responding and froze the window, so Switchboard reloaded it.';
    rememberConversation('c1');
    rememberDraft({ conversationId: 'c1', text: 'unsent' });
    const s = new Stores(be, { schedule: (f: () => void) => f() });
    await s.start();
    expect(s.chat.conversationId).toBe('c1');
    expect(s.notice).toContain('froze the window');
    expect(recallDraft()).toEqual({ conversationId: 'c1', text: 'unsent' });
  });

  it('starts a new chat when the conversation is gone', async () => {
    const { FakeBackend } = await import('../backend/fake');
    const { Stores } = await import('./root.svelte');
    const be = new FakeBackend();
    be.providers = [{ id: 'p1', name: 'Cerebras', preset: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', defaultModel: 'm1', hasKey: true, keyFromEnv: '' }];
    rememberConversation('deleted');
    const s = new Stores(be, { schedule: (f: () => void) => f() });
    await s.start();
    expect(s.chat.conversationId).toBeNull();
    expect(s.notice).toBe('');
  });
});

import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import ChatView from './ChatView.svelte';
import { fakeMessage } from '../../backend/fake';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

async function setup() {
  const t = await startedStores((be) => {
    be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(Date.now()), updatedAt: iso(Date.now())}];
    be.messages = {
      c1: [
        fakeMessage({ id: 1, seq: 1, role: 'user', content: 'hi <b>there</b>' }),
        fakeMessage({ id: 2, seq: 2, role: 'assistant', content: 'See [docs](https://example.com)', meta: { model: 'gpt-oss-120b', timeToFirstTokenMs: 212, tokensPerSecond: 1834.4 } }),
      ],
    };
  });
  render(ChatView, { context: t.context });
  await t.s.chat.open('c1');
  await settle();
  return t;
}

describe('chat view', () => {
  it('shows messages with their role, stats under a reply, and raw HTML as text', async () => {
    await setup();
    const msgs = screen.getAllByTestId('message');
    expect(msgs.map((m) => m.dataset.role)).toEqual(['user', 'assistant']);
    expect(within(msgs[0]).getByTestId('message-text').textContent).toBe('hi <b>there</b>');
    expect(msgs[0].querySelector('b')).toBeNull();
    expect(screen.getByTestId('reply-stats').textContent).toBe('gpt-oss-120b · first token 212 ms · 1834.4 tok/s');
  });

  it('opens links in the system browser once confirmed when their text is not their URL', async () => {
    const { be, s } = await setup();
    await fireEvent.click(screen.getAllByTestId('message')[1].querySelector('a')!);
    await settle();
    expect(be.callsOf('openURL')).toEqual([]);
    expect(s.pendingLink).toEqual({ url: 'https://example.com', text: 'docs' });
    await s.confirmLink();
    expect(be.callsOf('openURL')).toEqual([['https://example.com']]);
    expect(s.pendingLink).toBeNull();
  });

  it('Enter sends, Shift+Enter does not, Escape stops', async () => {
    const { be, s } = await setup();
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;
    await fireEvent.input(input, { target: { value: 'line one' } });
    await fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(be.callsOf('send')).toEqual([]);
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(be.callsOf('send')).toEqual([['c1', 'line one']]);
    expect(input.value).toBe('');
    be.emit('chat:status', { conversationId: 'c1', state: 'streaming' });
    await settle();
    expect(screen.getByTestId('stop')).toBeTruthy();
    expect(screen.queryByTestId('send')).toBeNull();
    await fireEvent.keyDown(input, { key: 'Escape' });
    await settle();
    expect(be.callsOf('stop')).toEqual([['c1']]);
    expect(s.chat.stopping).toBe(true);
  });

  it('streams a reply into the list', async () => {
    const { be, frames } = await setup();
    be.emit('chat:message', fakeMessage({ id: 3, seq: 3, role: 'assistant', status: 'streaming' }));
    be.emit('chat:delta', { conversationId: 'c1', messageId: 3, content: '# Title\n\nSome ' });
    be.emit('chat:delta', { conversationId: 'c1', messageId: 3, content: '**bold** text' });
    frames.run();
    await settle();
    const last = screen.getAllByTestId('message').at(-1)!;
    expect(last.dataset.status).toBe('streaming');
    expect(last.querySelector('h1')!.textContent).toBe('Title');
    expect(last.querySelector('strong')!.textContent).toBe('bold');
  });

  it('shows tool calls inline with a live status, and result images', async () => {
    vi.useFakeTimers();
    const { be } = await setup();
    be.emit('chat:message', fakeMessage({ id: 3, seq: 3, role: 'assistant', status: 'streaming', toolCalls: [{ id: 'call_1', name: 'shots__grab', arguments: '{"w":10}' }] }));
    const ev = { id: 'r1', callId: 'call_1', conversationId: 'c1', messageId: 3, serverId: 'shots', serverName: 'Shots', tool: 'grab' };
    be.emit('approval:requested', { id: 'r1', conversationId: 'c1', serverId: 'shots', tool: 'grab', serverName: 'Shots', description: '', fingerprint: '', arguments: { w: 10 } });
    be.emit('chat:toolcall', { ...ev, status: 'waiting_approval' });
    await settle();
    const card = screen.getByTestId('toolcall');
    expect(card.dataset.status).toBe('waiting_approval');
    expect(within(card).getByTestId('toolcall-status').textContent).toBe('Waiting for your approval');
    be.emit('approval:resolved', { id: 'r1', outcome: { allowed: true, decision: 'allow_once', decidedBy: 'user' } });
    be.emit('chat:toolcall', { ...ev, status: 'running', progress: { progress: 1, total: 4 } });
    await settle();
    expect(card.dataset.status).toBe('running');
    expect(within(card).getByTestId('toolcall-status').textContent).toMatch(/^Running .* — 25%/);
    // The event ends the call; the whole result comes with the audit record.
    be.toolCallRecords.c1 = [{
      ...ev, arguments: '{"w":10}', status: 'done', decision: 'allow_once', decidedBy: 'user', isError: false, error: '',
      requestedAt: iso(1), durationMs: 1530,
      result: { content: [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'text', text: '<script>x</script>' }] },
    }];
    be.emit('chat:toolcall', { ...ev, status: 'done', durationMs: 1530, resultText: '[image]' });
    await vi.advanceTimersByTimeAsync(300); // the record is fetched 250 ms after the end
    await settle();
    expect(card.dataset.status).toBe('done');
    expect(within(card).getByTestId('toolcall-status').textContent).toBe('Done in 1.5 s');
    const img = within(card).getByTestId('tool-image') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(card.querySelector('script')).toBeNull();
    expect(within(card).getByTestId('tool-result').textContent).toContain('<script>x</script>');
  });

  it('a failed reply says why and retries with Regenerate', async () => {
    const { be } = await setup();
    be.emit('chat:message', fakeMessage({ id: 3, seq: 3, role: 'user', content: 'again' }));
    be.emit('chat:message', fakeMessage({ id: 4, seq: 4, role: 'assistant', status: 'streaming' }));
    be.emit('chat:done', { conversationId: 'c1', runId: 'r', status: 'error', error: 'the provider is rate limiting requests; wait a moment and try again' });
    await settle();
    expect(screen.getByTestId('message-error').textContent).toContain('rate limiting');
    await fireEvent.click(screen.getByTestId('retry'));
    await settle();
    expect(be.callsOf('regenerate')).toEqual([['c1']]);
  });

  it('shows a rate-limit countdown', async () => {
    const { be } = await setup();
    be.emit('chat:status', { conversationId: 'c1', state: 'retrying', retryInMs: 5000 });
    await settle();
    expect(screen.getByTestId('chat-status').textContent).toMatch(/Rate limited by the provider, retrying in [45] s/);
  });

  it('edits and resends a message', async () => {
    const { be } = await setup();
    await fireEvent.click(screen.getByTestId('edit-message'));
    const edit = screen.getByTestId('edit-input');
    await fireEvent.input(edit, { target: { value: 'hello instead' } });
    await fireEvent.keyDown(edit, { key: 'Enter' });
    await settle();
    expect(be.callsOf('editAndResend')).toEqual([['c1', 1, 'hello instead']]);
  });

  it('searches messages and marks matches without HTML', async () => {
    vi.useFakeTimers();
    const { be } = await setup();
    be.searchHits = [{ conversationId: 'c1', conversationTitle: 'One', role: 'user', messageId: 1, seq: 1, createdAt: iso(1), snippet: [{ text: '<i>x</i> ' }, { text: 'hi', match: true }] }];
    await fireEvent.input(screen.getByTestId('search-input'), { target: { value: 'hi' } });
    await vi.advanceTimersByTimeAsync(300); // past the search's debounce
    await settle();
    const hit = screen.getByTestId('search-hit');
    expect(hit.querySelector('mark')!.textContent).toBe('hi');
    expect(hit.querySelector('i')).toBeNull();
  });
});

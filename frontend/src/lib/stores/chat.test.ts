import { describe, expect, it, vi } from 'vitest';
import { FakeBackend, fakeMessage } from '../backend/fake';
import type { ChatToolCallEvent, ToolCallRecord } from '../backend';
import { manualFrames, settle } from '../test/helpers';
import { ChatStore } from './chat.svelte';
import { ConversationsStore } from './conversations.svelte';

const iso = (ms: number) => new Date(ms).toISOString();

function setup() {
  const be = new FakeBackend();
  be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1)}];
  be.messages = {
    c1: [
      fakeMessage({ id: 1, seq: 1, role: 'user', content: 'hi' }),
      fakeMessage({ id: 2, seq: 2, role: 'assistant', content: 'hello' }),
    ],
  };
  const frames = manualFrames();
  const conv = new ConversationsStore(be);
  const chat = new ChatStore(be, conv, { schedule: frames.schedule, pageSize: 50 });
  chat.start();
  return { be, frames, conv, chat };
}

const record = (r: Partial<ToolCallRecord>): ToolCallRecord => ({
  id: 'r1',
  callId: 'call_1',
  conversationId: 'c1',
  messageId: 4,
  serverId: 'files',
  serverName: 'Files',
  tool: 'read_file',
  arguments: '{"path":"/tmp/a"}',
  status: 'pending',
  decision: '',
  decidedBy: '',
  result: null,
  isError: false,
  error: '',
  requestedAt: iso(1),
  durationMs: 0,
  ...r,
});

describe('ChatStore', () => {
  it('opens a conversation with its latest page', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    expect(chat.visible.map((m) => m.content)).toEqual(['hi', 'hello']);
    expect(be.callsOf('getMessages')).toEqual([['c1', 0, 50]]);
    expect(chat.hasOlder).toBe(false);
  });

  it('applies deltas in order, coalesced into one frame', async () => {
    const { chat, be, frames } = setup();
    await chat.open('c1');
    be.emit('chat:message', fakeMessage({ id: 3, seq: 3, role: 'user', content: 'more' }));
    be.emit('chat:message', fakeMessage({ id: 4, seq: 4, role: 'assistant', status: 'streaming' }));
    for (const piece of ['Hel', 'lo', ', ', 'world']) be.emit('chat:delta', { conversationId: 'c1', messageId: 4, content: piece });
    be.emit('chat:delta', { conversationId: 'c1', messageId: 4, reasoning: 'hmm' });

    expect(frames.pending).toBe(1); // one frame for five deltas
    expect(chat.messages.at(-1)!.content).toBe('');
    frames.run();
    expect(chat.messages.at(-1)!.content).toBe('Hello, world');
    expect(chat.messages.at(-1)!.reasoning).toBe('hmm');
    expect(chat.running).toBe(true);
  });

  it('applies waiting deltas before any other event', async () => {
    const { chat, be, frames } = setup();
    await chat.open('c1');
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'streaming' }));
    be.emit('chat:delta', { conversationId: 'c1', messageId: 4, content: 'partial' });
    // A streaming snapshot with less text must not lose the delta...
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'streaming', content: 'par' }));
    expect(chat.messages.at(-1)!.content).toBe('partial');
    // ...and the final message replaces it.
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'done', content: 'partial answer' }));
    frames.run();
    expect(chat.messages.at(-1)!.content).toBe('partial answer');
  });

  it('keeps a delta that arrives before its message', async () => {
    const { chat, be, frames } = setup();
    await chat.open('c1');
    be.emit('chat:delta', { conversationId: 'c1', messageId: 9, content: 'early' });
    frames.run();
    expect(chat.visible.at(-1)).toMatchObject({ id: 9, role: 'assistant', content: 'early', status: 'streaming' });
  });

  it('ignores deltas of another conversation', async () => {
    const { chat, be, frames } = setup();
    await chat.open('c1');
    be.emit('chat:delta', { conversationId: 'other', messageId: 2, content: 'nope' });
    frames.run();
    expect(chat.messages.find((m) => m.id === 2)!.content).toBe('hello');
  });

  it('ends a turn on chat:done, marks an error and fetches the stored messages', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'streaming' }));
    expect(chat.running).toBe(true);
    be.messages.c1.push(fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'error', error: 'the provider refused the API key' }));
    be.emit('chat:done', { conversationId: 'c1', runId: 'r', status: 'error', error: 'the provider refused the API key' });
    await settle();
    expect(chat.running).toBe(false);
    expect(chat.visible.at(-1)).toMatchObject({ status: 'error', error: 'the provider refused the API key' });
    expect(be.callsOf('getMessages').length).toBe(2);
  });

  it('shows the rate-limit status of the open conversation', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:status', { conversationId: 'c1', state: 'retrying', message: 'rate limited, retrying in 5 s', retryInMs: 5000 });
    expect(chat.status).toMatchObject({ state: 'retrying', retryInMs: 5000 });
    expect(chat.running).toBe(true);
    be.emit('chat:status', { conversationId: 'c1', state: 'idle' });
    expect(chat.status).toBeUndefined();
  });

  it('sends from a draft: creates the conversation first, with the chosen tools', async () => {
    const { chat, be, conv } = setup();
    chat.openDraft('p1', 'm1');
    await chat.setTools({ only: ['files__read_file'] });
    expect(await chat.send('  hello  ')).toBe(true);
    expect(be.callsOf('newConversation')).toEqual([['p1', 'm1']]);
    const id = chat.conversationId!;
    expect(be.callsOf('setConversationTools')).toEqual([[id, { only: ['files__read_file'] }]]);
    expect(be.callsOf('send')).toEqual([[id, 'hello']]);
    expect(conv.byId(id)).toBeTruthy();
  });

  it('reports a failed send and stops running', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.failures.send = 'no provider configured; add one in Settings → Providers';
    expect(await chat.send('x')).toBe(false);
    expect(chat.actionError).toContain('add one in Settings');
    expect(chat.running).toBe(false);
  });

  it('loads older pages and knows when there are none', async () => {
    const { chat, be } = setup();
    be.messages.c1 = Array.from({ length: 120 }, (_, i) => fakeMessage({ id: i + 1, seq: i + 1, role: i % 2 ? 'assistant' : 'user', content: `m${i + 1}` }));
    await chat.open('c1');
    expect(chat.messages.length).toBe(50);
    expect(chat.hasOlder).toBe(true);
    expect(await chat.loadOlder()).toBe(true);
    expect(chat.messages[0].seq).toBe(21);
    expect(await chat.loadOlder()).toBe(true);
    expect(chat.messages.length).toBe(120);
    expect(chat.hasOlder).toBe(false);
    expect(await chat.loadOlder()).toBe(false);
    expect(chat.messages.map((m) => m.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  });

  it('reveals a search hit by loading pages until it is there', async () => {
    const { chat, be } = setup();
    be.messages.c1 = Array.from({ length: 200 }, (_, i) => fakeMessage({ id: i + 1, seq: i + 1, role: 'user' }));
    await chat.open('c1');
    expect(await chat.reveal(7)).toBe(true);
    expect(chat.highlight).toBe(7);
  });

  it('shows tool calls as cards with a live status', async () => {
    vi.useFakeTimers();
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'streaming', toolCalls: [{ id: 'call_1', name: 'files__read_file', arguments: '{}' }] }));
    const msg = () => chat.messages.find((m) => m.id === 4)!;
    expect(chat.toolCalls(msg()).map((v) => v.status)).toEqual(['pending']);
    // Events carry no arguments, no times and only the start of the result.
    const ev = (r: Partial<ChatToolCallEvent>): ChatToolCallEvent => ({
      id: 'r1', callId: 'call_1', conversationId: 'c1', messageId: 4, serverId: 'files', serverName: 'Files', tool: 'files__read_file', status: 'pending', ...r,
    });
    be.emit('chat:toolcall', ev({ status: 'pending' }));
    expect(chat.toolCalls(msg())).toMatchObject([{ status: 'pending', tool: 'files__read_file', serverName: 'Files', arguments: '{}' }]);
    be.emit('chat:toolcall', ev({ status: 'waiting_approval' }));
    expect(chat.toolCalls(msg())[0].status).toBe('waiting_approval');
    be.emit('chat:toolcall', ev({ status: 'running', progress: { progress: 1, total: 2 } }));
    expect(chat.toolCalls(msg())[0]).toMatchObject({ status: 'running', record: { progress: { progress: 1 } } });
    expect(Date.parse(chat.toolCalls(msg())[0].record!.startedAt!)).toBeGreaterThan(0);
    be.toolCallRecords.c1 = [record({ status: 'done', durationMs: 40, result: { content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] } })];
    be.emit('chat:toolcall', ev({ status: 'done', durationMs: 40, resultText: '[image: image/png, 3 bytes]' }));
    expect(chat.toolCalls(msg())).toMatchObject([{ status: 'done', resultText: '[image: image/png, 3 bytes]', record: { durationMs: 40, progress: undefined } }]);
    await vi.advanceTimersByTimeAsync(300); // the whole result is fetched 250 ms after the end
    expect(chat.toolCalls(msg())[0].record!.result!.content[0].type).toBe('image');
    be.emit('chat:toolcall', ev({ status: 'denied' }));
    expect(chat.toolCalls(msg())[0].status).toBe('denied');
  });

  it('loads the tool-call records with the conversation', async () => {
    const { chat, be } = setup();
    be.messages.c1.push(fakeMessage({ id: 4, seq: 3, role: 'assistant', toolCalls: [{ id: 'call_1', name: 'files__read_file', arguments: '{"path":"/tmp/a"}' }] }));
    be.toolCallRecords.c1 = [record({ status: 'done', durationMs: 12, result: { content: [{ type: 'text', text: 'contents' }] } })];
    await chat.open('c1');
    await settle();
    expect(chat.toolCalls(chat.visible[2])).toMatchObject([{ status: 'done', arguments: '{"path":"/tmp/a"}', record: { result: { content: [{ text: 'contents' }] } } }]);
  });

  it('drops truncated messages, follows titles and warnings', async () => {
    const { chat, be, conv } = setup();
    await conv.load();
    await chat.open('c1');
    be.emit('chat:truncated', { conversationId: 'c1', afterSeq: 1 });
    expect(chat.messages.map((m) => m.seq)).toEqual([1]);
    be.emit('chat:conversation', { id: 'c1', title: 'Weather in Paris', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(2)});
    expect(conv.byId('c1')!.title).toBe('Weather in Paris');
    be.emit('chat:warning', { conversationId: 'c1', message: '140 tools offered; the provider takes at most 128' });
    expect(chat.warning).toContain('140 tools');
    chat.dismissWarning();
    expect(chat.warning).toBe('');
  });

  it('a run ending without a message id ends what still streams', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:message', fakeMessage({ id: 4, seq: 3, role: 'assistant', status: 'streaming', content: 'half' }));
    be.emit('chat:status', { conversationId: 'c1', state: 'error', message: 'boom' });
    expect(chat.status).toBeUndefined();
    be.emit('chat:done', { conversationId: 'c1', runId: 'r', status: 'stopped' });
    await settle();
    expect(chat.messages.find((m) => m.id === 4)!.status).toBe('stopped');
    expect(chat.actionError).toBe('');
  });

  it('an error without a failed message shows as a banner', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:done', { conversationId: 'c1', runId: 'r', status: 'error', error: 'no provider configured' });
    await settle();
    expect(chat.actionError).toBe('no provider configured');
  });


  it('falls back to the tool message when there is no audit record', async () => {
    const { chat, be } = setup();
    be.messages.c1.push(
      fakeMessage({ id: 3, seq: 3, role: 'assistant', toolCalls: [{ id: 'call_9', name: 'files__ls', arguments: '{}' }] }),
      fakeMessage({ id: 4, seq: 4, role: 'tool', toolCallId: 'call_9', content: 'a.txt' }),
    );
    await chat.open('c1');
    expect(chat.visible.map((m) => m.id)).toEqual([1, 2, 3]); // the tool message is folded into the card
    expect(chat.toolCalls(chat.visible[2])).toMatchObject([{ status: 'done', tool: 'files__ls', resultText: 'a.txt' }]);
  });

  it('regenerates: drops the last reply and asks again', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    await chat.regenerate();
    expect(be.callsOf('regenerate')).toEqual([['c1']]);
    expect(chat.visible.map((m) => m.id)).toEqual([1]);
    expect(chat.running).toBe(true);
  });

  it('edits and resends: replaces the text and drops what followed', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    expect(await chat.editAndResend(1, 'hi again')).toBe(true);
    expect(be.callsOf('editAndResend')).toEqual([['c1', 1, 'hi again']]);
    expect(chat.visible.map((m) => m.content)).toEqual(['hi again']);
  });

  it('stops the running turn', async () => {
    const { chat, be } = setup();
    await chat.open('c1');
    be.emit('chat:status', { conversationId: 'c1', state: 'streaming' });
    await chat.stop();
    expect(be.callsOf('stop')).toEqual([['c1']]);
    expect(chat.stopping).toBe(true);
    be.emit('chat:done', { conversationId: 'c1', runId: 'r', status: 'stopped' });
    expect(chat.running).toBe(false);
    expect(chat.stopping).toBe(false);
  });

  it('unsubscribes on dispose', () => {
    const { chat, be } = setup();
    expect(be.listeners('chat:delta')).toBe(1);
    chat.dispose();
    expect(be.listeners('chat:delta')).toBe(0);
    expect(be.listeners('chat:done')).toBe(0);
  });
});

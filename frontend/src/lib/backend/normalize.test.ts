import { describe, expect, it } from 'vitest';
import { conversation, eventPayload, message, parseSnippet, policy, searchHit, toMs, toolCall } from './normalize';

describe('normalize', () => {
  it('turns Go times into ms, and the zero time into 0', () => {
    expect(toMs('2026-01-02T03:04:05.5Z')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 500));
    expect(toMs('0001-01-01T00:00:00Z')).toBe(0);
    expect(toMs(1234)).toBe(1234);
    expect(toMs(undefined)).toBe(0);
  });

  it('splits a [[marked]] snippet into parts, and passes store parts through', () => {
    expect(parseSnippet('a [[b]] c [[d]]')).toEqual([{ text: 'a ' }, { text: 'b', match: true }, { text: ' c ' }, { text: 'd', match: true }]);
    expect(parseSnippet('<b>no html</b>')).toEqual([{ text: '<b>no html</b>' }]);
    expect(parseSnippet([{ text: 'x', match: true }])).toEqual([{ text: 'x', match: true }]);
    expect(searchHit({ conversationId: 'c', conversationTitle: 'T', messageId: 4, seq: 2, snippet: 'x', createdAt: '2026-01-01T00:00:00Z' })).toMatchObject({ title: 'T', seq: 2 });
  });

  it('reads a store message: raw JSON fields, Go durations', () => {
    const m = message({
      id: 7,
      conversationId: 'c',
      seq: 3,
      role: 'assistant',
      content: 'hi',
      toolCalls: [{ id: 'call_0', name: 'f__x', arguments: '{}' }],
      status: '',
      meta: { model: 'm', timeToFirstTokenMs: 250, tokensPerSecond: 99, note: 'toolRoundsLimit' },
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(m).toMatchObject({ status: 'done', meta: { model: 'm', ttftMs: 250, tokensPerSecond: 99, note: 'toolRoundsLimit' }, toolCalls: [{ id: 'call_0', name: 'f__x' }] });
    expect(message({ toolCalls: null, meta: null }).meta).toBeNull();
  });

  it('reads a store.ToolCall and a chat.ToolCallEvent into one shape', () => {
    const stored = toolCall({
      id: 'r', callId: 'call_1', conversationId: 'c', messageId: 4, serverId: 's', serverName: 'S', tool: 's__t', arguments: '{"a":1}',
      status: 'done', result: { content: [{ type: 'text', text: 'hi' }] }, requestedAt: '2026-01-01T00:00:00Z', startedAt: '0001-01-01T00:00:00Z', durationMs: 5,
    });
    expect(stored).toMatchObject({ callId: 'call_1', arguments: '{"a":1}', result: { content: [{ text: 'hi' }] }, startedAt: 0, resultText: undefined });
    expect(toolCall({ id: 'r', callId: 'x', result: 'plain text' }).result).toEqual({ content: [{ type: 'text', text: 'plain text' }] });
    const ev = toolCall({ conversationId: 'c', messageId: 4, id: 'r', toolCallId: 'call_1', tool: 's__t', server: 'S', status: 'failed', result: 'the start…', error: 'boom', durationMs: 9 });
    expect(ev).toMatchObject({ callId: 'call_1', serverName: 'S', status: 'failed', resultText: 'the start…', result: null, arguments: '', error: 'boom' });
    expect(eventPayload['chat:message']({ id: 1, conversationId: 'c', role: 'user' })).toMatchObject({ conversationId: 'c', message: { id: 1 } });
    expect(eventPayload['chat:message']({ conversationId: 'c', message: { id: 2, role: 'user' } })).toMatchObject({ conversationId: 'c', message: { id: 2, conversationId: 'c' } });
    expect(eventPayload['chat:status']({ conversationId: 'c', state: 'retrying', message: 'rate limited, retrying in 5 s' })).toMatchObject({ retryInMs: 5000 });
    expect(eventPayload['chat:status']({ conversationId: 'c', state: 'tools' })).toEqual({ conversationId: 'c', state: 'tools' });
    expect(eventPayload['chat:truncated']({ conversationId: 'c', afterSeq: 3 })).toEqual({ conversationId: 'c', afterSeq: 3 });
    expect(eventPayload['log:append']({ source: 'files', lines: null, skipped: 12 })).toEqual({ source: 'files', lines: [], skipped: 12 });
    expect(eventPayload['chat:done']({ conversationId: 'c', error: 'boom' })).toMatchObject({ status: 'error', error: 'boom' });
  });

  it('reads conversations and the policy', () => {
    expect(conversation({ id: 'c', updatedAt: '2026-01-01T00:00:00Z', tools: null, systemPrompt: '' })).toMatchObject({ tools: null, systemPrompt: '' });
    expect(conversation({ id: 'c', tools: { only: ['a', 'b'] } }).tools).toEqual({ only: ['a', 'b'] });
    expect(conversation({ id: 'c', tools: { only: null, off: ['x'] } }).tools).toEqual({ only: null, off: ['x'] });
    expect(conversation({ id: 'c', tools: {} }).tools).toBeNull();
    expect(conversation({ id: 'c' }).tools).toBeUndefined();
    expect(policy({ yolo: true, grants: null })).toEqual({ yolo: true, grants: [] });
  });
});

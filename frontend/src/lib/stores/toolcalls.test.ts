import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import { fakeMessage } from '../backend/fake';
import type { ToolCallRecord } from '../backend';
import ToolCallCard from '../components/chat/ToolCallCard.svelte';
import { startedStores } from '../test/helpers';
import { innerArguments, toolCallViews } from './toolcalls';

const record = (r: Partial<ToolCallRecord> & Pick<ToolCallRecord, 'id' | 'callId' | 'tool'>): ToolCallRecord => ({
  conversationId: 'c1', messageId: 2, serverId: 'github', serverName: 'GitHub', arguments: '', status: 'waiting_approval', decision: '', decidedBy: '',
  result: null, isError: false, error: '', requestedAt: new Date().toISOString(), durationMs: 0, ...r,
});

describe('tool calls through tool search', () => {
  const reply = fakeMessage({
    id: 2, seq: 2, role: 'assistant',
    toolCalls: [
      { id: 's1', name: 'search_tools', arguments: '{"query":"create a github issue"}' },
      { id: 'c1', name: 'call_tool', arguments: '{"name":"github__create_issue","arguments":{"title":"Crash"}}' },
      { id: 'd1', name: 'github__get_issue', arguments: '{"issue_number":1}' },
    ],
  });
  const answers = new Map([['s1', fakeMessage({ id: 3, seq: 3, role: 'tool', toolCallId: 's1', content: '{"tools":[]}' })]]);

  it('shows the real tool with its own arguments, marked via tool search, and the search by its query', () => {
    // Live events carry no arguments: the card takes the tool's own from call_tool's.
    const views = toolCallViews(reply, [record({ id: 'r1', callId: 'c1', tool: 'github__create_issue' }), record({ id: 'r2', callId: 'd1', tool: 'github__get_issue' })], answers);
    expect(views.map((v) => [v.tool, v.arguments, !!v.via, v.search])).toEqual([
      ['github__create_issue', '{"title":"Crash"}', true, undefined],
      ['github__get_issue', '{"issue_number":1}', false, undefined],
      ['search_tools', '{"query":"create a github issue"}', false, 'create a github issue'],
    ]);
    // A refused call_tool (no such tool) keeps its own name and arguments.
    const refused = toolCallViews(reply, [record({ id: 'r3', callId: 'c1', tool: 'call_tool', serverId: '', status: 'failed', arguments: '{"name":"x"}' })], answers);
    expect([refused[0].tool, refused[0].via, refused[0].arguments]).toEqual(['call_tool', false, '{"name":"x"}']);
  });

  it('reads call_tool arguments given as an object, a string or not at all', () => {
    expect(innerArguments('{"name":"a","arguments":{"x":1}}')).toBe('{"x":1}');
    expect(innerArguments('{"name":"a","arguments":"{\\"x\\":1}"}')).toBe('{"x":1}');
    expect(innerArguments('{"name":"a","arguments":null}')).toBe('{}');
    expect(innerArguments('not json')).toBe('not json');
  });

  it('the card says "via tool search" for a found tool, and names a search "Tool search" with its query', async () => {
    const t = await startedStores();
    const [viaView, , searchView] = toolCallViews(reply, [record({ id: 'r1', callId: 'c1', tool: 'github__create_issue' }), record({ id: 'r2', callId: 'd1', tool: 'github__get_issue' })], answers);
    const { unmount } = render(ToolCallCard, { props: { view: viaView, openURL: () => {} }, context: t.context });
    let card = screen.getByTestId('toolcall');
    expect(within(card).getByTestId('toolcall-via').textContent).toBe('via tool search');
    expect(card.dataset.tool).toBe('github__create_issue');
    unmount();
    render(ToolCallCard, { props: { view: searchView, openURL: () => {} }, context: t.context });
    card = screen.getByTestId('toolcall');
    expect(within(card).getByText('Tool search')).toBeTruthy();
    expect(within(card).getByTestId('toolcall-search-query').textContent).toBe('“create a github issue”');
    expect(within(card).queryByTestId('toolcall-via')).toBeNull();
  });
});

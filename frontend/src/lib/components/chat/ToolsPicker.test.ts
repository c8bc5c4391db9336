import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ToolsPicker from './ToolsPicker.svelte';
import type { ServerView, Tool } from '../../backend';
import { settle, startedStores } from '../../test/helpers';

const iso = (ms: number) => new Date(ms).toISOString();

const tool = (serverId: string, originalName: string, name: string): Tool => ({
  name,
  serverId,
  serverName: serverId,
  originalName,
  description: `${serverId}'s ${originalName}`,
  inputSchema: { type: 'object' },
  enabled: true,
});

const server = (id: string, tools: Tool[]): ServerView => ({
  config: { id, name: id, transport: 'stdio', command: id, enabled: true },
  status: { serverId: id, state: 'connected', toolCount: tools.length },
  tools,
});

async function setup(tools: ServerView[], stored: unknown = null) {
  const t = await startedStores((be) => {
    be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: iso(1), updatedAt: iso(1), tools: stored as never }];
    be.servers = tools;
  });
  await t.s.chat.open('c1');
  render(ToolsPicker, { context: t.context });
  await settle();
  await fireEvent.click(screen.getByTestId('tools-picker'));
  await settle();
  return t;
}

const option = (name: string) => screen.getAllByTestId('tool-option').find((el) => el.dataset.tool === name) as HTMLInputElement;

describe('ToolsPicker', () => {
  it('switches a tool off by server and original name, not by its exposed name', async () => {
    const { be } = await setup([server('a', [tool('a', 'record', 'a__record')]), server('b', [tool('b', 'record', 'b__record')])]);
    await fireEvent.click(option('a__record'));
    await settle();
    expect(be.callsOf('setConversationTools')).toEqual([['c1', { only: null, off: ['a/record'] }]]);
    expect(option('a__record').checked).toBe(false);
    expect(option('b__record').checked).toBe(true);
  });

  it('shows a selection stored as exposed names, and rewrites it in keys on a change', async () => {
    const { be } = await setup([server('a', [tool('a', 'x', 'a__x'), tool('a', 'y', 'a__y')])], { only: ['a__x'] });
    expect(option('a__x').checked).toBe(true);
    expect(option('a__y').checked).toBe(false);
    await fireEvent.click(option('a__y'));
    await settle();
    expect(be.callsOf('setConversationTools')).toEqual([['c1', { only: ['a/x', 'a/y'] }]]);
  });

  it("leaves out a tool its server meant for its own view (never offered to a model)", async () => {
    await setup([server('v', [tool('v', 'show', 'v__show'), { ...tool('v', 'draw', 'v__draw'), appOnly: true }])]);
    expect(screen.getAllByTestId('tool-option').map((el) => el.dataset.tool)).toEqual(['v__show']);
    expect(screen.getByTestId('tools-picker').textContent).toContain('all (1)');
  });
});

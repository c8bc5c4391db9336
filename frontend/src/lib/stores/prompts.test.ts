import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { ServerView } from '../backend';
import { PromptsStore, filterPrompts, type PromptEntry } from './prompts.svelte';
import { settle } from '../test/helpers';

const srv = (id: string, prompts: boolean, state: ServerView['status']['state'] = 'connected'): ServerView => ({
  config: { id, name: id.toUpperCase(), transport: 'stdio', command: 'x', enabled: true },
  status: { serverId: id, state, toolCount: 0, connectedAt: 't1', offers: prompts ? { prompts: true } : {} },
  tools: [],
});

describe('PromptsStore', () => {
  it('lists the prompts of the connected servers that offer them, in server order', async () => {
    const be = new FakeBackend();
    be.promptLists.a = { serverId: 'a', prompts: [{ name: 'review', arguments: [] }] };
    be.promptLists.c = { serverId: 'c', prompts: [{ name: 'args-prompt', title: 'Arguments', arguments: [{ name: 'city', required: true }] }] };
    let servers = [srv('a', true), srv('b', false), srv('c', true), srv('d', true, 'failed')];
    const s = new PromptsStore(be, () => servers);
    s.start();
    await s.loadAll();
    expect(be.callsOf('listPrompts')).toEqual([['a'], ['c']]);
    expect(s.entries.map((e) => `${e.serverName}/${e.prompt.name}`)).toEqual(['A/review', 'C/args-prompt']);
    await s.loadAll(); // loaded already
    expect(be.callsOf('listPrompts')).toHaveLength(2);

    be.emit('prompts:changed', { serverId: 'a' });
    await settle();
    expect(be.callsOf('listPrompts')).toHaveLength(3);
    // A new session of c: its prompts are asked for again.
    be.emit('server:status', { serverId: 'c', state: 'connected', toolCount: 0, connectedAt: 't2' });
    expect(s.of('c')).toBeUndefined();
    await s.loadAll();
    expect(be.callsOf('listPrompts')).toHaveLength(4);

    be.failures.listPrompts = 'listing prompts: C sent no answer within 1m0s';
    be.emit('server:status', { serverId: 'c', state: 'connected', toolCount: 0, connectedAt: 't3' });
    await s.loadAll();
    expect(s.errors).toEqual([{ serverName: 'C', error: 'listing prompts: C sent no answer within 1m0s' }]);

    servers = [srv('b', false)];
    expect(s.none).toBe(true);
    expect(s.entries).toEqual([]);
  });

  it('hands a prompt asked for in the Tools panel to the picker once', () => {
    const s = new PromptsStore(new FakeBackend(), () => []);
    const e: PromptEntry = { serverId: 'a', serverName: 'A', prompt: { name: 'p', arguments: [] } };
    s.request(e);
    expect(s.requested).toEqual(e);
    expect(s.take()).toEqual(e);
    expect(s.take()).toBeNull();
  });
});

describe('filterPrompts', () => {
  const e = (server: string, name: string, title = ''): PromptEntry => ({ serverId: server, serverName: server, prompt: { name, title, arguments: [] } });
  const list = [e('everything', 'simple-prompt', 'Simple Prompt'), e('everything', 'args-prompt', 'Arguments Prompt'), e('git', 'commit-message'), e('git', 'review-args')];

  it('keeps the entries with every word, name prefixes first', () => {
    expect(filterPrompts(list, '').map((x) => x.prompt.name)).toEqual(list.map((x) => x.prompt.name));
    expect(filterPrompts(list, 'args').map((x) => x.prompt.name)).toEqual(['args-prompt', 'review-args']);
    expect(filterPrompts(list, 'git args').map((x) => x.prompt.name)).toEqual(['review-args']);
    expect(filterPrompts(list, 'ARGUMENTS').map((x) => x.prompt.name)).toEqual(['args-prompt']);
    expect(filterPrompts(list, 'nothing')).toEqual([]);
  });
});

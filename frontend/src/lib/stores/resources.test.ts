import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import type { Attachment } from '../backend';
import { ResourcesStore } from './resources.svelte';
import { settle } from '../test/helpers';

const doc = 'demo://static/features.md';

function withResources(be: FakeBackend) {
  be.resourceLists.ev = {
    serverId: 'ev',
    resources: [{ uri: doc, name: 'features.md', mimeType: 'text/markdown' }],
    templates: [{ uriTemplate: 'demo://text/{id}', name: 'text', variables: ['id'] }],
    subscribed: [],
  };
  be.previews[`ev ${doc}`] = { serverId: 'ev', uri: doc, parts: [{ uri: doc, kind: 'text', text: '# Features', size: 10 }] };
  be.previews['ev demo://text/7'] = { serverId: 'ev', uri: 'demo://text/7', parts: [{ uri: 'demo://text/7', kind: 'text', text: 'Resource 7', size: 10 }] };
}

describe('ResourcesStore', () => {
  it('lists a server, follows a resource and counts its updates until it is previewed', async () => {
    const be = new FakeBackend();
    withResources(be);
    const s = new ResourcesStore(be);
    s.start();
    await s.load('ev', 't1');
    expect(s.of('ev')?.list?.resources.map((r) => r.uri)).toEqual([doc]);

    await s.toggleSubscribe('ev', doc);
    expect(be.callsOf('subscribeResource')).toEqual([['ev', doc]]);
    expect(s.subscribed('ev', doc)).toBe(true);
    be.emit('resource:updated', { serverId: 'ev', uri: doc });
    be.emit('resource:updated', { serverId: 'ev', uri: doc });
    expect(s.updates('ev', doc)).toBe(2);

    // Previewing it marks the updates seen; one while it is open says so there.
    await s.open('ev', doc, 'features.md');
    expect(s.updates('ev', doc)).toBe(0);
    expect(s.preview?.preview?.parts[0].text).toBe('# Features');
    be.emit('resource:updated', { serverId: 'ev', uri: doc });
    expect(s.preview?.updated).toBe(true);
    await s.reload();
    expect(s.preview?.updated).toBe(false);
    expect(be.callsOf('previewResource')).toHaveLength(2);

    await s.toggleSubscribe('ev', doc);
    expect(be.callsOf('unsubscribeResource')).toEqual([['ev', doc]]);
    expect(s.subscribed('ev', doc)).toBe(false);

    // The list is read again when the server says it changed, or reconnects.
    be.emit('resources:changed', { serverId: 'ev' });
    await settle();
    expect(be.callsOf('listResources')).toHaveLength(2);
    be.emit('server:status', { serverId: 'ev', state: 'connected', toolCount: 3, connectedAt: 't1' });
    await settle();
    expect(be.callsOf('listResources')).toHaveLength(2);
    be.emit('server:status', { serverId: 'ev', state: 'connected', toolCount: 3, connectedAt: 't2' });
    await settle();
    expect(be.callsOf('listResources')).toHaveLength(3);
    be.emit('server:status', { serverId: 'ev', state: 'disconnected', toolCount: 0 });
    expect(s.of('ev')).toBeUndefined();

    s.dispose();
    expect(be.listeners('resource:updated')).toBe(0);
  });

  it('attaches the previewed resource, a filled-in template, or an embedded block, and says why not', async () => {
    const be = new FakeBackend();
    withResources(be);
    const attached: Attachment[][] = [];
    const s = new ResourcesStore(be, { onAttach: (l) => attached.push(l) });
    s.start();

    await s.openTemplate('ev', 'demo://text/{id}', { id: '7' }, 'text');
    expect(s.preview?.uri).toBe('demo://text/7');
    expect(s.preview?.preview?.parts[0].text).toBe('Resource 7');
    expect(await s.attach()).toBe(true);
    expect(be.callsOf('attachResource')).toEqual([['ev', 'demo://text/7']]);
    expect(attached[0].map((a) => [a.name, a.serverId, a.uri])).toEqual([['7', 'ev', 'demo://text/7']]);
    expect(s.preview).toBeNull();

    const block = { type: 'resource', uri: 'demo://embedded/1', mimeType: 'text/plain', text: 'inline' };
    await s.openContent('ev', block);
    expect(s.preview?.content).toEqual(block);
    expect(s.preview?.preview?.parts[0].text).toBe('inline');
    expect(await s.attach()).toBe(true);
    expect(be.callsOf('attachContent')).toEqual([['ev', block]]);

    // A resource link is read from its server.
    await s.openContent('ev', { type: 'resource_link', uri: doc, name: 'features.md' });
    expect(s.preview?.title).toBe('features.md');
    expect(s.preview?.preview?.parts[0].text).toBe('# Features');

    be.failures.attachResource = 'too large to attach: the image x.png is 6 MiB; images can be at most 5 MiB';
    expect(await s.attach()).toBe(false);
    expect(s.preview?.error).toBe('Could not attach: too large to attach: the image x.png is 6 MiB; images can be at most 5 MiB');
    expect(attached).toHaveLength(2);

    await s.open('ev', 'demo://missing');
    expect(s.preview?.error).toMatch(/answered with an error/);
    s.close();
    expect(s.preview).toBeNull();
  });
});

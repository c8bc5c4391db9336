import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import type { ServerView } from '../../backend';
import ToolResultView from '../chat/ToolResultView.svelte';
import ResourcePreview from './ResourcePreview.svelte';
import ServerResources from './ServerResources.svelte';
import { settle, startedStores } from '../../test/helpers';

const doc = 'demo://resource/static/document/features.md';
const everything: ServerView = {
  config: { id: 'ev', name: 'Everything', transport: 'stdio', command: 'x', enabled: true },
  status: { serverId: 'ev', state: 'connected', toolCount: 0, connectedAt: 't1', offers: { resources: true, subscribe: true, completions: true } },
  tools: [],
};

const started = () =>
  startedStores((be) => {
    be.servers = [everything];
    be.resourceLists.ev = {
      serverId: 'ev',
      resources: [{ uri: doc, name: 'features.md', mimeType: 'text/markdown' }],
      templates: [{ uriTemplate: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic Text Resource', variables: ['resourceId'] }],
      subscribed: [],
    };
    be.previews[`ev ${doc}`] = { serverId: 'ev', uri: doc, parts: [{ uri: doc, mimeType: 'text/markdown', kind: 'text', text: '# Features\nText and more.', size: 26 }] };
    be.previews['ev demo://resource/dynamic/text/3'] = {
      serverId: 'ev',
      uri: 'demo://resource/dynamic/text/3',
      parts: [{ uri: 'demo://resource/dynamic/text/3', mimeType: 'application/json', kind: 'text', text: '{"id": 3, "tags": ["a"]}', size: 24 }],
    };
    be.completions = { resourceId: ['3', '30'] };
  });

// Issue 16, item 1: a server's resources and templates in the Tools
// panel, previewed, followed and attached to the next message.
describe('ServerResources', () => {
  it('previews a resource and attaches it to the message being written', async () => {
    const t = await started();
    render(ServerResources, { props: { server: everything }, context: t.context });
    render(ResourcePreview, { context: t.context });
    await fireEvent.click(screen.getByTestId('server-resources-toggle'));
    await settle();
    expect(screen.getAllByTestId('resource-row').map((r) => r.dataset.uri)).toEqual([doc]);

    await fireEvent.click(screen.getByTestId('resource-open'));
    await settle();
    expect(screen.getByTestId('resource-text').textContent).toContain('# Features');
    await fireEvent.click(screen.getByTestId('resource-attach'));
    await settle();
    expect(t.be.callsOf('attachResource')).toEqual([['ev', doc]]);
    expect(t.s.attachments.pending.map((a) => [a.name, a.uri])).toEqual([['features.md', doc]]);
    expect(t.s.ui.tab).toBe('chat');
    expect(screen.queryByTestId('resource-preview')).toBeNull();
  });

  it('follows a resource and shows that it changed', async () => {
    const t = await started();
    const view = render(ServerResources, { props: { server: everything }, context: t.context });
    await fireEvent.click(screen.getByTestId('server-resources-toggle'));
    await settle();
    await fireEvent.click(screen.getByTestId('resource-follow'));
    await settle();
    expect(t.be.callsOf('subscribeResource')).toEqual([['ev', doc]]);
    expect(screen.getByTestId('resource-follow').getAttribute('aria-pressed')).toBe('true');
    t.be.emit('resource:updated', { serverId: 'ev', uri: doc });
    t.be.emit('resource:updated', { serverId: 'ev', uri: doc });
    await settle();
    expect(screen.getByTestId('resource-changed').textContent).toBe('changed ×2');
    // Back from another tab, the list is still shown, and says so.
    view.unmount();
    render(ServerResources, { props: { server: everything }, context: t.context });
    expect(screen.getByTestId('resource-changed').textContent).toBe('changed ×2');
    expect(t.be.callsOf('listResources')).toHaveLength(1);
  });

  it('fills in a template with completion and previews JSON pretty', async () => {
    const t = await started();
    render(ServerResources, { props: { server: everything }, context: t.context });
    render(ResourcePreview, { context: t.context });
    await fireEvent.click(screen.getByTestId('server-resources-toggle'));
    await settle();
    await fireEvent.click(screen.getByTestId('template-open'));
    const field = screen.getByTestId('template-arg-field') as HTMLInputElement;
    await fireEvent.input(field, { target: { value: '3' } });
    await new Promise((r) => setTimeout(r, 200));
    await settle();
    expect(t.be.callsOf('completeArgument').at(-1)).toEqual(['ev', { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, 'resourceId', '3', {}]);
    expect(screen.getAllByTestId('template-arg-value').map((v) => v.textContent?.trim())).toEqual(['30']);
    await fireEvent.submit(screen.getByTestId('template-form'));
    await settle();
    expect(screen.getByTestId('resource-preview-uri').textContent).toBe('demo://resource/dynamic/text/3');
    // Pretty JSON, not the raw text.
    expect(screen.getByTestId('resource-text').textContent).toMatch(/"tags"/);
    expect(screen.getByTestId('resource-text').querySelector('pre')).toBeNull();
  });

  it("opens a tool result's resource link and embedded resource in the preview", async () => {
    const t = await started();
    const opened: unknown[] = [];
    render(ToolResultView, {
      props: {
        result: {
          content: [
            { type: 'resource_link', uri: doc, name: 'features.md' },
            { type: 'resource', uri: 'demo://embedded/1', mimeType: 'text/plain', text: 'inline' },
          ],
        },
        openURL: () => {},
        onresource: (c) => {
          opened.push(c);
          void t.s.resources.openContent('ev', c);
        },
      },
      context: t.context,
    });
    render(ResourcePreview, { context: t.context });
    await fireEvent.click(screen.getByTestId('tool-resource-link'));
    await settle();
    expect(screen.getByTestId('resource-text').textContent).toContain('# Features');
    t.s.resources.close();
    await fireEvent.click(screen.getByTestId('tool-resource-open'));
    await settle();
    expect(screen.getByTestId('resource-text').textContent).toContain('inline');
    await fireEvent.click(screen.getByTestId('resource-attach'));
    await settle();
    expect(t.be.callsOf('attachContent')).toEqual([['ev', { type: 'resource', uri: 'demo://embedded/1', mimeType: 'text/plain', text: 'inline' }]]);
    expect(opened).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import type { ServerView } from '../../backend';
import ServerResources from './ServerResources.svelte';
import ServerPrompts from '../prompts/ServerPrompts.svelte';
import Composer from '../chat/Composer.svelte';
import { settle, startedStores } from '../../test/helpers';

const hostile: ServerView = {
  config: { id: 'ev', name: 'Evil', transport: 'stdio', command: 'x', enabled: true },
  status: { serverId: 'ev', state: 'connected', toolCount: 0, connectedAt: 't1', offers: { resources: true, prompts: true, completions: true } },
  tools: [],
};

// A hostile server lists the same URI, template, prompt, argument or
// completion value twice (the backend keeps them as sent). Svelte throws on
// a keyed {#each} with a duplicate key, which would take the panel down.
describe('a server that repeats itself', () => {
  it('lists resources and templates with the same URI twice', async () => {
    const t = await startedStores((be) => {
      be.servers = [hostile];
      be.resourceLists.ev = {
        serverId: 'ev',
        resources: [
          { uri: 'x://a', name: 'one' },
          { uri: 'x://a', name: 'two' },
        ],
        templates: [
          { uriTemplate: 'x://t/{id}', name: 'T1', variables: ['id'] },
          { uriTemplate: 'x://t/{id}', name: 'T2', variables: ['id'] },
        ],
        subscribed: [],
      };
      be.completions = { id: ['3', '3', '30'] };
    });
    render(ServerResources, { props: { server: hostile }, context: t.context });
    await fireEvent.click(screen.getByTestId('server-resources-toggle'));
    await settle();
    expect(screen.getAllByTestId('resource-row').map((r) => r.textContent)).toEqual([expect.stringContaining('one'), expect.stringContaining('two')]);
    expect(screen.getAllByTestId('template-row')).toHaveLength(2);

    await fireEvent.click(screen.getAllByTestId('template-open')[0]);
    const field = screen.getAllByTestId('template-arg-field')[0] as HTMLInputElement;
    await fireEvent.input(field, { target: { value: '' } });
    await new Promise((r) => setTimeout(r, 200));
    await settle();
    expect(screen.getAllByTestId('template-arg-value').map((v) => v.textContent?.trim())).toEqual(['3', '3', '30']);
  });

  it('lists prompts and arguments with the same name twice', async () => {
    const t = await startedStores((be) => {
      be.servers = [hostile];
      be.promptLists.ev = {
        serverId: 'ev',
        prompts: [
          { name: 'p', title: 'First', arguments: [{ name: 'a' }, { name: 'a' }] },
          { name: 'p', title: 'Second', arguments: [] },
        ],
      };
    });
    render(ServerPrompts, { props: { server: hostile }, context: t.context });
    await fireEvent.click(screen.getByTestId('server-prompts-toggle'));
    await settle();
    expect(screen.getByTestId('server-prompts').textContent).toContain('Second');
  });

  it('offers prompts with the same name twice after "/", and their arguments', async () => {
    const t = await startedStores((be) => {
      be.conversations = [{ id: 'c1', title: 'One', providerId: 'p1', model: 'm1', createdAt: 't', updatedAt: 't' }];
      be.servers = [hostile];
      be.promptLists.ev = {
        serverId: 'ev',
        prompts: [
          { name: 'p', title: 'First', arguments: [{ name: 'a', required: true }, { name: 'a', required: true }] },
          { name: 'p', title: 'Second', arguments: [] },
        ],
      };
    });
    await t.s.chat.open('c1');
    render(Composer, { context: t.context });
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement;
    await fireEvent.input(input, { target: { value: '/' } });
    await settle();
    expect(screen.getAllByTestId('prompt-option').map((o) => o.textContent)).toEqual([expect.stringContaining('First'), expect.stringContaining('Second')]);
    await fireEvent.keyDown(input, { key: 'Enter' });
    await settle();
    expect(screen.getAllByTestId('prompt-arg-field')).toHaveLength(2);
  });
});

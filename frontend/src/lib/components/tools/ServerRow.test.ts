import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import ServerRow from './ServerRow.svelte';
import type { ServerView, Tool } from '../../backend';
import { settle, startedStores } from '../../test/helpers';

// A JSON Schema 2020-12 schema as a server sends it, and the copy models get.
const sent = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { item: { $ref: '#/$defs/item' }, customer: { $ref: 'https://example.com/x.json' } },
  $defs: { item: { $anchor: 'item', type: 'object', properties: { sku: { type: 'string' } } } },
  additionalProperties: false,
};
const cleaned = { type: 'object', properties: { item: { type: 'object', properties: { sku: { type: 'string' } } }, customer: {} }, additionalProperties: false };

const tool = (originalName: string, schema?: unknown): Tool => ({
  name: `shop__${originalName}`,
  serverId: 'shop',
  serverName: 'Shop',
  originalName,
  description: `Does ${originalName}.`,
  inputSchema: cleaned,
  schema,
  enabled: true,
});

const shop = (tools: Tool[]): ServerView => ({
  config: { id: 'shop', name: 'Shop', transport: 'http', url: 'https://shop.example/mcp', enabled: true },
  status: { serverId: 'shop', state: 'connected', toolCount: tools.length },
  tools,
});

async function setup(server: ServerView) {
  const t = await startedStores((be) => (be.servers = [server]));
  render(ServerRow, { context: t.context, props: { server, onedit: () => {} } });
  await fireEvent.click(screen.getByTestId('server-tools-toggle'));
  await settle();
  return t;
}

/** Opens the schema disclosure of the tool named name. */
async function openSchema(name: string) {
  const row = screen.getAllByTestId('tool-row').find((el) => el.dataset.tool === name)!;
  const details = row.querySelector('[data-testid="tool-schema"]') as HTMLDetailsElement;
  details.open = true;
  details.dispatchEvent(new Event('toggle'));
  await settle();
  return row;
}

describe('ServerRow', () => {
  it("shows a tool's schema as the server sent it, drawn only once opened", async () => {
    await setup(shop([tool('order', sent)]));
    expect(screen.queryByTestId('tool-schema-json')).toBeNull();
    const row = await openSchema('order');
    const text = row.querySelector('[data-testid="tool-schema-json"]')!.textContent!;
    for (const part of ['"$schema"', 'https://json-schema.org/draft/2020-12/schema', '"$defs"', '"$ref"', '"#/$defs/item"', '"$anchor"', 'https://example.com/x.json']) {
      expect(text).toContain(part);
    }
  });

  it('says why a schema is missing', async () => {
    await setup(shop([tool('huge')]));
    const row = await openSchema('huge');
    expect(row.querySelector('[data-testid="tool-schema-none"]')!.textContent).toContain('larger than 256 KiB');
    expect(row.querySelector('[data-testid="tool-schema-json"]')).toBeNull();
  });
});

// Connected apps in the browser: the user adds an app (its token shown
// once), shares a conversation with it from the chat's "Share…", sees the
// share in the app's details, turns the HTTP endpoint on from the view,
// and a real MCP client (the official TypeScript SDK, from Node) uses that
// endpoint with the token: it sees exactly the shared conversation, is
// refused the other, a turn it starts asks in the window as "<app> asks";
// the activity shows it all live, with filters; unshare and revoke cut it
// off at once. "Connect Claude Desktop" writes its config entry only
// after the user agrees, keeps the file's other entries, and the written
// entry starts a server that works; a VS Code file with comments is
// refused, with Copy offered.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './harness.mjs';
import { WAIT, approvalModal, bound, send, setTheme, turnDone, until, waitAttr, waitText } from './helpers.mjs';

const sdk = (p) => import(pathToFileURL(join(root, 'test/node/node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

/** An MCP client of the official SDK on the endpoint at url, with a bearer token. */
async function httpClient(url, token) {
  const c = new Client({ name: 'e2e-app', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

/** A tool's structured result (or its text parsed); throws with the text when the tool failed. */
async function call(c, name, args = {}) {
  const r = await c.callTool({ name, arguments: args });
  const text = r.content?.find((x) => x.type === 'text')?.text ?? '';
  if (r.isError) throw new Error(text || `${name} failed`);
  return r.structuredContent ?? JSON.parse(text);
}

/** The open conversation's ID, from the sidebar. */
async function openConversationId(page) {
  const item = page.locator('[data-testid=conversation].active');
  await item.waitFor({ timeout: WAIT });
  return item.getAttribute('data-id');
}

const row = (page, name) => page.locator(`[data-testid=client-row][data-name="${name}"]`);

export function register({ test, toolPage, shot }) {
  test('connected apps: add an app (token once), share a conversation, MCP over HTTP sees only it and asks in the window, activity filters, unshare and revoke cut it off', async () => {
    await toolPage(async (page) => {
      const origin = new URL(page.url()).origin;
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const name = `Research agent ${Date.now() % 100000}`;
      const clients = [];
      try {
        // Two conversations: one to share, one to keep private.
        await send(page, 'Private notes about my tax return');
        await turnDone(page);
        const privateId = await openConversationId(page);
        await send(page, 'Notes about the harbour lighthouse keeper');
        await turnDone(page);
        const sharedId = await openConversationId(page);
        assert.notEqual(privateId, sharedId);

        // Add the app: its token, once.
        await page.getByTestId('tab-apps').click();
        await page.getByTestId('clients-view').waitFor({ timeout: WAIT });
        if (await page.getByTestId('clients-empty').count()) await shot(page, 'clients-empty');
        await page.getByTestId('client-add').click();
        const add = page.getByTestId('client-add-dialog');
        await add.getByTestId('client-add-name').fill(name);
        await add.getByTestId('client-add-submit').click();
        const token = (await waitText(add.getByTestId('client-token'), /^sbc_/)).trim();
        assert.match(token, /^sbc_[A-Za-z0-9_-]{43}$/);
        assert.match(await add.getByTestId('client-token-note').textContent(), /will not be shown again/);
        await add.getByTestId('client-token-copy').click();
        await add.getByTestId('client-token-copied').waitFor({ timeout: WAIT });
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
        await page.mouse.move(0, 0);
        await shot(page, 'clients-token-once');
        await add.getByTestId('client-add-done').click();
        await add.waitFor({ state: 'detached', timeout: WAIT });
        const r = row(page, name);
        await r.waitFor({ timeout: WAIT });
        clients.push(name);
        assert.equal(await r.getByTestId('client-last-seen').textContent(), 'never connected');
        assert.ok(!(await page.evaluate(() => document.body.innerText)).includes(token), 'the token shows nowhere once the dialog closed');

        // Share the conversation from the chat's Share…: read, 7 days.
        await page.getByTestId('tab-chat').click();
        await page.locator(`[data-testid=conversation][data-id="${sharedId}"] button.open`).click();
        await page.getByTestId('share-chat').click();
        const share = page.getByTestId('share-dialog');
        await share.waitFor({ timeout: WAIT });
        assert.match(await share.getByTestId('share-none').textContent(), /not shared/);
        await share.getByTestId('share-client').selectOption({ label: name });
        await share.getByTestId('share-access-read').check();
        await share.getByTestId('share-expiry').selectOption({ label: 'After 7 days' });
        await share.getByTestId('share-submit').click();
        const grantRow = share.locator(`[data-testid=share-grant][data-client="${name}"]`);
        await waitText(grantRow, /Read.*expires in 7 days/s);
        await page.mouse.move(0, 0);
        await shot(page, 'share-dialog');
        await share.getByTestId('share-close').click();
        await share.waitFor({ state: 'detached', timeout: WAIT });

        // It shows in the app's details.
        await page.getByTestId('tab-apps').click();
        await waitText(r.getByTestId('client-grant-count'), /^1 conversation$/);
        await r.getByTestId('client-toggle').click();
        const g = r.locator(`[data-testid=client-grant][data-conversation="${sharedId}"]`);
        await waitText(g, /harbour lighthouse.*Read.*expires in 7 days/s);

        // The HTTP endpoint, from the view.
        await page.getByTestId('client-endpoint-switch').check({ force: true });
        const url = (await waitText(page.getByTestId('client-endpoint-url'), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)).trim();

        // A wrong token is refused (and audited).
        await assert.rejects(httpClient(url, 'sbc_' + 'A'.repeat(43)));

        // The app sees exactly what was shared.
        const mcp = await httpClient(url, token);
        try {
          const tools = (await mcp.listTools()).tools.map((t) => t.name).sort();
          assert.deepEqual(tools, ['list_conversations', 'read_conversation', 'search_messages', 'send_message']);
          const listed = await call(mcp, 'list_conversations');
          assert.deepEqual(listed.conversations.map((c) => c.id), [sharedId]);
          const read = await call(mcp, 'read_conversation', { conversationId: sharedId });
          assert.ok(read.messages.some((m) => m.text.includes('harbour lighthouse')), JSON.stringify(read).slice(0, 300));
          const refused = await call(mcp, 'read_conversation', { conversationId: privateId }).then(() => null, (e) => e);
          assert.ok(refused, 'reading a conversation not shared was allowed');
          assert.ok(!/tax/i.test(refused.message), `the refusal leaks the title: ${refused.message}`);
          assert.deepEqual((await call(mcp, 'search_messages', { query: 'tax' })).hits ?? [], []);
          assert.ok((await call(mcp, 'search_messages', { query: 'lighthouse' })).hits.length > 0);

          // The activity shows it live, with filters.
          const entries = page.getByTestId('audit-entry');
          const denied = page.locator('[data-testid=audit-entry][data-allowed=false][data-operation="tools/call read_conversation"]');
          await denied.first().waitFor({ timeout: WAIT });
          await waitText(r.getByTestId('client-last-seen'), /^last seen just now$/);
          await page.getByTestId('audit-filter-result').selectOption('denied');
          await until(async () => {
            const all = await entries.evaluateAll((els) => els.map((e) => e.dataset.allowed));
            return all.length >= 2 && all.every((a) => a === 'false');
          }, 'only denied entries (the wrong token and the private conversation)');
          await page.locator('[data-testid=audit-entry][data-operation=auth]').first().waitFor({ timeout: WAIT });
          await page.getByTestId('audit-filter-result').selectOption('all');
          await page.getByTestId('audit-filter-operation').selectOption('tools/call list_conversations');
          await until(async () => {
            const ops = await entries.evaluateAll((els) => els.map((e) => e.dataset.operation));
            return ops.length >= 1 && ops.every((o) => o === 'tools/call list_conversations');
          }, 'only list_conversations entries');
          await page.getByTestId('audit-filter-clear').click();
          await page.getByTestId('audit-filter-client').selectOption({ label: name });
          await page.getByTestId('audit-filter-text').fill('search_messages');
          await until(async () => {
            const got = await entries.evaluateAll((els) => els.map((e) => [e.dataset.client, e.dataset.operation]));
            return got.length === 2 && got.every(([c, o]) => c === name && o === 'tools/call search_messages');
          }, async () => `the two searches of the app; the list holds ${JSON.stringify(await entries.evaluateAll((els) => els.map((e) => [e.dataset.client, e.dataset.operation])))}`);
          await page.getByTestId('audit-filter-clear').click();
          await page.getByTestId('client-audit').scrollIntoViewIfNeeded();
          await page.mouse.move(0, 0);
          await shot(page, 'clients-activity');

          // Read and write: a turn the app starts asks in the window, as the app.
          await bound(page, 'GrantClient', name, sharedId, 'write', 0);
          const sent = call(mcp, 'send_message', { conversationId: sharedId, text: 'use tool everything__echo {"message":"asked by an app"}' });
          const modal = await approvalModal(page);
          await waitText(modal.locator('h2'), new RegExp(`^${name} asks to run (everything__)?echo$`));
          assert.match(await modal.getByTestId('approval-asker').textContent(), /a connected app, started this turn/);
          assert.equal(await modal.getByTestId('approval-allow-all').count(), 0);
          await page.mouse.move(0, 0);
          await shot(page, 'clients-approval');
          await modal.getByTestId('approval-allow-once').click();
          const reply = await sent;
          assert.equal(reply.status, 'done', JSON.stringify(reply));
          assert.match(reply.reply, /You said/);

          // Unshare: the app loses it at once.
          await g.getByTestId('client-grant-unshare').click();
          await r.getByTestId('client-grants-empty').waitFor({ timeout: WAIT });
          assert.deepEqual((await call(mcp, 'list_conversations')).conversations, []);

          // Revoke: cut off at once, the row says so.
          await r.getByTestId('client-revoke').click();
          await r.getByTestId('client-confirm').click();
          await waitAttr(r, 'data-revoked', 'true');
          await assert.rejects(call(mcp, 'list_conversations'));
          await assert.rejects(httpClient(url, token));
        } finally {
          await mcp.close().catch(() => {});
        }
        await page.mouse.move(0, 0);
        await shot(page, 'clients-view');
        // A small window: nothing runs off the side.
        await page.setViewportSize({ width: 800, height: 600 });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the view overflows an 800 px window by ${overflow}px`);
        await shot(page, 'clients-view-800x600');
        await page.setViewportSize({ width: 1200, height: 800 });

        // Dark.
        await setTheme(page, 'dark', 'apps');
        await r.waitFor({ timeout: WAIT });
        await page.mouse.move(0, 0);
        await shot(page, 'clients-view-dark');
        await page.getByTestId('tab-chat').click();
        await page.locator(`[data-testid=conversation][data-id="${sharedId}"] button.open`).click();
        await page.getByTestId('share-chat').click();
        await page.getByTestId('share-dialog').waitFor({ timeout: WAIT });
        await page.mouse.move(0, 0);
        await shot(page, 'share-dialog-dark');
        await page.keyboard.press('Escape');
        await page.getByTestId('share-dialog').waitFor({ state: 'detached', timeout: WAIT });
      } finally {
        await setTheme(page, 'system', null).catch(() => {});
        await bound(page, 'SetClientEndpoint', false, 0).catch(() => {});
        for (const n of clients) await bound(page, 'RemoveClient', n).catch(() => {});
      }
    });
  });

  test('connect Claude Desktop: the entry is written only when asked, other entries kept and backed up, and it starts a working server; a VS Code file with comments is refused, Copy offered', async () => {
    await toolPage(async (page) => {
      const origin = new URL(page.url()).origin;
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const info = await bound(page, 'Ready');
      // The harness gives the backend XDG_CONFIG_HOME beside its data directory.
      const xdg = join(dirname(info.dataDir), 'xdg-config');
      const claude = join(xdg, 'Claude', 'claude_desktop_config.json');
      const vscode = join(xdg, 'Code', 'User', 'mcp.json');
      const before = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "other": { "command": "npx", "args": ["-y", "some-server"] }
  }
}
`;
      mkdirSync(dirname(claude), { recursive: true });
      writeFileSync(claude, before, { mode: 0o644 });
      const jsonc = '{\n\t// my servers\n\t"servers": {}\n}\n';
      mkdirSync(dirname(vscode), { recursive: true });
      writeFileSync(vscode, jsonc);
      try {
        await page.getByTestId('tab-apps').click();
        await page.getByTestId('connect-claude-desktop').click();
        const d = page.getByTestId('connect-app-dialog');
        await waitText(d.getByTestId('connect-path'), new RegExp(`^${claude.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
        await d.getByTestId('connect-can-start').check();
        await d.getByTestId('connect-start').click();
        const entry = await waitText(d.getByTestId('connect-entry'), /SWITCHBOARD_CLIENT_TOKEN/);
        assert.match(await d.getByTestId('connect-file-state').textContent(), /adds switchboard under mcpServers and keeps every other entry/);
        assert.equal(readFileSync(claude, 'utf8'), before, 'nothing is written before the user says so');
        await page.mouse.move(0, 0);
        await shot(page, 'connect-claude');
        await d.getByTestId('connect-write').click();
        await waitText(d.getByTestId('connect-written'), /Added Switchboard to/);

        // Merged: the other entry and key kept, backed up, private.
        const after = JSON.parse(readFileSync(claude, 'utf8'));
        assert.equal(after.globalShortcut, 'Ctrl+Space');
        assert.deepEqual(after.mcpServers.other, { command: 'npx', args: ['-y', 'some-server'] });
        assert.deepEqual(after.mcpServers.switchboard, JSON.parse(entry).mcpServers.switchboard);
        assert.equal(statSync(claude).mode & 0o777, 0o600);
        const backups = readdirSync(dirname(claude)).filter((f) => f.endsWith('.switchboard.bak'));
        assert.equal(backups.length, 1);
        assert.equal(readFileSync(join(dirname(claude), backups[0]), 'utf8'), before);
        await d.getByTestId('connect-done').click();
        await row(page, 'Claude Desktop').waitFor({ timeout: WAIT });

        // The written entry starts a server that answers, as Claude Desktop would launch it.
        const sb = after.mcpServers.switchboard;
        assert.ok(existsSync(sb.command), sb.command);
        const stdio = new Client({ name: 'claude-ai', version: '0.1.0' });
        await stdio.connect(new StdioClientTransport({ command: sb.command, args: sb.args, env: sb.env, stderr: 'pipe' }));
        try {
          assert.deepEqual((await call(stdio, 'list_conversations')).conversations, [], 'nothing is shared with it yet');
        } finally {
          await stdio.close().catch(() => {});
        }
        await page.locator('[data-testid=audit-entry][data-client="Claude Desktop"][data-operation="tools/call list_conversations"]').first().waitFor({ timeout: WAIT });

        // VS Code's file has comments: refused before and after the token, Copy works.
        await page.getByTestId('connect-vscode').click();
        await waitText(d.getByTestId('connect-problem'), /comments or trailing commas.*Copy the entry/s);
        await d.getByTestId('connect-start').click();
        const vsEntry = await waitText(d.getByTestId('connect-entry'), /"servers"/);
        assert.equal(await d.getByTestId('connect-write').isDisabled(), true);
        await d.getByTestId('connect-copy').click();
        await waitText(d.getByTestId('connect-copy-note'), /Copied/);
        assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), vsEntry.trim());
        assert.match(vsEntry, /"type": "stdio"/);
        await page.mouse.move(0, 0);
        await shot(page, 'connect-vscode-jsonc');
        await page.keyboard.press('Escape');
        await d.waitFor({ state: 'detached', timeout: WAIT });
        assert.equal(readFileSync(vscode, 'utf8'), jsonc);
      } finally {
        for (const n of ['Claude Desktop', 'VS Code']) await bound(page, 'RemoveClient', n).catch(() => {});
      }
    });
  });
}

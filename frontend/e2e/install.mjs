// Installed servers in the browser, with the real backend and the real npm:
// the test makes a tiny MCP server in plain Node (no dependencies) and packs
// it as an npm tarball, the way `npm pack` does; the user installs it with
// Tools → Install server by typing the file's path, sees the install's
// steps, then its row with the "npm 1.0.0" badge and its tool, which a chat
// calls. A package that is not in the npm registry gives a clear error
// under the form, which keeps what was typed, and installs nothing. Then
// Update from a newer file, Pin, and Delete, which removes the installed
// files too. Settings → Servers says which Node installed servers run on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT, approvalModal, bound, send, turnDone, until, waitAttr, waitText } from './helpers.mjs';

// An MCP server over stdio in newline-delimited JSON-RPC, with one tool.
const serverJS = `#!/usr/bin/env node
'use strict';
const { version } = require('./package.json');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (line) answer(line);
  }
});
process.stdin.on('end', () => process.exit(0));
function answer(line) {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined || m.id === null) return; // a notification
  const ok = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  switch (m.method) {
    case 'initialize':
      return ok({ protocolVersion: (m.params && m.params.protocolVersion) || '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'shout', version } });
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({ tools: [{ name: 'shout', description: 'Says the text louder: upper case (version ' + version + ').',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] });
    case 'tools/call': {
      const text = String((m.params && m.params.arguments && m.params.arguments.text) || '');
      return ok({ content: [{ type: 'text', text: text.toUpperCase() }] });
    }
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no method ' + m.method } });
  }
}
`;

/** Packs the shout server at version into dir/shout-mcp-VERSION.tgz (a package/ folder, as npm pack makes). */
function packShout(dir, version) {
  const src = join(dir, `src-${version}`);
  const pkg = join(src, 'package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'shout-mcp', version, description: 'A test MCP server', bin: { 'shout-mcp': 'server.js' }, license: 'MIT' }, null, 2));
  writeFileSync(join(pkg, 'server.js'), serverJS, { mode: 0o755 });
  const out = join(dir, `shout-mcp-${version}.tgz`);
  execFileSync('tar', ['-czf', out, '-C', src, 'package']);
  return out;
}

export function register({ test, toolPage, shot, backend }) {
  test('installed servers: a .tgz installed from the dialog with its steps, its tool called; a missing npm package a clear error; update, pin, delete', async () => {
    await toolPage(async (page) => {
      const dir = mkdtempSync(join(tmpdir(), 'install-e2e-'));
      const id = 'shout';
      try {
        const v1 = packShout(dir, '1.0.0');
        const v2 = packShout(dir, '1.1.0');

        await page.getByTestId('tab-tools').click();
        await page.getByTestId('install-server').click();
        const dialog = page.getByTestId('install-dialog');
        await dialog.waitFor({ timeout: WAIT });
        // Every line of progress the dialog shows, as it shows it.
        await page.evaluate(() => {
          const seen = (window.__installSteps = []);
          new MutationObserver(() => {
            const t = document.querySelector('[data-testid=install-progress-text]')?.textContent;
            if (t && seen.at(-1) !== t) seen.push(t);
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        });
        await dialog.getByTestId('install-source-file').check();
        await dialog.getByTestId('install-file').fill(v1);
        await dialog.locator('details.more > summary').click();
        await dialog.getByTestId('install-id').fill(id);
        await dialog.getByTestId('install-submit').click();
        // The steps show while npm works, the form off.
        await waitAttr(dialog, 'data-phase', 'installing', 5_000).catch(() => {});
        let caught = false;
        try {
          await page.locator('[data-testid=install-progress][data-step=resolving], [data-testid=install-progress][data-step=checking]').waitFor({ timeout: 3_000 });
          assert.equal(await dialog.getByTestId('install-file').isDisabled(), true, 'the form is off while it installs');
          await page.mouse.move(0, 0);
          await shot(page, 'install-dialog-progress');
          caught = true;
        } catch (e) {
          if (await dialog.isVisible()) throw e; // else the install was quicker than the screenshot
        }
        await dialog.waitFor({ state: 'detached', timeout: 120_000 });
        const steps = await page.evaluate(() => window.__installSteps);
        console.log(`     install steps shown: ${JSON.stringify(steps)}${caught ? '' : ' (too quick for a screenshot)'}`);
        assert.ok(steps.includes('Resolving shout-mcp-1.0.0.tgz…'), `the dialog showed the resolving step: ${JSON.stringify(steps)}`);

        // Its row: the badge, connected, its tool.
        const row = page.locator(`[data-testid=server-row][data-id=${id}]`);
        await waitText(row.getByTestId('server-install'), /^npm 1\.0\.0$/);
        await waitAttr(row, 'data-state', 'connected', 60_000);
        await waitText(row.getByTestId('server-tool-count'), /^1 tool$/);
        await row.getByTestId('server-tools-toggle').click();
        await waitText(row.locator('[data-testid=tool-row][data-tool=shout]'), /upper case \(version 1\.0\.0\)/);
        assert.ok(existsSync(join(backend.dataDir, 'servers', id, 'package-lock.json')), 'installed into the data folder with its lockfile');
        await page.mouse.move(0, 0);
        await row.scrollIntoViewIfNeeded();
        await shot(page, 'install-row');

        // A chat calls its tool.
        await page.getByTestId('tab-chat').click();
        await send(page, `use tool ${id}__shout {"text":"quiet please"}`);
        const modal = await approvalModal(page);
        await modal.getByTestId('approval-allow-once').click();
        await turnDone(page);
        const card = page.locator('[data-testid=toolcall][data-tool$="shout"]');
        await waitAttr(card, 'data-status', 'done');
        await card.locator('details.res > summary').click();
        await waitText(card.getByTestId('tool-result'), /QUIET PLEASE/);

        // A package the registry does not have: the error under the form, the form as typed, nothing installed.
        await page.getByTestId('tab-tools').click();
        await page.getByTestId('install-server').click();
        await dialog.waitFor({ timeout: WAIT });
        await dialog.getByTestId('install-package').fill('@modelcontextprotocol/server-nope-1234');
        await dialog.getByTestId('install-version').fill('');
        await dialog.getByTestId('install-submit').click();
        const err = await waitText(dialog.getByTestId('install-error'), /\S/, 120_000);
        console.log(`     missing package: ${err}`);
        assert.match(err, /@modelcontextprotocol\/server-nope-1234 is not in the npm registry; check the package name|registry unreachable/);
        assert.equal(await dialog.getByTestId('install-package').inputValue(), '@modelcontextprotocol/server-nope-1234');
        assert.equal(await dialog.getByTestId('install-package').isDisabled(), false);
        await page.mouse.move(0, 0);
        await shot(page, 'install-dialog-error');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached', timeout: WAIT });
        assert.deepEqual((await bound(page, 'ListServers')).map((s) => s.config.id).filter((x) => /nope/.test(x)), []);
        assert.equal(existsSync(join(backend.dataDir, 'servers', 'server-nope-1234')), false, 'nothing left behind');

        // Update from a newer file: the result shown, the badge and the tool's new version.
        await row.getByTestId('server-update-ask').click();
        await row.getByTestId('server-update-input').fill(v2);
        await row.getByTestId('server-update-go').click();
        await waitText(row.getByTestId('server-update-result'), /^Updated to 1\.1\.0\.$/, 120_000);
        await waitText(row.getByTestId('server-install'), /^npm 1\.1\.0$/);
        await waitAttr(row, 'data-state', 'connected', 60_000);
        const toggle = row.getByTestId('server-tools-toggle');
        if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
        await until(async () => /version 1\.1\.0/.test(await row.textContent()), 'the tool of 1.1.0');

        // Pin.
        await row.getByTestId('server-pin').click();
        await waitText(row.getByTestId('server-pinned'), /^pinned$/);
        assert.equal((await bound(page, 'ListServers')).find((s) => s.config.id === id).config.install.pinned, true);
        assert.equal((await row.getByTestId('server-pin').textContent()).trim(), 'Unpin');
        await page.mouse.move(0, 0);
        await shot(page, 'install-row-pinned');

        // Settings → Servers: the Node they run on.
        await page.getByTestId('tab-settings').click();
        const section = page.getByTestId('settings-servers');
        await section.scrollIntoViewIfNeeded();
        await waitText(section.getByTestId('settings-node-text'), /^Node \d+\.\d+\.\d+ at \/\S+ \((system|downloaded by Switchboard)\)$/);
        await page.mouse.move(0, 0);
        await shot(page, 'install-settings');

        // Delete: the row and the installed files go.
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-delete').click();
        assert.match(await row.textContent(), /Its installed files go too/);
        await row.getByTestId('server-delete-confirm').click();
        await row.waitFor({ state: 'detached', timeout: WAIT });
        await until(() => !existsSync(join(backend.dataDir, 'servers', id)), 'the installed folder to go');
      } finally {
        await bound(page, 'DeleteServer', id).catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

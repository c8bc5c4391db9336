// The registry browser in the browser, with the real backend against a local
// MCP registry (build/bin/registryserver over its fixture): the user opens
// Tools → Browse registry, searches "sequential", opens
// server-sequential-thinking, sees how it is added and installs it (the real
// npm package, with the system npm); its row appears with its tool. Then
// Brave Search, whose API key is required and secret: Install without it
// shows the error under that field, and nothing is added.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './harness.mjs';
import { WAIT, bound, until, waitAttr, waitText } from './helpers.mjs';

/** Starts the local registry; resolves with its base URL and a stop function. */
function startRegistry() {
  const proc = spawn(join(root, 'build/bin/registryserver'), [], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('registryserver printed no URL in 10 s (make build/bin/registryserver)')), 10_000);
    proc.on('error', (e) => (clearTimeout(timer), reject(e)));
    proc.on('exit', (code) => (clearTimeout(timer), reject(new Error(`registryserver exited with ${code}`))));
    proc.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      resolve({ url: out.slice(0, nl).trim(), stop: () => proc.kill('SIGTERM') });
    });
  });
}

export function register({ test, toolPage, shot }) {
  test('registry browser: search a local registry, install server-sequential-thinking from npm with its tool; a required secret left empty is marked under its field', async () => {
    const reg = await startRegistry();
    try {
      await toolPage(async (page) => {
        const before = await bound(page, 'GetSettings');
        let id = '';
        try {
          await bound(page, 'SaveSettings', { ...before, mcpRegistry: reg.url });
          await page.getByTestId('tab-tools').click();
          await page.getByTestId('browse-registry').click();
          const dialog = page.getByTestId('registry-browser');
          await dialog.waitFor({ timeout: WAIT });
          await waitText(dialog, new RegExp(`From ${reg.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

          // Search as you type.
          await dialog.getByTestId('registry-search').fill('sequential');
          const result = dialog.locator('[data-testid=registry-result][data-name="io.github.modelcontextprotocol/server-sequential-thinking"]').filter({ hasText: '2026.8.31' });
          await result.waitFor({ timeout: WAIT });
          // The list first shows every server, then (the search debounced) only those that match.
          const names = () => dialog.getByTestId('registry-result').evaluateAll((els) => els.map((e) => e.dataset.name));
          await until(async () => {
            const n = await names();
            return n.length > 0 && n.every((x) => x.includes('sequential'));
          }, 'only matching servers listed');
          assert.deepEqual(await result.getByTestId('registry-kind').allTextContents(), ['npm']);
          await page.mouse.move(0, 0);
          await shot(page, 'registry-results');

          // Its entry: the npm option chosen, no values needed, an ID.
          await result.click();
          await waitAttr(dialog, 'data-view', 'entry');
          const plan = dialog.getByTestId('registry-plan');
          await plan.waitFor({ timeout: WAIT });
          assert.equal(await plan.getAttribute('data-kind'), 'npm');
          assert.equal(await dialog.locator('[data-testid=registry-option] input').first().isChecked(), true);
          id = (await dialog.getByTestId('registry-id').inputValue()).trim();
          assert.ok(id, 'an ID is suggested');
          await waitText(dialog.getByTestId('registry-install'), /^Install$/);
          await dialog.getByTestId('registry-install').click();
          await dialog.waitFor({ state: 'detached', timeout: 180_000 });

          // Its row, connected, with its tool.
          const row = page.locator(`[data-testid=server-row][data-id="${id}"]`);
          await waitText(row.getByTestId('server-install'), /^npm 2026\.8\.31$/);
          await waitAttr(row, 'data-state', 'connected', 60_000);
          await waitText(row.getByTestId('server-tool-count'), /^1 tool$/);
          await row.getByTestId('server-tools-toggle').click();
          await row.locator('[data-testid=tool-row][data-tool=sequentialthinking]').waitFor({ timeout: WAIT });
          await page.mouse.move(0, 0);
          await row.scrollIntoViewIfNeeded();
          await shot(page, 'registry-installed-row');

          // Brave Search: its key is required and secret; Install without it.
          const serversBefore = (await bound(page, 'ListServers')).length;
          await page.getByTestId('browse-registry').click();
          await dialog.waitFor({ timeout: WAIT });
          await dialog.getByTestId('registry-search').fill('brave');
          const brave = dialog.locator('[data-testid=registry-result][data-name="io.github.brave/brave-search-mcp-server"]');
          await brave.click({ timeout: WAIT });
          const key = dialog.locator('[data-testid=registry-field][data-key="env.BRAVE_API_KEY"]');
          await key.waitFor({ timeout: WAIT });
          assert.equal(await key.getByTestId('registry-field-input').getAttribute('type'), 'password', 'a secret is typed as a password');
          await waitText(key, /kept in the keyring/);
          await dialog.getByTestId('registry-install').click();
          await waitText(key.getByTestId('registry-field-error'), /required/i);
          assert.equal(await key.getByTestId('registry-field-input').getAttribute('aria-invalid'), 'true');
          await page.mouse.move(0, 0);
          await shot(page, 'registry-plan-form');
          assert.equal((await bound(page, 'ListServers')).length, serversBefore, 'nothing was added');
          // The dialog stays, with the form, to fix it.
          assert.equal(await dialog.isVisible(), true);
          await dialog.getByTestId('registry-back').click();
          await waitAttr(dialog, 'data-view', 'search');
        } finally {
          await bound(page, 'SaveSettings', { ...(await bound(page, 'GetSettings')), mcpRegistry: before.mcpRegistry }).catch(() => {});
          if (id) await bound(page, 'DeleteServer', id).catch(() => {});
        }
      });
    } finally {
      reg.stop();
    }
  });
}

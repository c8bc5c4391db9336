// MCP logging, roots, tool annotations and structured content in the
// browser, against the real everything server: its tools' titles and hint
// badges in the Tools panel and the approval modal; the per-server "allow
// read-only tools" policy (a read-only tool then runs unasked, a
// non-read-only one still asks); its structured content as a table; roots
// typed into the server form reaching the server, whose log message says so
// in the Logs tab, at the log level chosen there.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT, approvalModal, bound, countModals, send, setTheme, turnDone, until, waitAttr, waitText } from './helpers.mjs';

const badges = (row) => row.getByTestId('hint-badge').evaluateAll((els) => els.map((e) => e.dataset.hint));

export function register({ test, toolPage, shot }) {
  test('annotations: the Tools panel shows titles and hint badges; read-only tools of a server run unasked once allowed, others still ask; structured content is a table', async () => {
    await toolPage(async (page) => {
      await page.getByTestId('tab-tools').click();
      const row = page.locator('[data-testid=server-row][data-id=everything]');
      await row.getByTestId('server-tools-toggle').click();
      const echo = row.locator('[data-testid=tool-row][data-tool=echo]');
      await echo.waitFor({ timeout: WAIT });
      assert.match(await echo.textContent(), /Echo Tool/);
      assert.deepEqual(await badges(echo), ['read-only', 'idempotent', 'closed-world']);
      const toggle = row.locator('[data-testid=tool-row][data-tool=toggle-simulated-logging]');
      assert.deepEqual(await badges(toggle), ['non-destructive', 'closed-world']);
      const structured = row.locator('[data-testid=tool-row][data-tool=get-structured-content]');
      assert.deepEqual(await badges(structured), ['read-only', 'idempotent', 'closed-world']);
      const policy = row.getByTestId('readonly-policy');
      assert.equal(await policy.getAttribute('data-on'), 'false', 'off by default');
      assert.match(await policy.textContent(), /the server's own claim/);
      await page.mouse.move(0, 0);
      await shot(page, 'annotations-tools');

      // The approval modal says what the server claims.
      await page.getByTestId('tab-chat').click();
      await send(page, 'use tool everything__toggle-simulated-logging {}');
      let modal = await approvalModal(page);
      assert.equal(await modal.getByTestId('approval-title').textContent(), 'Toggle Simulated Logging');
      assert.deepEqual(await badges(modal.getByTestId('approval-hints')), ['non-destructive', 'closed-world']);
      await shot(page, 'annotations-approval');
      await modal.getByTestId('approval-deny').click();
      await turnDone(page);

      // Allowed for this server: a read-only tool runs unasked, the other asks.
      await page.getByTestId('tab-tools').click();
      await row.getByTestId('server-tools-toggle').click();
      await policy.getByText("Allow this server's read-only tools without asking").click();
      await waitAttr(policy, 'data-on', 'true');
      const modals = await countModals(page);
      await page.getByTestId('tab-chat').click();
      await send(page, 'use tool everything__get-structured-content {"location":"Chicago"}');
      await turnDone(page);
      assert.equal(await modals(), 0, 'a read-only tool asked although its server is allowed');
      const c = page.locator('[data-testid=toolcall][data-tool$="get-structured-content"]');
      await waitAttr(c, 'data-status', 'done');
      await c.locator('details.res > summary').click();
      const table = c.getByTestId('tool-structured-table');
      await table.waitFor({ timeout: WAIT });
      // Keys in Go's order: the SDK hands the structured content over decoded.
      assert.deepEqual(await table.locator('td').allTextContents(), ['conditions', 'Light rain / drizzle', 'humidity', '82', 'temperature', '36']);
      assert.equal(await c.getByTestId('tool-structured-warning').count(), 0);
      await page.mouse.move(0, 0);
      await shot(page, 'annotations-structured');

      await send(page, 'use tool everything__toggle-simulated-logging {}');
      modal = await approvalModal(page);
      await modal.getByTestId('approval-deny').click();
      await turnDone(page);
      assert.equal(await modals(), 1, 'a tool that is not read-only ran unasked');
      const p = await bound(page, 'ApprovalPolicy');
      assert.deepEqual(p.readOnly.map((r) => r.serverId), ['everything']);
      await page.getByTestId('tab-settings').click();
      await page.locator('[data-testid=readonly-row][data-server=everything]').waitFor({ timeout: WAIT });
      await page.getByTestId('readonly-revoke').click();
      await until(async () => !(await bound(page, 'ApprovalPolicy')).readOnly, 'the read-only setting off');
    });
  });

  test('roots and logging: folders typed in the server form reach the server, whose log messages land in its log at the level chosen there', async () => {
    const dirs = [1, 2, 3].map((i) => mkdtempSync(join(tmpdir(), `sb-root${i}-`)));
    await toolPage(async (page) => {
      const row = page.locator('[data-testid=server-row][data-id=everything]');
      const line = (n) => page.getByTestId('log-line').filter({ hasText: `everything-server: Roots updated: ${n} root(s) received from client` });
      const editRoots = async (add) => {
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-edit').click();
        const form = page.getByTestId('server-form');
        await form.waitFor({ timeout: WAIT });
        for (const d of add) {
          await form.getByTestId('server-root-input').fill(d);
          await form.getByTestId('server-root-add').click();
        }
        await shot(page, 'roots-form');
        await form.getByTestId('server-save').click();
        await form.waitFor({ state: 'detached', timeout: WAIT });
      };
      try {
        // Offered a folder, the server (reconnected to declare roots) asks
        // for them and logs how many it got.
        await editRoots([dirs[0]]);
        await until(async () => (await bound(page, 'ListServers')).find((s) => s.config.id === 'everything')?.status.state === 'connected', 'reconnected');
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-logs').click();
        const pick = page.getByTestId('log-server-level');
        await pick.waitFor({ timeout: WAIT });
        assert.equal(await pick.inputValue(), '', "the server's default level");
        await line(1).first().waitFor({ timeout: WAIT });
        assert.equal(await line(1).first().getAttribute('data-level'), 'info');
        assert.match(await line(1).first().textContent(), /\[info\] everything-server: Roots updated/);

        // At "warning and above", the next change's info message is not sent.
        await pick.selectOption('warning');
        await until(async () => (await bound(page, 'ListServers')).find((s) => s.config.id === 'everything')?.config.logLevel === 'warning', 'the level saved');
        await editRoots([dirs[1]]);
        const got = await bound(page, 'ListServers');
        assert.deepEqual(got.find((s) => s.config.id === 'everything').config.roots, dirs.slice(0, 2));
        // The server gets list_changed and asks; give it time to log (it must not).
        await page.waitForTimeout(1500);
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-logs').click();
        await pick.selectOption('info');
        await until(async () => (await bound(page, 'ListServers')).find((s) => s.config.id === 'everything')?.config.logLevel === 'info', 'the level saved');
        await editRoots([dirs[2]]);
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-logs').click();
        await line(3).first().waitFor({ timeout: WAIT });
        assert.equal(await line(2).count(), 0, 'an info message was sent at level warning');
        await page.getByTestId('log-filter').fill('Roots updated');
        await shot(page, 'logs-mcp-messages');
        await setTheme(page, 'dark', 'logs');
        await shot(page, 'logs-mcp-messages-dark');
        await setTheme(page, 'system', 'logs');
      } finally {
        const v = (await bound(page, 'ListServers')).find((s) => s.config.id === 'everything');
        if (v) await bound(page, 'SaveServer', { ...v.config, roots: undefined, logLevel: undefined });
      }
    });
  });
}

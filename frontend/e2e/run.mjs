// End-to-end tests: the real Go backend and the real frontend in Chromium,
// a fake OpenAI-compatible provider (build/bin/fakeprovider) and real MCP
// servers (test/node). One backend serves every test; each test opens a
// fresh page, and the ones about approvals first reset the approval policy.
// The tests run in order: the first-start ones need a backend with no
// provider yet; later ones add it themselves when run alone.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, resultsDir, root, startBackend, suite } from './harness.mjs';
import {
  WAIT, approvalModal, armedModal, denyPending, bound, countModals, devCookie, ensureEverything, ensureProvider, everythingBin, ipcUpgrade, node22, nodeBin, openApp,
  resetPolicy, send, setTheme, startFakeProvider, startTaskServer, turnDone, until, waitAttr, waitText,
} from './helpers.mjs';
import { register as registerAttachments } from './attachments.mjs';
import { register as registerResources } from './resources.mjs';
import { register as registerAnnotations } from './annotations.mjs';
import { register as registerElicit } from './elicit.mjs';
import { register as registerTrifecta } from './trifecta.mjs';
import { register as registerAppViews } from './appviews.mjs';
import { register as registerClients } from './clients.mjs';
import { register as registerToolSearch } from './toolsearch.mjs';
import { register as registerActivity } from './activity.mjs';
import { register as registerCmdTools } from './cmdtools.mjs';
import { register as registerInstall } from './install.mjs';
import { register as registerRegistry } from './registry.mjs';
import { register as registerA11yScreens } from './a11yscreens.mjs';
import { register as registerScreenshots } from './screenshots.mjs';
import { register as registerKeyboard } from './keyboard.mjs';
import { register as registerMarkdown } from './markdown.mjs';
import { register as registerPolish } from './polish.mjs';

mkdirSync(resultsDir, { recursive: true });
const { test, run } = suite();

// Paced, so a reply streams over several frames (an echo of ten words takes
// about 0.4 s).
const fake = await startFakeProvider(['-tps', '25']);
const backend = await startBackend({ env: { PATH: `${nodeBin}:${process.env.PATH}` } });
const browser = await launchBrowser();
const shot = (page, name) => page.screenshot({ path: join(resultsDir, `${name}.png`) });

/** A fresh page on the app; the caller closes it. */
const open = (size) => openApp(browser, backend.url, size);

/** Runs fn with a fresh page, closing it afterwards. */
async function withPage(fn, size) {
  const page = await open(size);
  try {
    await fn(page);
    page.checkErrors();
  } finally {
    // A failed test may leave a call waiting; it would block the next page.
    await denyPending(page).catch(() => {});
    await page.close();
  }
}

/** A page with a provider, the everything server connected and no grants or yolo. */
async function toolPage(fn) {
  await withPage(async (page) => {
    await ensureProvider(page, fake.url);
    await ensureEverything(page);
    await resetPolicy(page);
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
    await fn(page);
  });
}

/** The card of a call of tool (the server's name for it, or the exposed everything__ one). */
const card = (page, tool) => page.locator(`[data-testid=toolcall][data-tool$="${tool.replace(/^everything__/, '')}"]`);

/** Opens the Result disclosure of a card and returns the result's text. */
async function resultText(c) {
  await c.locator('details.res > summary').click();
  const r = c.getByTestId('tool-result');
  await r.waitFor({ timeout: WAIT });
  return r.textContent();
}

// ---- first start ----

test('the frontend reaches the backend: Ready round trip shows the data directory', async () => {
  await withPage(async (page) => {
    const dataDir = page.getByTestId('data-dir');
    await dataDir.waitFor({ timeout: WAIT });
    assert.equal(await dataDir.textContent(), backend.dataDir);
    assert.match(await page.getByTestId('version').textContent(), /^switchboard /);
    // No Secret Service in this run: the user is told, with what to do.
    await page.getByTestId('problem-keyring').getByRole('button', { name: 'What to do' }).click();
    assert.match(await page.getByTestId('problem-keyring').textContent(), /gnome-keyring/);
    await shot(page, 'browser-first-screen');
  });
});

test('the first screen fits an 800x600 window', async () => {
  await withPage(async (page) => {
    await page.getByTestId('welcome').waitFor({ timeout: WAIT });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page overflows horizontally by ${overflow}px`);
    await shot(page, 'browser-800x600');
  }, { width: 800, height: 600 });
});

test('first start: another provider with a custom base URL, then the chat appears', async () => {
  await withPage(async (page) => {
    await page.getByTestId('first-start').waitFor({ timeout: WAIT });
    // Nothing local answers here; the search for Ollama and LM Studio ends.
    await page.getByTestId('no-local').waitFor({ timeout: WAIT });
    await page.getByTestId('setup-other').click();

    await page.getByTestId('provider-add').click();
    const form = page.getByTestId('provider-form');
    await form.waitFor({ timeout: WAIT });
    await form.getByTestId('provider-field-preset').selectOption('custom');
    await form.getByTestId('provider-field-name').fill('Fake');
    await form.getByTestId('provider-field-baseurl').fill(fake.url);
    await form.getByTestId('provider-test').click();
    const result = form.getByTestId('provider-test-result');
    await waitAttr(result, 'data-ok', 'true');
    // The test lists the models and picks the first as the default.
    assert.equal(await form.getByTestId('provider-field-model').inputValue(), 'fake-model');
    await form.getByTestId('provider-save').click();
    await form.waitFor({ state: 'detached', timeout: WAIT });
    const row = page.getByTestId('provider-row');
    await waitText(row, /Fake.*default.*fake-model/s);

    await page.getByTestId('tab-chat').click();
    await page.getByTestId('chat-empty').waitFor({ timeout: WAIT });
    // The chat opened before the provider existed still says "No provider"
    // here (reported as an app bug); a new chat picks the new default.
    await page.getByTestId('new-chat').click();
    await waitText(page.getByTestId('model-picker'), /Fake · fake-model/);
    await send(page, 'hello from the first start', { newChat: false });
    await turnDone(page);

    // And so after a restart of the UI: no first-start screen any more.
    await page.reload();
    await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
    assert.equal(await page.getByTestId('first-start').count(), 0);
    await waitText(page.getByTestId('model-picker'), /Fake · fake-model/);
  });
});

// ---- chat ----

test('a message streams its answer, shows the reply stats, persists across a reload, and is found by search', async () => {
  await withPage(async (page) => {
    await ensureProvider(page, fake.url);
    const text = 'Tell me about the lighthouse keeper who counted every wave of the long northern winter';
    await send(page, text);
    const user = page.locator('[data-testid=message][data-role=user]');
    await waitText(user.getByTestId('message-text'), new RegExp(text));
    // Streamed: the reply shows part of its text while it is still coming.
    const want = `You said: ${text}`;
    const partial = await page.waitForFunction((w) => {
      const m = document.querySelector('[data-testid=message][data-role=assistant][data-status=streaming] [data-testid=message-text]');
      const t = m?.textContent?.trim() ?? '';
      return t.length > 0 && t.length < w.length && w.startsWith(t) ? t : false;
    }, want, { timeout: WAIT, polling: 'raf' });
    const seen = await partial.jsonValue();
    assert.ok(seen.length < want.length && want.startsWith(seen), `streamed part: ${seen}`);
    const reply = await turnDone(page);
    assert.equal((await reply.getByTestId('message-text').textContent()).trim(), want);
    const stats = await waitText(reply.getByTestId('reply-stats'), /fake-model/);
    assert.match(stats, /first token [\d.]+ m?s/);
    assert.match(stats, /tok\/s/);

    // Persisted: after a reload the conversation is listed and opens with its messages.
    await page.reload();
    const conv = page.getByTestId('conversation').filter({ hasText: 'lighthouse keeper' });
    await conv.first().waitFor({ timeout: WAIT });
    await conv.first().getByRole('button').first().click();
    await waitText(page.locator('[data-testid=message][data-role=assistant] [data-testid=message-text]'), new RegExp(want));
    assert.equal(await page.locator('[data-testid=message][data-role=user]').count(), 1);

    // Search finds it, and a hit opens the conversation at the message.
    await page.getByTestId('new-chat').click();
    await page.getByTestId('chat-empty').waitFor({ timeout: WAIT });
    await page.getByTestId('search-input').fill('northern');
    const hit = page.getByTestId('search-hit');
    await waitText(hit, /northern/);
    await hit.first().click();
    await waitText(page.locator('[data-testid=message][data-role=user] [data-testid=message-text]'), /northern winter/);
  });
});

// ---- tool calls and approvals ----

test('Allow once: the call runs, its card shows done and the result', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__echo {"message":"allowed once"}');
    const modal = await approvalModal(page);
    assert.match(await modal.getByTestId('approval-tool').textContent(), /^(everything__)?echo$/);
    assert.match(await modal.getByTestId('approval-server').textContent(), /everything/);
    assert.match(await modal.getByTestId('approval-args').textContent(), /allowed once/);
    await page.getByTestId('approvals-pending').waitFor({ timeout: WAIT });
    await modal.getByTestId('approval-allow-once').click();
    await modal.waitFor({ state: 'detached', timeout: WAIT });
    await turnDone(page);
    const c = card(page, 'everything__echo');
    await waitAttr(c, 'data-status', 'done');
    assert.match(await c.getByTestId('toolcall-status').textContent(), /^Done/);
    assert.match(await resultText(c), /Echo: allowed once/);
    assert.equal(await page.getByTestId('approvals-pending').count(), 0);
  });
});

test('Always allow this tool: the next call of it runs without asking, and the grant is listed in Settings', async () => {
  await toolPage(async (page) => {
    const modals = await countModals(page);
    await send(page, 'use tool everything__echo {"message":"first"}');
    const modal = await approvalModal(page);
    await modal.getByTestId('approval-allow-always').click();
    await turnDone(page);
    await waitAttr(card(page, 'everything__echo'), 'data-status', 'done');
    assert.equal(await modals(), 1);

    await send(page, 'use tool everything__echo {"message":"second"}');
    await turnDone(page);
    const c = card(page, 'everything__echo');
    await waitAttr(c, 'data-status', 'done');
    assert.match(await resultText(c), /Echo: second/);
    assert.equal(await modals(), 1, 'the second call asked again');

    await page.getByTestId('tab-settings').click();
    const grant = page.getByTestId('grant-row');
    await waitText(grant, /echo/);
    assert.equal(await grant.count(), 1);
    assert.equal(await grant.getAttribute('data-server'), 'everything');
  });
});

test('Revoking an "always" grant: the next call of that tool asks again', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__get-sum {"a":2,"b":3}');
    await (await approvalModal(page)).getByTestId('approval-allow-always').click();
    await turnDone(page);
    await waitAttr(card(page, 'everything__get-sum'), 'data-status', 'done');

    await page.getByTestId('tab-settings').click();
    const grant = page.locator('[data-testid=grant-row][data-server=everything]');
    await grant.waitFor({ timeout: WAIT });
    await grant.getByTestId('grant-revoke').click();
    await page.getByTestId('grants-empty').waitFor({ timeout: WAIT });
    assert.deepEqual((await bound(page, 'ApprovalPolicy')).grants ?? [], []);

    await page.getByTestId('tab-chat').click();
    await send(page, 'use tool everything__get-sum {"a":4,"b":5}');
    const modal = await approvalModal(page);
    assert.match(await modal.getByTestId('approval-tool').textContent(), /^(everything__)?get-sum$/);
    await waitAttr(card(page, 'everything__get-sum'), 'data-status', 'waiting_approval');
    await modal.getByTestId('approval-allow-once').click();
    await turnDone(page);
    assert.match(await resultText(card(page, 'everything__get-sum')), /9/);
  });
});

test('Allow all (yolo): the badge shows, another tool runs without asking, and the badge turns it off', async () => {
  await toolPage(async (page) => {
    const modals = await countModals(page);
    await send(page, 'use tool everything__echo {"message":"yolo"}');
    await (await approvalModal(page)).getByTestId('approval-allow-all').click();
    await page.getByTestId('yolo-badge').waitFor({ timeout: WAIT });
    await turnDone(page);
    await waitAttr(card(page, 'everything__echo'), 'data-status', 'done');

    await send(page, 'use tool everything__get-sum {"a":20,"b":22}');
    await turnDone(page);
    const c = card(page, 'everything__get-sum');
    await waitAttr(c, 'data-status', 'done');
    assert.match(await resultText(c), /42/);
    assert.equal(await modals(), 1, 'a call asked while yolo was on');

    await page.getByTestId('yolo-badge').click();
    await page.getByTestId('yolo-badge').waitFor({ state: 'detached', timeout: WAIT });
    assert.equal((await bound(page, 'ApprovalPolicy')).yolo, false);
    // Off means asking again.
    await send(page, 'use tool everything__get-sum {"a":1,"b":1}');
    await (await approvalModal(page)).getByTestId('approval-deny').click();
    await turnDone(page);
    assert.equal(await modals(), 2);
  });
});

test('Deny: the card shows denied and the model replies after it', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__echo {"message":"no"}');
    await (await approvalModal(page)).getByTestId('approval-deny').click();
    const reply = await turnDone(page);
    const c = card(page, 'everything__echo');
    await waitAttr(c, 'data-status', 'denied');
    assert.match(await c.getByTestId('toolcall-status').textContent(), /Denied/);
    // The model got the denial and went on: its next reply follows the card.
    assert.match(await reply.getByTestId('message-text').textContent(), /You said: use tool everything__echo/);
    assert.equal(await page.locator('[data-testid=message][data-role=assistant]').count(), 2);
  });
});

test('Keyboard: Enter allows once, once the modal is armed', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__echo {"message":"by enter"}');
    await armedModal(page);
    await page.keyboard.press('Enter');
    await page.getByTestId('approval-modal').waitFor({ state: 'detached', timeout: WAIT });
    await turnDone(page);
    assert.match(await resultText(card(page, 'everything__echo')), /Echo: by enter/);
    assert.equal((await bound(page, 'ApprovalPolicy')).grants?.length ?? 0, 0, 'Enter remembered a grant');
  });
});

test('Keyboard: Escape denies once', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__echo {"message":"by escape"}');
    // Escape denies at once (only Enter waits for the modal to arm); the
    // dialog has the focus from the moment it shows.
    const modal = await approvalModal(page);
    await until(() => modal.evaluate((el) => el.contains(document.activeElement)), 'the focus in the approval modal');
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'detached', timeout: WAIT });
    await turnDone(page);
    await waitAttr(card(page, 'everything__echo'), 'data-status', 'denied');
    // Denied once: nothing remembered, the next call asks again.
    const p = await bound(page, 'ApprovalPolicy');
    assert.equal(p.grants?.length ?? 0, 0);
    assert.equal(p.yolo, false);
  });
});

test('A reload while the approval modal is open shows it again', async () => {
  await toolPage(async (page) => {
    await send(page, 'use tool everything__echo {"message":"after reload"}');
    const id = await (await approvalModal(page)).getAttribute('data-request');
    await page.reload();
    const modal = await approvalModal(page);
    assert.ok(id);
    assert.equal(await modal.getAttribute('data-request'), id);
    assert.match(await modal.getByTestId('approval-args').textContent(), /after reload/);
    await modal.getByTestId('approval-allow-once').click();
    await modal.waitFor({ state: 'detached', timeout: WAIT });
    // The turn went on; its conversation shows the call done.
    const conv = page.getByTestId('conversation').filter({ hasText: 'after reload' }).first();
    await conv.getByRole('button').first().click();
    await turnDone(page);
    assert.match(await resultText(card(page, 'everything__echo')), /Echo: after reload/);
  });
});

// ---- servers ----

test('Import pasted Claude Desktop JSON: a good server connects with its tools, a crashing one fails with its stderr in the log', async () => {
  await withPage(async (page) => {
    await page.getByTestId('tab-tools').click();
    await page.getByTestId('import-servers').click();
    const json = {
      mcpServers: {
        'server-everything': { command: everythingBin, args: ['stdio'] },
        broken: { command: 'node', args: ['-e', "console.error('fatal: missing config /etc/x.toml'); process.exit(3)"] },
      },
    };
    await page.getByTestId('import-text').fill(JSON.stringify(json, null, 2));
    await page.getByTestId('import-preview').click();
    const added = page.getByTestId('import-added');
    await until(async () => (await added.count()) === 2, 'two servers in the preview');
    assert.match(await added.allTextContents().then((t) => t.join('\n')), /server-everything[\s\S]*broken/);
    await page.getByTestId('import-commit').click();
    await waitText(page.getByTestId('import-done'), /Imported 2 servers/);
    await page.getByTestId('import-close').click();

    const good = page.locator('[data-testid=server-row][data-id=server-everything]');
    await waitAttr(good, 'data-state', 'connected');
    const count = await waitText(good.getByTestId('server-tool-count'), /^[1-9]\d* tools$/);
    const want = (await bound(page, 'ListServers')).find((s) => s.config.id === 'server-everything').tools.length;
    assert.equal(count, `${want} tools`);

    const bad = page.locator('[data-testid=server-row][data-id=broken]');
    await waitAttr(bad, 'data-state', 'failed');
    assert.match(await bad.getByTestId('server-state').textContent(), /Failed/);
    // The reason says how it ended and why, from its stderr.
    await waitText(bad.getByTestId('server-reason'), /exit status 3: fatal: missing config \/etc\/x\.toml/);

    await bad.getByTestId('server-logs').click();
    assert.equal(await page.getByTestId('log-source').inputValue(), 'broken');
    const line = page.getByTestId('log-line').filter({ hasText: 'fatal: missing config /etc/x.toml' });
    await line.first().waitFor({ timeout: WAIT });
  });
});

// ---- screenshots ----

test('code in a reply shows at once as text, then highlighted once the highlighter has loaded on demand', async () => {
  await withPage(async (page) => {
    await ensureProvider(page, fake.url);
    // Nothing has shown code yet: the highlighter is not loaded.
    const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/common-[^/]*\.js$/.test(e.name)));
    assert.equal(await loaded(), false, 'the highlighter was loaded before any code showed');
    await send(page, 'Sum it:\n\n```python\ndef add(a, b):\n    return a + b\n```');
    const reply = await turnDone(page);
    const code = reply.locator('code.language-python');
    await waitText(code, /def add\(a, b\):/);
    await code.locator('.hljs-keyword').first().waitFor({ timeout: WAIT });
    assert.equal((await code.locator('.hljs-keyword').first().textContent()).trim(), 'def');
    assert.equal(await loaded(), true);
    await shot(page, 'browser-code');
  });
});

test('screenshots: chat with a reply and a tool card, approval modal, tools, logs, settings — light and dark', async () => {
  await toolPage(async (page) => {
    // The servers of the import test, when it did not run before.
    if (!(await bound(page, 'ListServers')).some((s) => s.config.id === 'broken')) {
      await bound(page, 'SaveServer', { id: 'broken', name: 'broken', transport: 'stdio', command: node22, args: ['-e', "console.error('fatal: missing config /etc/x.toml'); process.exit(3)"], enabled: true });
    }
    for (const theme of ['light', 'dark']) {
      await setTheme(page, theme);
      await send(page, 'Look up the **tide table** for `harbor-7` with the echo tool, please: use tool everything__echo {"message":"tide table for harbor-7"}');
      const modal = await approvalModal(page);
      await shot(page, `approval-modal-${theme}`);
      await modal.getByTestId('approval-allow-once').click();
      await turnDone(page);
      const c = card(page, 'everything__echo');
      await waitAttr(c, 'data-status', 'done');
      await resultText(c);
      await page.mouse.move(0, 0);
      await shot(page, `chat-${theme}`);

      await page.getByTestId('tab-tools').click();
      await page.locator('[data-testid=server-row][data-id=everything][data-state=connected]').waitFor({ timeout: WAIT });
      await page.locator('[data-testid=server-row][data-id=broken][data-state=failed]').waitFor({ timeout: WAIT });
      await shot(page, `tools-${theme}`);
      // A tool's schema, as the server sent it.
      const everything = page.locator('[data-testid=server-row][data-id=everything]');
      await everything.getByTestId('server-tools-toggle').click();
      const echoRow = everything.locator('[data-testid=tool-row][data-tool=echo]');
      await echoRow.getByTestId('tool-schema').locator('summary').click();
      await echoRow.getByTestId('tool-schema-json').waitFor({ timeout: WAIT });
      await shot(page, `tool-schema-${theme}`);
      await everything.getByTestId('server-tools-toggle').click();

      await page.locator('[data-testid=server-row][data-id=broken]').getByTestId('server-logs').click();
      await page.getByTestId('log-line').filter({ hasText: 'fatal: missing config' }).first().waitFor({ timeout: WAIT });
      await shot(page, `logs-${theme}`);

      await page.getByTestId('tab-settings').click();
      await page.getByTestId('provider-row').first().waitFor({ timeout: WAIT });
      await shot(page, `settings-${theme}`);
    }
    // The chat at 800x600 (dark, as left).
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('tab-chat').click();
    await turnDone(page);
    await shot(page, 'chat-800x600');
    await setTheme(page, 'system');
  });
});

test('a remote server can sign in as a workload: the form takes the client ID and the identity token file', async () => {
  await withPage(async (page) => {
    await page.getByTestId('tab-tools').click();
    await page.getByTestId('add-server').click();
    const form = page.getByTestId('server-form');
    await form.getByTestId('server-field-name').fill('CI gateway');
    await form.getByTestId('server-field-transport').selectOption('http');
    await form.getByTestId('server-field-url').fill('http://127.0.0.1:9/mcp');
    await form.locator('summary', { hasText: 'Sign-in (OAuth)' }).click();
    await form.getByTestId('server-field-grant').selectOption({ label: 'As a workload, with its identity token' });
    await form.getByLabel('Client ID').fill('ci-agent');
    // A relative path is refused, with the reason at the field.
    await form.getByTestId('server-field-assertion-file').fill('token');
    await form.getByTestId('server-save').click();
    await form.getByText('must be an absolute path').waitFor({ timeout: WAIT });
    await form.getByTestId('server-field-assertion-file').fill('/var/run/secrets/tokens/mcp');
    await shot(page, 'server-form-workload');
    await form.getByTestId('server-save').click();
    await form.waitFor({ state: 'detached', timeout: WAIT });
    try {
      const saved = (await bound(page, 'ListServers')).find((s) => s.config.id === 'ci-gateway');
      assert.deepEqual(saved?.config.auth, { clientId: 'ci-agent', grant: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertionFile: '/var/run/secrets/tokens/mcp' });
    } finally {
      await bound(page, 'DeleteServer', 'ci-gateway');
    }
  });
});

// ---- the dev server and the page's defences ----

test('the dev server opens the IPC WebSocket only to the page itself, with the token', async () => {
  const cookie = await devCookie(backend.url);
  assert.match(cookie, /^switchboard_dev_\d+=[0-9a-f]{64}$/, 'the token URL sets the cookie');
  const own = backend.origin;
  const cases = [
    ['a page on another site', { origin: 'https://evil.example', cookie }, 403],
    ['a page of another local server', { origin: 'http://127.0.0.1:1', cookie }, 403],
    ['a DNS-rebound name', { host: `evil.example:${backend.port}`, origin: `http://evil.example:${backend.port}`, cookie }, 403],
    ['the page without the token', { origin: own }, 403],
    ['the page itself', { origin: own, cookie }, 101],
  ];
  for (const [who, req, want] of cases) {
    assert.equal(await ipcUpgrade(backend.port, req), want, `${who}: status`);
  }
  const res = await fetch(backend.origin + '/');
  assert.equal(res.status, 403);
  assert.match(await res.text(), /token/, 'a request without the token says to open the printed URL');
});

test('the dev build keeps its data apart from the real data directory', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'switchboard-e2e-paths-'));
  try {
    const paths = (env) => execFileSync(join(root, 'build/bin/switchboard-dev'), ['paths'], {
      env: { ...process.env, SWITCHBOARD_DATA_DIR: '', XDG_CONFIG_HOME: tmp, ...env }, encoding: 'utf8',
    });
    assert.match(paths({}), new RegExp(`data dir: +${tmp}/Switchboard-dev\n`));
    assert.match(paths({ SWITCHBOARD_REAL_DATA: '1' }), new RegExp(`data dir: +${tmp}/Switchboard\n`));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the page runs no inline script (Content-Security-Policy)', async () => {
  const page = await open();
  try {
    const ran = await page.evaluate(async () => {
      window.__inline = false;
      const s = document.createElement('script');
      s.textContent = 'window.__inline = true';
      document.head.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return window.__inline;
    });
    assert.equal(ran, false, 'an injected inline script ran');
  } finally {
    await page.close(); // the refused script is logged as an error: no checkErrors here
  }
});

test('a tool that changes after "Always allow" is asked about again, showing what changed, and a removed server takes its grant', async () => {
  await withPage(async (page) => {
    await ensureProvider(page, fake.url);
    await resetPolicy(page);
    const cfg = { id: 'rugpull', name: 'rugpull', transport: 'stdio', command: node22, args: [join(root, 'test/node/rugpull-server.mjs')], enabled: true };
    await bound(page, 'SaveServer', cfg);
    try {
      const tools = async () => (await bound(page, 'ListServers')).find((s) => s.config.id === 'rugpull');
      await until(async () => (await tools())?.status.state === 'connected', 'the rugpull server to connect');
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
      const modals = await countModals(page);
      const noteCard = page.locator('[data-testid=toolcall][data-tool$="note"]');

      await send(page, 'use tool rugpull__note {"text":"first"}');
      await (await approvalModal(page)).getByTestId('approval-allow-always').click();
      await turnDone(page);
      await waitAttr(noteCard.last(), 'data-status', 'done');

      // Trusted: the same definition runs unasked.
      await send(page, 'use tool rugpull__note {"text":"second"}');
      await turnDone(page);
      await waitAttr(noteCard.last(), 'data-status', 'done');
      assert.equal(await modals(), 1, 'the trusted tool asked again');

      // The server swaps note's description and schema.
      await send(page, 'use tool rugpull__swap {}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
      await until(async () => (await tools())?.tools.find((t) => t.originalName === 'note')?.description.includes('ssh'), 'the changed note tool to be listed');

      await send(page, 'use tool rugpull__note {"text":"third"}');
      const modal = await approvalModal(page);
      const changed = modal.getByTestId('approval-changed');
      await changed.waitFor({ timeout: WAIT });
      assert.equal(await modal.getByTestId('approval-previous-description').textContent(), 'Saves a note.');
      assert.match(await modal.getByTestId('approval-description').textContent(), /id_ed25519/);
      await shot(page, 'browser-approval-changed');
      await modal.getByTestId('approval-deny').click();
      await turnDone(page);
      await waitAttr(noteCard.last(), 'data-status', 'denied');
    } finally {
      await bound(page, 'DeleteServer', 'rugpull').catch(() => {});
    }
    const p = await bound(page, 'ApprovalPolicy');
    assert.ok(!p.grants.some((g) => g.serverId === 'rugpull'), 'the deleted server kept its grant');
  });
});

test('a link that does not show where it goes asks first, showing the real URL', async () => {
  await withPage(async (page) => {
    await ensureProvider(page, fake.url);
    await send(page, 'see [the docs](https://example.com/docs?ref=chat)');
    const reply = await turnDone(page);
    await reply.getByTestId('message-text').locator('a').click();
    const dialog = page.getByTestId('link-confirm');
    await dialog.waitFor({ timeout: WAIT });
    assert.equal(await dialog.getByTestId('link-confirm-url').textContent(), 'https://example.com/docs?ref=chat');
    assert.equal(await dialog.getByTestId('link-confirm-text').textContent(), 'the docs');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'link-confirm-cancel');
    await shot(page, 'browser-link-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: WAIT });
  });
});

// ---- tasks (the MCP Tasks extension) ----

test('a server runs calls as tasks: the card and the Tasks tab follow them, one completes, Cancel ends the other', async () => {
  const ts = await startTaskServer();
  try {
    await withPage(async (page) => {
      await ensureProvider(page, fake.url);
      await resetPolicy(page);
      // The Tasks tab before any task.
      await page.getByTestId('open-tasks').click();
      await page.getByTestId('tasks-panel').waitFor({ timeout: WAIT });
      if ((await bound(page, 'ListTasks', '', false)).length === 0) {
        await page.getByTestId('tasks-empty').waitFor({ timeout: WAIT });
        await shot(page, 'tasks-panel-empty');
      }

      await bound(page, 'SaveServer', { id: 'tasks', name: 'Task server', transport: 'http', url: ts.url, enabled: true });
      await until(async () => {
        const v = (await bound(page, 'ListServers')).find((s) => s.config.id === 'tasks');
        return v?.status.state === 'connected' && v.tools.some((t) => t.originalName === 'slow_task');
      }, 'the task server to connect with its tools');
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });

      // A task that completes by itself: the reply waits for it, then goes on.
      await send(page, 'use tool tasks__slow_task {"label":"nightly report","seconds":1}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
      const done = card(page, 'slow_task');
      await waitAttr(done, 'data-status', 'done');
      await waitAttr(done.getByTestId('toolcall-task'), 'data-task-status', 'completed');
      assert.equal(await done.getByTestId('toolcall-task-line').textContent(), 'Task completed');
      assert.equal(await done.getByTestId('task-cancel').count(), 0);

      // A task that runs until cancelled.
      await send(page, 'use tool tasks__slow_task {"label":"release build"}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      const running = card(page, 'slow_task');
      await waitAttr(running.getByTestId('toolcall-task'), 'data-task-status', 'working');
      await waitAttr(running, 'data-status', 'running');
      await waitText(running.getByTestId('toolcall-task-line'), /^Task working · \d/);
      await running.getByTestId('task-cancel').waitFor({ timeout: WAIT });
      await waitText(page.getByTestId('tasks-count'), /1/);
      await page.mouse.move(0, 0);
      await shot(page, 'tasks-card-running');

      await page.getByTestId('open-tasks').click();
      const panel = page.getByTestId('tasks-panel');
      await panel.waitFor({ timeout: WAIT });
      const rows = panel.getByTestId('task-row');
      await until(async () => (await rows.count()) >= 2, 'two task rows');
      const working = panel.locator('[data-testid=task-row][data-status=working]');
      const completed = panel.locator('[data-testid=task-row][data-status=completed]');
      assert.equal(await working.count(), 1);
      assert.ok((await completed.count()) >= 1);
      assert.equal(await working.getByTestId('task-row-status').textContent(), 'working');
      assert.match(await working.getByTestId('task-row-duration').textContent(), /^running for /);
      assert.equal(await completed.first().getByTestId('task-row-cancel').count(), 0);
      await shot(page, 'tasks-panel');
      await setTheme(page, 'dark', null);
      await page.getByTestId('open-tasks').click();
      await panel.waitFor({ timeout: WAIT });
      await shot(page, 'tasks-panel-dark');
      await setTheme(page, 'system', null);
      await page.getByTestId('open-tasks').click();

      // Running only, then Cancel: the row says cancelled and leaves the filter.
      await panel.getByTestId('tasks-filter-running').click();
      await until(async () => (await rows.count()) === 1, 'one running task');
      const id = await working.getAttribute('data-id');
      await working.getByTestId('task-row-cancel').click();
      await panel.getByTestId('tasks-empty').waitFor({ timeout: WAIT });
      assert.equal(await page.getByTestId('tasks-count').count(), 0);
      await panel.getByTestId('tasks-filter-all').click();
      const cancelled = panel.locator(`[data-testid=task-row][data-id="${id}"]`);
      await waitAttr(cancelled, 'data-status', 'cancelled');

      // Its conversation: the call ended cancelled and the reply went on.
      await cancelled.getByTestId('task-open-conversation').click();
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
      await turnDone(page);
      const c = card(page, 'slow_task');
      await waitAttr(c, 'data-status', 'cancelled');
      await waitAttr(c.getByTestId('toolcall-task'), 'data-task-status', 'cancelled');
    });
  } finally {
    await withPage(async (page) => {
      for (const t of await bound(page, 'ListTasks', '', true)) await bound(page, 'CancelTask', t.id).catch(() => {});
      await bound(page, 'DeleteServer', 'tasks').catch(() => {});
    }).catch(() => {});
    await ts.stop();
  }
});

registerAttachments({ test, withPage, toolPage, shot, fake });
registerResources({ test, withPage, toolPage, shot, fake });
registerAnnotations({ test, withPage, toolPage, shot, fake });
registerElicit({ test, withPage, toolPage, shot, fake });
registerTrifecta({ test, withPage, toolPage, shot, fake });
registerAppViews({ test, withPage, toolPage, shot, fake });
registerClients({ test, withPage, toolPage, shot, fake });
registerToolSearch({ test, withPage, toolPage, shot, fake });
registerActivity({ test, withPage, toolPage, shot, fake });
registerCmdTools({ test, withPage, toolPage, shot, fake });
registerInstall({ test, withPage, toolPage, shot, fake, backend });
registerRegistry({ test, withPage, toolPage, shot, fake });
registerA11yScreens({ test, withPage, toolPage, shot, fake });
registerKeyboard({ test, withPage, toolPage, shot, fake });
registerScreenshots({ test, withPage, toolPage, shot, fake });
registerMarkdown({ test, withPage, toolPage, shot, fake });
registerPolish({ test, withPage, toolPage, shot, fake });

let ok = false;
try {
  ok = await run();
} finally {
  await browser.close();
  await backend.stop();
  await fake.stop();
  if (!ok) console.log('--- backend output\n' + backend.logs().slice(-3000));
}
process.exit(ok ? 0 : 1);

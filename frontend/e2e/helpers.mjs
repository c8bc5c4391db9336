// Helpers for the end-to-end tests: the fake provider, a page on the app,
// bounded waits, and setup through the bound methods where the UI is not
// what a test is about.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { root } from './harness.mjs';

/** Node 22 and the real MCP servers the tests use. */
export const nodeBin = join(root, 'test/node/node_modules/.bin');
export const node22 = join(nodeBin, 'node');
export const everythingBin = join(nodeBin, 'mcp-server-everything');

/** The longest any single wait may take. */
export const WAIT = 30_000;

/**
 * Starts build/bin/fakeprovider; returns {url, stop}. url is the base URL
 * (ending /v1) it prints first.
 */
export async function startFakeProvider(args = []) {
  const proc = spawn(join(root, 'build/bin/fakeprovider'), ['-addr', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error('fakeprovider printed no URL within 10 s')), 10_000);
    proc.on('error', (e) => { clearTimeout(t); rej(e); });
    proc.on('exit', (code) => { clearTimeout(t); rej(new Error(`fakeprovider exited with ${code}`)); });
    createInterface({ input: proc.stdout }).once('line', (line) => { clearTimeout(t); res(line.trim()); });
  });
  if (!/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(url)) throw new Error(`fakeprovider printed ${JSON.stringify(url)}`);
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
    },
  };
}

/**
 * Starts build/bin/taskserver (make e2e-browser builds it; E2E_TASKSERVER
 * names another), an MCP server of the Tasks extension (test/taskserver);
 * returns {url, stop}, url being its MCP endpoint.
 */
export async function startTaskServer(args = []) {
  const bin = process.env.E2E_TASKSERVER || join(root, 'build/bin/taskserver');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run make e2e-browser, which builds it`);
  const proc = spawn(bin, ['-addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error('taskserver printed no URL within 10 s')), 10_000);
    proc.on('error', (e) => { clearTimeout(t); rej(e); });
    proc.on('exit', (code) => { clearTimeout(t); rej(new Error(`taskserver exited with ${code}`)); });
    createInterface({ input: proc.stdout }).once('line', (line) => { clearTimeout(t); res(line.replace(/^listening on /, '').trim()); });
  });
  if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url)) throw new Error(`taskserver printed ${JSON.stringify(url)}`);
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
    },
  };
}

/** Polls fn until it returns a truthy value (returned), or throws msg after ms. */
export async function until(fn, msg, ms = WAIT) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms: ${typeof msg === 'function' ? await msg(last) : msg} (last: ${last?.message ?? JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until locator's text matches re; returns the text. */
export async function waitText(locator, re, ms = WAIT) {
  await locator.first().waitFor({ timeout: ms });
  return until(async () => {
    const t = await locator.first().textContent();
    return re.test(t ?? '') ? t : false;
  }, async () => `text of ${locator} to match ${re}; it is ${JSON.stringify(await locator.first().textContent().catch(() => '?'))}`, ms);
}

/** Waits until locator's attribute name equals value. */
export async function waitAttr(locator, name, value, ms = WAIT) {
  await locator.waitFor({ timeout: ms });
  return until(async () => (await locator.getAttribute(name)) === value,
    async () => `${locator} [${name}] to be ${value}; it is ${await locator.getAttribute(name).catch(() => '?')}`, ms);
}

/** Calls a bound Go method of app.App in the page: bound(page, 'SaveProvider', {...}). */
export function bound(page, method, ...args) {
  return page.evaluate(([m, a]) => window.go.app.App[m](...a), [method, args]);
}

/**
 * Opens a fresh page on the app and waits until it started (the first-start
 * screen or the chat). Page errors other than Wails' own IPC shim fail the
 * test at checkErrors().
 */
export async function openApp(browser, url, { width = 1200, height = 800 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  // Wails' browser IPC shim (/wails/ipc.js) throws once while it builds its
  // reconnect overlay before <body> exists; errors of ours are kept.
  page.on('pageerror', (e) => { if (!String(e.stack).includes('/wails/ipc.js')) errors.push(e.stack || e.message); });
  // Anything the Content-Security-Policy blocks is a bug: the app needs none of it.
  page.on('console', (m) => { if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) errors.push(m.text()); });
  await page.goto(url);
  await started(page);
  page.checkErrors = () => {
    if (errors.length) throw new Error(`errors in the page:\n${errors.join('\n')}`);
  };
  return page;
}

/** Waits until the app shows the first-start screen or the chat. */
export async function started(page) {
  await page.locator('[data-testid=first-start], [data-testid=composer-input]').first().waitFor({ timeout: WAIT });
}

/** Makes sure a provider pointing at the fake exists (for tests that do not set it up in the UI). */
export async function ensureProvider(page, baseUrl) {
  const list = await bound(page, 'ListProviders');
  if (list.length) return;
  const v = await bound(page, 'SaveProvider', { id: 'fake', name: 'Fake', preset: 'custom', baseUrl, defaultModel: 'fake-model', apiKey: '' });
  const s = await bound(page, 'GetSettings');
  await bound(page, 'SaveSettings', { ...s, defaultProviderId: v.id });
  await page.reload();
  await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
}

/** The stdio server the tool tests call: the everything server on Node 22. */
export const everythingConfig = {
  id: 'everything', name: 'everything', transport: 'stdio',
  command: node22, args: [everythingBin, 'stdio'], enabled: true,
};

/** Makes sure the everything server is saved and connected; returns its view. */
export async function ensureEverything(page) {
  const list = await bound(page, 'ListServers');
  if (!list.some((s) => s.config.id === 'everything')) await bound(page, 'SaveServer', everythingConfig);
  return until(async () => {
    const v = (await bound(page, 'ListServers')).find((s) => s.config.id === 'everything');
    return v?.status.state === 'connected' && v.tools.length > 0 && v;
  }, 'the everything server to connect');
}

/** Denies every tool call still waiting for approval (left by a failed test). */
export async function denyPending(page) {
  for (const r of await bound(page, 'PendingApprovals')) await bound(page, 'DecideApproval', r.id, 'deny').catch(() => {});
}

/** Forgets every "always allow" grant and read-only setting, turns "allow all" off, and denies what waits. */
export async function resetPolicy(page) {
  await denyPending(page);
  const p = await bound(page, 'ApprovalPolicy');
  for (const g of p.grants) await bound(page, 'RevokeGrant', g.serverId, g.tool);
  for (const r of p.readOnly ?? []) await bound(page, 'SetReadOnlyServer', r.serverId, false);
  if (p.yolo) await bound(page, 'SetYolo', false);
}

/**
 * Counts, in the page, every approval modal that appears from now on
 * (window.__modals), so a test can say none was asked.
 */
export async function countModals(page) {
  await page.evaluate(() => {
    window.__modals = 0;
    let seen = null;
    const check = () => {
      const m = document.querySelector('[data-testid=approval-modal]');
      const id = m?.getAttribute('data-request') ?? null;
      if (id && id !== seen) window.__modals++;
      seen = id;
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true });
    check();
  });
  return () => page.evaluate(() => window.__modals);
}

/** Opens a new chat, sends text with Enter. */
export async function send(page, text, { newChat = true } = {}) {
  if (newChat) await page.getByTestId('new-chat').click();
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

/** The approval modal, once shown (its buttons work from the start). */
export async function approvalModal(page) {
  const modal = page.getByTestId('approval-modal');
  await modal.waitFor({ timeout: WAIT });
  return modal;
}

/**
 * The approval modal, once armed: Enter is ignored for its first 350 ms, so
 * keyboard use waits for data-armed=true (5 s is plenty for 350 ms).
 */
export async function armedModal(page) {
  await approvalModal(page);
  const modal = page.locator('[data-testid=approval-modal][data-armed=true]');
  try {
    await modal.waitFor({ timeout: 5_000 });
  } catch {
    throw new Error(`the approval modal did not arm within 5 s (data-armed is ${await page.getByTestId('approval-modal').getAttribute('data-armed')})`);
  }
  return modal;
}

/**
 * Waits until the open conversation's run ended with its n-th echo reply
 * ("You said: …", the fake's final answer of every turn) done; returns it.
 */
export async function turnDone(page, n = 1) {
  const echoes = page.locator('[data-testid=message][data-role=assistant][data-status=done]').filter({
    has: page.getByTestId('message-text').filter({ hasText: 'You said:' }),
  });
  await until(async () => (await echoes.count()) >= n, async () => `${n} finished echo replies; there are ${await echoes.count()}`);
  await page.getByTestId('send').waitFor({ timeout: WAIT });
  return echoes.nth(n - 1);
}

/** Sets the theme through Settings → Appearance, and comes back to tab. */
export async function setTheme(page, theme, back = 'chat') {
  await page.getByTestId('tab-settings').click();
  await page.getByTestId(`settings-theme-${theme}`).check();
  // "system" resolves to light or dark.
  if (theme !== 'system') await until(() => page.evaluate((t) => document.documentElement.dataset.theme === t, theme), `theme ${theme}`);
  if (back) await page.getByTestId(`tab-${back}`).click();
}

/**
 * Asks the dev server at port for a WebSocket on /wails/ipc with the given
 * Host, Origin and Cookie (each left out when empty), as a web page's
 * browser would; returns the status: 101 when the socket opened.
 */
export function ipcUpgrade(port, { host = `127.0.0.1:${port}`, origin = '', cookie = '' } = {}) {
  return new Promise((resolve, reject) => {
    const headers = {
      Host: host, Connection: 'Upgrade', Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    };
    if (origin) headers.Origin = origin;
    if (cookie) headers.Cookie = cookie;
    const req = request({ host: '127.0.0.1', port, path: '/wails/ipc', headers, timeout: 10_000 });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve(res.statusCode); });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
    req.on('timeout', () => req.destroy(new Error('no answer to the WebSocket request within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

/** The cookie (name=value) the dev server sets for its token URL, or ''. */
export async function devCookie(url) {
  const res = await fetch(url, { redirect: 'manual' });
  await res.arrayBuffer();
  return (res.headers.get('set-cookie') ?? '').split(';')[0];
}

// Servers' views (MCP Apps) in the browser, against real servers from npm
// (test/node, always started with --stdio): the get-time views of the
// vanilla JS and Svelte examples render the time the tool returned, and
// what they ask (a draft, a link, a tool call) goes through the user; the
// system monitor polls its app-only tool through approval ("Always" lets
// it go on) and shows numbers; the PDF server shows a small local PDF.
// Then a red-team view of our own (test/node/redteam-view-server.mjs) tries
// to leave its sandbox in every way it can; each attempt must be blocked,
// and a view that floods, sends 20 MB at once or never starts is stopped,
// saying why, while the app stays responsive.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './harness.mjs';
import { WAIT, approvalModal, bound, node22, nodeBin, send, setTheme, until, waitAttr, waitText } from './helpers.mjs';

/** A server from test/node, on Node 22, always over stdio. */
const npmServer = (id, bin, ...args) => ({ id, name: id, transport: 'stdio', command: node22, args: [join(nodeBin, bin), '--stdio', ...args], enabled: true });

/**
 * A page of toolPage with the server cfg connected, removed afterwards
 * (later tests count the tools); fn gets the page and the server's view.
 */
function viewPage(toolPage, cfg, fn) {
  return toolPage(async (page) => {
    await appErrorsOnly(page);
    try {
      await fn(page, await ensureServer(page, cfg));
    } finally {
      await bound(page, 'DeleteServer', cfg.id).catch(() => {});
    }
  });
}

/** Makes sure the server is saved and connected with its tools; returns its view. */
async function ensureServer(page, cfg) {
  const list = await bound(page, 'ListServers');
  if (!list.some((s) => s.config.id === cfg.id)) await bound(page, 'SaveServer', cfg);
  return until(async () => {
    const v = (await bound(page, 'ListServers')).find((s) => s.config.id === cfg.id);
    return v?.status.state === 'connected' && v.tools.length > 0 && v;
  }, `the ${cfg.id} server to connect`, 60_000);
}

/** The card of the latest call of tool (exposed name), and its view. */
function card(page, tool) {
  const c = page.locator(`[data-testid=toolcall][data-tool="${tool}"]`).last();
  return { card: c, view: c.getByTestId('appview'), frame: c.locator('[data-testid=appview-frame]').contentFrame() };
}

/** Sends "use tool …" in a new chat and allows the model's call once. */
async function callTool(page, tool, args = {}, { newChat = true } = {}) {
  await send(page, `use tool ${tool} ${JSON.stringify(args)}`, { newChat });
  const modal = await approvalModal(page);
  assert.equal(await modal.getByTestId('approval-asker').count(), 0, 'the model asked, not a view');
  await modal.getByTestId('approval-allow-once').click();
  await modal.waitFor({ state: 'detached', timeout: WAIT });
  return card(page, tool);
}

/**
 * Answers every approval a view asks for with decision until done()
 * holds; returns how many it answered. A model's call fails the test.
 */
async function answerViews(page, done, decision = 'approval-allow-always', ms = 60_000, what = 'the view to finish') {
  let n = 0;
  await until(async () => {
    if (await done()) return true;
    const modal = page.locator('[data-testid=approval-modal]');
    if (await modal.count()) {
      assert.equal(await modal.getByTestId('approval-asker').count(), 1, 'a model call asked while a view was working');
      await modal.getByTestId(decision).click();
      await modal.waitFor({ state: 'detached', timeout: WAIT }).catch(() => {});
      n++;
    }
    return false;
  }, what, ms);
  return n;
}

/**
 * Views are other pages: their CSP reports and errors are theirs (the red
 * team's are the point). The app's own page must still have none. Chromium
 * names the app's page as the place of a view's CSP report at times, so a
 * report is the app's when the directive it quotes is one of the app's own
 * policy (index.html's), and never when it is the frame's csp attribute
 * (CSP Embedded Enforcement) refusing a page.
 */
async function appErrorsOnly(page) {
  const errors = [];
  const appPolicy = (await page.evaluate(() => document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content ?? ''))
    .split(';').map((d) => d.trim()).filter(Boolean);
  assert.ok(appPolicy.length > 3, 'the app’s policy');
  const fromView = (url) => /\/mcp-view\/|^chrome-error:/.test(url ?? '');
  const appsOwn = (text) => {
    if (/The embedder requires it to enforce/.test(text)) return false;
    const d = /directive:? "([^"]+)"/.exec(text);
    return !d || appPolicy.includes(d[1].trim());
  };
  page.on('pageerror', (e) => {
    const s = String(e.stack || e.message);
    if (!s.includes('/wails/ipc.js') && !fromView(s)) errors.push(s);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text()) && !fromView(m.location()?.url) && appsOwn(m.text())) errors.push(`${m.text()} (${m.location()?.url})`);
  });
  page.checkErrors = () => {
    if (errors.length) throw new Error(`errors in the app's page:\n${errors.join('\n')}`);
  };
}

/** A one-page PDF saying text (for the PDF server: a local file, no network). */
function tinyPdf(text) {
  const stream = `BT /F1 24 Tf 24 80 Td (${text}) Tj ET`;
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 180] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = objs.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

const timeLike = /\d{1,2}:\d{2}/;

export function register({ test, toolPage, shot }) {
  test('views: get-time renders in the vanilla JS view; its draft, link and tool call go through the user; maximize, close and Show view', async () => {
    await viewPage(toolPage, npmServer('vanilla', 'mcp-server-basic-vanillajs'), async (page) => {
      const { card: c, view, frame } = await callTool(page, 'vanilla__get-time');
      await waitAttr(view, 'data-state', 'ready');
      assert.match(await view.getByTestId('appview-header').textContent(), /View from vanilla/);
      const time = frame.locator('#server-time');
      await waitText(time, timeLike);
      const first = await time.textContent();
      const f = c.getByTestId('appview-frame');
      assert.equal(await f.getAttribute('sandbox'), 'allow-scripts');
      assert.match(await f.getAttribute('src'), /^\/mcp-view\/[0-9a-f]{32}$/);
      // The text of the result is still there.
      assert.equal(await c.locator('details.res > summary').count(), 1);
      // The view sized itself, within bounds.
      await until(async () => (await f.boundingBox())?.height > 150, 'the view to size itself');
      assert.ok((await f.boundingBox()).height <= 720);
      await view.getByTestId('appview-header').scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-vanilla');

      // ui/message: a draft in the composer, not sent.
      const before = await page.locator('[data-testid=message][data-role=user]').count();
      // A draft lands only 2 s after the user last typed (the message sent above).
      await new Promise((r) => setTimeout(r, 2_100));
      await frame.locator('#send-message-btn').click();
      await until(async () => (await page.getByTestId('composer-input').inputValue()) === 'This is message text.', 'the view’s draft in the composer');
      await page.getByTestId('appview-draft-note').waitFor({ timeout: WAIT });
      assert.match(await page.getByTestId('appview-draft-note').textContent(), /The vanilla view wrote a draft below\. Nothing is sent until you press Send\./);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await page.locator('[data-testid=message][data-role=user]').count(), before, 'the draft was sent by itself');
      await shot(page, 'appviews-draft');
      await page.getByTestId('composer-input').fill('');
      await page.getByTestId('appview-draft-note').waitFor({ state: 'detached', timeout: WAIT });

      // ui/open-link: asks first; cancelled, nothing opens.
      const popups = [];
      page.context().on('page', (p) => popups.push(p.url()));
      await frame.locator('#open-link-btn').click();
      const confirm = page.getByTestId('link-confirm');
      await confirm.waitFor({ timeout: WAIT });
      assert.equal(await confirm.getByTestId('link-confirm-asker').textContent(), 'The vanilla view asks to open a link.');
      assert.equal(await confirm.getByTestId('link-confirm-url').textContent(), 'https://modelcontextprotocol.io/');
      await shot(page, 'appviews-link-confirm');
      await confirm.getByTestId('link-confirm-cancel').click();
      await confirm.waitFor({ state: 'detached', timeout: WAIT });

      // tools/call from the view: the dialog says the view asks.
      await frame.locator('#get-time-btn').click();
      const modal = await approvalModal(page);
      // The heading names the tool, not its free-text title; a view's request has no "Allow all", and allows only by a click once armed (1 s).
      assert.equal(await modal.locator('h2').textContent(), 'The vanilla view asks to run get-time');
      assert.match(await modal.getByTestId('approval-asker').textContent(), /not the model/);
      assert.equal(await modal.getByTestId('approval-allow-all').count(), 0);
      assert.equal(await modal.getByTestId('approval-allow-once').isDisabled(), true, 'allow is armed at once for a view’s request');
      await page.locator('[data-testid=approval-modal][data-armed=true]').waitFor({ timeout: WAIT });
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-view-approval');
      await modal.getByTestId('approval-allow-once').click();
      await until(async () => (await time.textContent()) !== first, 'the view to show the time it asked for', 10_000).catch(() => {});
      assert.match(await time.textContent(), timeLike);

      // Maximized, it fills the message list; Escape restores it.
      await view.getByTestId('appview-maximize').click();
      const list = await page.getByTestId('message-list').boundingBox();
      await until(async () => {
        const b = await view.boundingBox();
        return b && Math.abs(b.height - list.height) < 2 && Math.abs(b.width - list.width) < 2 && Math.abs(b.y - list.y) < 2;
      }, 'the maximized view to fill the message list');
      await shot(page, 'appviews-maximized');
      await view.getByTestId('appview-header').click();
      await page.keyboard.press('Escape');
      await until(async () => (await view.boundingBox()).height < list.height - 50, 'Escape to restore the view');
      assert.equal(await page.getByTestId('stop').count(), 0);

      // Closed, then shown again from its card.
      await view.getByTestId('appview-close').click();
      await view.waitFor({ state: 'detached', timeout: WAIT });
      await c.getByTestId('appview-show').click();
      await waitAttr(c.getByTestId('appview'), 'data-state', 'ready');
      await waitText(c.locator('[data-testid=appview-frame]').contentFrame().locator('#server-time'), timeLike);
      assert.deepEqual(popups, []);
    });
  });

  test('views: get-time renders in the Svelte view, light and dark; history shows "Show view"', async () => {
    await viewPage(toolPage, npmServer('svelte', 'mcp-server-basic-svelte'), async (page) => {
      const { card: c, view, frame } = await callTool(page, 'svelte__get-time');
      await waitAttr(view, 'data-state', 'ready');
      await waitText(frame.locator('code.server-time'), timeLike);
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-svelte');
      await setTheme(page, 'dark');
      await waitText(c.locator('[data-testid=appview-frame]').contentFrame().locator('code.server-time'), timeLike);
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-svelte-dark');
      await setTheme(page, 'system');

      // After a reload the call is history: it waits for "Show view".
      const convId = (await bound(page, 'ListConversations'))[0].id;
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
      await page.locator(`[data-testid=conversation][data-id="${convId}"] button.open`).click();
      const again = card(page, 'svelte__get-time');
      await again.card.waitFor({ timeout: WAIT });
      await again.card.getByTestId('appview-show').waitFor({ timeout: WAIT });
      assert.equal(await again.view.count(), 0);
      await again.card.getByTestId('appview-show').click();
      await waitText(again.frame.locator('code.server-time'), timeLike);
    });
  });

  test('views: the system monitor polls its app-only tool through approval; "Always" lets it go on, and it shows numbers', async () => {
    await viewPage(toolPage, npmServer('monitor', 'mcp-system-monitor-server'), async (page, srv) => {
      const poll = srv.tools.find((t) => t.originalName === 'poll-system-stats');
      assert.ok(poll?.appOnly, 'poll-system-stats is for the view only');
      const { view, frame } = await callTool(page, 'monitor__get-system-info');
      await waitAttr(view, 'data-state', 'ready');
      // The view starts polling: the dialog says the view asks.
      const modal = await approvalModal(page);
      assert.match(await modal.locator('h2').textContent(), /^The monitor view asks to run poll-system-stats$/);
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-monitor-approval');
      const answered = await answerViews(page, async () => /^\d+%$/.test(((await frame.locator('#memory-percent').textContent()) ?? '').trim()), 'approval-allow-always', 60_000, 'numbers in the monitor');
      assert.ok(answered >= 1);
      // Allowed always: the next polls run without asking.
      const grants = (await bound(page, 'ApprovalPolicy')).grants;
      assert.ok(grants.some((g) => g.serverId === 'monitor' && g.tool === 'poll-system-stats'), JSON.stringify(grants));
      const status = frame.locator('#status-text');
      const t1 = await status.textContent();
      await until(async () => (await status.textContent()) !== t1, 'another poll', 10_000);
      assert.equal(await page.locator('[data-testid=approval-modal]').count(), 0);
      assert.match(await frame.locator('#info-hostname').textContent(), /\S/);
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-monitor');
    });
  });

  test('views: the PDF server shows a small local PDF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-pdf-'));
    const pdf = join(dir, 'fixture.pdf');
    writeFileSync(pdf, tinyPdf('Switchboard PDF fixture'));
    try {
      await viewPage(toolPage, npmServer('pdf', 'mcp-pdf-server', pdf), async (page) => {
        const { view, frame } = await callTool(page, 'pdf__display_pdf', { url: pdf });
        await view.waitFor({ timeout: WAIT });
        // The view reads the file's bytes through its app-only tool: approved.
        await answerViews(page, async () => (await frame.locator('#viewer').isVisible().catch(() => false)) || (await frame.locator('#error').isVisible().catch(() => false)), 'approval-allow-always', 90_000, 'the PDF viewer');
        assert.equal(await frame.locator('#error').isVisible(), false, `the viewer failed: ${await frame.locator('#error-message').textContent().catch(() => '?')}`);
        await waitText(frame.locator('#total-pages'), /of 1/);
        // Leave time for the page to paint, answering what else it asks.
        await answerViews(page, async () => false, 'approval-allow-always', 3000).catch(() => {});
        await view.getByTestId('appview-maximize').click();
        await new Promise((r) => setTimeout(r, 800));
        await page.mouse.move(0, 0);
        await shot(page, 'appviews-pdf');
        await page.keyboard.press('Escape');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('views: the red-team view is blocked in every attempt, and the app stays responsive', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-redteam-'));
    const reportFile = join(dir, 'report.json');
    const redteam = { id: 'redteam', name: 'redteam', transport: 'stdio', command: node22, args: [join(root, 'test/node/redteam-view-server.mjs'), '--report', reportFile], enabled: true };
    try {
      await viewPage(toolPage, redteam, async (page) => {
        const url = page.url();
        const popups = [];
        page.context().on('page', (p) => popups.push(p.url()));
        const { view, frame } = await callTool(page, 'redteam__redteam');
        await view.waitFor({ timeout: WAIT });
        assert.match(await view.getByTestId('appview-domains').textContent(), /allowed\.example/);
        // It reports through its own tool: the one call it may make.
        await answerViews(page, () => existsSync(reportFile), 'approval-allow-once', 90_000, 'the red team’s report');
        const report = JSON.parse(readFileSync(reportFile, 'utf8')).results;
        const names = report.map((r) => r.name);
        for (const want of [
          'parent.document', 'top.document', 'window.go', 'window.runtime', 'parent.go', 'webkit.messageHandlers', 'document.cookie', 'localStorage', 'sessionStorage',
          'indexedDB', 'top.location = ...', 'window.open', 'fetch undeclared origin', 'fetch app origin /', 'fetch /wails/ipc.js', 'WebSocket /wails/ipc',
          'nested iframe of the app', 'nested iframe elsewhere', 'script /wails/ipc.js', 'tools/call of another server’s tool', 'tools/call of a model-only tool',
          'tools/call of an unknown tool', 'resources/read of another server’s resource', 'ui/open-link javascript:', 'ui/open-link file:', 'size-changed 1e9',
        ]) assert.ok(names.includes(want), `no outcome for ${want}: ${names.join(', ')}`);
        const allowed = report.filter((r) => r.outcome !== 'blocked');
        assert.deepEqual(allowed, [], `attempts not blocked:\n${allowed.map((r) => `${r.name}: ${r.outcome} ${r.detail}`).join('\n')}`);
        // The view's own list says the same.
        await waitText(frame.locator('#summary'), /attempts: \d+ blocked, 0 allowed$/);
        assert.equal(await frame.locator('li[data-outcome=ALLOWED]').count(), 0);
        // What only the app can see: still here, nothing opened, no link asked, nothing allowed.
        assert.equal(page.url(), url);
        assert.deepEqual(popups, []);
        assert.equal(await page.getByTestId('link-confirm').count(), 0);
        assert.equal((await bound(page, 'ApprovalPolicy')).yolo, false);
        assert.ok((await c(page).getByTestId('appview-frame').boundingBox()).height <= 720);
        await view.scrollIntoViewIfNeeded();
        await page.mouse.move(0, 0);
        await shot(page, 'appviews-redteam');

        // Navigating its own frame (to the app's page): the frame loads
        // something else than the view, and the view is stopped at once.
        // (In Chromium the frame's csp attribute already refuses the app's
        // page, which does not carry the view's policy.)
        const nav = await callTool(page, 'redteam__redteam', { mode: 'navigate' });
        rmSync(reportFile, { force: true });
        await answerViews(page, () => existsSync(reportFile), 'approval-allow-once', 60_000, 'the navigate report');
        await waitText(nav.card.getByTestId('appview-note'), /^The view from redteam was stopped: it navigated its frame away from its page$/);
        assert.equal(await nav.card.getByTestId('appview').count(), 0);
        assert.ok(!page.frames().some((f) => f !== page.mainFrame() && /\/\?|\/$/.test(f.url()) && !f.url().includes('/mcp-view/')), 'a frame still shows the app’s page');
        await nav.card.scrollIntoViewIfNeeded();
        await page.mouse.move(0, 0);
        await shot(page, 'appviews-redteam-navigated');
        assert.equal(page.url(), url);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('views: a view that floods, sends 20 MB at once or never starts is stopped, saying why; the app stays responsive', async () => {
    const redteam = { id: 'redteam', name: 'redteam', transport: 'stdio', command: node22, args: [join(root, 'test/node/redteam-view-server.mjs')], enabled: true };
    await viewPage(toolPage, redteam, async (page) => {
      const responsive = async () => {
        const t = Date.now();
        await page.getByTestId('composer-input').fill('still here');
        assert.equal(await page.getByTestId('composer-input').inputValue(), 'still here');
        await page.getByTestId('composer-input').fill('');
        await bound(page, 'ListServers');
        return Date.now() - t;
      };
      const stopped = async (mode, why) => {
        const { card: c } = await callTool(page, mode === 'hang' ? 'redteam__redteam-hang' : 'redteam__redteam', mode === 'hang' ? {} : { mode });
        const note = c.getByTestId('appview-note');
        await waitText(note, why, mode === 'hang' ? 20_000 : WAIT);
        assert.equal(await c.getByTestId('appview').count(), 0, 'the stopped view’s frame is gone');
        assert.ok((await responsive()) < 5000, 'the app answers at once');
        return c;
      };
      await stopped('flood', /^The view from redteam was stopped: it sent too many messages \(more than 200 at once, or 100 a second\)$/);
      const big = await stopped('big', /^The view from redteam was stopped: it sent a message of 20\.0 MB; the most is 4\.0 MB$/);
      await big.scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await shot(page, 'appviews-stopped');
      await stopped('hang', /^The view from redteam was stopped: it did not start within 10 s \(it never sent ui\/initialize\)$/);
      // Tall: asks for 1e9 px, gets at most 720.
      const tall = await callTool(page, 'redteam__redteam', { mode: 'tall' });
      await answerViews(page, async () => /attempts/.test((await tall.frame.locator('#summary').textContent().catch(() => '')) ?? ''), 'approval-deny', 30_000, 'the tall view');
      const h = (await tall.card.getByTestId('appview-frame').boundingBox()).height;
      assert.ok(h <= 720 && h >= 60, `height ${h}`);
      assert.equal(await tall.frame.locator('li[data-outcome=ALLOWED]').count(), 0);
    });
  });
}

/** The card of the latest red-team probe. */
const c = (page) => page.locator('[data-testid=toolcall][data-tool="redteam__redteam"]').last();

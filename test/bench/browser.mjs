// The browser half of test/bench: drives the real frontend, served by the
// dev binary, in Debian's Chromium (flags as frontend/e2e/harness.mjs), on
// commands from the Go half.
//
//   node test/bench/browser.mjs URL
//
// It reads one JSON command per line on stdin and answers each with one
// line "@@" + JSON on stdout ({ok: true, ...} or {ok: false, error}).
// It touches the app only through stable hooks: the bound methods under
// window.go.app.App, visible text (a conversation's title, to click it) and
// document.body's text, so it works whatever the components look like.
//
// Commands:
//   {cmd: "provider", baseUrl}            saves the fake provider, reloads
//   {cmd: "stream", tokens, every, marker, title, timeoutMs, [pieces, words]}
//   {cmd: "open", title, other, marker, timeoutMs}
//   {cmd: "server", config, tool, timeoutMs}   saves an MCP server, waits for tool
//   {cmd: "conversations", titles, height} creates them, reloads, opens the first
//   {cmd: "viewCall", convId, tool, n, timeoutMs}
//   {cmd: "switch", title, timeoutMs}     opens another conversation; no view left
//   {cmd: "measure"}                      GC, then the page's heap and nodes
//   {cmd: "appLog", contains}             counts the app log's lines with each text
//   {cmd: "quit"}
//
// Servers' views (MCP Apps) are found by data-testid=appview (data-view
// is the view's id, data-state its state), as frontend/e2e/appviews.mjs
// finds them; their frames by their URL (/mcp-view/<id>).
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
const { chromium } = await import(pathToFileURL(join(root, 'frontend/node_modules/playwright-core/index.mjs')).href);

const url = process.argv[2];
const reply = (obj) => process.stdout.write('@@' + JSON.stringify(obj) + '\n');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
// Long tasks from the page's start, kept for the whole session.
await page.addInitScript(() => {
  window.__longtasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
});
const pageErrors = [];
page.on('pageerror', (e) => { if (!String(e.stack).includes('/wails/ipc.js')) pageErrors.push(String(e.message)); });

/** Loads the page and waits for the bindings and a settled first screen. */
async function load() {
  for (let i = 0; ; i++) {
    try {
      await page.goto(url);
      break;
    } catch (e) { // the dev server's asset handler sometimes drops the first request after a reload
      if (i === 2) throw e;
      await page.waitForTimeout(500);
    }
  }
  await page.waitForFunction(() => window.go?.app?.App?.Ready, null, { timeout: 30_000 });
  await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => {});
  await page.waitForTimeout(300);
}

/** The streamed text the provider sends, built the same way as the Go half. */
function expectedTokens(n, every, marker) {
  const out = [];
  for (let i = 0; i < n - 1; i++) out.push('t' + String(i).padStart(5, '0') + ((i + 1) % every === 0 ? '\n\n' : ' '));
  out.push(marker);
  return out;
}

/** Clicks the visible text title; a UI without it cannot show the conversation. */
async function openByTitle(title) {
  const item = page.getByText(title, { exact: true }).first();
  try {
    await item.waitFor({ state: 'visible', timeout: 10_000 });
  } catch {
    const shown = (await page.evaluate(() => document.body.innerText)).slice(0, 300).replace(/\s+/g, ' ');
    throw new Error(`the UI shows no conversation titled "${title}" to open (first screen: "${shown}")`);
  }
  await item.click();
}

/**
 * Arms a watcher that notes when marker first enters the DOM (Date.now())
 * and the frame after; and when each checkpoint (in order, before marker)
 * first does.
 */
async function armWatcher(marker, checkpoints = []) {
  await page.evaluate(({ marker, checkpoints }) => {
    const w = { marker, at: 0, paint: 0, by: '', checkpointsAt: checkpoints.map(() => 0) };
    window.__watch = w;
    let next = 0; // the next checkpoint to look for
    const found = (by) => {
      if (w.at) return;
      w.at = Date.now();
      w.by = by;
      requestAnimationFrame(() => setTimeout(() => { w.paint = Date.now(); }, 0));
      obs.disconnect();
      clearInterval(poll);
    };
    const look = (text) => {
      const now = Date.now();
      while (next < checkpoints.length && text.includes(checkpoints[next])) w.checkpointsAt[next++] = now;
      if (text.includes(marker)) { found('mutation'); return true; }
      return false;
    };
    const obs = new MutationObserver((muts) => {
      for (const m of muts) {
        if (m.type === 'characterData') {
          if (look(m.target.data)) return;
        } else {
          for (const n of m.addedNodes) if (look(n.textContent || '')) return;
        }
      }
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    // A safety net (±250 ms) in case the text arrives in a way the observer misses.
    const poll = setInterval(() => { if (document.body.textContent.includes(marker)) found('poll'); }, 250);
  }, { marker, checkpoints });
}

async function waitWatched(timeoutMs) {
  await page.waitForFunction(() => window.__watch.at && window.__watch.paint, null, { timeout: timeoutMs, polling: 100 });
  return page.evaluate(() => ({ ...window.__watch }));
}

/**
 * Streams a reply into a new conversation. The reply is tokens … marker
 * (expectedTokens), or, given pieces (the provider's chunks), those, with
 * words the texts looked for in the page, in order.
 */
async function stream({ tokens, every, marker, checkpoints, title, timeoutMs, pieces, words }) {
  const convId = await page.evaluate(async (title) => {
    const c = await window.go.app.App.NewConversation('fake', 'm');
    await window.go.app.App.RenameConversation(c.id, title);
    return c.id;
  }, title);
  await load(); // the conversation list is read at start
  await openByTitle(title);
  await page.waitForTimeout(300);
  await armWatcher(marker, checkpoints);
  const sentAt = Date.now();
  const sentPerf = await page.evaluate(async (id) => {
    const t = performance.now();
    await window.go.app.App.Send(id, 'Please stream the benchmark text.', []);
    return t;
  }, convId);
  let seen;
  try {
    seen = await waitWatched(timeoutMs);
  } catch {
    const stored = await page.evaluate(async (id) => (await window.go.app.App.GetMessages(id, 0, 5)).map((m) => ({ role: m.role, status: m.status, len: m.content.length })), convId);
    throw new Error(`the streamed text's last token never appeared in the page within ${timeoutMs} ms (stored: ${JSON.stringify(stored)})`);
  }
  const endPerf = await page.evaluate(() => performance.now());
  // Let the reply finish and the UI settle, then count what is missing.
  await page.waitForFunction(async (id) => {
    const ms = await window.go.app.App.GetMessages(id, 0, 5);
    return ms.length && ms[ms.length - 1].status !== 'streaming';
  }, convId, { timeout: 30_000, polling: 200 });
  await page.waitForTimeout(500);
  const want = pieces ?? expectedTokens(tokens, every, marker);
  // Each word looked for, and the characters it stands for.
  const items = words ? words.map((w) => [w, w.length]) : want.map((t) => [t.trim(), t.length]);
  const { text, stored, status, longtasks } = await page.evaluate(async ({ id, from, to }) => {
    const ms = await window.go.app.App.GetMessages(id, 0, 5);
    const last = ms[ms.length - 1];
    const lt = window.__longtasks.filter((e) => e.start >= from && e.start <= to);
    return { text: document.body.innerText, stored: last.content, status: last.status, longtasks: lt };
  }, { id: convId, from: sentPerf, to: endPerf + 1000 });
  let pos = 0, lostDom = 0, missing = 0;
  for (const [word, chars] of items) {
    const i = text.indexOf(word, pos);
    if (i < 0) { lostDom += chars; missing++; } else pos = i + word.length;
  }
  const full = want.join('');
  let lostStore = Math.max(0, full.length - stored.length);
  if (!full.startsWith(stored) && stored !== full) lostStore = full.length; // not even a prefix
  return {
    sentAt, domAt: seen.at, paintAt: seen.paint, detectedBy: seen.by, checkpointsAt: seen.checkpointsAt, lostDom, missingTokens: missing, lostStore,
    status, chars: full.length, longestTaskMs: longtasks.reduce((m, e) => Math.max(m, e.duration), 0), longTasks: longtasks.length,
    // When each long task started (ms after Send) and how long it took.
    longTaskAt: longtasks.map((e) => [Math.round(e.start - sentPerf), Math.round(e.duration)]),
  };
}

async function open({ title, other, marker, timeoutMs }) {
  await openByTitle(other);
  await page.waitForTimeout(500);
  await armWatcher(marker);
  const clickAt = Date.now();
  await openByTitle(title);
  const seen = await waitWatched(timeoutMs).catch(() => {
    throw new Error(`the last message of "${title}" never appeared in the page within ${timeoutMs} ms`);
  });
  return { clickAt, domAt: seen.at, paintAt: seen.paint, detectedBy: seen.by };
}

/** Saves an MCP server (unless saved) and waits until it is connected and lists tool. */
async function server({ config, tool, timeoutMs }) {
  await page.evaluate(async (c) => {
    const list = await window.go.app.App.ListServers();
    if (!list.some((s) => s.config.id === c.id)) await window.go.app.App.SaveServer(c);
  }, config);
  try {
    await page.waitForFunction(async ({ id, tool }) => {
      const v = (await window.go.app.App.ListServers()).find((s) => s.config.id === id);
      return v?.status.state === 'connected' && v.tools.some((t) => t.name === tool && t.ui);
    }, { id: config.id, tool }, { timeout: timeoutMs, polling: 250 });
  } catch {
    const v = await page.evaluate(async (id) => (await window.go.app.App.ListServers()).find((s) => s.config.id === id), config.id);
    throw new Error(`the server ${config.id} did not connect with a tool ${tool} that has a view within ${timeoutMs} ms (status: ${JSON.stringify(v?.status)}, tools: ${JSON.stringify(v?.tools.map((t) => t.name))})`);
  }
  return {};
}

/**
 * Creates conversations with these titles, reloads, opens the first;
 * returns their ids. With height, the page is that tall from then on.
 */
async function conversations({ titles, height }) {
  if (height) await page.setViewportSize({ width: 1200, height });
  const ids = await page.evaluate(async (titles) => {
    const out = [];
    for (const t of titles) {
      const c = await window.go.app.App.NewConversation('fake', 'm');
      await window.go.app.App.RenameConversation(c.id, t);
      out.push(c.id);
    }
    return out;
  }, titles);
  await load();
  await openByTitle(titles[0]);
  await page.waitForTimeout(300);
  return { ids };
}

/** Scrolls the message list to its end, where a user who sends a message is. */
const toBottom = () => page.evaluate(() => {
  const l = document.querySelector('[data-testid=message-list]');
  if (l) l.scrollTop = l.scrollHeight;
});

/** The views in the page: id and state of each. */
const viewsInPage = () => page.evaluate(() => [...document.querySelectorAll('[data-testid=appview]')].map((e) => ({ id: e.dataset.view, state: e.dataset.state })));

/** The approvals viewCall decided. */
const decided = new Set();

/**
 * Sends "use tool TOOL {} (call n)", allows the call once (a bound
 * method, as the approval dialog does), and waits until a new view is
 * ready and shows the time, and the reply after the result is stored.
 */
async function viewCall({ convId, tool, n, timeoutMs }) {
  const before = new Set((await viewsInPage()).map((v) => v.id));
  await toBottom();
  const startedAt = Date.now();
  await page.evaluate(({ id, text }) => window.go.app.App.Send(id, text, []), { id: convId, text: `use tool ${tool} {} (call ${n})` });
  // A request just decided can still be listed for a moment: skip those.
  for (;;) {
    if (Date.now() > startedAt + timeoutMs) throw new Error(`call ${n}: no approval was asked for within ${timeoutMs} ms`);
    const pending = await page.evaluate(() => window.go.app.App.PendingApprovals());
    const req = pending.find((r) => r.conversationId === convId && r.id && !decided.has(r.id));
    if (req) {
      decided.add(req.id);
      await page.evaluate((rid) => window.go.app.App.DecideApproval(rid, 'allow_once'), req.id);
      break;
    }
    await page.waitForTimeout(50);
  }
  const handle = await page.waitForFunction((before) => {
    const v = [...document.querySelectorAll('[data-testid=appview]')].find((e) => e.dataset.view && !before.includes(e.dataset.view));
    return v?.dataset.state === 'ready' && v.dataset.view;
  }, [...before], { timeout: timeoutMs, polling: 100 }).catch(async () => {
    const cards = await page.evaluate(() => [...document.querySelectorAll('[data-testid=toolcall]')].slice(-2).map((c) => ({
      status: c.dataset.status, shut: c.querySelector('[data-testid=appview-shut]')?.dataset.state, note: c.querySelector('[data-testid=appview-note]')?.textContent,
      text: c.textContent.replace(/\s+/g, ' ').slice(0, 200) })));
    await page.screenshot({ path: join(root, 'test-results', 'bench-views-failed.png') }).catch(() => {});
    throw new Error(`call ${n}: no new view became ready within ${timeoutMs} ms (views: ${JSON.stringify(await viewsInPage())}; last cards: ${JSON.stringify(cards)})`);
  });
  const viewId = await handle.jsonValue();
  // The view itself shows the time the tool returned (its frame may be
  // in another process; the locator finds it there).
  const time = page.locator(`[data-testid=appview][data-view="${viewId}"] [data-testid=appview-frame]`).contentFrame().locator('#server-time');
  const deadline = startedAt + timeoutMs;
  let shown = '';
  while (!/\d{1,2}:\d{2}/.test(shown)) {
    if (Date.now() > deadline) throw new Error(`call ${n}: the view ${viewId} never showed the time (it shows "${shown}")`);
    shown = (await time.textContent({ timeout: Math.max(deadline - Date.now(), 1) }).catch(() => '')) ?? '';
    if (!/\d{1,2}:\d{2}/.test(shown)) await page.waitForTimeout(100);
  }
  await page.waitForFunction(async ({ id, n }) => {
    const ms = await window.go.app.App.GetMessages(id, 0, 3);
    const last = ms[ms.length - 1];
    return last?.role === 'assistant' && last.status !== 'streaming' && last.content.includes(`(call ${n})`);
  }, { id: convId, n }, { timeout: timeoutMs, polling: 100 }).catch(() => { throw new Error(`call ${n}: the reply after the tool's result never ended`); });
  const tookMs = Date.now() - startedAt;
  const listHeight = await page.evaluate(() => document.querySelector('[data-testid=message-list]')?.scrollHeight ?? 0);
  return { viewId, tookMs, views: await viewsInPage(), listHeight };
}

/** Opens another conversation and waits until no view is left in the page. */
async function switchTo({ title, timeoutMs }) {
  await openByTitle(title);
  await page.waitForFunction(() => !document.querySelector('[data-testid=appview], iframe[src^="/mcp-view/"]'), null, { timeout: timeoutMs, polling: 100 })
    .catch(async () => { throw new Error(`views were left in the page after opening "${title}": ${JSON.stringify(await viewsInPage())}`); });
  return {};
}

let cdp = null;
/**
 * Forces garbage collection in the page and in every frame that runs in
 * a process of its own (twice: a first pass can leave what finalizers
 * free), then reads the page's JS heap and node counts.
 */
async function measure() {
  if (!cdp) {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
  }
  const frames = [];
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    try {
      frames.push(await page.context().newCDPSession(f));
    } catch {} // in the page's own process: the page's GC covers it
  }
  for (let i = 0; i < 2; i++) {
    await cdp.send('HeapProfiler.collectGarbage');
    for (const s of frames) await s.send('HeapProfiler.collectGarbage').catch(() => {});
  }
  for (const s of frames) await s.detach().catch(() => {});
  await page.waitForTimeout(300);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  const dom = await page.evaluate(() => {
    let n = 0;
    const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
    while (w.nextNode()) n++;
    return n;
  });
  return {
    jsHeapUsed: m.JSHeapUsedSize, jsHeapTotal: m.JSHeapTotalSize, nodesInProcess: m.Nodes, documents: m.Documents, frames: m.Frames,
    domNodes: dom, outOfProcessFrames: frames.length, views: await viewsInPage(),
  };
}

/** Counts the app log's lines that contain each text. */
async function appLog({ contains }) {
  const lines = await page.evaluate(() => window.go.app.App.AppLogs(0, 0));
  return { counts: contains.map((c) => lines.filter((l) => l.text.includes(c)).length) };
}

try {
  await load();
  reply({ ok: true, ready: true });
} catch (e) {
  reply({ ok: false, error: String(e?.message || e) });
  await browser.close();
  process.exit(1);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  try {
    switch (c.cmd) {
      case 'provider':
        await page.evaluate((baseUrl) => window.go.app.App.SaveProvider({ id: 'fake', name: 'Fake', preset: 'custom', baseUrl, defaultModel: 'm', apiKey: '' }), c.baseUrl);
        await load();
        reply({ ok: true });
        break;
      case 'stream':
        reply({ ok: true, ...(await stream(c)), pageErrors: pageErrors.splice(0) });
        break;
      case 'open':
        reply({ ok: true, ...(await open(c)), pageErrors: pageErrors.splice(0) });
        break;
      case 'server':
        reply({ ok: true, ...(await server(c)) });
        break;
      case 'conversations':
        reply({ ok: true, ...(await conversations(c)), pageErrors: pageErrors.splice(0) });
        break;
      case 'viewCall':
        reply({ ok: true, ...(await viewCall(c)), pageErrors: pageErrors.splice(0) });
        break;
      case 'switch':
        reply({ ok: true, ...(await switchTo(c)), pageErrors: pageErrors.splice(0) });
        break;
      case 'measure':
        reply({ ok: true, ...(await measure()) });
        break;
      case 'appLog':
        reply({ ok: true, ...(await appLog(c)) });
        break;
      case 'quit':
        await browser.close();
        reply({ ok: true });
        process.exit(0);
      default:
        reply({ ok: false, error: 'unknown command ' + c.cmd });
    }
  } catch (e) {
    reply({ ok: false, error: String(e?.message || e), pageErrors: pageErrors.splice(0) });
  }
}
await browser.close();

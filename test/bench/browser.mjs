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
//   {cmd: "activity", steps, delay, timeoutMs}  opens Tool activity from its tab, then changes its filters
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
  // When each message of the dev server's IPC socket arrives, before the
  // app's own handlers see it: the watcher (armWatcher) notes when the
  // checkpoints arrive, which splits a lag into backend and page.
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => { if (typeof e.data === 'string') window.__arrived?.(e.data); });
    }
  };
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
    const w = { marker, at: 0, paint: 0, by: '', checkpointsAt: checkpoints.map(() => 0), arrivedAt: checkpoints.map(() => 0), markerArrivedAt: 0 };
    window.__watch = w;
    let nextArrival = 0;
    window.__arrived = (data) => {
      const now = Date.now();
      while (nextArrival < checkpoints.length && data.includes(checkpoints[nextArrival])) w.arrivedAt[nextArrival++] = now;
      if (!w.markerArrivedAt && data.includes(marker)) w.markerArrivedAt = now;
    };
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
    sentAt, domAt: seen.at, paintAt: seen.paint, detectedBy: seen.by, checkpointsAt: seen.checkpointsAt,
    arrivedAt: seen.arrivedAt, markerArrivedAt: seen.markerArrivedAt, lostDom, missingTokens: missing, lostStore,
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

/**
 * Hooks the page's ListActivity and ActivityFacets bindings (the view
 * calls them through window.go at each call) to note when each call left
 * and its reply came back, and the rows it brought; and arms a watcher
 * (window.__act.w) that notes the last user event (click, input, change,
 * keydown) from now on, and when the table first shows the rows of the
 * newest ListActivity reply after it (MutationObserver, Date.now(), as
 * armWatcher), and the frame after.
 */
async function armActivity() {
  await page.evaluate(() => {
    const app = window.go.app.App;
    if (!window.__act) {
      const act = { calls: [], facets: [] };
      window.__act = act;
      const list = app.ListActivity;
      app.ListActivity = function (f) {
        const rec = { at: Date.now(), filter: JSON.parse(JSON.stringify(f ?? {})), replyAt: 0, ids: null, error: '' };
        act.calls.push(rec);
        const p = list.call(this, f);
        p.then((pg) => {
          rec.replyAt = Date.now();
          rec.ids = (pg?.rows ?? []).map((r) => r.id);
          act.check?.('reply');
        }, (e) => { rec.replyAt = Date.now(); rec.error = String(e?.message || e); });
        return p;
      };
      const facets = app.ActivityFacets;
      app.ActivityFacets = function () {
        const rec = { at: Date.now(), replyAt: 0 };
        act.facets.push(rec);
        const p = facets.call(this);
        p.then(() => { rec.replyAt = Date.now(); }, () => { rec.replyAt = Date.now(); });
        return p;
      };
      for (const type of ['click', 'input', 'change', 'keydown']) {
        document.addEventListener(type, (e) => { if (act.w && !act.w.at) { act.w.eventAt = Date.now(); act.w.event = type; } }, true);
      }
    }
    const act = window.__act;
    act.obs?.disconnect();
    clearInterval(act.poll);
    const w = { armedAt: Date.now(), calls0: act.calls.length, eventAt: 0, event: '', at: 0, paint: 0, by: '', call: null, facetsDomAt: 0 };
    act.w = w;
    // Whether the table shows the newest reply since arming (an empty
    // reply: the "no calls match" line and no row).
    const shows = () => {
      const mine = act.calls.slice(w.calls0);
      const last = mine[mine.length - 1];
      if (!last || !last.replyAt || last.error) return null;
      const rows = document.querySelectorAll('[data-testid=activity-row]');
      const ids = last.ids;
      if (ids.length === 0) return rows.length === 0 && document.querySelector('[data-testid=activity-empty]') ? last : null;
      return rows.length === ids.length && rows[0].dataset.id === ids[0] && rows[rows.length - 1].dataset.id === ids[ids.length - 1] ? last : null;
    };
    act.check = (by) => {
      if (!w.facetsDomAt && document.querySelector('[data-testid=activity-total]')) w.facetsDomAt = Date.now();
      if (!w.at) {
        const c = shows();
        if (!c) return;
        w.at = Date.now();
        w.by = by;
        w.call = c;
        requestAnimationFrame(() => setTimeout(() => { w.paint = Date.now(); }, 0));
      }
      if (w.facetsDomAt) { act.obs.disconnect(); clearInterval(act.poll); }
    };
    act.obs = new MutationObserver(() => act.check('mutation'));
    act.obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    // A safety net (±250 ms) in case the table changes in a way the observer misses.
    act.poll = setInterval(() => act.check('poll'), 250);
  });
}

/**
 * Times the Tool activity view with its tool calls already recorded:
 * opens it from the top bar's tab (reloading the page first, so the
 * view's store starts empty, as after a start), then makes each of steps,
 * filter changes as a user makes them, one after another:
 *   {kind: 'select', testid, value}  chooses an option of a filter
 *   {kind: 'date', testid, value}    types a day (yyyy-mm-dd) into From or To
 *   {kind: 'type', text}             types into the search field (delay ms between keys)
 *   {kind: 'erase'}                  selects the search text and deletes it
 *   {kind: 'clear'}                  clicks "Clear filters"
 * For the opening and each step: the user's event (eventAt), the
 * ListActivity call and its reply, the table showing that reply's rows
 * (domAt) and the next frame (paintAt), all Date.now(); long tasks between;
 * and the renderer's script, style, layout and task time (CDP Performance)
 * from just before the event to just after that frame.
 */
let activityCdp = null;
async function activity({ steps = [], delay = 30, timeoutMs }) {
  await load();
  await armActivity();
  const sel = (id) => page.locator(`[data-testid=${id}]`);
  const tab = sel('tab-activity');
  await tab.waitFor({ state: 'visible', timeout: 10_000 }).catch(async () => {
    const shown = (await page.evaluate(() => document.body.innerText)).slice(0, 300).replace(/\s+/g, ' ');
    throw new Error(`the UI shows no Activity tab (data-testid=tab-activity) to open (first screen: "${shown}")`);
  });
  const perf0 = await page.evaluate(() => performance.now() - Date.now()); // Date.now() + perf0 = performance.now()
  // The renderer's own counters (CDP Performance, seconds since start),
  // read before and after each change: what its time went to.
  if (!activityCdp) {
    activityCdp = await page.context().newCDPSession(page);
    await activityCdp.send('Performance.enable');
  }
  const counters = async () => Object.fromEntries((await activityCdp.send('Performance.getMetrics')).metrics
    .filter((m) => ['ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration', 'TaskDuration'].includes(m.name)).map((m) => [m.name, m.value]));
  const spent = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k.replace('Duration', 'Ms'), Math.round((b[k] - a[k]) * 10000) / 10]));
  const result = async (what) => {
    await page.waitForFunction(() => window.__act.w.at && window.__act.w.paint, null, { timeout: timeoutMs, polling: 50 }).catch(async () => {
      const st = await page.evaluate(() => ({ calls: window.__act.calls.slice(window.__act.w.calls0), rows: document.querySelectorAll('[data-testid=activity-row]').length,
        text: document.querySelector('[data-testid=activity-view]')?.innerText.slice(0, 300) }));
      await page.screenshot({ path: join(root, 'test-results', 'bench-activity-failed.png') }).catch(() => {});
      throw new Error(`${what}: the table never showed the rows of the view's newest ListActivity reply within ${timeoutMs} ms (calls since: ${JSON.stringify(st.calls.map((c) => ({ filter: c.filter, rows: c.ids?.length, error: c.error })))}, rows shown: ${st.rows}, view: "${st.text?.replace(/\s+/g, ' ')}")`);
    });
    return page.evaluate((perf0) => {
      const act = window.__act, w = act.w, c = w.call;
      const from = w.eventAt + perf0, to = w.paint + perf0 + 50;
      const lt = window.__longtasks.filter((e) => e.start >= from - 50 && e.start <= to);
      const f = act.facets[act.facets.length - 1];
      return {
        eventAt: w.eventAt, event: w.event, callAt: c.at, replyAt: c.replyAt, domAt: w.at, paintAt: w.paint, detectedBy: w.by, rows: c.ids.length,
        filter: c.filter, calls: act.calls.length - w.calls0, facetsDomAt: w.facetsDomAt, facetsCallAt: f?.at ?? 0, facetsReplyAt: f?.replyAt ?? 0,
        longestTaskMs: lt.reduce((m, e) => Math.max(m, e.duration), 0), longTasks: lt.length,
      };
    }, perf0);
  };
  // Opening: a click on the tab.
  await armActivity();
  let c0 = await counters();
  await tab.click();
  const open = await result('opening the Activity tab');
  open.renderer = spent(c0, await counters());
  await page.waitForFunction(() => window.__act.w.facetsDomAt, null, { timeout: timeoutMs, polling: 50 }).catch(() => {});
  open.facetsDomAt = await page.evaluate(() => window.__act.w.facetsDomAt);
  await page.waitForTimeout(300);
  const out = [];
  for (const [i, s] of steps.entries()) {
    const what = `step ${i} (${JSON.stringify(s)})`;
    if (s.kind === 'type' || s.kind === 'erase') await sel('activity-search').focus();
    const before = await page.evaluate(() => [...document.querySelectorAll('[data-testid=activity-row]')].map((r) => r.dataset.id).join(','));
    await armActivity();
    c0 = await counters();
    switch (s.kind) {
      case 'select': await sel(s.testid).selectOption(s.value); break;
      case 'date': await sel(s.testid).fill(s.value); break;
      case 'type': await page.keyboard.type(s.text, { delay }); break;
      case 'erase': await page.keyboard.press('ControlOrMeta+A'); await page.keyboard.press('Backspace'); break;
      case 'clear': await sel('activity-clear').click(); break;
      default: throw new Error(`${what}: unknown kind`);
    }
    const r = await result(what);
    r.renderer = spent(c0, await counters());
    r.kind = s.kind;
    r.unchanged = before === (await page.evaluate(() => [...document.querySelectorAll('[data-testid=activity-row]')].map((x) => x.dataset.id).join(',')));
    out.push(r);
    await page.waitForTimeout(150);
  }
  await page.screenshot({ path: join(root, 'test-results', 'bench-activity.png') }).catch(() => {});
  return { open, steps: out };
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
      case 'activity':
        reply({ ok: true, ...(await activity(c)), pageErrors: pageErrors.splice(0) });
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

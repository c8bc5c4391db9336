// Starts the real backend (a -tags dev build) under Xvfb, serving the real
// frontend on a local port, and Debian's Chromium to drive it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const root = resolve(import.meta.dirname, '../..');
export const resultsDir = join(root, 'test-results');

async function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

async function waitForPort(port, proc, ms = 90_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (proc.exitCode !== null) throw new Error(`backend exited with ${proc.exitCode} before serving`);
    const ok = await new Promise((res) => {
      const c = connect(port, '127.0.0.1', () => { c.destroy(); res(true); });
      c.on('error', () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`backend did not listen on ${port} within ${ms} ms`);
}

/**
 * Starts the backend; returns {url, origin, port, token, dataDir, stop, logs()}.
 * url carries the per-run token (which the harness chooses through
 * SWITCHBOARD_DEV_TOKEN) and sets the cookie the dev server asks of every
 * request; origin is the page's own origin. E2E_ASSETDIR, if set, serves
 * another build of the frontend (to try a fix without touching
 * frontend/dist).
 *
 * keyring: true runs it as a user with a desktop keyring does: in a private
 * D-Bus session with a freshly unlocked gnome-keyring (make test-deps
 * installs both), so secrets go to the Secret Service and no keyring
 * warning shows (the README's screenshots). Without it the run has no
 * D-Bus session and the app keeps secrets in memory, saying so.
 */
export async function startBackend({ env = {}, keyring = false } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const dataDir = join(tmp, 'data');
  mkdirSync(dataDir);
  const port = await freePort();
  const token = randomBytes(32).toString('hex');
  const bin = join(root, 'build/bin/switchboard-dev');
  let out = '';
  const xvfb = ['xvfb-run', '-a', '-s', '-screen 0 1280x800x24 -nolisten tcp', bin,
    '-devserver', `127.0.0.1:${port}`, '-assetdir', process.env.E2E_ASSETDIR || join(root, 'frontend/dist'), '-loglevel', 'Warning'];
  const keyringEnv = {};
  if (keyring) {
    mkdirSync(join(tmp, 'run'), { mode: 0o700 });
    // gnome-keyring keeps its keyrings under HOME (or XDG_DATA_HOME) and
    // its socket under XDG_RUNTIME_DIR: all in tmp. The marker finds the
    // bus and keyring daemons at stop(): they outlive dbus-run-session.
    Object.assign(keyringEnv, { HOME: tmp, XDG_RUNTIME_DIR: join(tmp, 'run'), SWITCHBOARD_E2E_RUN: tmp });
  }
  const [cmd, ...args] = keyring
    ? ['dbus-run-session', '--', 'sh', '-c', `printf 'e2e-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90\nexec "$@"`, 'sh', ...xvfb]
    : xvfb;
  const proc = spawn(cmd, args, {
    env: {
      ...process.env,
      SWITCHBOARD_DATA_DIR: dataDir,
      XDG_CACHE_HOME: join(tmp, 'cache'),
      XDG_DATA_HOME: join(tmp, 'xdg-data'),
      XDG_CONFIG_HOME: join(tmp, 'xdg-config'),
      DBUS_SESSION_BUS_ADDRESS: '',
      SWITCHBOARD_DEV_TOKEN: token,
      ...keyringEnv,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  await waitForPort(port, proc);
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    origin: `http://127.0.0.1:${port}`,
    port,
    token,
    dataDir,
    logs: () => out,
    async stop() {
      try { process.kill(-proc.pid, 'SIGTERM'); } catch {}
      await new Promise((r) => setTimeout(r, 300));
      try { process.kill(-proc.pid, 'SIGKILL'); } catch {}
      if (keyring) killMarked(`SWITCHBOARD_E2E_RUN=${tmp}`);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Ends the processes whose environment holds marker (NAME=value): the
 * D-Bus and keyring daemons one keyring run started, and never anyone
 * else's.
 */
function killMarked(marker) {
  const want = Buffer.from(`${marker}\0`);
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let environ;
    try { environ = readFileSync(`/proc/${pid}/environ`); } catch { continue; }
    if (environ.includes(want)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch {}
    }
  }
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * A tiny test runner that prints "N passed, N failed" at the end.
 * E2E_ONLY, when set, is a regular expression: only the tests whose names
 * match it run.
 */
export function suite() {
  const tests = [];
  const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
  return {
    test: (name, fn) => { if (!only || only.test(name)) tests.push({ name, fn }); },
    async run() {
      let passed = 0, failed = 0;
      for (const t of tests) {
        const started = Date.now();
        try {
          await t.fn();
          passed++;
          console.log(`ok   ${t.name} (${Date.now() - started} ms)`);
        } catch (e) {
          failed++;
          console.log(`FAIL ${t.name}\n     ${e?.stack || e}`);
        }
      }
      console.log(`${passed} passed, ${failed} failed`);
      return failed === 0;
    },
  };
}

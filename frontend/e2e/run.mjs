// End-to-end tests: the real Go backend and the real frontend in Chromium.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, resultsDir, startBackend, suite } from './harness.mjs';

mkdirSync(resultsDir, { recursive: true });
const { test, run } = suite();

const backend = await startBackend();
const browser = await launchBrowser();

test('the frontend reaches the backend: Ready round trip shows the data directory', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const errors = [];
  // Wails' own browser IPC shim (/wails/ipc.js) throws once while it builds
  // its reconnect overlay before <body> exists; errors of ours are kept.
  page.on('pageerror', (e) => { if (!String(e.stack).includes('/wails/ipc.js')) errors.push(e.stack || e.message); });
  await page.goto(backend.url);
  const dataDir = page.getByTestId('data-dir');
  await dataDir.waitFor({ timeout: 30_000 });
  assert.equal(await dataDir.textContent(), backend.dataDir);
  assert.match(await page.getByTestId('version').textContent(), /^switchboard /);
  // No Secret Service in this run: the user is told, with what to do.
  await page.getByTestId('problem-keyring').getByRole('button', { name: 'What to do' }).click();
  assert.match(await page.getByTestId('problem-keyring').textContent(), /gnome-keyring/);
  await page.screenshot({ path: join(resultsDir, 'browser-first-screen.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the first screen fits an 800x600 window', async () => {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  await page.goto(backend.url);
  await page.getByTestId('welcome').waitFor({ timeout: 30_000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows horizontally by ${overflow}px`);
  await page.screenshot({ path: join(resultsDir, 'browser-800x600.png') });
  await page.close();
});

let ok = false;
try {
  ok = await run();
} finally {
  await browser.close();
  await backend.stop();
  if (!ok) console.log('--- backend output\n' + backend.logs().slice(-3000));
}
process.exit(ok ? 0 : 1);

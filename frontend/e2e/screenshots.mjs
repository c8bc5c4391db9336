// The README's screenshots: a realistic session on a backend of its own,
// run as a user with a desktop keyring runs it (harness keyring: true, a
// private D-Bus session with an unlocked gnome-keyring), so no keyring
// warning shows; nothing in the app is changed for it. A scripted fake
// model asks the real filesystem MCP server for a folder's sizes and answers
// with a table and code. The fresh backend also gives the first-start
// screen, checked here with axe in light and dark. Every run writes them to
// test-results/screenshot-{light,dark}.png; `make screenshots` (which sets
// SWITCHBOARD_README_SHOTS=1) also to docs/, where the README shows them,
// so a test run leaves the committed ones alone.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkA11y } from './a11y.mjs';
import { launchBrowser, root, startBackend } from './harness.mjs';
import { WAIT, approvalModal, bound, node22, nodeBin, openApp, startFakeProvider, until, waitAttr } from './helpers.mjs';

/** The folder the question is about: name and size in bytes. */
const FILES = [
  ['tides-2025.csv', 3_412_224],
  ['sensor-dump.jsonl', 1_903_411],
  ['charts.png', 402_816],
  ['report-draft.md', 18_377],
  ['notes.txt', 2_140],
];

const kb = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`);

/** The model's final answer: a table of the folder and the commands. */
function answer() {
  const total = FILES.reduce((a, [, n]) => a + n, 0);
  const raw = FILES[0][1] + FILES[1][1];
  const notes = {
    'tides-2025.csv': 'raw tide readings',
    'sensor-dump.jsonl': 'raw sensor log',
    'charts.png': 'figures for the report',
    'report-draft.md': 'the draft itself',
    'notes.txt': '',
  };
  return [
    `The two raw data files are **${Math.round((100 * raw) / total)}%** of the folder (${kb(total)} in all):\n\n`,
    '| File | Size | What it is |\n|---|---:|---|\n',
    ...FILES.map(([name, n]) => `| \`${name}\` | ${kb(n)} | ${notes[name]} |\n`),
    '\nText data compresses well (often 5–10×). This keeps the originals until you have checked the archives:\n\n',
    '```bash\ncd harbor-report\ngzip -k -9 tides-2025.csv sensor-dump.jsonl\nls -lh *.gz   # then remove the originals\n```\n\n',
    'Friday\'s upload then needs well under 2 MB.',
  ];
}

export function register({ test }) {
  test('README screenshots: a realistic session, light and dark, without warnings (and first start passes axe)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'switchboard-shots-'));
    const folder = join(tmp, 'harbor-report');
    mkdirSync(folder);
    for (const [name, n] of FILES) writeFileSync(join(folder, name), Buffer.alloc(n, 0x2c));
    const script = join(tmp, 'script.json');
    const words = (t) => t.match(/\S+\s*|\s+/g);
    writeFileSync(script, JSON.stringify({
      models: ['qwen3-coder-30b'],
      tokensPerSecond: 400,
      replies: [
        { content: words('Here is a short, polite reply you can send:\n\n> Thanks for the invite! I can\'t make Thursday, but I\'m free Friday morning if that works.') },
        { content: words('**TCP keepalive** probes an idle connection at the socket level; **HTTP keep-alive** reuses one connection for several requests.') },
        { toolCalls: [{ name: 'filesystem__list_directory_with_sizes', arguments: [JSON.stringify({ path: folder, sortBy: 'size' })] }] },
        { content: answer().flatMap(words) },
      ],
    }));
    const fake = await startFakeProvider(['-script', script]);
    const backend = await startBackend({ keyring: true, env: { PATH: `${nodeBin}:${process.env.PATH}` } });
    const browser = await launchBrowser();
    try {
      const page = await openApp(browser, backend.url, { width: 1200, height: 900 });
      // First start, as a new user sees it.
      await page.getByTestId('first-start').waitFor({ timeout: WAIT });
      await page.getByTestId('no-local').waitFor({ timeout: WAIT });
      for (const theme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: theme });
        await until(() => page.evaluate((t) => document.documentElement.dataset.theme === t, theme), `theme ${theme}`);
        await checkA11y(page, `first start, ${theme}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });

      // A provider and the filesystem server, set up as a script would.
      const keyring = (await bound(page, 'Ready')).keyring;
      assert.equal(keyring.backend, 'keyring', `the keyring run has no keyring: ${JSON.stringify(keyring)}`);
      const v = await bound(page, 'SaveProvider', { id: 'local', name: 'Local', preset: 'custom', baseUrl: fake.url, defaultModel: 'qwen3-coder-30b', apiKey: '' });
      await bound(page, 'SaveSettings', { ...(await bound(page, 'GetSettings')), defaultProviderId: v.id });
      await bound(page, 'SaveServer', {
        id: 'filesystem', name: 'Filesystem', transport: 'stdio', command: node22,
        args: [join(root, 'test/node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), tmp], enabled: true,
      });
      await until(async () => (await bound(page, 'ListServers')).find((s) => s.config.id === 'filesystem')?.status.state === 'connected', 'the filesystem server to connect');
      await page.reload();
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });

      const ask = async (text) => {
        await page.getByTestId('new-chat').click();
        await page.getByTestId('composer-input').fill(text);
        await page.getByTestId('composer-input').press('Enter');
      };
      const done = (n) => until(async () => (await page.locator('[data-testid=message][data-role=assistant][data-status=done]').count()) >= n, `${n} finished replies`);
      await ask('Draft a reply declining Thursday\'s meeting, friendly but short');
      await done(1);
      await ask('What is the difference between TCP keepalive and HTTP keep-alive?');
      await done(1);
      await ask('Which files in my harbor-report folder take the most space? I need room for Friday\'s upload.');
      const modal = await approvalModal(page);
      await modal.getByTestId('approval-allow-once').click();
      await waitAttr(page.getByTestId('toolcall'), 'data-status', 'done');
      await done(1);
      await until(async () => (await page.locator('[data-testid=message][data-role=assistant] table').count()) >= 1, 'the answer\'s table');
      await page.locator('[data-testid=message][data-role=assistant] .hljs-built_in, [data-testid=message][data-role=assistant] .hljs-keyword').first().waitFor({ timeout: WAIT });

      // No banner, no notice: the screenshot shows the app, not a warning.
      assert.equal(await page.locator('[data-testid^=problem-]').count(), 0, 'a problem banner shows');
      assert.equal(await page.locator('.notice').count(), 0, 'a notice shows');
      const folders = ['test-results', ...(process.env.SWITCHBOARD_README_SHOTS === '1' ? ['docs'] : [])];
      for (const f of folders) mkdirSync(join(root, f), { recursive: true });
      for (const theme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: theme });
        await until(() => page.evaluate((t) => document.documentElement.dataset.theme === t, theme), `theme ${theme}`);
        await page.evaluate(() => document.activeElement?.blur());
        await page.mouse.move(0, 0);
        await checkA11y(page, `README session, ${theme}`);
        const png = await page.screenshot();
        for (const f of folders) writeFileSync(join(root, f, `screenshot-${theme}.png`), png);
      }
      page.checkErrors();
      await page.close();
    } catch (e) {
      for (const p of browser.contexts().flatMap((c) => c.pages())) await p.screenshot({ path: join(root, 'test-results/screenshots-failure.png') }).catch(() => {});
      throw e;
    } finally {
      await browser.close();
      await backend.stop();
      await fake.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
}

// Polish, in the browser against the real backend: the top bar's button
// that opens the command palette (for people who do not know Ctrl+K), the
// arrow keys in the conversation list (one tab stop for the list; Up, Down,
// Home and End move between the chats across the date groups; Enter opens
// one), and screenshots of the chat, the list and the palette in light and
// dark (test-results/polish-*.png), to compare before and after a change
// of style.
import assert from 'node:assert/strict';
import { WAIT, approvalModal, bound, send, setTheme, turnDone, until, waitText } from './helpers.mjs';

/** The test id of the focused element ("" when it has none). */
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

/** The id of the chat whose row has the focus (null when focus is elsewhere). */
const focusedRow = (page) => page.evaluate(() => document.activeElement?.closest('[data-testid=conversation]')?.getAttribute('data-id') ?? null);

/** The chats' ids in the list, top to bottom, across the date groups. */
const rowIds = (page) => page.locator('[data-testid=conversation-group] [data-testid=conversation]').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')));

const activeId = (page) => page.evaluate(() => document.querySelector('[data-testid=conversation].active')?.getAttribute('data-id') ?? null);

/** A reply with what the Markdown styles cover: a heading, a list, inline code, a quote, a table and a block of code. */
const RICH = [
  'polish sample: a table and some code',
  '',
  '### Sizes',
  '',
  '- the **raw** files are `tides.csv` and `sensor.jsonl`',
  '- see [the docs](https://example.com/docs)',
  '',
  '> compress before Friday',
  '',
  '| File | Size |',
  '|---|---:|',
  '| tides.csv | 3.2 MB |',
  '| notes.txt | 2 KB |',
  '',
  '```bash',
  'gzip -k -9 tides.csv',
  '```',
].join('\n');

/** Makes the chats the tests use (once per backend): a pinned one, a tool call, a rich reply. */
async function ensureChats(page) {
  const list = await bound(page, 'ListConversations');
  if (list.some((c) => c.title?.startsWith('polish sample'))) return;
  await send(page, 'polish first chat, pinned later');
  await turnDone(page);
  const first = await activeId(page);
  await send(page, 'use tool everything__echo {"message":"polish tool call"}');
  const modal = await approvalModal(page);
  await modal.getByTestId('approval-allow-once').click();
  await turnDone(page);
  await send(page, RICH);
  await turnDone(page);
  await bound(page, 'PinConversation', first, true);
  await page.reload();
  await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
}

/** Shows the theme through the system setting (the app follows it) with motion off. */
async function theme(page, t) {
  if ((await bound(page, 'GetSettings')).theme !== 'system') await setTheme(page, 'system');
  await page.emulateMedia({ colorScheme: t, reducedMotion: 'reduce' });
  await until(() => page.evaluate((x) => document.documentElement.dataset.theme === x, t), `theme ${t}`);
}

export function register({ test, toolPage, shot }) {
  test('polish: screens of the chat, the list and the palette, light and dark', async () => {
    await toolPage(async (page) => {
      await ensureChats(page);
      // The rich chat open, its reply in, nothing hovered or focused.
      const rich = (await bound(page, 'ListConversations')).find((c) => c.title?.startsWith('polish sample'));
      assert.ok(rich, 'the rich chat exists');
      await page.locator(`[data-testid=conversation][data-id="${rich.id}"] [data-testid=conversation-open]`).click();
      await waitText(page.locator('[data-testid=message][data-role=assistant]').last(), /gzip -k -9/);
      await page.locator('[data-testid=message][data-role=assistant] table').last().waitFor({ timeout: WAIT });
      try {
        for (const t of ['light', 'dark']) {
          await theme(page, t);
          await page.mouse.move(0, 0);
          await page.getByTestId('message-list').focus();
          await page.getByTestId('message-list').evaluate((el) => el.blur());
          await shot(page, `polish-chat-${t}`);
          await page.keyboard.press('Control+K');
          await page.getByTestId('palette').waitFor({ timeout: WAIT });
          await page.keyboard.type('pol');
          await shot(page, `polish-palette-${t}`);
          await page.keyboard.press('Escape');
          await page.getByTestId('palette').waitFor({ state: 'detached', timeout: WAIT });
        }
      } finally {
        await page.emulateMedia({ colorScheme: null, reducedMotion: null });
      }
    });
  });

  test('polish: the palette button, and the arrow keys in the chat list', async () => {
    await toolPage(async (page) => {
      await ensureChats(page);

      // The button: a name, the shortcut in its tooltip; a click opens the
      // palette, Escape closes it and gives the focus back to the button.
      const btn = page.getByTestId('open-palette');
      assert.equal(await btn.getAttribute('aria-label'), 'Command palette');
      assert.match(await btn.getAttribute('title'), /Command palette \(Ctrl\+K\)/);
      assert.equal(await btn.getAttribute('aria-keyshortcuts'), 'Control+K');
      await btn.click();
      const pal = page.getByTestId('palette');
      await pal.waitFor({ timeout: WAIT });
      assert.equal(await focused(page), 'palette-input');
      await page.keyboard.press('Escape');
      await pal.waitFor({ state: 'detached', timeout: WAIT });
      assert.equal(await focused(page), 'open-palette', 'the focus is back on the button');
      // And from the keyboard: Enter on the button opens it too.
      await page.keyboard.press('Enter');
      await pal.waitFor({ timeout: WAIT });
      await page.keyboard.press('Escape');
      await pal.waitFor({ state: 'detached', timeout: WAIT });

      // The list is one tab stop: the open chat's row, or the first when
      // none is open (its action buttons follow it).
      const ids = await rowIds(page);
      const stop = (await activeId(page)) ?? ids[0];
      assert.ok(ids.length >= 3, `at least three chats: ${ids}`);
      assert.ok((await page.locator('[data-testid=conversation-group]').count()) >= 2, 'a Pinned group and a date group');
      const stops = await page.locator('[data-testid=conversation-open]').evaluateAll((els) => els.filter((el) => el.tabIndex >= 0).map((el) => el.closest('[data-testid=conversation]').dataset.id));
      assert.deepEqual(stops, [stop], 'only one row is in the tab order');
      const others = await page.locator(`[data-testid=conversation]:not([data-id="${stop}"]) [data-testid=conversation-rename]`).evaluateAll((els) => els.filter((el) => el.tabIndex >= 0).length);
      assert.equal(others, 0, 'the other rows\' buttons are out of the tab order');

      // From the search box, Tab lands on that row; Home goes to the first
      // (the pinned one, across its group's heading); Down, Down and Up step.
      await page.keyboard.press('Control+Shift+F');
      await page.keyboard.press('Tab');
      assert.equal(await focusedRow(page), stop);
      await page.keyboard.press('Home');
      assert.equal(await focusedRow(page), ids[0]);
      assert.equal(await focused(page), 'conversation-open');
      await page.keyboard.press('ArrowUp'); // stays at the top
      assert.equal(await focusedRow(page), ids[0]);
      await page.keyboard.press('ArrowDown');
      assert.equal(await focusedRow(page), ids[1], 'Down crosses the group heading to the next chat');
      await page.keyboard.press('ArrowDown');
      assert.equal(await focusedRow(page), ids[2]);
      await page.keyboard.press('ArrowUp');
      assert.equal(await focusedRow(page), ids[1]);
      await page.keyboard.press('End');
      assert.equal(await focusedRow(page), ids.at(-1));
      await page.keyboard.press('ArrowDown'); // stays at the bottom
      assert.equal(await focusedRow(page), ids.at(-1));
      // The focused row now holds the list's tab stop, and shows its buttons.
      await until(() => page.locator('[data-testid=conversation-open]').evaluateAll((els) => els.filter((el) => el.tabIndex >= 0).length === 1), 'one tab stop');
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'conversation-rename');
      await page.keyboard.press('Shift+Tab');
      assert.equal(await focusedRow(page), ids.at(-1));

      // Enter opens the focused chat.
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowDown');
      const want = await focusedRow(page);
      await page.keyboard.press('Enter');
      await until(async () => (await activeId(page)) === want, 'Enter opened the focused chat');

      // F2 still renames the focused row; Escape cancels and leaves the focus there.
      await page.getByTestId('search-input').focus();
      await page.keyboard.press('Tab');
      assert.equal(await focusedRow(page), want);
      await page.keyboard.press('F2');
      await until(async () => (await focused(page)) === 'conversation-rename-input', 'F2 opens the title');
      await page.keyboard.press('Escape');
      await until(async () => (await focused(page)) === 'conversation-open', 'Escape gives the focus back');
      assert.equal(await focusedRow(page), want);
      await page.mouse.move(0, 0);
      await shot(page, 'polish-list-focus');
    });
  });
}

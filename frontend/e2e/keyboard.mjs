// Keyboard first, in the browser against the real backend: every flow of
// the conversations done without the mouse — new chats with Ctrl+Shift+O,
// the command palette (Ctrl+K) to switch chat, pin and open the archive,
// Ctrl+Alt+Down/Up to step through chats, F2 to rename in the list, Tab
// and Enter to archive and unarchive, Ctrl+Shift+F to search and a hit
// opening its message, Ctrl+Shift+C to copy the last reply, and a tool
// call approved from the keyboard. The setup (a provider, the everything
// server) goes through bound methods as in the other tests; every step a
// user takes is a key. Also: the chat comes back where the user left it.
import assert from 'node:assert/strict';
import { WAIT, armedModal, bound, turnDone, until, waitText } from './helpers.mjs';

/** The test id of the focused element ("" when it has none). */
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

/** Types text into the message box (which must have the focus) and sends it with Enter. */
async function typeAndSend(page, text) {
  assert.equal(await focused(page), 'composer-input', 'the message box has the focus');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Opens the palette with Ctrl+K, types query and runs the chosen entry, checking it is want. */
async function palette(page, query, want) {
  await page.keyboard.press('Control+K');
  const input = page.getByTestId('palette-input');
  await input.waitFor({ timeout: WAIT });
  assert.equal(await focused(page), 'palette-input');
  await page.keyboard.type(query);
  const chosen = page.locator('[data-testid=palette-option][aria-selected=true]');
  await until(async () => (await chosen.getAttribute('data-command').catch(() => '')) === want, async () => `palette "${query}" chooses ${want}, not ${await chosen.getAttribute('data-command').catch(() => 'nothing')}`);
  await page.keyboard.press('Enter');
  await page.getByTestId('palette').waitFor({ state: 'detached', timeout: WAIT });
}

const activeId = (page) => page.evaluate(() => document.querySelector('[data-testid=conversation].active')?.getAttribute('data-id') ?? null);

export function register({ test, toolPage, shot }) {
  test('keyboard: palette, new chats, switching, F2 rename, pin, archive, search jump, copy, approval — no mouse', async () => {
    await toolPage(async (page) => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      // Two new chats, each started with Ctrl+Shift+O (the message box gets the focus).
      await page.keyboard.press('Control+Shift+O');
      await typeAndSend(page, 'keyboard alpha apricot');
      await turnDone(page);
      const alpha = await activeId(page);
      await page.keyboard.press('Control+Shift+O');
      await page.getByTestId('chat-empty').waitFor({ timeout: WAIT });
      await typeAndSend(page, 'keyboard beta banana');
      await turnDone(page);
      const beta = await activeId(page);
      assert.ok(alpha && beta && alpha !== beta, `two chats: ${alpha}, ${beta}`);

      // The palette: a modal dialog, the focus in its box, shortcuts shown.
      await page.keyboard.press('Control+K');
      const pal = page.getByTestId('palette');
      await pal.waitFor({ timeout: WAIT });
      assert.equal(await pal.getAttribute('aria-label'), 'Command palette');
      assert.equal(await pal.evaluate((d) => d.open && d.matches(':modal')), true);
      await waitText(pal.locator('[data-command=new-chat] kbd'), /^Ctrl\+Shift\+O$/);
      assert.ok((await pal.locator('[data-command^=chat-]').count()) >= 2, 'the chats are listed');
      // Tab stays in the box.
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'palette-input');
      await page.keyboard.type('go');
      await page.mouse.move(0, 0);
      await shot(page, 'keyboard-palette');
      await page.keyboard.press('Escape');
      await pal.waitFor({ state: 'detached', timeout: WAIT });

      // Switch chat by its title from the palette.
      await palette(page, 'alpha apricot', `chat-${alpha}`);
      await until(async () => (await activeId(page)) === alpha, 'the alpha chat is open');
      // Next and previous chat.
      await page.keyboard.press('Control+Alt+ArrowUp');
      await until(async () => (await activeId(page)) === beta, 'Ctrl+Alt+Up opens the chat above');
      await page.keyboard.press('Control+Alt+ArrowDown');
      await until(async () => (await activeId(page)) === alpha, 'Ctrl+Alt+Down opens the chat below');

      // Copy the last reply (the clipboard needs the page in front), once
      // the chat's messages are in.
      await waitText(page.locator('[data-testid=message][data-role=assistant]').last(), /You said: keyboard alpha apricot/);
      await page.bringToFront();
      await page.keyboard.press('Control+Shift+C');
      await waitText(page.getByTestId('keyboard-status'), /Copied the last reply/);
      assert.match(await page.evaluate(() => navigator.clipboard.readText()), /You said: keyboard alpha apricot/);

      // F2 renames in the list: the search box, then Tab to the list (the open chat's row).
      await page.keyboard.press('Control+Shift+F');
      assert.equal(await focused(page), 'search-input');
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'conversation-open');
      const firstRow = await page.evaluate(() => document.activeElement.closest('[data-testid=conversation]').dataset.id);
      await page.keyboard.press('F2');
      await until(async () => (await focused(page)) === 'conversation-rename-input', 'F2 opens the title');
      await page.keyboard.press('Escape'); // cancels
      await until(async () => (await focused(page)) === 'conversation-open', 'Escape gives the focus back to the row');
      await page.keyboard.press('F2');
      await until(async () => (await focused(page)) === 'conversation-rename-input', 'F2 again');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('Renamed by keys');
      await page.keyboard.press('Enter');
      await waitText(page.locator(`[data-testid=conversation][data-id="${firstRow}"]`), /Renamed by keys/);
      const stored = (await bound(page, 'ListConversations')).find((c) => c.id === firstRow);
      assert.equal(stored.title, 'Renamed by keys');

      // Pin the open chat from the palette: it moves to a Pinned group.
      await palette(page, 'pin this', 'pin');
      const pinned = page.locator('[data-testid=conversation-group][data-label=Pinned] [data-testid=conversation]');
      await until(async () => (await pinned.count()) === 1 && (await pinned.getAttribute('data-id')) === alpha, 'alpha is pinned');
      assert.equal((await bound(page, 'ListConversations'))[0].id, alpha, 'the backend lists it first');
      await page.getByTestId('composer-input').focus(); // no hover, no focus ring in the shot
      await shot(page, 'keyboard-sidebar-grouped');

      // Archive the other chat: Tab into the list (one Tab stop), the arrow
      // keys to its row, Tab to its buttons and Enter.
      await page.keyboard.press('Control+Shift+F');
      const betaOpen = page.locator(`[data-testid=conversation][data-id="${beta}"] [data-testid=conversation-open]`);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Home');
      for (let i = 0; i < 40 && !(await betaOpen.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('ArrowDown');
      assert.ok(await betaOpen.evaluate((el) => el === document.activeElement), 'the arrow keys reach the beta row');
      for (const want of ['conversation-rename', 'conversation-pin', 'conversation-archive']) {
        await page.keyboard.press('Tab');
        assert.equal(await focused(page), want);
      }
      await page.keyboard.press('Enter');
      await until(async () => (await page.locator(`[data-testid=conversation][data-id="${beta}"]`).count()) === 0, 'beta left the list');
      assert.ok((await bound(page, 'ListArchivedConversations')).some((c) => c.id === beta), 'beta is archived in the backend');

      // The archive, from the palette; unarchive with Tab and Enter.
      await palette(page, 'show archived', 'archived');
      const row = page.locator(`[data-testid=conversation][data-id="${beta}"]`);
      await row.waitFor({ timeout: WAIT });
      await page.getByTestId('archived-back').focus();
      for (let i = 0; i < 8 && (await focused(page)) !== 'conversation-unarchive'; i++) await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'conversation-unarchive');
      await page.keyboard.press('Enter');
      await until(async () => (await row.count()) === 0, 'beta left the archive');
      await page.keyboard.press('Control+Shift+F'); // back to the list
      await page.locator(`[data-testid=conversation][data-id="${beta}"]`).waitFor({ timeout: WAIT });

      // Search: a hit opens its chat at the message, marked.
      await page.keyboard.type('banana');
      const hit = page.getByTestId('search-hit');
      await hit.first().waitFor({ timeout: WAIT });
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'search-hit');
      await page.keyboard.press('Enter');
      const marked = page.locator('[data-testid=message].highlighted');
      await waitText(marked, /keyboard beta banana/);
      // Clearing the search shows the list again, with beta the open chat.
      await page.keyboard.press('Control+Shift+F');
      await page.keyboard.press('Delete');
      await until(async () => (await activeId(page)) === beta, 'the hit opened the beta chat');

      // "?" lists the shortcuts (focus out of any text box first: Escape
      // leaves the search box as it is, the message list takes the focus).
      await page.getByTestId('message-list').focus();
      await page.keyboard.press('?');
      const help = page.getByTestId('shortcuts-dialog');
      await help.waitFor({ timeout: WAIT });
      assert.match(await help.textContent(), /Next chat.*Ctrl\+Alt\+↓/s);
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached', timeout: WAIT });

      // A tool call approved from the keyboard: Ctrl+L focuses the message
      // box, the dialog takes the focus, Tab stays in it, Enter on "Allow
      // once" allows once.
      await page.keyboard.press('Control+Shift+O');
      await page.getByTestId('chat-empty').waitFor({ timeout: WAIT });
      await page.keyboard.press('Control+L');
      await typeAndSend(page, 'use tool everything__echo {"message":"approved by keys"}');
      const modal = await armedModal(page);
      await until(() => modal.evaluate((el) => el.contains(document.activeElement)), 'the focus in the approval modal');
      for (const key of [...Array(10).fill('Tab'), ...Array(10).fill('Shift+Tab')]) {
        await page.keyboard.press(key);
        assert.ok(await modal.evaluate((el) => el.contains(document.activeElement) && el !== document.activeElement), `${key} moves between the approval modal's controls`);
      }
      // Enter on a focused button presses that button: Tab to "Allow once".
      for (let i = 0; i < 12 && (await focused(page)) !== 'approval-allow-once'; i++) await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'approval-allow-once');
      await page.keyboard.press('Enter');
      await modal.waitFor({ state: 'detached', timeout: WAIT });
      await turnDone(page);
      await waitText(page.locator('[data-testid=toolcall]').first(), /approved by keys|Allowed|echo/i);
      assert.equal((await bound(page, 'ApprovalPolicy')).grants?.length ?? 0, 0, 'Enter allowed once, not always');
    });
  });

  test('keyboard: a chat comes back at the place the user left it', async () => {
    await toolPage(async (page) => {
      await page.setViewportSize({ width: 1000, height: 520 });
      await page.keyboard.press('Control+Shift+O');
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Control+L');
        await typeAndSend(page, `scroll memory line ${i} ` + 'words '.repeat(12));
        await turnDone(page, i + 1);
      }
      const long = await activeId(page);
      const list = page.getByTestId('message-list');
      await until(() => list.evaluate((el) => el.scrollHeight > el.clientHeight * 2), 'the chat is taller than two screens');
      await list.evaluate((el) => {
        el.scrollTop = 200;
        el.dispatchEvent(new Event('scroll'));
      });
      const before = await list.evaluate((el) => el.scrollTop);
      await page.keyboard.press('Control+Shift+O');
      await page.getByTestId('chat-empty').waitFor({ timeout: WAIT });
      await palette(page, 'scroll memory line 0', `chat-${long}`);
      await until(async () => (await activeId(page)) === long, 'the long chat again');
      await until(async () => {
        const top = await page.getByTestId('message-list').evaluate((el) => el.scrollTop).catch(() => -1);
        return Math.abs(top - before) < 60;
      }, async () => `back near ${before}px; at ${await page.getByTestId('message-list').evaluate((el) => `${el.scrollTop} of ${el.scrollHeight}`)}`);
    });
  });
}

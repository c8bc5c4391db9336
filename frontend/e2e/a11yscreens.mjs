// Accessibility of every screen and modal, light and dark: axe-core
// (checkA11y) on the chat with a tool card, the approval modal, the model
// picker, the command palette, Tool activity, the Tools panel and its
// dialogs (server form, import, install, registry browser, command tools),
// Logs, Tasks, Connected apps, every Settings section and the provider
// form. The first-start screen is checked by screenshots.mjs, which has a
// backend with no provider yet. The theme follows the system's
// (prefers-color-scheme), as the app's default "system" setting does; a
// screen's failures are collected so one run lists them all.
import assert from 'node:assert/strict';
import { checkA11y } from './a11y.mjs';
import { WAIT, approvalModal, bound, send, setTheme, turnDone, until } from './helpers.mjs';

/**
 * Shows theme ("light" or "dark") through the system's colour scheme with
 * the app's setting on "system".
 */
export async function useScheme(page, theme) {
  if ((await bound(page, 'GetSettings')).theme !== 'system') await setTheme(page, 'system', null);
  await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
  await until(() => page.evaluate((t) => document.documentElement.dataset.theme === t, theme), `theme ${theme}`);
}

export function register({ test, toolPage, shot }) {
  test('accessibility: every screen and modal has no serious or critical axe violation, light and dark', async () => {
    await toolPage(async (page) => {
      const failures = [];
      const check = async (label) => {
        try {
          await checkA11y(page, label);
        } catch (e) {
          failures.push(e.message);
        }
      };
      /** Opens a dialog with button testid, checks it, closes it with Escape. */
      const dialog = async (button, testid, label) => {
        await page.getByTestId(button).click();
        const d = page.getByTestId(testid);
        await d.waitFor({ timeout: WAIT });
        await check(label);
        await page.keyboard.press('Escape');
        await d.waitFor({ state: 'detached', timeout: WAIT });
      };

      for (const theme of ['light', 'dark']) {
        await useScheme(page, theme);
        await page.getByTestId('tab-chat').click();
        await send(page, `Check the harbor sensors (${theme}): use tool everything__echo {"message":"sensor 7 ok"}`);
        await approvalModal(page);
        await check(`approval modal, ${theme}`);
        await page.getByTestId('approval-allow-once').click();
        await turnDone(page);
        await page.locator('[data-testid=toolcall] details.res > summary').last().click();
        await page.getByTestId('tool-result').last().waitFor({ timeout: WAIT });
        await check(`chat with a tool call, ${theme}`);
        await page.getByTestId('model-picker').click();
        await check(`model picker open, ${theme}`);
        await page.keyboard.press('Escape');
        await page.getByTestId('composer-input').focus();
        await page.keyboard.press('Control+k');
        await page.getByTestId('palette').waitFor({ timeout: WAIT });
        await check(`command palette, ${theme}`);
        await page.keyboard.press('Escape');
        await page.getByTestId('palette').waitFor({ state: 'detached', timeout: WAIT });

        await page.getByTestId('tab-activity').click();
        await page.getByTestId('activity-view').waitFor({ timeout: WAIT });
        await check(`tool activity, ${theme}`);

        await page.getByTestId('tab-tools').click();
        await page.locator('[data-testid=server-row][data-id=everything][data-state=connected]').waitFor({ timeout: WAIT });
        await page.locator('[data-testid=server-row][data-id=everything]').getByTestId('server-tools-toggle').click();
        await check(`tools panel, ${theme}`);
        await dialog('add-server', 'server-form', `server form, ${theme}`);
        await dialog('import-servers', 'import-dialog', `import dialog, ${theme}`);
        await dialog('install-server', 'install-dialog', `install dialog, ${theme}`);
        await dialog('browse-registry', 'registry-browser', `registry browser, ${theme}`);
        await dialog('add-command-tools', 'cmd-form', `command tools form, ${theme}`);

        await page.getByTestId('tab-logs').click();
        await page.getByTestId('log-source').waitFor({ timeout: WAIT });
        await check(`logs, ${theme}`);

        await page.getByTestId('open-tasks').click();
        await page.getByTestId('tasks-panel').waitFor({ timeout: WAIT });
        await check(`tasks, ${theme}`);

        await page.getByTestId('tab-apps').click();
        await page.getByTestId('clients-view').waitFor({ timeout: WAIT });
        await check(`connected apps, ${theme}`);
        await dialog('client-add', 'client-add-dialog', `add a connected app, ${theme}`);

        await page.getByTestId('tab-settings').click();
        await page.getByTestId('provider-row').first().waitFor({ timeout: WAIT });
        await check(`settings (every section), ${theme}`);
        await dialog('provider-add', 'provider-form', `provider form, ${theme}`);
        await shot(page, `a11y-settings-${theme}`);
      }
      await page.emulateMedia({ colorScheme: null, reducedMotion: null });
      assert.equal(failures.length, 0, failures.join('\n'));
    });
  });

  test('focus is visible: a keyboard-focused button draws the focus ring; reduced motion stops transitions', async () => {
    await toolPage(async (page) => {
      for (const theme of ['light', 'dark']) {
        await useScheme(page, theme);
        await page.getByTestId('tab-chat').click();
        await page.getByTestId('new-chat').focus();
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Tab');
        const ring = await page.evaluate(() => {
          const el = document.activeElement;
          const cs = getComputedStyle(el);
          const want = getComputedStyle(document.documentElement).getPropertyValue('--focus-ring').trim();
          return { testid: el.getAttribute('data-testid'), style: cs.outlineStyle, width: cs.outlineWidth, color: cs.outlineColor, want };
        });
        assert.equal(ring.testid, 'new-chat');
        assert.equal(ring.style, 'solid', `no focus ring on the focused button (${theme})`);
        assert.equal(ring.width, '2px');
        const rgb = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
        assert.equal(ring.color, rgb(ring.want), `the ring is not the --focus-ring colour (${theme})`);
        // Under prefers-reduced-motion nothing animates: the spinner's and
        // the switch's durations are zero.
        const durations = await page.evaluate(() => {
          const el = document.createElement('div');
          el.className = 'btn';
          el.style.transition = 'background 0.3s';
          el.style.animation = 'x 1s infinite';
          document.body.append(el);
          const cs = getComputedStyle(el);
          const d = [cs.transitionDuration, cs.animationDuration];
          el.remove();
          return d;
        });
        assert.deepEqual(durations, ['0s', '0s'], 'transitions or animations run under reduced motion');
      }
      await page.emulateMedia({ colorScheme: null, reducedMotion: null });
    });
  });
}

// Tool search in the browser, against the real everything server: the user
// sets it to "always" in Settings → Tool search; the fake provider is then
// offered only search_tools and call_tool, so for "use tool
// everything__echo {...}" it searches, finds echo and calls it through
// call_tool. The approval dialog, the tool-call card (marked "via tool
// search") and the audit show everything's echo with its own arguments;
// the tools picker says tool search is on.
import assert from 'node:assert/strict';
import { WAIT, approvalModal, bound, send, turnDone, until, waitAttr, waitText } from './helpers.mjs';

export function register({ test, toolPage, shot }) {
  test('tool search: the model finds echo with search_tools and calls it with call_tool; approval, card and audit show echo', async () => {
    await toolPage(async (page) => {
      const before = await bound(page, 'GetSettings');
      assert.equal(before.toolSearch, 'auto', 'tool search is auto by default');
      try {
        await page.getByTestId('tab-settings').click();
        const section = page.getByTestId('settings-toolsearch');
        await section.scrollIntoViewIfNeeded();
        await page.getByTestId('settings-tool-search-always').check();
        assert.equal(await page.getByTestId('settings-tool-search-tools').isDisabled(), true, "the thresholds are auto's");
        await page.getByTestId('settings-tool-search-save').click();
        await page.getByTestId('settings-tool-search-saved').waitFor({ timeout: WAIT });
        await until(async () => (await bound(page, 'GetSettings')).toolSearch === 'always', 'tool search saved as always');
        await page.mouse.move(0, 0);
        await shot(page, 'toolsearch-settings');

        await page.getByTestId('tab-chat').click();
        await send(page, 'use tool everything__echo {"message":"found by search"}');
        const modal = await approvalModal(page);
        // The dialog asks about the real tool and its own arguments.
        assert.match(await modal.getByTestId('approval-tool').textContent(), /^(everything__)?echo$/);
        assert.match(await modal.getByTestId('approval-server').textContent(), /everything/);
        const args = await modal.getByTestId('approval-args').textContent();
        assert.match(args, /found by search/);
        assert.doesNotMatch(args, /call_tool|"name"/);
        await page.mouse.move(0, 0);
        await shot(page, 'toolsearch-approval');
        await modal.getByTestId('approval-allow-once').click();
        await modal.waitFor({ state: 'detached', timeout: WAIT });
        const reply = await turnDone(page);
        assert.match(await reply.getByTestId('message-text').textContent(), /You said: use tool everything__echo/);

        // The search's card, then echo's, marked as found by tool search.
        const search = page.locator('[data-testid=toolcall][data-tool=search_tools]');
        await waitAttr(search, 'data-status', 'done');
        assert.equal(await search.getByTestId('toolcall-search-query').textContent(), '“everything echo”');
        const echo = page.locator('[data-testid=toolcall][data-tool="everything__echo"]');
        await waitAttr(echo, 'data-status', 'done');
        assert.equal(await echo.getByTestId('toolcall-via').textContent(), 'via tool search');
        await echo.locator('details.args > summary').click();
        assert.match(await echo.getByTestId('toolcall-args').textContent(), /found by search/);
        await echo.locator('details.res > summary').click();
        await waitText(echo.getByTestId('tool-result'), /Echo: found by search/);
        await page.mouse.move(0, 0);
        await shot(page, 'toolsearch-cards');

        // The tools picker says the model searches the chat's tools.
        await page.getByTestId('tools-picker').click();
        const note = page.getByTestId('tools-search-note');
        await waitText(note, /Tool search is on: the model searches these \d+ tools/);
        await page.mouse.move(0, 0);
        await shot(page, 'toolsearch-picker');
        await page.getByTestId('tools-picker').click();

        // The audit has echo's call, with its own arguments, and no record of the search.
        let calls = [];
        for (const c of await bound(page, 'ListConversations')) {
          const cs = await bound(page, 'GetToolCalls', c.id);
          if (cs.some((x) => x.arguments.includes('found by search'))) calls = cs;
        }
        assert.deepEqual(calls.map((c) => [c.tool, c.serverId, c.arguments, c.status]),
          [['everything__echo', 'everything', '{"message":"found by search"}', 'done']]);
      } finally {
        await bound(page, 'SaveSettings', { ...(await bound(page, 'GetSettings')), toolSearch: before.toolSearch });
      }
    });
  });
}

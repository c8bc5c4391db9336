// The Tool activity view in the browser, against the real everything
// server: two calls made through the fake provider (one allowed, one
// denied) show up in Activity across conversations with who decided; the
// search finds a word of the arguments and of the result, the filters
// narrow the list, a row opens its whole record, and "Open conversation"
// brings the chat back at the message that made the call.
import assert from 'node:assert/strict';
import { WAIT, approvalModal, bound, send, turnDone, until, waitText } from './helpers.mjs';
import { checkA11y } from './a11y.mjs';

export function register({ test, toolPage, shot }) {
  test('activity: calls from two chats are listed with who decided; search, filters, detail and Open conversation work', async () => {
    await toolPage(async (page) => {
      await send(page, 'use tool everything__echo {"message":"activity marsupial"}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
      await send(page, 'use tool everything__echo {"message":"activity wombat"}');
      await (await approvalModal(page)).getByTestId('approval-deny').click();
      await turnDone(page);

      await page.getByTestId('tab-activity').click();
      const rows = page.getByTestId('activity-row');
      await rows.first().waitFor({ timeout: WAIT });
      // Newest first: the denied call, then the allowed one.
      const top = rows.first();
      assert.equal(await top.getAttribute('data-status'), 'denied');
      assert.equal(await top.getAttribute('data-who'), 'user');
      assert.match(await top.textContent(), /activity wombat/);
      assert.match(await page.getByTestId('activity-total').textContent(), /\d+ calls recorded/);
      await page.mouse.move(0, 0);
      await shot(page, 'activity-list');

      // Words of the arguments (the Go tests cover result text and errors).
      const search = page.getByTestId('activity-search');
      await search.fill('marsupial');
      await until(async () => (await rows.count()) === 1 && /marsupial/.test(await rows.first().textContent()), 'one row for marsupial');
      await search.fill('wombat');
      await until(async () => (await rows.count()) === 1 && (await rows.first().getAttribute('data-status')) === 'denied', 'the denied row for wombat');
      await search.fill('activity zzqxnothing');
      await page.getByTestId('activity-empty').waitFor({ timeout: WAIT });
      assert.equal(await rows.count(), 0);
      await search.fill('activity');
      await until(async () => (await rows.count()) >= 2, 'both calls for "activity"');
      await page.getByTestId('activity-status').selectOption('denied');
      await until(async () => (await rows.count()) >= 1 && (await rows.evaluateAll((rs) => rs.every((r) => r.dataset.status === 'denied'))), 'only denied rows');
      assert.match(await rows.first().textContent(), /wombat/);
      await page.getByTestId('activity-status').selectOption('');
      await page.getByTestId('activity-who').selectOption('user');
      await until(async () => (await rows.count()) >= 2 && (await rows.evaluateAll((rs) => rs.every((r) => r.dataset.who === 'user'))), 'only rows the user decided');
      await page.getByTestId('activity-who').selectOption('yolo');
      await until(async () => (await rows.evaluateAll((rs) => rs.every((r) => r.dataset.who === 'yolo'))), 'only yolo rows');
      await page.getByTestId('activity-clear').click();
      await search.fill('marsupial');
      await until(async () => (await rows.count()) === 1, 'one row for marsupial again');

      // The row's whole record.
      await rows.first().click();
      const detail = page.getByTestId('activity-detail');
      await waitText(detail.getByTestId('activity-detail-args'), /activity marsupial/);
      await waitText(detail.getByTestId('activity-detail-result'), /Echo: activity marsupial/);
      assert.match(await detail.getByTestId('activity-detail-who').textContent(), /You — allow once/);
      await page.mouse.move(0, 0);
      await shot(page, 'activity-detail');
      await checkA11y(page, 'activity view with a call open');

      // Back to the chat, at the message that made the call.
      await detail.getByTestId('activity-open-conversation').click();
      const hl = page.locator('[data-testid=message].highlighted');
      await hl.waitFor({ timeout: WAIT });
      assert.equal(await page.getByTestId('tab-chat').getAttribute('aria-current'), 'page');
      const shown = await page.locator('[data-testid=toolcall]').filter({ hasText: 'activity marsupial' }).count()
        || (await hl.textContent()).includes('marsupial');
      assert.ok(shown, 'the opened conversation holds the marsupial call');
      await shot(page, 'activity-open-conversation');

      // The view keeps its filter when the user comes back.
      await page.getByTestId('tab-activity').click();
      assert.equal(await page.getByTestId('activity-search').inputValue(), 'marsupial');
      const recs = await bound(page, 'ListActivity', { query: 'marsupial' });
      assert.equal(recs.rows.length, 1);
      assert.equal(recs.rows[0].who, 'user');
    });
  });
}

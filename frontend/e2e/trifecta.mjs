// The lethal-trifecta guard in the browser, against the real everything
// server (a local, stdio server): the user marks get-env (it prints the
// server's environment) private in the Tools panel and turns "allow all"
// on. In one chat get-env runs unasked, then gzip-file-as-resource (open
// world: it fetches the URL it is given) runs unasked too: there was no
// outside content yet. The next gzip call, which could carry the
// environment out in its URL, asks, the modal saying why; "Always" does
// not silence it for the call after. With the guard off in Settings →
// Approvals, the same call runs unasked.
import assert from 'node:assert/strict';
import { WAIT, approvalModal, bound, countModals, send, turnDone, until, waitAttr } from './helpers.mjs';

const gzip = (n) => `use tool everything__gzip-file-as-resource {"name":"note${n}.gz","data":"data:text/plain;base64,SGVsbG8="}`;

export function register({ test, toolPage, shot }) {
  test('trifecta guard: after private data and outside content, an outbound call asks even under allow all, saying why; off in Settings, it does not', async () => {
    await toolPage(async (page) => {
      const settings = await bound(page, 'GetSettings');
      assert.equal(settings.trifectaGuard, true, 'the guard is on by default');
      try {
        // Mark get-env private in the Tools panel.
        await page.getByTestId('tab-tools').click();
        const row = page.locator('[data-testid=server-row][data-id=everything]');
        await row.getByTestId('server-tools-toggle').click();
        const getEnv = row.locator('[data-testid=tool-row][data-tool=get-env]');
        const mark = getEnv.getByTestId('tool-private');
        assert.equal((await mark.textContent()).trim(), 'mark private', 'get-env says it is read-only: not private by itself');
        const gz = row.locator('[data-testid=tool-row][data-tool=gzip-file-as-resource]').getByTestId('tool-private');
        assert.equal((await gz.textContent()).trim(), 'private (local)', 'a local tool that is not read-only counts already');
        await mark.click();
        await waitAttr(mark, 'data-on', 'true');
        await until(async () => (await bound(page, 'ApprovalPolicy')).private?.some((p) => p.tool === 'get-env'), 'the mark saved');
        await getEnv.scrollIntoViewIfNeeded();
        await page.mouse.move(0, 0);
        await shot(page, 'trifecta-tools-private');

        await bound(page, 'SetYolo', true);
        await page.getByTestId('tab-chat').click();
        await page.getByTestId('yolo-badge').waitFor({ timeout: WAIT });
        const modals = await countModals(page);
        await send(page, 'use tool everything__get-env {}');
        await turnDone(page, 1);
        await send(page, gzip(1), { newChat: false });
        await turnDone(page, 2);
        assert.equal(await modals(), 0, 'a call asked before the conversation had both legs');

        // Now both: the outbound call asks, saying why.
        await send(page, gzip(2), { newChat: false });
        let modal = await approvalModal(page);
        const reason = await modal.getByTestId('approval-guard-reason').textContent();
        assert.match(reason, /has read private data \(everything__get-env, everything__gzip-file-as-resource\) and taken in outside content \(everything__gzip-file-as-resource\); everything__gzip-file-as-resource can send data out\./);
        assert.match(await modal.getByTestId('approval-guard').textContent(), /does not stop it asking next time/);
        await page.mouse.move(0, 0);
        await shot(page, 'trifecta-approval');
        await modal.getByTestId('approval-allow-always').click();
        await turnDone(page, 3);

        // "Always" did not silence it.
        await send(page, gzip(3), { newChat: false });
        modal = await approvalModal(page);
        await modal.getByTestId('approval-guard').waitFor({ timeout: WAIT });
        await modal.getByTestId('approval-deny').click();
        await turnDone(page, 4);
        assert.equal(await modals(), 2);

        // Off in Settings → Approvals: the grants decide again.
        await page.getByTestId('tab-settings').click();
        const sw = page.getByTestId('settings-trifecta-guard');
        await page.locator('#settings-approvals').scrollIntoViewIfNeeded();
        await page.getByText('Ask again before a tool could send out private data (lethal-trifecta guard)').click();
        await until(async () => (await bound(page, 'GetSettings')).trifectaGuard === false, 'the guard off');
        assert.equal(await sw.isChecked(), false);
        await page.locator('[data-testid=private-row][data-tool=get-env]').waitFor({ timeout: WAIT });
        await page.mouse.move(0, 0);
        await page.waitForTimeout(400); // the switch's 0.15 s slide, so the picture shows it off
        await shot(page, 'trifecta-settings');
        await page.getByTestId('tab-chat').click();
        await send(page, gzip(4), { newChat: false });
        await turnDone(page, 5);
        assert.equal(await modals(), 2, 'a call asked with the guard off');

        // The audit says the guard decided the two it held up.
        let calls = [];
        for (const c of await bound(page, 'ListConversations')) {
          const cs = await bound(page, 'GetToolCalls', c.id);
          if (cs.some((x) => x.arguments.includes('note4.gz'))) calls = cs;
        }
        assert.deepEqual(calls.map((c) => `${c.decision}/${c.decidedBy}`),
          ['allow_all/policy', 'allow_all/policy', 'allow_always/guard', 'deny/guard', 'allow_all/policy']);
      } finally {
        await bound(page, 'SaveSettings', { ...(await bound(page, 'GetSettings')), trifectaGuard: true });
        await bound(page, 'SetToolPrivate', 'everything', 'get-env', false).catch(() => {});
        await bound(page, 'SetYolo', false);
      }
    });
  });
}

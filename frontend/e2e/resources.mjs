// MCP resources and prompts in the browser, against the real everything
// server: its resources and templates in the Tools panel, a preview, a
// resource attached to a message (the fake provider echoes the text it
// got inlined), a followed resource that changes; and the composer's "/"
// with a prompt whose arguments the server completes as they are typed.
import assert from 'node:assert/strict';
import { WAIT, approvalModal, bound, send, setTheme, turnDone, until, waitText } from './helpers.mjs';

const ext = 'demo://resource/static/document/extension.md';
const textTemplate = 'demo://resource/dynamic/text/{resourceId}';

export function register({ test, toolPage, shot }) {
  test('resources: browse the everything server, preview a template and a document, attach it and send; a followed resource says it changed', async () => {
    await toolPage(async (page) => {
      await page.getByTestId('tab-tools').click();
      const row = page.locator('[data-testid=server-row][data-id=everything]');
      await row.getByTestId('server-resources-toggle').click();
      const res = row.locator(`[data-testid=resource-row][data-uri="${ext}"]`);
      await res.waitFor({ timeout: WAIT });
      assert.ok((await row.getByTestId('resource-row').count()) >= 5, 'the static documents are listed');
      const tmpl = row.locator(`[data-testid=template-row][data-template="${textTemplate}"]`);
      await tmpl.waitFor({ timeout: WAIT });

      // A template, filled in: the resource it names is previewed.
      await tmpl.getByTestId('template-open').click();
      await tmpl.getByTestId('template-arg-field').fill('5');
      await tmpl.getByTestId('template-arg-field').press('Enter');
      const modal = page.getByTestId('resource-preview');
      await waitText(modal.getByTestId('resource-text'), /^Resource 5: This is a plaintext resource created at/);
      assert.equal(await modal.getByTestId('resource-preview-uri').textContent(), 'demo://resource/dynamic/text/5');
      await page.keyboard.press('Escape');
      await modal.waitFor({ state: 'detached', timeout: WAIT });

      // Follow the document, then open it.
      await res.getByTestId('resource-follow').click();
      await until(async () => (await res.getByTestId('resource-follow').getAttribute('aria-pressed')) === 'true', 'the resource followed');
      assert.deepEqual((await bound(page, 'ListResources', 'everything')).subscribed, [ext]);
      await page.mouse.move(0, 0);
      await shot(page, 'resources-panel');

      await res.getByTestId('resource-open').click();
      await waitText(modal.getByTestId('resource-text'), /# Everything Server - Extension Points/);
      await shot(page, 'resources-preview');
      await modal.getByTestId('resource-attach').click();
      await modal.waitFor({ state: 'detached', timeout: WAIT });

      // The chat shows, the document waiting as an attachment.
      await page.getByTestId('composer-input').waitFor({ timeout: WAIT });
      const chip = page.locator('[data-testid=pending-attachments] [data-testid=attachment-chip]');
      await until(async () => (await chip.count()) === 1, 'the resource as a pending attachment');
      assert.equal(await chip.getAttribute('data-name'), 'extension.md');
      await page.getByTestId('composer-input').fill('What does this describe?');
      await page.mouse.move(0, 0);
      await shot(page, 'resources-attached');
      await page.getByTestId('composer-input').press('Enter');
      const said = await (await turnDone(page)).getByTestId('message-text').textContent();
      assert.ok(said.includes('<attachment name="extension.md" type="text/markdown">'), `reply: ${said.slice(0, 300)}`);
      assert.ok(said.includes('Everything Server - Extension Points'), `reply: ${said.slice(0, 300)}`);

      // The server starts sending updates of what is followed (its
      // toggle tool); the Tools panel says the document changed.
      await send(page, 'use tool everything__toggle-subscriber-updates {}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
      await page.getByTestId('tab-tools').click();
      await waitText(res.getByTestId('resource-changed'), /^changed/);
      await page.mouse.move(0, 0);
      await shot(page, 'resources-changed');
      await setTheme(page, 'dark', 'tools');
      await page.mouse.move(0, 0);
      await shot(page, 'resources-changed-dark');
      await setTheme(page, 'system', 'tools');

      // Stop: unfollowed, and the server's updates stopped.
      await res.getByTestId('resource-follow').click();
      await until(async () => (await res.getByTestId('resource-follow').getAttribute('aria-pressed')) === 'false', 'the resource no longer followed');
      await page.getByTestId('tab-chat').click();
      await send(page, 'use tool everything__toggle-subscriber-updates {}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
    });
  });

  test("resources: a resource link in a tool's result opens the preview, and is attached from there", async () => {
    await toolPage(async (page) => {
      await send(page, 'use tool everything__get-resource-links {"count":2}');
      await (await approvalModal(page)).getByTestId('approval-allow-once').click();
      await turnDone(page);
      const card = page.locator('[data-testid=toolcall][data-tool$="get-resource-links"]');
      await card.locator('details.res > summary').click();
      const link = card.getByTestId('tool-resource-link').filter({ hasText: 'Text Resource 2' });
      await link.click();
      const modal = page.getByTestId('resource-preview');
      await waitText(modal.getByTestId('resource-text'), /^Resource 2: This is a plaintext resource/);
      assert.equal(await modal.getByTestId('resource-preview-uri').textContent(), 'demo://resource/dynamic/text/2');
      await shot(page, 'resources-tool-link-preview');
      await modal.getByTestId('resource-attach').click();
      await modal.waitFor({ state: 'detached', timeout: WAIT });
      const chip = page.locator('[data-testid=pending-attachments] [data-testid=attachment-chip]');
      await until(async () => (await chip.count()) === 1, 'the linked resource as a pending attachment');
      assert.equal(await chip.getAttribute('data-name'), 'text-2');
      await page.getByTestId('composer-input').fill('And this?');
      await page.getByTestId('composer-input').press('Enter');
      const said = await (await turnDone(page, 2)).getByTestId('message-text').textContent();
      assert.ok(said.includes('Resource 2: This is a plaintext resource'), `reply: ${said}`);
    });
  });

  test('prompts: "/" lists the servers\' prompts; a prompt with arguments is filled in with completion and goes into the composer', async () => {
    await toolPage(async (page) => {
      await page.getByTestId('new-chat').click();
      const input = page.getByTestId('composer-input');
      await input.fill('/');
      const picker = page.getByTestId('prompt-picker');
      const option = (name) => picker.locator(`[data-testid=prompt-option][data-server=everything][data-name="${name}"]`);
      await option('completable-prompt').waitFor({ timeout: WAIT });
      for (const n of ['simple-prompt', 'args-prompt', 'resource-prompt']) assert.equal(await option(n).count(), 1, n);
      assert.match(await option('args-prompt').textContent(), /everything/);
      await page.mouse.move(0, 0);
      await shot(page, 'prompts-picker');

      // Filter, then choose with the keyboard.
      // (Other servers of the run may have prompts that match too.)
      await input.fill('/team');
      await until(async () => (await option('simple-prompt').count()) === 0, 'the prompts not matching "team" left out');
      assert.equal(await picker.getByTestId('prompt-option').first().getAttribute('data-name'), 'completable-prompt');
      await input.press('Enter');
      const form = page.locator('[data-testid=prompt-form][data-name=completable-prompt]');
      await form.waitFor({ timeout: WAIT });
      assert.equal(await form.getByTestId('prompt-submit').isDisabled(), true, 'required arguments missing');
      const dept = form.locator('[data-testid=prompt-arg][data-arg=department] input');
      const name = form.locator('[data-testid=prompt-arg][data-arg=name] input');
      await dept.pressSequentially('En');
      const deptValues = form.locator('[data-testid=prompt-arg][data-arg=department] [data-testid=prompt-arg-value]');
      await waitText(deptValues, /^\s*Engineering\s*$/);
      await dept.press('ArrowDown');
      await dept.press('Enter');
      assert.equal(await dept.inputValue(), 'Engineering');
      // The name's values depend on the department chosen.
      await name.focus();
      const nameValues = form.locator('[data-testid=prompt-arg][data-arg=name] [data-testid=prompt-arg-value]');
      await until(async () => (await nameValues.allTextContents()).map((t) => t.trim()).join(',') === 'Alice,Bob,Charlie', 'the names of Engineering');
      await page.mouse.move(0, 0);
      await shot(page, 'prompts-form');
      await nameValues.filter({ hasText: 'Bob' }).click();
      assert.equal(await name.inputValue(), 'Bob');
      await form.getByTestId('prompt-submit').click();
      await until(async () => (await input.inputValue()) === 'Please promote Bob to the head of the Engineering team.', 'the prompt in the composer');
      assert.equal(await picker.count(), 0);
      await shot(page, 'prompts-composer');
      await input.press('Enter');
      const said = await (await turnDone(page)).getByTestId('message-text').textContent();
      assert.equal(said.trim(), 'You said: Please promote Bob to the head of the Engineering team.');

      // A prompt with an embedded resource: its text into the composer,
      // the resource attached.
      await input.fill('/resource');
      await option('resource-prompt').click();
      const rform = page.locator('[data-testid=prompt-form][data-name=resource-prompt]');
      await rform.locator('[data-testid=prompt-arg][data-arg=resourceType] input').fill('Text');
      await rform.locator('[data-testid=prompt-arg][data-arg=resourceId] input').fill('2');
      await rform.locator('[data-testid=prompt-arg][data-arg=resourceId] input').press('Enter');
      await until(async () => (await input.inputValue()).startsWith('This prompt includes the Text resource with id: 2.'), 'the prompt text in the composer');
      const chip = page.locator('[data-testid=pending-attachments] [data-testid=attachment-chip]');
      await until(async () => (await chip.count()) === 1, 'the embedded resource attached');
      assert.equal(await chip.getAttribute('data-name'), 'text-2');
      await page.mouse.move(0, 0);
      await shot(page, 'prompts-resource');

      // A required argument, filled in.
      await input.fill('/args');
      await option('args-prompt').click();
      const aform = page.locator('[data-testid=prompt-form][data-name=args-prompt]');
      await aform.locator('[data-testid=prompt-arg][data-arg=city] input').fill('Lyon');
      await aform.getByTestId('prompt-submit').click();
      await until(async () => (await input.inputValue()) === "What's weather in Lyon?", 'the args prompt in the composer');
    });
  });
}

// Command tools in the browser: the user adds a server of command tools
// in the Tools panel's form (a wrong schema and a misspelt placeholder are
// shown under their fields first), the tool shows like any server's, and
// a chat calls it through the fake provider: the approval modal asks, and
// what the model passed, shell syntax and all, reaches printf as one
// literal argument (the file the "injection" would create is not there).
// The server's log shows the run's command line and exit status.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT, approvalModal, bound, send, turnDone, until, waitAttr, waitText } from './helpers.mjs';

export function register({ test, toolPage, shot }) {
  test('command tools: added with a form in the Tools panel (errors under their fields), called in a chat after approval, the model\'s text one literal argument', async () => {
    await toolPage(async (page) => {
      const dir = mkdtempSync(join(tmpdir(), 'cmdtools-'));
      const marker = join(dir, 'pwned');
      try {
        await page.getByTestId('tab-tools').click();
        await page.getByTestId('add-command-tools').click();
        const form = page.getByTestId('cmd-form');
        await form.waitFor({ timeout: WAIT });
        await form.getByTestId('cmd-field-name').fill('Say');
        assert.equal(await form.getByTestId('cmd-field-id').inputValue(), 'say');
        const tool = form.locator('[data-testid=cmd-tool][data-index="0"]');
        await tool.getByTestId('cmd-tool-name').fill('print');
        await tool.getByTestId('cmd-tool-description').fill('Prints the text it is given, exactly.');
        // A misspelt placeholder and a schema that is not of an object.
        await tool.getByTestId('cmd-tool-command').fill('printf\n%s\n{{txt}}');
        await tool.getByTestId('cmd-tool-schema').fill('{"type": "string"}');
        await tool.getByTestId('cmd-tool-cwd').fill(dir);
        await form.getByTestId('cmd-save').click();
        await waitText(tool.getByTestId('cmd-error-schema'), /must have "type": "object"/);
        // Unparsable JSON is caught as it is typed.
        await tool.getByTestId('cmd-tool-schema').fill('{"type": "object",');
        await waitText(tool.getByTestId('cmd-error-schema'), /is not JSON/);
        await tool.getByTestId('cmd-tool-schema').fill('{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}');
        await waitText(tool.getByTestId('cmd-error-command'), /command\[2\]: uses \{\{txt\}\}, which is not a property of the tool's input schema \(text\)/);
        await page.mouse.move(0, 0);
        await shot(page, 'cmdtools-form-errors');

        // Fixed; the schema made from the placeholders.
        await tool.getByTestId('cmd-tool-command').fill('printf\n%s\n{{text}}');
        await tool.getByTestId('cmd-tool-schema-gen').click();
        assert.deepEqual(JSON.parse(await tool.getByTestId('cmd-tool-schema').inputValue()).required, ['text']);
        await tool.getByTestId('cmd-tool-timeout').fill('10');
        await until(async () => (await form.locator('.err').count()) === 0, 'the errors to clear');
        await shot(page, 'cmdtools-form');
        await form.getByTestId('cmd-save').click();
        await form.waitFor({ state: 'detached', timeout: WAIT });

        const row = page.locator('[data-testid=server-row][data-id=say]');
        await waitAttr(row, 'data-state', 'connected');
        await waitText(row.getByTestId('server-tool-count'), /1 tool/);
        assert.match(await row.textContent(), /command tools/);
        await row.getByTestId('server-tools-toggle').click();
        const toolRow = row.locator('[data-testid=tool-row][data-tool=print]');
        await waitText(toolRow, /Prints the text it is given, exactly\./);
        await page.mouse.move(0, 0);
        await shot(page, 'cmdtools-panel');

        // A chat calls it; the text is shell syntax that would make a file.
        const text = `hi; touch ${marker} $(touch ${marker}) \`touch ${marker}\` | touch ${marker}`;
        await page.getByTestId('tab-chat').click();
        await send(page, `use tool say__print ${JSON.stringify({ text })}`);
        const modal = await approvalModal(page);
        assert.match(await modal.textContent(), /print/);
        await page.mouse.move(0, 0);
        await shot(page, 'cmdtools-approval');
        await modal.getByTestId('approval-allow-once').click();
        await turnDone(page);
        const c = page.locator('[data-testid=toolcall][data-tool$="print"]');
        await waitAttr(c, 'data-status', 'done');
        await c.locator('details.res > summary').click();
        const result = c.getByTestId('tool-result');
        await result.waitFor({ timeout: WAIT });
        assert.equal((await result.textContent()).trim(), text, 'printf printed the text as one argument');
        assert.equal(existsSync(marker), false, `${marker} was created: the text was run`);
        await page.mouse.move(0, 0);
        await shot(page, 'cmdtools-chat');

        // The run in the server's log.
        const lines = await bound(page, 'ServerLogs', 'say', 0, 100);
        const log = lines.map((l) => l.text).join('\n');
        assert.match(log, /run print: printf %s 'hi; touch /);
        assert.match(log, /print: exit status 0 in \d+ms/);
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-logs').click();
        await waitText(page.getByTestId('log-lines'), /print: exit status 0/);
        await shot(page, 'cmdtools-log');

        // Edit opens the same form, filled in.
        await page.getByTestId('tab-tools').click();
        await row.getByTestId('server-edit').click();
        const edit = page.getByTestId('cmd-form');
        await edit.waitFor({ timeout: WAIT });
        assert.equal(await edit.locator('[data-testid=cmd-tool][data-index="0"]').getByTestId('cmd-tool-command').inputValue(), 'printf\n%s\n{{text}}');
        assert.equal(await edit.getByTestId('cmd-field-id').isDisabled(), true);
        await edit.getByRole('button', { name: 'Cancel' }).click();
      } finally {
        await bound(page, 'DeleteServer', 'say').catch(() => {});
      }
    });
  });
}

// What servers ask of the user, in the browser against the real everything
// server: a tool call that asks for input (the form is filled in, checked
// in place, accepted, and the server shows what it got), one that asks to
// open a page (declined: nothing opens), and one that asks for a
// completion (the user sees the messages and the model, edits the system
// prompt, approves; the fake provider's answer reaches the server with the
// model's name); and a server's sampling tool loop (samplingserver.mjs): the
// dialog lists the tools offered, the model's call goes back to the server,
// which runs it and asks again with the result.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { WAIT, approvalModal, bound, node22, send, turnDone, until, waitText } from './helpers.mjs';

/** Ends whatever a failed test left waiting. */
async function cancelAsks(page) {
  for (const r of await bound(page, 'PendingElicitations').catch(() => [])) await bound(page, 'AnswerElicitation', r.id, { action: 'cancel' }).catch(() => {});
  for (const r of await bound(page, 'PendingSamplings').catch(() => [])) await bound(page, 'AnswerSampling', r.id, { approve: false }).catch(() => {});
}

/** The result text of the card of the call of tool (the server's name for it). */
async function cardResult(page, tool) {
  const c = page.locator(`[data-testid=toolcall][data-tool$="${tool}"]`);
  await until(async () => ['done', 'failed'].includes(await c.getAttribute('data-status')), `the call of ${tool} to end`);
  await c.locator('details.res > summary').click();
  const r = c.getByTestId('tool-result');
  await r.waitFor({ timeout: WAIT });
  // Long strings are shown in part: all of it, please.
  for (const more of await r.getByRole('button', { name: /^show all/ }).all()) await more.click();
  return r.textContent();
}

/** Sends "use tool …" and allows the call. */
async function callTool(page, tool, args = {}) {
  await send(page, `use tool everything__${tool} ${JSON.stringify(args)}`);
  const approval = await approvalModal(page);
  await approval.getByTestId('approval-allow-once').click();
}

async function serverLog(page) {
  return (await bound(page, 'ServerLogs', 'everything', 0, 1000)).map((l) => l.text).join('\n');
}

export function register({ test, toolPage, shot }) {
  test('elicitation: a tool asks for input; the form is checked in place, filled in and accepted; the server gets the answer', async () => {
    await toolPage(async (page) => {
      try {
        await callTool(page, 'trigger-elicitation-request');
        const modal = page.getByTestId('elicit-modal');
        await modal.waitFor({ timeout: WAIT });
        assert.equal(await modal.getByTestId('elicit-server').textContent(), 'everything');
        assert.equal(await modal.getByTestId('elicit-message').textContent(), 'Please provide inputs for the following fields:');
        const field = (name) => modal.locator(`[data-testid=elicit-field][data-name="${name}"]`);
        const input = (name) => field(name).getByTestId('elicit-input');
        assert.equal(await modal.getByTestId('elicit-field').count(), 13);
        assert.equal(await modal.getByTestId('elicit-field').first().getAttribute('data-name'), 'name', 'the required field first');
        assert.equal(await input('integer').inputValue(), '42', 'defaults filled in');

        // Sent with the required name empty and a bad email: refused in place.
        await input('email').fill('ada@example');
        await input('integer').fill('500');
        await modal.getByTestId('elicit-accept').click();
        await waitText(field('name').getByTestId('elicit-error'), /^required$/);
        await waitText(field('email').getByTestId('elicit-error'), /email address/);
        await waitText(field('integer').getByTestId('elicit-error'), /^at most 100$/);
        await page.mouse.move(0, 0);
        await shot(page, 'elicit-form-errors');

        await input('name').fill('Ada Lovelace');
        await input('email').fill('ada@example.com');
        await input('integer').fill('7');
        await input('check').check();
        await input('titledSingleSelectEnum').selectOption('hero-3');
        await field('titledMultipleSelectEnum').locator('[data-testid=elicit-option][data-value=fish-2]').check();
        await shot(page, 'elicit-form');
        await input('name').press('Enter'); // Enter sends the form, as Accept does
        await modal.waitFor({ state: 'detached', timeout: WAIT });

        await turnDone(page); // then the card has the whole result, not its start
        const result = await cardResult(page, 'trigger-elicitation-request');
        for (const want of ['✅ User provided the requested information!', '- Name: Ada Lovelace', '- Agreed to terms: true', '- Email: ada@example.com', '- Favorite Integer: 7', '"titledSingleSelectEnum": "hero-3"']) {
          assert.ok(result.includes(want), `the server's result lacks ${want}:\n${result}`);
        }
        await shot(page, 'elicit-result');
        assert.match(await serverLog(page), /the user answered the server's request for input "Please provide inputs for the following fields:": accept/);
      } finally {
        await cancelAsks(page);
      }
    });
  });

  test('elicitation: a tool asks to open a page; the dialog names the server and stresses the host; declined, nothing opens', async () => {
    await toolPage(async (page) => {
      try {
        await callTool(page, 'trigger-url-elicitation', { url: 'https://login.example.com/consent?session=42', message: 'Sign in to link your account.' });
        const modal = page.locator('[data-testid=elicit-modal][data-mode=url]');
        await modal.waitFor({ timeout: WAIT });
        assert.equal(await modal.locator('h2').textContent(), 'everything asks you to open a page');
        assert.equal(await modal.getByTestId('elicit-url').textContent(), 'https://login.example.com/consent?session=42');
        assert.equal(await modal.getByTestId('elicit-host').textContent(), 'login.example.com');
        await page.mouse.move(0, 0);
        await shot(page, 'elicit-url');
        await modal.getByTestId('elicit-decline').click();
        await modal.waitFor({ state: 'detached', timeout: WAIT });
        await turnDone(page); // then the card has the whole result, not its start
        const result = await cardResult(page, 'trigger-url-elicitation');
        assert.ok(result.includes('❌ User declined to open the URL'), result);
      } finally {
        await cancelAsks(page);
      }
    });
  });

  test('elicitation: a call needs a step in the browser first (-32042); declined, the call is not retried and its result tells the model', async () => {
    await toolPage(async (page) => {
      try {
        await callTool(page, 'trigger-url-elicitation', { url: 'https://login.example.com/x', errorPath: true });
        const modal = page.locator('[data-testid=elicit-modal][data-mode=url]');
        await modal.waitFor({ timeout: WAIT });
        assert.equal(await modal.getByTestId('elicit-host').textContent(), 'modelcontextprotocol.io');
        assert.equal(await modal.getByTestId('elicit-message').textContent(), 'Open this link to satisfy the prerequisite, then retry the request.');
        await modal.getByTestId('elicit-decline').click();
        await modal.waitFor({ state: 'detached', timeout: WAIT });
        await turnDone(page);
        const result = await cardResult(page, 'trigger-url-elicitation');
        assert.match(result, /everything needs the user to complete a step in their browser before this tool can run/, result);
        assert.match(result, /It was not completed: the user chose not to open modelcontextprotocol\.io \(decline\)/, result);
      } finally {
        await cancelAsks(page);
      }
    });
  });

  test('sampling: a tool asks for a completion; the user sees the messages and the model, edits the system prompt and approves; the server gets the reply and the model name', async () => {
    await toolPage(async (page) => {
      try {
        await callTool(page, 'trigger-sampling-request', { prompt: 'a haiku about quokkas', maxTokens: 60 });
        const modal = page.getByTestId('sampling-modal');
        await modal.waitFor({ timeout: WAIT });
        assert.equal(await modal.locator('h2').textContent(), 'everything asks for a completion');
        assert.equal(await modal.getByTestId('sampling-text').inputValue(), 'Resource trigger-sampling-request context: a haiku about quokkas');
        assert.equal(await modal.getByTestId('sampling-system').inputValue(), 'You are a helpful test server.');
        // The conversation's model: the default provider's default model.
        const def = (await bound(page, 'GetSettings')).defaultProviderId;
        const providers = await bound(page, 'ListProviders');
        const provider = providers.find((p) => p.id === def) ?? providers[0]; // no default set: the first
        assert.equal(await modal.getByTestId('sampling-provider').inputValue(), provider.id);
        assert.equal(await modal.getByTestId('sampling-model').inputValue(), provider.defaultModel);
        assert.match(await modal.getByTestId('sampling-limits').textContent(), /^Up to 60 tokens · temperature 0.7\.$/);
        await modal.getByTestId('sampling-system').fill('Answer in five words.');
        await page.locator('[data-testid=sampling-modal][data-armed=true]').waitFor({ timeout: 5_000 });
        await page.mouse.move(0, 0);
        await shot(page, 'sampling-modal');
        await modal.getByTestId('sampling-approve').click();
        await modal.waitFor({ state: 'detached', timeout: WAIT });

        await turnDone(page); // then the card has the whole result, not its start
        const result = await cardResult(page, 'trigger-sampling-request');
        for (const want of ['LLM sampling result', 'You said: Resource trigger-sampling-request context: a haiku about quokkas', `"model": "${provider.defaultModel}"`, '"stopReason": "endTurn"']) {
          assert.ok(result.includes(want), `the server's result lacks ${want}:\n${result}`);
        }
        await shot(page, 'sampling-result');
        assert.ok((await serverLog(page)).includes(`characters from ${provider.defaultModel} (endTurn), as the user approved`), 'the server log says what was sent');
      } finally {
        await cancelAsks(page);
      }
    });
  });

  test('sampling with tools: the dialog lists the tools offered; the model\'s call goes back to the server, which runs it and asks again with the result', async () => {
    await toolPage(async (page) => {
      try {
        await bound(page, 'SaveServer', { id: 'trips', name: 'trips', transport: 'stdio', command: node22, args: [join(import.meta.dirname, 'samplingserver.mjs')], enabled: true });
        await until(async () => {
          const v = (await bound(page, 'ListServers')).find((s) => s.config.id === 'trips');
          return v?.status.state === 'connected' && v.tools.length > 0;
        }, 'the trips server to connect');
        await send(page, 'use tool trips__plan_trip {"city":"Paris"}');
        await (await approvalModal(page)).getByTestId('approval-allow-once').click();

        // Round 1: the tools offered.
        const modal = page.getByTestId('sampling-modal');
        await modal.waitFor({ timeout: WAIT });
        assert.deepEqual(await modal.getByTestId('sampling-tool-name').allTextContents(), ['get_weather']);
        assert.match(await modal.getByTestId('sampling-tool').textContent(), /Current weather for a city/);
        assert.match(await modal.getByTestId('sampling-tool-choice').textContent(), /The model may call them\. A call goes back to trips, which runs it/);
        await modal.getByTestId('sampling-tool-schema').locator('summary').click();
        await waitText(modal.getByTestId('sampling-tool-schema').locator('.code-box'), /"City name"/);
        await page.locator('[data-testid=sampling-modal][data-armed=true]').waitFor({ timeout: 5_000 });
        await page.mouse.move(0, 0);
        await shot(page, 'sampling-tools-modal');
        const first = await modal.getAttribute('data-request');
        await modal.getByTestId('sampling-approve').click();

        // Round 2: the model's call and the result the server got by running it.
        await until(async () => (await modal.getAttribute('data-request').catch(() => first)) !== first && (await modal.count()) > 0, 'the second sampling request');
        assert.match(await modal.getByTestId('sampling-tool-use').textContent(), /Called get_weather/);
        assert.match(await modal.getByTestId('sampling-tool-use').textContent(), /"city".*"Paris"/s);
        assert.match(await modal.getByTestId('sampling-tool-result').textContent(), /Paris: rain, 14°C/);
        await page.locator('[data-testid=sampling-modal][data-armed=true]').waitFor({ timeout: 5_000 });
        await modal.getByTestId('sampling-tool-result').scrollIntoViewIfNeeded();
        await shot(page, 'sampling-tools-round2');
        await modal.getByTestId('sampling-approve').click();
        await modal.waitFor({ state: 'detached', timeout: WAIT });

        await turnDone(page);
        const result = await cardResult(page, 'plan_trip');
        assert.match(result, /after 2 round\(s\), .* says: You said: Should I pack an umbrella\?/, result);
        const log = (await bound(page, 'ServerLogs', 'trips', 0, 1000)).map((l) => l.text).join('\n');
        assert.ok(log.includes('and 1 tool use(s) for the server to run (get_weather)'), log);
      } finally {
        await cancelAsks(page);
        await bound(page, 'DeleteServer', 'trips').catch(() => {});
      }
    });
  });
}

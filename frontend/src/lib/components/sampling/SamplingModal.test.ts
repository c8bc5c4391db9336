import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import SamplingModal from './SamplingModal.svelte';
import { settle, startedStores } from '../../test/helpers';
import { fakeSampling, fakeSamplingWithTools } from '../../test/asks';
import type { SamplingRequest } from '../../backend';

async function setup(...reqs: SamplingRequest[]) {
  const t = await startedStores((be) => {
    be.samplings = reqs;
    be.providers.push({ id: 'p2', name: 'Local', preset: 'ollama', baseUrl: 'http://localhost:11434/v1', defaultModel: 'llama3', hasKey: false, keyFromEnv: '' });
  });
  render(SamplingModal, { props: { armDelayMs: 0 }, context: t.context });
  return t;
}

describe('SamplingModal', () => {
  it('shows the messages, the system prompt, the model and the bounds', async () => {
    await setup(
      fakeSampling('s1', {
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'A quokka.' }] },
        ],
        maxTokens: 100000,
        allowedTokens: 16384,
        modelHints: ['claude-3-sonnet'],
        stopSequences: ['END'],
      }),
    );
    expect(screen.getByTestId('sampling-modal').querySelector('h2')?.textContent).toBe('Everything asks for a completion');
    expect((screen.getByTestId('sampling-system') as HTMLTextAreaElement).value).toBe('You are a helpful test server.');
    expect((screen.getByTestId('sampling-provider') as HTMLSelectElement).value).toBe('p1');
    expect((screen.getByTestId('sampling-model') as HTMLInputElement).value).toBe('m1');
    expect(screen.getByTestId('sampling-hints').textContent).toContain('claude-3-sonnet');
    const img = screen.getByTestId('sampling-image') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(screen.getByText('What is this?')).toBeTruthy(); // a message with an image is not editable
    expect((screen.getAllByTestId('sampling-text')[0] as HTMLTextAreaElement).value).toBe('A quokka.');
    expect(screen.getByTestId('sampling-limits').textContent).toMatch(/Up to 16384 tokens \(the server asked for 100000\)\s*· temperature 0.7\s*· stop sequences END are not applied/);
  });

  it('approves as shown: nothing changed, nothing sent but yes', async () => {
    const { be } = await setup(fakeSampling('s1'));
    await fireEvent.click(screen.getByTestId('sampling-approve'));
    await settle();
    expect(be.callsOf('answerSampling')).toEqual([['s1', { approve: true, systemPrompt: null, texts: undefined, providerId: undefined, model: undefined }]]);
    expect(screen.queryByTestId('sampling-modal')).toBeNull();
  });

  it('approves the edits and another model', async () => {
    const { be } = await setup(fakeSampling('s1'));
    await fireEvent.input(screen.getByTestId('sampling-system'), { target: { value: 'Be brief.' } });
    await fireEvent.input(screen.getByTestId('sampling-text'), { target: { value: 'A haiku, please.' } });
    await fireEvent.change(screen.getByTestId('sampling-provider'), { target: { value: 'p2' } });
    expect((screen.getByTestId('sampling-model') as HTMLInputElement).value).toBe('llama3');
    await fireEvent.click(screen.getByTestId('sampling-approve'));
    await settle();
    expect(be.callsOf('answerSampling')).toEqual([['s1', { approve: true, systemPrompt: 'Be brief.', texts: ['A haiku, please.'], providerId: 'p2', model: 'llama3' }]]);
  });

  it('Deny and Escape deny', async () => {
    const { be } = await setup(fakeSampling('s1'), fakeSampling('s2'));
    await fireEvent.click(screen.getByTestId('sampling-deny'));
    await settle();
    await fireEvent.keyDown(screen.getByTestId('sampling-modal'), { key: 'Escape' });
    await settle();
    expect(be.callsOf('answerSampling')).toEqual([
      ['s1', { approve: false }],
      ['s2', { approve: false }],
    ]);
  });

  it('lists the tools offered, the tool choice, and the calls and results of a tool loop', async () => {
    const { be } = await setup(fakeSamplingWithTools('s1', { toolChoice: 'required' }));
    const tools = screen.getAllByTestId('sampling-tool');
    expect(screen.getAllByTestId('sampling-tool-name').map((n) => n.textContent)).toEqual(['get_weather', 'get_forecast']);
    expect(tools[0].textContent).toContain('Current weather for a city');
    expect(screen.getByTestId('sampling-tool-choice').textContent).toMatch(/requires the model to call at least one of them\. A call goes back to Everything, which runs it/);
    // Only get_weather sent a schema; it is drawn when opened.
    const schemas = screen.getAllByTestId('sampling-tool-schema') as HTMLDetailsElement[];
    expect(schemas).toHaveLength(1);
    expect(schemas[0].textContent).not.toContain('City name');
    schemas[0].open = true;
    await fireEvent(schemas[0], new Event('toggle'));
    await settle();
    expect(schemas[0].querySelector('.code-box')?.textContent).toMatch(/"city".*"type".*"string".*"City name"/s);
    const use = screen.getByTestId('sampling-tool-use');
    expect(use.textContent).toMatch(/Called get_weather \(call_w1\)/);
    expect(use.querySelector('.code-box')?.textContent).toMatch(/"city".*"Paris"/s);
    expect(screen.getByTestId('sampling-tool-result').textContent).toMatch(/Result of call_w1, as the server ran it\s*Paris: rain, 14°C/);
    expect(screen.getAllByTestId('sampling-text').map((t) => (t as HTMLTextAreaElement).value)).toEqual(['Should I pack an umbrella for Paris?']);
    await fireEvent.click(screen.getByTestId('sampling-approve'));
    await settle();
    expect(be.callsOf('answerSampling')).toEqual([['s1', { approve: true, systemPrompt: null, texts: undefined, providerId: undefined, model: undefined }]]);
  });

  it('shows no tools section for a request without tools', async () => {
    await setup(fakeSampling('s1'));
    expect(screen.queryByTestId('sampling-tools')).toBeNull();
  });

  it('says so when the server stops waiting', async () => {
    const { be } = await setup(fakeSampling('s1'));
    be.emit('sampling:ended', { id: 's1', serverId: 'everything', serverName: 'Everything', outcome: 'cancelled', reason: 'the server stopped waiting', summary: '' });
    await settle();
    expect(screen.getByTestId('sampling-ended-text').textContent).toMatch(/was withdrawn \(the server stopped waiting\)\.\s+Nothing was sent to a model\./);
  });
});

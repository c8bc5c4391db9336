// Requests servers make of the user, for tests and the demo.
import type { ElicitForm, ElicitRequest, SamplingRequest } from '../backend';

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

/** A form like server-everything's trigger-elicitation-request (a part of it). */
export const sampleForm: ElicitForm = {
  fields: [
    { name: 'name', title: 'Full name', description: 'Your full, legal name', type: 'string', required: true },
    { name: 'email', title: 'Email', type: 'string', format: 'email', required: false },
    { name: 'integer', title: 'Favourite number', type: 'integer', required: false, minimum: 1, maximum: 100, default: 42 },
    { name: 'check', title: 'I agree to the terms', type: 'boolean', required: false },
    {
      name: 'hero',
      title: 'Hero',
      type: 'select',
      required: false,
      options: [
        { value: 'hero-1', label: 'Superman' },
        { value: 'hero-2', label: 'Wonder Woman' },
      ],
      default: 'hero-1',
    },
    {
      name: 'fish',
      title: 'Fish',
      type: 'multiselect',
      required: false,
      minItems: 1,
      maxItems: 2,
      options: [
        { value: 'fish-1', label: 'Tuna' },
        { value: 'fish-2', label: 'Salmon' },
        { value: 'fish-3', label: 'Trout' },
      ],
      default: ['fish-1'],
    },
  ],
};

/** A request for input with defaults (a form from "Everything", 10 minutes left). */
export function fakeElicitation(id: string, extra: Partial<ElicitRequest> = {}): ElicitRequest {
  return {
    id,
    serverId: 'everything',
    serverName: 'Everything',
    requestedAt: new Date().toISOString(),
    expiresAt: inMinutes(10),
    mode: 'form',
    message: 'Please provide inputs for the following fields:',
    form: structuredClone(sampleForm),
    ...extra,
  };
}

/** A request for a completion with defaults. */
export function fakeSampling(id: string, extra: Partial<SamplingRequest> = {}): SamplingRequest {
  return {
    id,
    serverId: 'everything',
    serverName: 'Everything',
    requestedAt: new Date().toISOString(),
    expiresAt: inMinutes(10),
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Resource trigger-sampling-request context: a haiku about quokkas' }] }],
    systemPrompt: 'You are a helpful test server.',
    maxTokens: 100,
    allowedTokens: 100,
    temperature: 0.7,
    providerId: 'p1',
    providerName: 'Cerebras',
    model: 'm1',
    ...extra,
  };
}

/** A follow-up of a sampling tool loop: the server offers get_weather and sends the result of the model's call. */
export function fakeSamplingWithTools(id: string, extra: Partial<SamplingRequest> = {}): SamplingRequest {
  return fakeSampling(id, {
    systemPrompt: '',
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'Should I pack an umbrella for Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool_use', toolUseId: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', parts: [{ type: 'tool_result', toolUseId: 'call_w1', text: 'Paris: rain, 14°C' }] },
    ],
    tools: [
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        schema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      },
      { name: 'get_forecast', description: 'Five-day forecast for a city' },
    ],
    toolChoice: 'auto',
    ...extra,
  });
}

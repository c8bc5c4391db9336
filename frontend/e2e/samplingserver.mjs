// A stdio MCP server for the end-to-end tests whose plan_trip tool runs a
// sampling tool loop (MCP 2025-11-25 sampling.tools): it offers the
// client's model get_weather, runs the calls the model makes itself, and
// sends their results in a follow-up request; the model's last answer is
// the tool's result. With the fake provider, a prompt "use tool
// get_weather {…}" makes the model call the tool once, then echo.
//
//	node samplingserver.mjs
//
// It uses the TypeScript SDK that test/node installs (with server-everything).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = join(import.meta.dirname, '../../test/node/node_modules/@modelcontextprotocol/sdk/dist/esm');
const { Server } = await import(pathToFileURL(join(sdk, 'server/index.js')).href);
const { StdioServerTransport } = await import(pathToFileURL(join(sdk, 'server/stdio.js')).href);
const { CallToolRequestSchema, ListToolsRequestSchema } = await import(pathToFileURL(join(sdk, 'types.js')).href);

const weather = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
};

const server = new Server({ name: 'trips', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'plan_trip',
      description: 'Plans a trip: asks the client\'s model, which may check the weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name !== 'plan_trip') throw new Error(`no tool ${req.params.name}`);
  const city = String(req.params.arguments?.city ?? 'Paris');
  const messages = [{ role: 'user', content: { type: 'text', text: `Should I pack an umbrella? use tool get_weather ${JSON.stringify({ city })}` } }];
  for (let round = 1; round <= 3; round++) {
    const res = await server.createMessage({ messages, maxTokens: 200, tools: [weather], toolChoice: { mode: 'auto' } });
    const content = Array.isArray(res.content) ? res.content : [res.content];
    if (res.stopReason !== 'toolUse') {
      const text = content.filter((c) => c.type === 'text').map((c) => c.text).join('');
      return { content: [{ type: 'text', text: `after ${round} round(s), ${res.model} says: ${text}` }] };
    }
    const results = content
      .filter((c) => c.type === 'tool_use')
      .map((c) => ({ type: 'tool_result', toolUseId: c.id, content: [{ type: 'text', text: `${c.input?.city}: rain, 14°C` }] }));
    messages.push({ role: 'assistant', content }, { role: 'user', content: results });
  }
  return { content: [{ type: 'text', text: 'the model would not stop calling tools' }], isError: true };
});

await server.connect(new StdioServerTransport());

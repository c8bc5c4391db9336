import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../backend';
import { commandFormToConfig, configToCommandForm, emptyCommandForm, parseArgv, placeholders, schemaFromPlaceholders } from './cmdform';

describe('command tools form', () => {
  const stored: ServerConfig = {
    id: 'search',
    name: 'Search',
    transport: 'command',
    enabled: true,
    env: { TOKEN: { secretRef: 'server/search/env/TOKEN' } },
    disabledTools: ['files'],
    tools: [
      {
        name: 'grep',
        description: 'Search text.',
        inputSchema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
        command: ['rg', '--json', '--', '{{pattern}}'],
        cwd: '~/src',
        timeout: 10e9,
        outputLimit: 32 * 1024,
        readOnly: true,
      },
      { name: 'files', command: ['printf', '%s\n', 'a b'] },
    ],
  };

  it('round-trips a config, keeping what it does not edit', () => {
    const f = configToCommandForm(stored);
    expect(f.tools[0]).toMatchObject({ command: 'rg\n--json\n--\n{{pattern}}', timeout: '10', outputLimit: '32', readOnly: true });
    // An element with a line break is kept exact, as a JSON list.
    expect(f.tools[1].command).toBe('["printf","%s\\n","a b"]');
    const { config, errors } = commandFormToConfig(f);
    expect(errors).toEqual([]);
    expect(config).toEqual(stored);
  });

  it('reports JSON it cannot read under its field and leaves the field out', () => {
    const f = emptyCommandForm();
    f.id = 'x';
    f.tools[0] = { ...f.tools[0], name: 't', command: '["rg", 5]', schema: '{"type": "object",', timeout: 'soon', outputLimit: '-1' };
    const { config, errors } = commandFormToConfig(f);
    expect(errors.map((e) => e.field)).toEqual(['tools[0].inputSchema', 'tools[0].command', 'tools[0].timeout', 'tools[0].outputLimit']);
    expect(config.tools?.[0]).toEqual({ name: 't', command: [] });
  });

  it('reads a command a line per argument, or as a JSON list', () => {
    expect(parseArgv('rg\n --json\r\n\n{{p}}\n')).toEqual(['rg', ' --json', '{{p}}']);
    expect(parseArgv(' ["sh", "-c", "echo \\"$1\\"", "sh", "{{t}}"] ')).toEqual(['sh', '-c', 'echo "$1"', 'sh', '{{t}}']);
  });

  it('makes a schema from the placeholders, as the backend reads them', () => {
    expect(placeholders(['rg', '--max-count={{ max }}', '{{pattern}}', '{{.State}}', '{{pattern}}'])).toEqual(['max', 'pattern']);
    expect(JSON.parse(schemaFromPlaceholders('rg\n--\n{{pattern}}\n{{path}}'))).toEqual({
      type: 'object',
      properties: { pattern: { type: 'string', description: '' }, path: { type: 'string', description: '' } },
      required: ['pattern', 'path'],
    });
  });
});

// The command tools form's model and its conversion to and from a
// ServerConfig of transport "command" (serverconf.CommandTool in Go).
import type { FieldError, ServerConfig } from '../../backend';
import type { KV } from './form';

export type CommandTool = NonNullable<ServerConfig['tools']>[number];

export interface ToolForm {
  name: string;
  description: string;
  /** The input schema as JSON text; '' = no arguments. */
  schema: string;
  /** The argv, one element per line, or a JSON list of strings. */
  command: string;
  cwd: string;
  /** Seconds; '' = the default (30). */
  timeout: string;
  /** KiB; '' = the default (64). */
  outputLimit: string;
  readOnly: boolean;
}

export interface CommandForm {
  id: string;
  name: string;
  /** The folder of tools that name none. */
  cwd: string;
  env: KV[];
  inheritEnv: boolean;
  enabled: boolean;
  tools: ToolForm[];
  /** Config fields the form does not edit, kept as they were. */
  rest: Partial<ServerConfig>;
}

export const DEFAULT_TIMEOUT_S = 30;
export const DEFAULT_LIMIT_KIB = 64;

export function emptyTool(): ToolForm {
  return { name: '', description: '', schema: '', command: '', cwd: '', timeout: '', outputLimit: '', readOnly: false };
}

export function emptyCommandForm(): CommandForm {
  return { id: '', name: '', cwd: '', env: [], inheritEnv: false, enabled: true, tools: [emptyTool()], rest: {} };
}

function toolToForm(t: CommandTool): ToolForm {
  const argv = t.command ?? [];
  return {
    name: t.name,
    description: t.description ?? '',
    schema: t.inputSchema == null ? '' : JSON.stringify(t.inputSchema, null, 2),
    // A line per element, unless an element is blank or spans lines.
    command: argv.some((a) => a.includes('\n') || a.trim() === '') ? JSON.stringify(argv) : argv.join('\n'),
    cwd: t.cwd ?? '',
    timeout: t.timeout ? String(t.timeout / 1e9) : '',
    outputLimit: t.outputLimit ? String(t.outputLimit / 1024) : '',
    readOnly: !!t.readOnly,
  };
}

export function configToCommandForm(c: ServerConfig): CommandForm {
  const { id, name, cwd, env, inheritEnv, enabled, tools, ...rest } = c;
  return {
    id,
    name,
    cwd: cwd ?? '',
    env: Object.entries(env ?? {}).map(([n, v]) => ({ name: n, value: v.plain ?? '', secretRef: v.secretRef ?? '' })),
    inheritEnv: !!inheritEnv,
    enabled,
    tools: (tools ?? []).map(toolToForm),
    rest,
  };
}

/** The argv a command field holds: a JSON list when it starts with "[", else a line per element. */
export function parseArgv(text: string): string[] {
  const t = text.trim();
  if (t.startsWith('[')) {
    const v: unknown = JSON.parse(t);
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error('a JSON list must hold only strings');
    return v;
  }
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
}

/** The argument names a command's placeholders use, in order, each once (as serverconf.Placeholders). */
export function placeholders(argv: string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    for (const m of a.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g)) {
      if (!out.includes(m[1])) out.push(m[1]);
    }
  }
  return out;
}

/** A schema of string arguments, all required, one per placeholder of the command. */
export function schemaFromPlaceholders(command: string): string {
  let argv: string[] = [];
  try {
    argv = parseArgv(command);
  } catch {
    // the command field says what is wrong
  }
  const names = placeholders(argv.slice(1));
  const properties = Object.fromEntries(names.map((n) => [n, { type: 'string', description: '' }]));
  return JSON.stringify({ type: 'object', properties, required: names }, null, 2);
}

/**
 * The config the form describes, and the problems it finds itself (JSON
 * that does not parse, numbers that are not numbers), which the backend
 * cannot be asked about. A field with such a problem is left out of the
 * config, so the backend's own checks of the rest still come back.
 */
export function commandFormToConfig(f: CommandForm): { config: ServerConfig; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const tools: CommandTool[] = f.tools.map((t, i) => {
    const tool: CommandTool = { name: t.name.trim(), command: [] };
    if (t.description.trim()) tool.description = t.description.trim();
    if (t.schema.trim()) {
      try {
        tool.inputSchema = JSON.parse(t.schema);
      } catch (e) {
        errors.push({ field: `tools[${i}].inputSchema`, message: `is not JSON: ${(e as Error).message}` });
      }
    }
    try {
      tool.command = parseArgv(t.command);
    } catch (e) {
      errors.push({ field: `tools[${i}].command`, message: `is not a JSON list of strings: ${(e as Error).message}` });
    }
    if (t.cwd.trim()) tool.cwd = t.cwd.trim();
    const secs = Number(t.timeout);
    if (t.timeout.trim() && !(Number.isFinite(secs) && secs > 0)) errors.push({ field: `tools[${i}].timeout`, message: 'must be a number of seconds' });
    else if (t.timeout.trim()) tool.timeout = Math.round(secs * 1e9);
    const kib = Number(t.outputLimit);
    if (t.outputLimit.trim() && !(Number.isFinite(kib) && kib > 0)) errors.push({ field: `tools[${i}].outputLimit`, message: 'must be a number of KiB' });
    else if (t.outputLimit.trim()) tool.outputLimit = Math.round(kib * 1024);
    if (t.readOnly) tool.readOnly = true;
    return tool;
  });
  const config: ServerConfig = { ...f.rest, id: f.id.trim(), name: f.name.trim(), transport: 'command', enabled: f.enabled, tools };
  if (f.cwd.trim()) config.cwd = f.cwd.trim();
  const env: ServerConfig['env'] = {};
  for (const r of f.env) {
    const n = r.name.trim();
    if (n) env[n] = r.secretRef && r.value === '' ? { secretRef: r.secretRef } : { plain: r.value };
  }
  if (Object.keys(env).length) config.env = env;
  if (f.inheritEnv) config.inheritEnv = true;
  return { config, errors };
}

// The server form's model and its conversion to and from a ServerConfig.
import type { ServerConfig, Transport, Value } from '../../backend';

export interface KV {
  name: string;
  value: string;
  /** The keyring entry of a stored secret; '' for plain values. */
  secretRef: string;
}

export interface ServerForm {
  id: string;
  name: string;
  transport: Transport;
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  env: KV[];
  /** Pass the app's whole environment, not just the allowlist. */
  inheritEnv: boolean;
  url: string;
  headers: KV[];
  enabled: boolean;
  /** Seconds; '' = the default. */
  timeout: string;
  clientId: string;
  /** Space-separated. */
  scopes: string;
  /** '' (sign in in the browser), 'client_credentials' (no user) or JWT_BEARER. */
  grant: string;
  /** With JWT_BEARER: the workload identity token file; '' = enterprise sign-in. */
  assertionFile: string;
  /** '' (none or automatic), client_secret_basic, client_secret_post, private_key_jwt. */
  clientAuth: string;
  /** A new secret or key; '' keeps the stored one. */
  clientSecret: string;
  privateKey: string;
  hasClientSecret: boolean;
  hasPrivateKey: boolean;
  /** Folders offered as MCP roots; none by default. */
  roots: string[];
  /** Config fields the form does not edit, kept as they were. */
  rest: Partial<ServerConfig>;
}

function toRows(m: Record<string, Value> | undefined): KV[] {
  return Object.entries(m ?? {}).map(([name, v]) => ({ name, value: v.plain ?? '', secretRef: v.secretRef ?? '' }));
}

function fromRows(rows: KV[]): Record<string, Value> | undefined {
  const out: Record<string, Value> = {};
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    out[name] = r.secretRef && r.value === '' ? { secretRef: r.secretRef } : { plain: r.value };
  }
  return Object.keys(out).length ? out : undefined;
}

export function emptyForm(): ServerForm {
  return {
    id: '',
    name: '',
    transport: 'stdio',
    command: '',
    args: '',
    cwd: '',
    env: [],
    inheritEnv: false,
    url: '',
    headers: [],
    enabled: true,
    timeout: '',
    clientId: '',
    scopes: '',
    grant: '',
    assertionFile: '',
    clientAuth: '',
    clientSecret: '',
    privateKey: '',
    hasClientSecret: false,
    hasPrivateKey: false,
    roots: [],
    rest: {},
  };
}

export function configToForm(c: ServerConfig): ServerForm {
  const { id, name, transport, command, args, cwd, env, inheritEnv, url, headers, enabled, callTimeout, auth, roots, ...rest } = c;
  return {
    id,
    name,
    transport,
    command: command ?? '',
    args: (args ?? []).join('\n'),
    cwd: cwd ?? '',
    env: toRows(env),
    inheritEnv: !!inheritEnv,
    url: url ?? '',
    headers: toRows(headers),
    enabled,
    timeout: callTimeout ? String(callTimeout / 1e9) : '',
    clientId: auth?.clientId ?? '',
    scopes: (auth?.scopes ?? []).join(' '),
    grant: auth?.grant ?? '',
    assertionFile: auth?.assertionFile ?? '',
    clientAuth: auth?.clientAuth ?? '',
    clientSecret: '',
    privateKey: '',
    hasClientSecret: !!auth?.clientSecretRef,
    hasPrivateKey: !!auth?.privateKeyRef,
    roots: [...(roots ?? [])],
    rest: { ...rest, auth },
  };
}

/** The RFC 7523 JWT bearer grant: a workload's identity token, or an enterprise sign-in. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export function formToConfig(f: ServerForm): ServerConfig {
  const { auth: oldAuth, ...rest } = f.rest;
  const cfg: ServerConfig = { ...rest, id: f.id.trim(), name: f.name.trim(), transport: f.transport, enabled: f.enabled };
  if (f.transport === 'stdio') {
    cfg.command = f.command.trim();
    const args = f.args.split('\n').filter((a) => a.trim() !== '');
    if (args.length) cfg.args = args;
    if (f.cwd.trim()) cfg.cwd = f.cwd.trim();
    const env = fromRows(f.env);
    if (env) cfg.env = env;
    if (f.inheritEnv) cfg.inheritEnv = true;
  } else {
    cfg.url = f.url.trim();
    const headers = fromRows(f.headers);
    if (headers) cfg.headers = headers;
    const scopes = f.scopes.split(/\s+/).filter(Boolean);
    if (f.clientId.trim() || scopes.length || f.grant || f.clientAuth || f.clientSecret || f.privateKey || oldAuth) {
      cfg.auth = {
        ...oldAuth,
        clientId: f.clientId.trim() || undefined,
        scopes: scopes.length ? scopes : undefined,
        grant: f.grant || undefined,
        assertionFile: (f.grant === JWT_BEARER && f.assertionFile.trim()) || undefined,
        clientAuth: f.clientAuth || undefined,
        clientSecret: f.clientSecret.trim() || undefined,
        privateKey: f.privateKey.trim() ? f.privateKey.trim() + '\n' : undefined,
      };
      // A method that does not use the stored secret or key drops it.
      if (f.clientAuth === 'private_key_jwt') delete cfg.auth.clientSecretRef;
      if (f.clientAuth !== 'private_key_jwt') delete cfg.auth.privateKeyRef;
    }
  }
  if (f.roots.length) cfg.roots = [...f.roots];
  const secs = Number(f.timeout);
  if (f.timeout.trim() && Number.isFinite(secs) && secs > 0) cfg.callTimeout = Math.round(secs * 1e9);
  return cfg;
}

/** A server id from a display name: lowercase, [a-z0-9_-], at most 32. */
export function idFromName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 32);
}

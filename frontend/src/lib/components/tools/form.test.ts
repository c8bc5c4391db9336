import { describe, expect, it } from 'vitest';
import { JWT_BEARER, configToForm, emptyForm, formToConfig } from './form';
import type { ServerConfig } from '../../backend';

describe('server form', () => {
  it('round-trips a stdio config', () => {
    const c: ServerConfig = { id: 'fs', name: 'Files', transport: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '/tmp'], enabled: true };
    expect(formToConfig(configToForm(c))).toMatchObject(c);
  });

  it('sends a new client secret once, and keeps the stored one when left empty', () => {
    const f = { ...emptyForm(), id: 'corp', name: 'Corp', transport: 'http' as const, url: 'https://mcp.example/mcp' };
    f.clientId = 'switchboard';
    f.grant = 'client_credentials';
    f.clientAuth = 'client_secret_post';
    f.clientSecret = ' s3cret ';
    expect(formToConfig(f).auth).toMatchObject({ clientId: 'switchboard', grant: 'client_credentials', clientAuth: 'client_secret_post', clientSecret: 's3cret' });

    const stored: ServerConfig = { id: 'corp', name: 'Corp', transport: 'http', url: 'https://mcp.example/mcp', enabled: true,
      auth: { clientId: 'switchboard', grant: 'client_credentials', clientAuth: 'client_secret_post', clientSecretRef: 'server/corp/oauth/client-secret' } };
    const edit = configToForm(stored);
    expect(edit.hasClientSecret).toBe(true);
    const again = formToConfig(edit).auth!;
    expect(again.clientSecret).toBeUndefined();
    expect(again.clientSecretRef).toBe('server/corp/oauth/client-secret');
  });

  it('switching to a private key drops the stored secret reference', () => {
    const stored: ServerConfig = { id: 'corp', name: 'Corp', transport: 'http', url: 'https://mcp.example/mcp', enabled: true,
      auth: { clientId: 'c', grant: 'client_credentials', clientAuth: 'client_secret_basic', clientSecretRef: 'server/corp/oauth/client-secret' } };
    const f = configToForm(stored);
    f.clientAuth = 'private_key_jwt';
    f.privateKey = '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----';
    const a = formToConfig(f).auth!;
    expect(a.clientSecretRef).toBeUndefined();
    expect(a.privateKey).toContain('BEGIN PRIVATE KEY');
  });

  it('a workload signs in with its identity token file, kept only with the JWT bearer grant', () => {
    const stored: ServerConfig = { id: 'ci', name: 'CI', transport: 'http', url: 'https://mcp.example/mcp', enabled: true,
      auth: { clientId: 'workload', grant: JWT_BEARER, assertionFile: '/var/run/secrets/tokens/mcp' } };
    const f = configToForm(stored);
    expect(f.assertionFile).toBe('/var/run/secrets/tokens/mcp');
    expect(formToConfig(f).auth).toMatchObject(stored.auth!);
    f.grant = 'client_credentials';
    expect(formToConfig(f).auth!.assertionFile).toBeUndefined();
  });
});

describe('inherit my environment', () => {
  it('is off by default and round-trips when on', () => {
    const f = { ...emptyForm(), id: 'fs', name: 'Files', command: 'npx' };
    expect(f.inheritEnv).toBe(false);
    expect(formToConfig(f).inheritEnv).toBeUndefined();

    const c: ServerConfig = { id: 'pw', name: 'Browser', transport: 'stdio', command: 'npx', args: ['@playwright/mcp'], inheritEnv: true, enabled: true };
    const edit = configToForm(c);
    expect(edit.inheritEnv).toBe(true);
    expect(formToConfig(edit)).toMatchObject({ inheritEnv: true });
    edit.inheritEnv = false;
    expect(formToConfig(edit).inheritEnv).toBeUndefined();
  });
});

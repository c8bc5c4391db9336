import { describe, expect, it } from 'vitest';
import type { RegistryField, RegistryItem, RegistryPlan } from '../../backend';
import { actionLabel, carryValues, checkValues, fieldErrors, firstChoice, idProblem, itemKinds, itemTitle } from './registryform';

const item = (over: Partial<RegistryItem> = {}): RegistryItem => ({
  entry: { server: { name: 'io.github.x/y', description: 'd', version: '1.0.0' }, _meta: {} },
  options: [
    { label: 'pypi y 1.0 (stdio, runs with uvx)', kind: 'stdio' },
    { label: 'npm y 1.0 (stdio)', kind: 'npm' },
    { label: 'oci y (stdio)', unsupported: 'docker is not supported' },
    { label: 'npm y 1.0 (sse)', kind: 'npm' },
  ],
  preferred: 1,
  status: 'active',
  ...over,
});

describe('registry results', () => {
  it('lists the usable kinds once each, in order', () => {
    expect(itemKinds(item())).toEqual(['stdio', 'npm']);
    expect(itemKinds(item({ options: [{ label: 'x', unsupported: 'no' }] }))).toEqual([]);
  });
  it('shows the title when there is one, else the name', () => {
    expect(itemTitle(item())).toBe('io.github.x/y');
    const t = item();
    t.entry.server.title = '  Why  ';
    expect(itemTitle(t)).toBe('Why');
  });
  it('selects the preferred option, else the first usable one', () => {
    expect(firstChoice(item())).toBe(1);
    expect(firstChoice(item({ preferred: -1, options: [{ label: 'a', unsupported: 'no' }, { label: 'b', kind: 'remote' }] }))).toBe(1);
    expect(firstChoice(item({ preferred: -1, options: [{ label: 'a', unsupported: 'no' }] }))).toBe(-1);
  });
  it('says Install for what is installed, Add for the rest', () => {
    expect(actionLabel('npm')).toBe('Install');
    expect(actionLabel('mcpb')).toBe('Install');
    expect(actionLabel('remote')).toBe('Add');
    expect(actionLabel('stdio')).toBe('Add');
  });
});

const fields: RegistryField[] = [
  { key: 'env.BRAVE_API_KEY', label: 'BRAVE_API_KEY', required: true, secret: true },
  { key: 'env.MODE', label: 'MODE', choices: ['fast', 'slow'], default: 'fast', required: true },
  { key: 'env.PORT', label: 'PORT', format: 'number' },
  { key: 'env.DEBUG', label: 'DEBUG', format: 'boolean' },
  { key: 'arg.dir', label: 'dir', repeated: true, required: true },
  { key: 'url.tenant', label: 'tenant' },
  { key: 'header.X-Key', label: 'X-Key' },
];

describe('checkValues', () => {
  it('marks required fields without a default, and nothing else, when nothing is typed', () => {
    const r = checkValues(fields, {});
    expect(r.values).toBeNull();
    expect(r.errors).toEqual({ 'env.BRAVE_API_KEY': 'Required.', 'arg.dir': 'Required.' });
  });
  it('builds the map of what was typed: repeated values as their non-blank lines, a secret as typed', () => {
    const r = checkValues(fields, { 'env.BRAVE_API_KEY': ' k e y ', 'arg.dir': '/a\r\n\n  \n/b\n', 'env.MODE': '', 'env.PORT': '8080' });
    expect(r.errors).toEqual({});
    expect(r.values).toEqual({ 'env.BRAVE_API_KEY': ' k e y ', 'arg.dir': '/a\n/b', 'env.PORT': '8080' });
  });
  it('checks formats, choices, and what goes into a URL or a header, as Go does', () => {
    const r = checkValues(fields, {
      'env.BRAVE_API_KEY': 'k',
      'arg.dir': '/a',
      'env.MODE': 'medium',
      'env.PORT': 'eighty',
      'env.DEBUG': 'yes',
      'url.tenant': 'a b',
      'header.X-Key': 'a\nb',
    });
    expect(r.values).toBeNull();
    expect(r.errors).toEqual({
      'env.MODE': 'One of fast, slow.',
      'env.PORT': 'A number.',
      'env.DEBUG': 'true or false.',
      'url.tenant': "Must not contain spaces (it goes into the server's URL).",
      'header.X-Key': 'Must not contain line breaks.',
    });
  });
  it('refuses a value past 64 KB and a NUL', () => {
    const r = checkValues(fields, { 'env.BRAVE_API_KEY': 'x'.repeat((64 << 10) + 1), 'arg.dir': 'a\0b' });
    expect(r.errors).toEqual({ 'env.BRAVE_API_KEY': 'Longer than 64 KB.', 'arg.dir': 'Must not contain a NUL character.' });
  });
});

describe("Go's errors by field", () => {
  it("puts each part of a validation error under its field and leaves the others out", () => {
    const msg = 'invalid server config: env.BRAVE_API_KEY: is required; arg.dir: is required; env.NOPE: is not a value this server takes; it takes env.BRAVE_API_KEY';
    expect(fieldErrors(msg, fields)).toEqual({ 'env.BRAVE_API_KEY': 'is required', 'arg.dir': 'is required' });
    expect(fieldErrors('downloading the bundle: timeout; check the network', fields)).toEqual({});
  });
});

describe('values across plans', () => {
  it('keeps what was typed for the fields the other option still has', () => {
    const plan = { kind: 'npm', id: 'y', name: 'y', config: { id: 'y', name: 'y', transport: 'stdio', enabled: true }, fields: [fields[0], fields[2]] } as RegistryPlan;
    expect(carryValues(plan, { 'env.BRAVE_API_KEY': 'k', 'arg.dir': '/a' })).toEqual({ 'env.BRAVE_API_KEY': 'k', 'env.PORT': '' });
  });
  it('checks the ID as serverconf does', () => {
    expect(idProblem('brave-search')).toBe('');
    expect(idProblem(' ')).toBe('Give the server an ID.');
    expect(idProblem('Brave')).toMatch(/^Lowercase/);
    expect(idProblem('a'.repeat(33))).toMatch(/^Lowercase/);
  });
});

import { describe, expect, it } from 'vitest';
import { emptyInstallForm, fileKind, installBadge, looksLikeFile, nodeText, progressText, splitSpec, toRequest, updatesFromFile, type InstallForm } from './installform';

const form = (f: Partial<InstallForm>): InstallForm => ({ ...emptyInstallForm(), ...f });

describe('install form', () => {
  it.each([
    ['@modelcontextprotocol/server-memory@2026.1.26', '@modelcontextprotocol/server-memory', '2026.1.26'],
    ['@modelcontextprotocol/server-memory', '@modelcontextprotocol/server-memory', ''],
    ['left-pad@1', 'left-pad', '1'],
    ['  left-pad  ', 'left-pad', ''],
    ['pkg@latest', 'pkg', 'latest'],
  ])('splits %s', (spec, name, version) => {
    expect(splitSpec(spec)).toEqual({ name, version });
  });

  it.each([
    ['/tmp/shout-1.0.0.tgz', 'tgz'],
    ['/tmp/shout-1.0.0.TAR.GZ', 'tgz'],
    ['C:\\Users\\ann\\weather.mcpb', 'mcpb'],
    ['/tmp/old.dxt', 'mcpb'],
    ['/tmp/shout.zip', null],
    ['left-pad', null],
  ])('knows %s as %s', (path, kind) => {
    expect(fileKind(path)).toBe(kind);
  });

  it('tells a typed path from a package name', () => {
    for (const s of ['/tmp/x', '~/x.tgz', './x.tgz', 'C:\\x', 'x-1.0.0.tgz']) expect(looksLikeFile(s), s).toBe(true);
    for (const s of ['left-pad', '@scope/pkg@1.0.0', '']) expect(looksLikeFile(s), s).toBe(false);
  });

  it('builds the request of an npm package, its version from the name or the field', () => {
    expect(toRequest(form({ pkg: '@modelcontextprotocol/server-memory@2026.1.26', id: 'memory', pin: true }))).toEqual({
      request: { id: 'memory', package: '@modelcontextprotocol/server-memory', version: '2026.1.26', bin: '', values: {}, fetchNode: false },
      errors: {},
    });
    expect(toRequest(form({ pkg: ' left-pad ', version: ' 1.3.0 ' }), true).request).toEqual({ id: '', package: 'left-pad', version: '1.3.0', bin: '', values: {}, fetchNode: true });
  });

  it('says what is wrong, by field', () => {
    expect(toRequest(form({ pkg: '' })).errors.pkg).toMatch(/Name the npm package/);
    expect(toRequest(form({ pkg: 'Not A Name' })).errors.pkg).toMatch(/not an npm package name/);
    expect(toRequest(form({ pkg: 'a@1.0.0', version: '2.0.0' })).errors.version).toMatch(/says @1.0.0/);
    expect(toRequest(form({ pkg: 'a', version: '1 2' })).errors.version).toMatch(/like 1.2.3/);
    expect(toRequest(form({ pkg: 'a', id: 'My Server' })).errors.id).toMatch(/Lowercase/);
    expect(toRequest(form({ pkg: 'a', bin: 'a b' })).errors.bin).toBeTruthy();
    expect(toRequest(form({ pkg: 'a', id: 'My Server' })).request).toBeNull();
  });

  it('takes a file by its full path; a bundle with its settings', () => {
    expect(toRequest(form({ source: 'file', file: '' })).errors.file).toMatch(/Choose/);
    expect(toRequest(form({ source: 'file', file: '/tmp/x.zip' })).errors.file).toMatch(/\.tgz.*\.mcpb/);
    expect(toRequest(form({ source: 'file', file: 'x-1.0.0.tgz' })).errors.file).toMatch(/full path/);
    // Settings are a bundle's: a tarball's are left out.
    const values = [{ name: 'api_key', value: 's3cret', secretRef: '' }, { name: '', value: '', secretRef: '' }];
    expect(toRequest(form({ source: 'file', file: '/tmp/shout-1.0.0.tgz', values })).request).toEqual({
      id: '', package: '/tmp/shout-1.0.0.tgz', version: '', bin: '', values: {}, fetchNode: false,
    });
    expect(toRequest(form({ source: 'file', file: '/tmp/weather.mcpb', values })).request?.values).toEqual({ api_key: 's3cret' });
    const twice = [...values, { name: 'api_key', value: 'x', secretRef: '' }];
    expect(toRequest(form({ source: 'file', file: '/tmp/weather.mcpb', values: twice })).errors.values).toMatch(/twice/);
    expect(toRequest(form({ source: 'file', file: '/tmp/weather.mcpb', values: [{ name: 'a b', value: '1', secretRef: '' }] })).errors.values).toMatch(/key/);
  });

  it('opens prefilled, as a registry browser would', () => {
    expect(emptyInstallForm({ pkg: '@x/y', version: '1.0.0' })).toMatchObject({ source: 'npm', pkg: '@x/y', version: '1.0.0' });
    expect(emptyInstallForm({ file: '/tmp/a.mcpb' }).source).toBe('file');
  });

  it('words each step', () => {
    expect(progressText({ id: 'mem', step: 'resolving', detail: 'pkg@1.0.0' })).toBe('Resolving pkg@1.0.0…');
    expect(progressText({ id: 'mem', step: 'downloading', fetched: 12, detail: 'zod' })).toBe('Downloading: 12 files fetched (zod)');
    expect(progressText({ id: 'mem', step: 'downloading', fetched: 1 })).toBe('Downloading: 1 file fetched');
    expect(progressText({ id: 'mem', step: 'checking' })).toBe('Checking the package…');
    expect(progressText({ id: 'mem', step: 'unpacking', detail: 'w.mcpb' })).toBe('Unpacking w.mcpb…');
    expect(progressText({ id: 'mem', step: 'done', detail: 'pkg@1.0.0' })).toBe('Installed pkg@1.0.0');
    expect(progressText({ id: 'node', step: 'node', detail: '100 of 29696 KB' })).toBe('Downloading Node.js: 100 of 29696 KB');
    expect(progressText({ id: 'node', step: 'npm', detail: '1 of 2 KB' })).toBe('Downloading npm: 1 of 2 KB');
    expect(progressText({ id: 'node', step: 'done', detail: 'Node 22.11.0' })).toBe('Downloaded Node 22.11.0');
  });

  it('labels an installed server and its Node', () => {
    expect(installBadge({ kind: 'npm', package: 'p', version: '2026.8.31', runtime: 'node' })).toBe('npm 2026.8.31');
    expect(updatesFromFile({ kind: 'npm', package: 'p', version: '1.0.0', runtime: 'node' })).toBe(false);
    expect(updatesFromFile({ kind: 'npm', package: 'p', version: '1.0.0', file: 'p-1.0.0.tgz', runtime: 'node' })).toBe(true);
    expect(updatesFromFile({ kind: 'mcpb', package: 'w', version: '1.0.0', runtime: 'node' })).toBe(true);
    expect(nodeText({ path: '/usr/bin/node', version: '22.11.0', source: 'system', hasNpm: true })).toBe('Node 22.11.0 at /usr/bin/node (system)');
    expect(nodeText({ path: '/d/node', version: '22.11.0', source: 'switchboard', hasNpm: false })).toMatch(/downloaded by Switchboard.*without npm/);
  });
});

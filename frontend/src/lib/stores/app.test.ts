import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { AppStore } from './app.svelte';

describe('AppStore', () => {
  it('loads the backend info', async () => {
    const be = new FakeBackend();
    const s = new AppStore(be);
    expect(s.state).toBe('loading');
    await s.load();
    expect(s.state).toBe('ready');
    expect(s.info?.dataDir).toBe('/tmp/switchboard');
    expect(be.readyCalls).toBe(1);
    expect(s.fatal).toBeUndefined();
  });

  it('separates fatal problems from warnings', async () => {
    const be = new FakeBackend();
    be.info.problems = [
      { kind: 'keyring', message: 'memory only', advice: 'install gnome-keyring', fatal: false },
      { kind: 'database', message: 'damaged', advice: 'move it aside', fatal: true },
    ];
    const s = new AppStore(be);
    await s.load();
    expect(s.fatal?.kind).toBe('database');
    expect(s.warnings.map((p) => p.kind)).toEqual(['keyring']);
  });

  it('reports a backend that does not answer', async () => {
    const be = new FakeBackend();
    be.readyError = new Error('backend gone');
    const s = new AppStore(be);
    await s.load();
    expect(s.state).toBe('failed');
    expect(s.error).toBe('backend gone');
  });
});

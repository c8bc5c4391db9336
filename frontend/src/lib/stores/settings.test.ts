import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { SettingsStore } from './settings.svelte';

describe('SettingsStore', () => {
  it('sets data-theme on <html> when loaded and when changed', async () => {
    const be = new FakeBackend();
    be.settings.theme = 'dark';
    const s = new SettingsStore(be);
    await s.load();
    expect(document.documentElement.dataset.theme).toBe('dark');
    await s.setTheme('light');
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(be.settings.theme).toBe('light');
    await s.setTheme('system');
    // "system" resolves to the OS preference (light here) and follows it.
    expect(document.documentElement.dataset.theme).toBe('light');
  });

  it('follows the OS preference live under "system"', async () => {
    let dark = true;
    const listeners = new Set<() => void>();
    const orig = globalThis.matchMedia;
    globalThis.matchMedia = ((q: string) => ({
      media: q,
      get matches() { return dark; },
      addEventListener: (_: string, f: () => void) => listeners.add(f),
      removeEventListener: (_: string, f: () => void) => listeners.delete(f),
    })) as unknown as typeof matchMedia;
    try {
      const s = new SettingsStore(new FakeBackend());
      await s.load();
      expect(document.documentElement.dataset.theme).toBe('dark');
      dark = false;
      listeners.forEach((f) => f());
      expect(document.documentElement.dataset.theme).toBe('light');
      await s.setTheme('dark');
      expect(listeners.size).toBe(0);
    } finally {
      globalThis.matchMedia = orig;
    }
  });

  it('keeps the other settings when one changes, and undoes a failed save', async () => {
    const be = new FakeBackend();
    be.settings.maxToolRounds = 7;
    const s = new SettingsStore(be);
    await s.load();
    await s.save({ defaultSystemPrompt: 'Be brief.' });
    expect(be.settings).toMatchObject({ maxToolRounds: 7, defaultSystemPrompt: 'Be brief.' });
    be.failures.saveSettings = 'disk full';
    expect(await s.setTheme('dark')).toBe(false);
    expect(s.error).toContain('disk full');
    expect(s.theme).toBe('system');
    expect(document.documentElement.dataset.theme).toBe('light');
  });
});

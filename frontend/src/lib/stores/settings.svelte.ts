// SettingsStore holds the app settings and applies the theme to <html>.
import { errorMessage, type Backend, type Settings, type Theme } from '../backend';

let followSystem: (() => void) | null = null;

/**
 * Sets data-theme on <html> to "light" or "dark"; app.css picks the colours
 * from it. "system" follows the OS preference, live.
 */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  followSystem?.();
  followSystem = null;
  if (theme !== 'system') {
    root.dataset.theme = theme;
    return;
  }
  const mq = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  const set = () => {
    root.dataset.theme = mq?.matches ? 'dark' : 'light';
  };
  set();
  mq?.addEventListener('change', set);
  followSystem = () => mq?.removeEventListener('change', set);
}

export class SettingsStore {
  #backend: Backend;
  #settings = $state<Settings | null>(null);
  #error = $state('');
  #saving = $state(false);
  #saved = $state(false);

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get settings(): Settings | null {
    return this.#settings;
  }
  get theme(): Theme {
    return this.#settings?.theme ?? 'system';
  }
  get error(): string {
    return this.#error;
  }
  get saving(): boolean {
    return this.#saving;
  }
  /** True after a save succeeded, until the next change. */
  get saved(): boolean {
    return this.#saved;
  }

  async load(): Promise<void> {
    try {
      this.#settings = await this.#backend.getSettings();
      this.#error = '';
      applyTheme(this.theme);
    } catch (e) {
      this.#error = `Could not load the settings: ${errorMessage(e)}`;
    }
  }

  /** Saves a change; the theme applies at once, even before the save returns. */
  async save(patch: Partial<Settings>): Promise<boolean> {
    const base: Settings = this.#settings ?? {
      theme: 'system', toolResultLimit: 32000, maxToolRounds: 10, defaultSystemPrompt: '', defaultProviderId: '', trifectaGuard: true,
      toolSearch: 'auto', toolSearchMaxTools: 64, toolSearchMaxKB: 24, npmRegistry: '', mcpRegistry: '',
    };
    const next = { ...base, ...patch };
    const prev = this.#settings;
    this.#settings = next;
    if (patch.theme) applyTheme(patch.theme);
    this.#saving = true;
    this.#saved = false;
    try {
      await this.#backend.saveSettings(next);
      this.#error = '';
      this.#saved = true;
      return true;
    } catch (e) {
      this.#settings = prev;
      if (prev) applyTheme(prev.theme);
      this.#error = `Could not save the settings: ${errorMessage(e)}`;
      return false;
    } finally {
      this.#saving = false;
    }
  }

  setTheme(theme: Theme): Promise<boolean> {
    return this.save({ theme });
  }
}

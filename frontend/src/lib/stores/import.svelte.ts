// ImportFlow is the paste-to-import dialog: preview what a Claude Desktop,
// VS Code or Cursor snippet would add, then import all of it or nothing.
import { errorMessage, type Backend, type ImportReport } from '../backend';
import type { ServersStore } from './servers.svelte';

export type ImportStep = 'edit' | 'preview' | 'done';

export class ImportFlow {
  #backend: Backend;
  #servers: ServersStore;
  #text = $state('');
  #step = $state<ImportStep>('edit');
  #report = $state<ImportReport | null>(null);
  #busy = $state(false);
  #error = $state('');

  constructor(backend: Backend, servers: ServersStore) {
    this.#backend = backend;
    this.#servers = servers;
  }

  get text(): string {
    return this.#text;
  }
  get step(): ImportStep {
    return this.#step;
  }
  get report(): ImportReport | null {
    return this.#report;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get error(): string {
    return this.#error;
  }
  /** Whether Import would add anything. */
  get canImport(): boolean {
    return this.#step === 'preview' && (this.#report?.added?.length ?? 0) > 0;
  }

  setText(t: string): void {
    this.#text = t;
    if (this.#step !== 'edit') {
      this.#step = 'edit';
      this.#report = null;
    }
    this.#error = '';
  }

  async preview(): Promise<void> {
    if (!this.#text.trim()) {
      this.#error = 'Paste the JSON of a Claude Desktop, VS Code or Cursor MCP config first.';
      return;
    }
    this.#busy = true;
    this.#error = '';
    try {
      this.#report = await this.#backend.previewImport(this.#text);
      this.#step = 'preview';
    } catch (e) {
      this.#error = errorMessage(e);
    } finally {
      this.#busy = false;
    }
  }

  /** Imports everything the preview listed as added, or nothing. */
  async commit(): Promise<boolean> {
    if (!this.canImport) return false;
    this.#busy = true;
    this.#error = '';
    try {
      this.#report = await this.#backend.importServers(this.#text);
      this.#step = 'done';
      await this.#servers.load();
      return true;
    } catch (e) {
      this.#error = `Nothing was imported: ${errorMessage(e)}`;
      return false;
    } finally {
      this.#busy = false;
    }
  }

  reset(): void {
    this.#text = '';
    this.#step = 'edit';
    this.#report = null;
    this.#error = '';
  }
}

// UiStore is where the user is: the open tab and what it shows.
export type Tab = 'chat' | 'tools' | 'tasks' | 'activity' | 'logs' | 'apps' | 'settings';

export class UiStore {
  #tab = $state<Tab>('chat');
  #logSource = $state('app');
  #settingsSection = $state('providers');

  get tab(): Tab {
    return this.#tab;
  }
  get logSource(): string {
    return this.#logSource;
  }
  get settingsSection(): string {
    return this.#settingsSection;
  }

  show(tab: Tab): void {
    this.#tab = tab;
  }

  /** Opens the log of a source ('app' or a server id). */
  showLogs(source: string): void {
    this.#logSource = source;
    this.#tab = 'logs';
  }

  showSettings(section: string): void {
    this.#settingsSection = section;
    this.#tab = 'settings';
  }
}

// InstallFlow is one run of the install dialog: the install with its live
// progress (install:progress events), the question whether Switchboard may
// download Node when the system has none with npm, and the error that the
// dialog shows under the form, which keeps what the user typed.
// NodeRuntime is the Node line of Settings: which Node installed servers
// run on, and its download when there is none.
import { Events, errorMessage, type Backend, type InstallProgress, type InstallRequest, type NodeInfo, type ServerView, type Unsubscribe } from '../backend';
import type { ServersStore } from './servers.svelte';

/** The start of Go's core.ErrNeedNode: the install needs a Node the system lacks; ask, then install again with fetchNode. */
export const needNodePrefix = 'Switchboard needs Node.js to install this server';

export function needsNode(message: string): boolean {
  return message.startsWith(needNodePrefix);
}

/** idle: the form (perhaps with an error); installing; needs-node: asking the user; done: installed. */
export type InstallPhase = 'idle' | 'installing' | 'needs-node' | 'done';

export class InstallFlow {
  #backend: Backend;
  #servers: ServersStore;
  #phase = $state<InstallPhase>('idle');
  #progress = $state<InstallProgress | null>(null);
  #nodeProgress = $state<InstallProgress | null>(null);
  #error = $state('');
  #nodeQuestion = $state('');
  #installed = $state<ServerView | null>(null);
  #asked: { req: InstallRequest; pin: boolean } | null = null;
  #unsub: Unsubscribe | undefined;

  constructor(backend: Backend, servers: ServersStore) {
    this.#backend = backend;
    this.#servers = servers;
  }

  get phase(): InstallPhase {
    return this.#phase;
  }
  get running(): boolean {
    return this.#phase === 'installing';
  }
  /** The last step of the package's install; null before the first. */
  get progress(): InstallProgress | null {
    return this.#progress;
  }
  /** The last step of the Node download, when the user let Switchboard fetch one. */
  get nodeProgress(): InstallProgress | null {
    return this.#nodeProgress;
  }
  get error(): string {
    return this.#error;
  }
  /** Go's reason why the install needs Node, while the dialog asks the user. */
  get nodeQuestion(): string {
    return this.#nodeQuestion;
  }
  get installed(): ServerView | null {
    return this.#installed;
  }

  /** Installs; resolves with the server, or null when it failed or waits for the user's answer about Node. */
  install(req: InstallRequest, pin = false): Promise<ServerView | null> {
    if (this.running) return Promise.resolve(null);
    this.#asked = { req: { ...req, fetchNode: false }, pin };
    return this.#run(this.#asked.req, pin);
  }

  /** The user agreed: download Node into the data folder, then install. */
  consentNode(): Promise<ServerView | null> {
    if (this.#phase !== 'needs-node' || !this.#asked) return Promise.resolve(null);
    this.#nodeQuestion = '';
    return this.#run({ ...this.#asked.req, fetchNode: true }, this.#asked.pin);
  }

  declineNode(): void {
    if (this.#phase !== 'needs-node') return;
    this.#nodeQuestion = '';
    this.#phase = 'idle';
    this.#error = 'Not installed: this server needs Node.js 20 or newer with npm. Install Node.js yourself, or install again and let Switchboard download it.';
  }

  /** The system's file dialog; '' when cancelled. */
  async pickFile(): Promise<string> {
    try {
      return await this.#backend.pickPackageFile();
    } catch (e) {
      this.#error = errorMessage(e);
      return '';
    }
  }

  /** Forgets the last error (the user changed the form). */
  clearError(): void {
    if (this.#phase === 'idle') this.#error = '';
  }

  async #run(req: InstallRequest, pin: boolean): Promise<ServerView | null> {
    this.#phase = 'installing';
    this.#error = '';
    this.#progress = null;
    this.#nodeProgress = null;
    this.#unsub?.();
    this.#unsub = this.#backend.on(Events.installProgress, (p) => {
      if (p.id === 'node') this.#nodeProgress = p;
      else if (!req.id || p.id === req.id) this.#progress = p;
    });
    try {
      const view = await this.#servers.install(req);
      if (pin) await this.#servers.pin(view.config.id, true);
      this.#installed = view;
      this.#phase = 'done';
      return view;
    } catch (e) {
      const msg = errorMessage(e);
      if (!req.fetchNode && needsNode(msg)) {
        this.#nodeQuestion = msg;
        this.#phase = 'needs-node';
      } else {
        this.#error = msg;
        this.#phase = 'idle';
      }
      return null;
    } finally {
      this.#unsub?.();
      this.#unsub = undefined;
    }
  }

  dispose(): void {
    this.#unsub?.();
    this.#unsub = undefined;
  }
}

export class NodeRuntime {
  #backend: Backend;
  #node = $state<NodeInfo | null>(null);
  #error = $state('');
  #loaded = $state(false);
  #fetching = $state(false);
  #progress = $state<InstallProgress | null>(null);

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** The Node installed servers run on; null when there is none (error says why). */
  get node(): NodeInfo | null {
    return this.#node;
  }
  get error(): string {
    return this.#error;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get fetching(): boolean {
    return this.#fetching;
  }
  /** The download's last step while it runs. */
  get progress(): InstallProgress | null {
    return this.#progress;
  }

  async load(): Promise<void> {
    try {
      this.#node = await this.#backend.nodeStatus();
      this.#error = '';
    } catch (e) {
      this.#node = null;
      this.#error = errorMessage(e);
    } finally {
      this.#loaded = true;
    }
  }

  /** Downloads Node into the data folder; call only on the user's word. */
  async fetch(): Promise<void> {
    if (this.#fetching) return;
    this.#fetching = true;
    this.#progress = null;
    const unsub = this.#backend.on(Events.installProgress, (p) => {
      if (p.id === 'node') this.#progress = p;
    });
    try {
      this.#node = await this.#backend.fetchNode();
      this.#error = '';
    } catch (e) {
      this.#error = `Node.js was not downloaded: ${errorMessage(e)}`;
    } finally {
      unsub();
      this.#fetching = false;
      this.#loaded = true;
    }
  }
}

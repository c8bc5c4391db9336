// Stores is the root of every store: it creates them over one Backend,
// starts their event subscriptions, and loads the first data. Components get
// it from the Svelte context (useStores).
import { recallConversation } from './session';
import { getContext, setContext } from 'svelte';
import { errorMessage, type Attachment, type Backend } from '../backend';
import type { Schedule } from '../frame';
import { linkNeedsConfirm } from '../links';
import { AppStore } from './app.svelte';
import { ApprovalsStore } from './approvals.svelte';
import { AppViewsStore } from './appviews.svelte';
import { ElicitationsStore, SamplingsStore, reportVisibility } from './asks.svelte';
import { AttachmentsStore } from './attachments.svelte';
import { ChatStore } from './chat.svelte';
import { ClientsStore } from './clients.svelte';
import { ConversationsStore } from './conversations.svelte';
import { PromptsStore } from './prompts.svelte';
import { ProvidersStore } from './providers.svelte';
import { ResourcesStore } from './resources.svelte';
import { ServersStore } from './servers.svelte';
import { SettingsStore } from './settings.svelte';
import { TasksStore } from './tasks.svelte';
import { UiStore } from './ui.svelte';
import { KeyboardStore } from './keyboard.svelte';

export class Stores {
  readonly backend: Backend;
  readonly app: AppStore;
  readonly settings: SettingsStore;
  readonly providers: ProvidersStore;
  readonly conversations: ConversationsStore;
  readonly approvals: ApprovalsStore;
  readonly chat: ChatStore;
  readonly servers: ServersStore;
  readonly tasks: TasksStore;
  /** Servers' requests for input (forms, pages to open) and for completions. */
  readonly elicitations: ElicitationsStore;
  readonly samplings: SamplingsStore;
  #stopVisibility?: () => void;
  /** The attachments of the message being written. */
  readonly attachments: AttachmentsStore;
  /** MCP servers' resources, and the resource preview. */
  readonly resources: ResourcesStore;
  /** MCP servers' prompts, for the composer's "/". */
  readonly prompts: PromptsStore;
  /** Servers' views (MCP Apps) shown in tool-call cards. */
  readonly appviews: AppViewsStore;
  /** Connected apps (other MCP clients), their grants and their activity. */
  readonly clients: ClientsStore;
  readonly ui = new UiStore();
  /** The command palette, the shortcuts list and their status line. */
  readonly keyboard = new KeyboardStore();
  #needsSetup = $state(false);
  #notice = $state('');
  #pendingLink = $state<{ url: string; text?: string } | null>(null);
  #started = $state(false);

  constructor(backend: Backend, opts: { schedule?: Schedule } = {}) {
    this.backend = backend;
    this.app = new AppStore(backend);
    this.settings = new SettingsStore(backend);
    this.providers = new ProvidersStore(backend);
    this.conversations = new ConversationsStore(backend);
    this.approvals = new ApprovalsStore(backend);
    this.servers = new ServersStore(backend);
    this.tasks = new TasksStore(backend);
    this.elicitations = new ElicitationsStore(backend);
    this.samplings = new SamplingsStore(backend);
    this.attachments = new AttachmentsStore(backend);
    this.resources = new ResourcesStore(backend, { onAttach: (list) => this.addAttachments(list) });
    this.prompts = new PromptsStore(backend, () => this.servers.servers);
    this.chat = new ChatStore(backend, this.conversations, {
      schedule: opts.schedule,
    });
    this.appviews = new AppViewsStore(backend, () => this.chat.conversationId);
    this.clients = new ClientsStore(backend);
  }

  /** True when the app started with no provider: the first-start setup shows until it ends. */
  get needsSetup(): boolean {
    return this.#needsSetup;
  }

  /** True once the first data is loaded (or failed to load). */
  get started(): boolean {
    return this.#started;
  }

  /** A short message for the user (e.g. a link that could not open). */
  get notice(): string {
    return this.#notice;
  }

  /** Subscribes to events, then loads everything the app shows. */
  async start(): Promise<void> {
    this.approvals.start();
    this.servers.start();
    this.tasks.start();
    this.elicitations.start();
    this.samplings.start();
    this.resources.start();
    this.prompts.start();
    this.chat.start();
    this.appviews.start();
    this.clients.start();
    await this.app.load();
    if (this.app.state !== 'ready' || this.app.fatal) return;
    this.#stopVisibility ??= reportVisibility(this.backend);
    await Promise.all([
      this.elicitations.load(),
      this.samplings.load(),
      this.settings.load(),
      this.providers.load(),
      this.conversations.load(),
      this.approvals.load(),
      this.servers.load(),
      this.tasks.load(),
    ]);
    this.#needsSetup = this.providers.providers.length === 0;
    // After the window reloaded (a view froze it, the page crashed), the
    // conversation that was open opens again, and the user is told why.
    const notice = this.app.info?.notice;
    if (notice) this.#notice = notice;
    const was = recallConversation();
    if (was && !this.#needsSetup && this.conversations.byId(was)) await this.openConversation(was);
    else this.openNewChat();
    this.#started = true;
  }

  /** Opens a conversation in the Chat tab. */
  async openConversation(id: string): Promise<void> {
    await this.chat.open(id);
    this.ui.show('chat');
  }

  /** Opens an empty chat with the default provider and its default model. */
  openNewChat(): void {
    const { providerId, model } = this.defaultModel();
    this.chat.openDraft(providerId, model);
    this.ui.show('chat');
  }

  defaultModel(): { providerId: string; model: string } {
    const list = this.providers.providers;
    const p = list.find((x) => x.id === this.settings.settings?.defaultProviderId) ?? list[0];
    return { providerId: p?.id ?? '', model: p?.defaultModel ?? '' };
  }

  /** Ends the first-start setup with a working provider and an empty chat. */
  async finishSetup(providerId: string): Promise<void> {
    await this.settings.save({ defaultProviderId: providerId });
    this.#needsSetup = false;
    this.openNewChat();
  }

  /** Leaves the setup without a provider (Settings explains what is missing). */
  skipSetup(): void {
    this.#needsSetup = false;
    this.ui.showSettings('providers');
  }

  /** A link waiting for the user to confirm it (LinkConfirm), or null. */
  get pendingLink(): { url: string; text?: string } | null {
    return this.#pendingLink;
  }

  /**
   * Opens a link in the system browser. One that may not go where it says
   * (its text, when given, is not its URL, or it carries a query) waits in
   * pendingLink for confirmLink or cancelLink.
   */
  async openURL(url: string, text?: string): Promise<void> {
    if (linkNeedsConfirm(url, text)) {
      this.#pendingLink = { url, text };
      return;
    }
    await this.#open(url);
  }

  async confirmLink(): Promise<void> {
    const link = this.#pendingLink;
    this.#pendingLink = null;
    if (link) await this.#open(link.url);
  }

  cancelLink(): void {
    this.#pendingLink = null;
  }

  async #open(url: string): Promise<void> {
    try {
      await this.backend.openURL(url);
    } catch (e) {
      this.#notice = `Could not open ${url}: ${errorMessage(e)}`;
    }
  }

  /** Puts attachments (a resource's parts) on the message being written, and shows the chat where it is. */
  addAttachments(list: Attachment[]): void {
    for (const a of list) this.attachments.add(a);
    this.ui.show('chat');
  }

  dismissNotice(): void {
    this.#notice = '';
  }

  dispose(): void {
    this.approvals.dispose();
    this.servers.dispose();
    this.tasks.dispose();
    this.elicitations.dispose();
    this.samplings.dispose();
    this.#stopVisibility?.();
    this.#stopVisibility = undefined;
    this.resources.dispose();
    this.prompts.dispose();
    this.chat.dispose();
    this.keyboard.dispose();
    this.appviews.dispose();
    this.clients.dispose();
    this.conversations.dispose();
  }
}

/** The context key of the Stores (tests mount components with it). */
export const STORES = Symbol('stores');

export function provideStores(s: Stores): void {
  setContext(STORES, s);
}

export function useStores(): Stores {
  const s = getContext<Stores | undefined>(STORES);
  if (!s) throw new Error('useStores outside of App');
  return s;
}

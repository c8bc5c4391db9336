// The one wrapper over the Go backend: bound methods (UI -> Go) and events
// (Go -> UI). Stores use a Backend; tests pass a fake one. Errors from Go
// arrive as strings meant for the user; here they become Errors.
import type {
  ApprovalRequest,
  ConversationSummary,
  ExportFormat,
  FieldError,
  ImportReport,
  Info,
  LocalServer,
  LogLine,
  Message,
  Policy,
  Preset,
  ProviderInput,
  ProviderView,
  SearchHit,
  ServerConfig,
  ServerView,
  Settings,
  TestResult,
  ToolCallRecord,
  ToolSelection,
  ToolSet,
  UserDecision,
} from './types';
import type { EventName, EventPayloads } from './events';
import * as norm from './normalize';

export type * from './types';
export { Events } from './events';
export type { EventName, EventPayloads } from './events';

export type Unsubscribe = () => void;

export interface Backend {
  // app
  ready(): Promise<Info>;
  /** Tells the backend the window was resized, so the size is remembered. */
  windowChanged(): Promise<void>;
  /** Opens url in the system browser. */
  openURL(url: string): Promise<void>;
  getSettings(): Promise<Settings>;
  saveSettings(s: Settings): Promise<void>;

  // providers
  listPresets(): Promise<Preset[]>;
  listProviders(): Promise<ProviderView[]>;
  saveProvider(input: ProviderInput): Promise<ProviderView>;
  deleteProvider(id: string): Promise<void>;
  testProvider(id: string): Promise<TestResult>;
  listModels(providerId: string): Promise<string[]>;
  detectLocal(): Promise<LocalServer[]>;

  // conversations and chat
  listConversations(): Promise<ConversationSummary[]>;
  searchMessages(query: string): Promise<SearchHit[]>;
  newConversation(providerId: string, model: string): Promise<ConversationSummary>;
  renameConversation(id: string, title: string): Promise<void>;
  deleteConversation(id: string): Promise<void>;
  /** beforeSeq 0 = the latest messages; returned oldest first. */
  getMessages(conversationId: string, beforeSeq: number, limit: number): Promise<Message[]>;
  /** The audit records of a conversation's tool calls (arguments, whole results). */
  getToolCalls(conversationId: string): Promise<ToolCallRecord[]>;
  /** Stores the message and starts the reply; resolves with the run id at once. */
  send(conversationId: string, text: string): Promise<string>;
  stop(conversationId: string): Promise<void>;
  regenerate(conversationId: string): Promise<string>;
  editAndResend(conversationId: string, seq: number, text: string): Promise<string>;
  exportConversation(id: string, format: ExportFormat): Promise<string>;
  setConversationModel(id: string, providerId: string, model: string): Promise<void>;
  /** sel null = every enabled tool. */
  setConversationTools(id: string, sel: ToolSelection | null): Promise<void>;
  /** Every tool with whether the conversation offers it, and a warning when too many. */
  conversationTools(id: string): Promise<ToolSet>;
  /** prompt null = the default system prompt. */
  setSystemPrompt(id: string, prompt: string | null): Promise<void>;

  // MCP servers
  listServers(): Promise<ServerView[]>;
  validateServer(cfg: ServerConfig): Promise<FieldError[]>;
  saveServer(cfg: ServerConfig): Promise<ServerView>;
  deleteServer(id: string): Promise<void>;
  connectServer(id: string): Promise<void>;
  disconnectServer(id: string): Promise<void>;
  restartServer(id: string): Promise<void>;
  setToolEnabled(serverId: string, tool: string, enabled: boolean): Promise<void>;
  previewImport(text: string): Promise<ImportReport>;
  /** All or nothing. */
  importServers(text: string): Promise<ImportReport>;
  authorizeServer(id: string): Promise<void>;
  cancelAuthorize(id: string): Promise<void>;
  signOutServer(id: string): Promise<void>;

  // logs
  serverLogs(serverId: string, sinceSeq: number, max: number): Promise<LogLine[]>;
  appLogs(sinceSeq: number, max: number): Promise<LogLine[]>;

  // approvals
  pendingApprovals(): Promise<ApprovalRequest[]>;
  decideApproval(id: string, decision: UserDecision): Promise<void>;
  approvalPolicy(): Promise<Policy>;
  revokeGrant(serverId: string, tool: string): Promise<void>;
  setYolo(on: boolean): Promise<void>;

  /** Subscribes to a backend event; call the returned function to stop. */
  on<K extends EventName>(event: K, handler: (payload: EventPayloads[K]) => void): Unsubscribe;
}

/** The message of anything thrown: Go's string rejections, Errors, the rest. */
export function errorMessage(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e instanceof Error) return e.message;
  if (e && typeof e === 'object' && 'message' in e) return String((e as { message: unknown }).message);
  return String(e);
}

// What Wails injects into the page (window.go for bindings, window.runtime
// for events). Only this file touches them.
interface WailsWindow {
  go?: { app?: { App?: Record<string, (...args: unknown[]) => Promise<unknown>> } };
  runtime?: {
    EventsOnMultiple(name: string, cb: (...data: unknown[]) => void, max: number): () => void;
  };
}

/** Calls a bound method; a rejection becomes an Error with Go's message. */
function call<T>(name: string, ...args: unknown[]): Promise<T> {
  const w = window as unknown as WailsWindow;
  const fn = w.go?.app?.App?.[name];
  if (!fn) {
    return Promise.reject(new Error(`The Switchboard backend is not connected (method ${name} is missing). Restart the app.`));
  }
  return fn(...args).then(
    (v) => v as T,
    (e) => {
      throw new Error(errorMessage(e));
    },
  );
}

const list = <T>(f: (raw: unknown) => T) => (v: unknown) => (Array.isArray(v) ? v.map(f) : []);

/** True when the page runs inside Wails (window.go is there). */
export function hasWails(): boolean {
  return !!(window as unknown as WailsWindow).go?.app?.App;
}

/** The backend of the running app. */
export const wails: Backend = {
  ready: () => call('Ready'),
  windowChanged: () => call('WindowChanged'),
  openURL: (url) => call('OpenURL', url),
  getSettings: () => call('GetSettings'),
  saveSettings: (s) => call('SaveSettings', s),

  listPresets: () => call<Preset[]>('ListPresets').then((v) => v ?? []),
  listProviders: () => call<ProviderView[]>('ListProviders').then((v) => v ?? []),
  saveProvider: (input) => call('SaveProvider', input),
  deleteProvider: (id) => call('DeleteProvider', id),
  testProvider: (id) => call<TestResult>('TestProvider', id).then((r) => ({ ...r, models: r.models ?? [] })),
  listModels: (providerId) => call<string[]>('ListModels', providerId).then((v) => v ?? []),
  detectLocal: () => call<LocalServer[]>('DetectLocal').then((v) => (v ?? []).map((s) => ({ ...s, models: s.models ?? [] }))),

  listConversations: () => call('ListConversations').then(list(norm.conversation)),
  searchMessages: (query) => call('SearchMessages', query).then(list(norm.searchHit)),
  newConversation: (providerId, model) => call('NewConversation', providerId, model).then(norm.conversation),
  renameConversation: (id, title) => call('RenameConversation', id, title),
  deleteConversation: (id) => call('DeleteConversation', id),
  getMessages: (id, beforeSeq, limit) => call('GetMessages', id, beforeSeq, limit).then(list(norm.message)),
  getToolCalls: (id) => call('GetToolCalls', id).then(list(norm.toolCall)),
  send: (id, text) => call('Send', id, text),
  stop: (id) => call('Stop', id),
  regenerate: (id) => call('Regenerate', id),
  editAndResend: (id, seq, text) => call('EditAndResend', id, seq, text),
  exportConversation: (id, format) => call('ExportConversation', id, format),
  setConversationModel: (id, providerId, model) => call('SetConversationModel', id, providerId, model),
  setConversationTools: (id, sel) => call('SetConversationTools', id, sel),
  conversationTools: (id) =>
    call<ToolSet>('ConversationTools', id).then((t) => ({ ...t, selection: norm.toolSelection(t.selection) ?? { only: null }, tools: t.tools ?? [] })),
  setSystemPrompt: (id, prompt) => call('SetSystemPrompt', id, prompt),

  listServers: () => call('ListServers').then(list(norm.serverView)),
  validateServer: (cfg) => call<FieldError[]>('ValidateServer', cfg).then((v) => v ?? []),
  saveServer: (cfg) => call('SaveServer', cfg).then(norm.serverView),
  deleteServer: (id) => call('DeleteServer', id),
  connectServer: (id) => call('ConnectServer', id),
  disconnectServer: (id) => call('DisconnectServer', id),
  restartServer: (id) => call('RestartServer', id),
  setToolEnabled: (serverId, tool, enabled) => call('SetToolEnabled', serverId, tool, enabled),
  previewImport: (text) => call('PreviewImport', text),
  importServers: (text) => call('ImportServers', text),
  authorizeServer: (id) => call('AuthorizeServer', id),
  cancelAuthorize: (id) => call('CancelAuthorize', id),
  signOutServer: (id) => call('SignOutServer', id),

  serverLogs: (serverId, sinceSeq, max) => call('ServerLogs', serverId, sinceSeq, max).then(list(norm.logLine)),
  appLogs: (sinceSeq, max) => call('AppLogs', sinceSeq, max).then(list(norm.logLine)),

  pendingApprovals: () => call('PendingApprovals').then(list(norm.approvalRequest)),
  decideApproval: (id, decision) => call('DecideApproval', id, decision),
  approvalPolicy: () => call('ApprovalPolicy').then(norm.policy),
  revokeGrant: (serverId, tool) => call('RevokeGrant', serverId, tool),
  setYolo: (on) => call('SetYolo', on),

  on(event, handler) {
    const w = window as unknown as WailsWindow;
    if (!w.runtime) return () => {};
    const f = norm.eventPayload[event];
    return w.runtime.EventsOnMultiple(event, (payload) => handler(f(payload) as never), -1);
  },
};

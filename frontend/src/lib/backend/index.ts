// The one wrapper over the Go backend: bound methods (UI -> Go) and events
// (Go -> UI). Stores use a Backend; tests pass a fake one. Errors from Go
// arrive as strings meant for the user; here they become Errors.
import type {
  ApprovalRequest,
  Attachment,
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
  ServerLogLevel,
  ServerView,
  Settings,
  Task,
  TestResult,
  ToolCallRecord,
  ToolSelection,
  ToolSet,
  UserDecision,
} from './types';
import type {
  Completion,
  CompletionRef,
  Content,
  PromptList,
  PromptResult,
  PromptUse,
  ResourceList,
  ResourcePreview,
} from './types';
import type { EventName, EventPayloads } from './events';
import type { ElicitAnswer, ElicitRequest, SamplingDecision, SamplingRequest } from './types';
import type { AppView, ResourceContents, ToolResult } from './types';
import type { InstallRequest, NodeInfo } from './types';
import type { ActivityExport, ActivityFacets, ActivityFilter, ActivityPage } from './types';
import type { RegistryInstall, RegistryPage, RegistryPlan } from './types';
import type { AddedClient, AppConnection, AuditEntry, AuditFilter, ClientAccess, ClientApp, ClientGrant, ClientToolRef, ConnectPreview, ConnectTarget, ConnectWritten, EndpointStatus } from './types';
import * as App from '../../../wailsjs/go/app/App';
import { EventsOnMultiple } from '../../../wailsjs/runtime/runtime';

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
  /** The archived conversations, most recently updated first. */
  listArchivedConversations(): Promise<ConversationSummary[]>;
  pinConversation(id: string, pinned: boolean): Promise<void>;
  archiveConversation(id: string, archived: boolean): Promise<void>;
  deleteConversation(id: string): Promise<void>;
  /** beforeSeq 0 = the latest messages; returned oldest first. */
  getMessages(conversationId: string, beforeSeq: number, limit: number): Promise<Message[]>;
  /** The audit records of a conversation's tool calls (arguments, whole results). */
  getToolCalls(conversationId: string): Promise<ToolCallRecord[]>;
  /** A page of every conversation's tool calls that the filter keeps, newest first. */
  listActivity(filter: ActivityFilter): Promise<ActivityPage>;
  /** The servers and tools that made calls, for the activity filters. */
  activityFacets(): Promise<ActivityFacets>;
  /** One call's whole audit record. */
  getActivityCall(id: string): Promise<ToolCallRecord>;
  /** Asks where to save (system dialog) and writes the filtered calls there; path '' when cancelled. */
  saveActivityExport(filter: ActivityFilter, format: 'jsonl' | 'csv'): Promise<ActivityExport>;
  /** Stores the message (with attachments addAttachment returned) and starts the reply; resolves with the run id at once. */
  send(conversationId: string, text: string, attachments?: Attachment[]): Promise<string>;
  stop(conversationId: string): Promise<void>;
  regenerate(conversationId: string): Promise<string>;
  /** attachments replace the message's ([] removes them); undefined keeps them. */
  editAndResend(conversationId: string, seq: number, text: string, attachments?: Attachment[]): Promise<string>;
  /** Checks and stores a file for the message being written (bytes as base64); rejects with what is accepted or the limit. */
  addAttachment(name: string, mime: string, dataBase64: string): Promise<Attachment>;
  /** A stored attachment as a data: URL (an image's thumbnail). */
  attachmentData(id: string): Promise<string>;
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
  /** level '' = the server's default; applied at once to a connected server. */
  setServerLogLevel(id: string, level: ServerLogLevel | ''): Promise<ServerConfig>;
  /** The system's folder dialog; '' when cancelled. */
  pickFolder(title: string): Promise<string>;

  // installed servers (into the data folder, run from there)
  /** Installs, saves and connects; steps arrive as install:progress. Without a Node that has npm (and fetchNode false) it rejects with core.ErrNeedNode's message. */
  installServer(req: InstallRequest): Promise<ServerView>;
  /** version '' = the latest; file = a newer .tgz or .mcpb (version then ''). The installed version stays when it fails. */
  updateServer(id: string, version: string, file: string): Promise<ServerView>;
  pinServer(id: string, pinned: boolean): Promise<ServerView>;
  /** The Node installed servers run on; rejects when there is none new enough. */
  nodeStatus(): Promise<NodeInfo>;
  /** Downloads Node.js (and npm) into the data folder; call only after the user agreed. */
  fetchNode(): Promise<NodeInfo>;
  /** The system's file dialog for a .tgz or .mcpb; '' when cancelled. */
  pickPackageFile(): Promise<string>;

  // the MCP registry (its URL is the mcpRegistry setting)
  /** One page of servers whose name or description has query; cursor '' = the first. */
  searchRegistry(query: string, cursor: string): Promise<RegistryPage>;
  /** What adding option choice (-1 = the preferred) of an entry does and what it asks for. */
  planRegistryInstall(name: string, version: string, choice: number): Promise<RegistryPlan>;
  /** Installs or adds it, saves and connects; steps arrive as install:progress. Rejects with core.ErrNeedNode's message as installServer does. */
  installFromRegistry(req: RegistryInstall): Promise<ServerView>;

  // MCP resources, prompts and completion (of a connected server)
  listResources(serverId: string): Promise<ResourceList>;
  /** Fills in an RFC 6570 URI template; resolves with the resource's URI. */
  expandResourceTemplate(template: string, values: Record<string, string>): Promise<string>;
  previewResource(serverId: string, uri: string): Promise<ResourcePreview>;
  /** An embedded resource or image a server sent, shaped as previewResource shapes a resource. */
  previewContent(serverId: string, content: Content): Promise<ResourcePreview>;
  /** Reads the resource and stores each part for the next message. */
  attachResource(serverId: string, uri: string): Promise<Attachment[]>;
  attachContent(serverId: string, content: Content): Promise<Attachment>;
  subscribeResource(serverId: string, uri: string): Promise<void>;
  unsubscribeResource(serverId: string, uri: string): Promise<void>;
  /** filled: the arguments already given, for the server to narrow its values. */
  completeArgument(serverId: string, ref: CompletionRef, arg: string, value: string, filled: Record<string, string>): Promise<Completion>;
  listPrompts(serverId: string): Promise<PromptList>;
  /** Fills in a prompt: mode composer (text and attachments ready) or conversation (then appendPrompt). */
  usePrompt(serverId: string, name: string, args: Record<string, string>): Promise<PromptUse>;
  /** Adds a prompt's messages to the conversation as they are, without a reply. */
  appendPrompt(conversationId: string, prompt: PromptResult): Promise<Message[]>;

  // logs
  serverLogs(serverId: string, sinceSeq: number, max: number): Promise<LogLine[]>;
  appLogs(sinceSeq: number, max: number): Promise<LogLine[]>;

  // approvals
  pendingApprovals(): Promise<ApprovalRequest[]>;
  decideApproval(id: string, decision: UserDecision): Promise<void>;
  approvalPolicy(): Promise<Policy>;
  revokeGrant(serverId: string, tool: string): Promise<void>;
  setYolo(on: boolean): Promise<void>;
  /** on: the tools the server says are read-only run without asking (its claim). */
  setReadOnlyServer(serverId: string, on: boolean): Promise<void>;
  /** Marks a tool (the server's own name for it) as reading private data, for the lethal-trifecta guard. */
  setToolPrivate(serverId: string, tool: string, on: boolean): Promise<void>;
  /** Removes a private mark as the policy lists it (also one of a deleted server). */
  unmarkPrivate(fingerprint: string, tool: string): Promise<void>;

  // tasks
  /** conversationId '' = every conversation's; active = only unfinished ones. Newest first. */
  listTasks(conversationId: string, active: boolean): Promise<Task[]>;
  /** Asks the server to cancel a task and stops following it. */
  cancelTask(id: string): Promise<void>;

  // what servers ask of the user
  /** The requests for input that wait, oldest first. */
  pendingElicitations(): Promise<ElicitRequest[]>;
  /** accept (with the form's content; for a URL, opens it in the browser), decline or cancel. */
  answerElicitation(id: string, answer: ElicitAnswer): Promise<void>;
  /** The requests for a completion that wait, oldest first. */
  pendingSamplings(): Promise<SamplingRequest[]>;
  answerSampling(id: string, decision: SamplingDecision): Promise<void>;
  /** Says whether the page is visible: servers may ask the user for anything only then. */
  windowVisible(visible: boolean): Promise<void>;

  // servers' views (MCP Apps)
  /** Opens the view a server's tool (its own name) declares, for a card of the conversation. */
  openAppView(conversationId: string, serverId: string, tool: string): Promise<AppView>;
  /** A view's tools/call: its own server's tools for views only, each approved by the user (the modal says the view asks). */
  appViewCallTool(viewId: string, tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** A view's resources/read, of its own server. */
  appViewReadResource(viewId: string, uri: string): Promise<ResourceContents>;
  /** Opens an http(s) link a view asked for; call only after the user said yes. */
  appViewOpenLink(viewId: string, url: string): Promise<void>;
  closeAppView(viewId: string): Promise<void>;

  // connected apps (other MCP clients using shared conversations); client = its ID or name
  listClients(): Promise<ClientApp[]>;
  /** Registers an app; the token is returned this once. */
  addClient(name: string, canStart: boolean): Promise<AddedClient>;
  /** A new token; the old one stops working at once. */
  rotateClientToken(client: string): Promise<string>;
  /** Refuses its token from now on and ends its open sessions. */
  revokeClient(client: string): Promise<void>;
  /** Deletes the app, its grants and allowed tools; the audit keeps its requests. */
  removeClient(client: string): Promise<void>;
  setClientCanStart(client: string, on: boolean): Promise<void>;
  clientGrants(client: string): Promise<ClientGrant[]>;
  /** Who may use a conversation. */
  conversationGrants(conversationId: string): Promise<ClientGrant[]>;
  /** expiresInMs 0 = never. */
  grantClient(client: string, conversationId: string, access: ClientAccess, expiresInMs: number): Promise<void>;
  ungrantClient(client: string, conversationId: string): Promise<void>;
  clientTools(client: string): Promise<ClientToolRef[]>;
  allowClientTool(client: string, serverId: string, tool: string): Promise<void>;
  disallowClientTool(client: string, serverId: string, tool: string): Promise<void>;
  /** Newest first; before = entries older than that ID (0 = the newest). */
  clientAudit(filter: Partial<AuditFilter>): Promise<AuditEntry[]>;
  clientEndpoint(): Promise<EndpointStatus>;
  /** port 0 = a free one. */
  setClientEndpoint(on: boolean, port: number): Promise<EndpointStatus>;
  /** The app's config file and whether Switchboard can merge into it; changes nothing. */
  connectAppStatus(app: ConnectTarget): Promise<ConnectPreview>;
  /** Registers the app as a connected app (a new token if it is one already) and returns the entry for its file. */
  connectApp(app: ConnectTarget, canStart: boolean): Promise<AppConnection>;
  /** Merges the entry with token into the app's config file (backed up first). */
  writeAppConfig(app: ConnectTarget, token: string): Promise<ConnectWritten>;
  /** While on, requests other processes record (an app's own `mcp serve`) also send clients:activity. */
  watchClientActivity(on: boolean): Promise<void>;

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

// The generated wrappers of the bound methods and the Wails runtime's
// events; only this file touches them.

/** True when the page runs inside Wails (window.go is there). */
export function hasWails(): boolean {
  return !!(window as unknown as { go?: { app?: { App?: object } } }).go?.app?.App;
}

/** Calls a bound method; a rejection becomes an Error with Go's message. */
function call<T>(name: string, f: () => Promise<T>): Promise<T> {
  if (!hasWails()) {
    return Promise.reject(new Error(`The Switchboard backend is not connected (method ${name} is missing). Restart the app.`));
  }
  return f().catch((e: unknown) => {
    throw new Error(errorMessage(e));
  });
}

/** The backend of the running app. */
export const wails: Backend = {
  ready: () => call('Ready', App.Ready),
  windowChanged: () => call('WindowChanged', App.WindowChanged),
  openURL: (url) => call('OpenURL', () => App.OpenURL(url)),
  getSettings: () => call('GetSettings', App.GetSettings),
  saveSettings: (s) => call('SaveSettings', () => App.SaveSettings(s)),

  listPresets: () => call('ListPresets', App.ListPresets),
  listProviders: () => call('ListProviders', App.ListProviders),
  saveProvider: (input) => call('SaveProvider', () => App.SaveProvider(input)),
  deleteProvider: (id) => call('DeleteProvider', () => App.DeleteProvider(id)),
  testProvider: (id) => call('TestProvider', () => App.TestProvider(id)),
  listModels: (providerId) => call('ListModels', () => App.ListModels(providerId)),
  detectLocal: () => call('DetectLocal', App.DetectLocal),

  listConversations: () => call('ListConversations', App.ListConversations),
  searchMessages: (query) => call('SearchMessages', () => App.SearchMessages(query)),
  newConversation: (providerId, model) => call('NewConversation', () => App.NewConversation(providerId, model)),
  renameConversation: (id, title) => call('RenameConversation', () => App.RenameConversation(id, title)),
  listArchivedConversations: () => call('ListArchivedConversations', App.ListArchivedConversations),
  pinConversation: (id, pinned) => call('PinConversation', () => App.PinConversation(id, pinned)),
  archiveConversation: (id, archived) => call('ArchiveConversation', () => App.ArchiveConversation(id, archived)),
  deleteConversation: (id) => call('DeleteConversation', () => App.DeleteConversation(id)),
  getMessages: (id, beforeSeq, limit) => call('GetMessages', () => App.GetMessages(id, beforeSeq, limit)),
  getToolCalls: (id) => call('GetToolCalls', () => App.GetToolCalls(id)),
  listActivity: (filter) => call('ListActivity', () => App.ListActivity(filter)),
  activityFacets: () => call('ActivityFacets', App.ActivityFacets),
  getActivityCall: (id) => call('GetActivityCall', () => App.GetActivityCall(id)),
  saveActivityExport: (filter, format) => call('SaveActivityExport', () => App.SaveActivityExport(filter, format)),
  send: (id, text, attachments) => call('Send', () => App.Send(id, text, attachments ?? [])),
  stop: (id) => call('Stop', () => App.Stop(id)),
  regenerate: (id) => call('Regenerate', () => App.Regenerate(id)),
  // Go takes a slice: null keeps the message's attachments.
  editAndResend: (id, seq, text, attachments) => call('EditAndResend', () => App.EditAndResend(id, seq, text, (attachments ?? null) as Attachment[])),
  addAttachment: (name, mime, data) => call('AddAttachment', () => App.AddAttachment(name, mime, data)),
  attachmentData: (id) => call('AttachmentData', () => App.AttachmentData(id)),
  exportConversation: (id, format) => call('ExportConversation', () => App.ExportConversation(id, format)),
  setConversationModel: (id, providerId, model) => call('SetConversationModel', () => App.SetConversationModel(id, providerId, model)),
  // Go takes a pointer: null is "every enabled tool" / "the default prompt".
  setConversationTools: (id, sel) => call('SetConversationTools', () => App.SetConversationTools(id, sel as ToolSelection)),
  conversationTools: (id) => call('ConversationTools', () => App.ConversationTools(id)),
  setSystemPrompt: (id, prompt) => call('SetSystemPrompt', () => App.SetSystemPrompt(id, prompt as string)),

  listServers: () => call('ListServers', App.ListServers),
  validateServer: (cfg) => call('ValidateServer', () => App.ValidateServer(cfg)),
  saveServer: (cfg) => call('SaveServer', () => App.SaveServer(cfg)),
  deleteServer: (id) => call('DeleteServer', () => App.DeleteServer(id)),
  connectServer: (id) => call('ConnectServer', () => App.ConnectServer(id)),
  disconnectServer: (id) => call('DisconnectServer', () => App.DisconnectServer(id)),
  restartServer: (id) => call('RestartServer', () => App.RestartServer(id)),
  setToolEnabled: (serverId, tool, enabled) => call('SetToolEnabled', () => App.SetToolEnabled(serverId, tool, enabled)),
  previewImport: (text) => call('PreviewImport', () => App.PreviewImport(text)),
  importServers: (text) => call('ImportServers', () => App.ImportServers(text)),
  authorizeServer: (id) => call('AuthorizeServer', () => App.AuthorizeServer(id)),
  cancelAuthorize: (id) => call('CancelAuthorize', () => App.CancelAuthorize(id)),
  signOutServer: (id) => call('SignOutServer', () => App.SignOutServer(id)),
  setServerLogLevel: (id, level) => call('SetServerLogLevel', () => App.SetServerLogLevel(id, level as ServerLogLevel)),
  pickFolder: (title) => call('PickFolder', () => App.PickFolder(title)),
  installServer: (req) => call('InstallServer', () => App.InstallServer(req)),
  updateServer: (id, version, file) => call('UpdateServer', () => App.UpdateServer(id, version, file)),
  pinServer: (id, pinned) => call('PinServer', () => App.PinServer(id, pinned)),
  nodeStatus: () => call('NodeStatus', App.NodeStatus),
  fetchNode: () => call('FetchNode', App.FetchNode),
  pickPackageFile: () => call('PickPackageFile', App.PickPackageFile),
  searchRegistry: (query, cursor) => call('SearchRegistry', () => App.SearchRegistry(query, cursor)),
  planRegistryInstall: (name, version, choice) => call('PlanRegistryInstall', () => App.PlanRegistryInstall(name, version, choice)),
  installFromRegistry: (req) => call('InstallFromRegistry', () => App.InstallFromRegistry(req)),

  listResources: (serverId) => call('ListResources', () => App.ListResources(serverId)),
  expandResourceTemplate: (template, values) => call('ExpandResourceTemplate', () => App.ExpandResourceTemplate(template, values)),
  previewResource: (serverId, uri) => call('PreviewResource', () => App.PreviewResource(serverId, uri)),
  previewContent: (serverId, content) => call('PreviewContent', () => App.PreviewContent(serverId, content)),
  attachResource: (serverId, uri) => call('AttachResource', () => App.AttachResource(serverId, uri)),
  attachContent: (serverId, content) => call('AttachContent', () => App.AttachContent(serverId, content)),
  subscribeResource: (serverId, uri) => call('SubscribeResource', () => App.SubscribeResource(serverId, uri)),
  unsubscribeResource: (serverId, uri) => call('UnsubscribeResource', () => App.UnsubscribeResource(serverId, uri)),
  completeArgument: (serverId, ref, arg, value, filled) => call('CompleteArgument', () => App.CompleteArgument(serverId, ref, arg, value, filled)),
  listPrompts: (serverId) => call('ListPrompts', () => App.ListPrompts(serverId)),
  usePrompt: (serverId, name, args) => call('UsePrompt', () => App.UsePrompt(serverId, name, args)),
  appendPrompt: (conversationId, prompt) => call('AppendPrompt', () => App.AppendPrompt(conversationId, prompt)),

  serverLogs: (serverId, sinceSeq, max) => call('ServerLogs', () => App.ServerLogs(serverId, sinceSeq, max)),
  appLogs: (sinceSeq, max) => call('AppLogs', () => App.AppLogs(sinceSeq, max)),

  pendingApprovals: () => call('PendingApprovals', App.PendingApprovals),
  decideApproval: (id, decision) => call('DecideApproval', () => App.DecideApproval(id, decision)),
  approvalPolicy: () => call('ApprovalPolicy', App.ApprovalPolicy),
  revokeGrant: (serverId, tool) => call('RevokeGrant', () => App.RevokeGrant(serverId, tool)),
  setYolo: (on) => call('SetYolo', () => App.SetYolo(on)),
  setReadOnlyServer: (serverId, on) => call('SetReadOnlyServer', () => App.SetReadOnlyServer(serverId, on)),
  setToolPrivate: (serverId, tool, on) => call('SetToolPrivate', () => App.SetToolPrivate(serverId, tool, on)),
  unmarkPrivate: (fingerprint, tool) => call('UnmarkPrivate', () => App.UnmarkPrivate(fingerprint, tool)),

  listTasks: (conversationId, active) => call('ListTasks', () => App.ListTasks(conversationId, active)),
  cancelTask: (id) => call('CancelTask', () => App.CancelTask(id)),

  pendingElicitations: () => call('PendingElicitations', App.PendingElicitations),
  answerElicitation: (id, answer) => call('AnswerElicitation', () => App.AnswerElicitation(id, answer)),
  pendingSamplings: () => call('PendingSamplings', App.PendingSamplings),
  answerSampling: (id, decision) => call('AnswerSampling', () => App.AnswerSampling(id, decision)),
  windowVisible: (visible) => call('WindowVisible', () => App.WindowVisible(visible)),

  openAppView: (conversationId, serverId, tool) => call('OpenAppView', () => App.OpenAppView(conversationId, serverId, tool)),
  appViewCallTool: (viewId, tool, args) => call('AppViewCallTool', () => App.AppViewCallTool(viewId, tool, args)),
  appViewReadResource: (viewId, uri) => call('AppViewReadResource', () => App.AppViewReadResource(viewId, uri)),
  appViewOpenLink: (viewId, url) => call('AppViewOpenLink', () => App.AppViewOpenLink(viewId, url)),
  closeAppView: (viewId) => call('CloseAppView', () => App.CloseAppView(viewId)),

  listClients: () => call('ListClients', App.ListClients),
  addClient: (name, canStart) => call('AddClient', () => App.AddClient(name, canStart)),
  rotateClientToken: (client) => call('RotateClientToken', () => App.RotateClientToken(client)),
  revokeClient: (client) => call('RevokeClient', () => App.RevokeClient(client)),
  removeClient: (client) => call('RemoveClient', () => App.RemoveClient(client)),
  setClientCanStart: (client, on) => call('SetClientCanStart', () => App.SetClientCanStart(client, on)),
  clientGrants: (client) => call('ClientGrants', () => App.ClientGrants(client)),
  conversationGrants: (conversationId) => call('ConversationGrants', () => App.ConversationGrants(conversationId)),
  grantClient: (client, conversationId, access, expiresInMs) => call('GrantClient', () => App.GrantClient(client, conversationId, access, expiresInMs)),
  ungrantClient: (client, conversationId) => call('UngrantClient', () => App.UngrantClient(client, conversationId)),
  clientTools: (client) => call('ClientTools', () => App.ClientTools(client)),
  allowClientTool: (client, serverId, tool) => call('AllowClientTool', () => App.AllowClientTool(client, serverId, tool)),
  disallowClientTool: (client, serverId, tool) => call('DisallowClientTool', () => App.DisallowClientTool(client, serverId, tool)),
  clientAudit: (filter) => call('ClientAudit', () => App.ClientAudit(filter as AuditFilter)),
  clientEndpoint: () => call('ClientEndpoint', App.ClientEndpoint),
  setClientEndpoint: (on, port) => call('SetClientEndpoint', () => App.SetClientEndpoint(on, port)),
  connectAppStatus: (app) => call('ConnectAppStatus', () => App.ConnectAppStatus(app)),
  connectApp: (app, canStart) => call('ConnectApp', () => App.ConnectApp(app, canStart)),
  writeAppConfig: (app, token) => call('WriteAppConfig', () => App.WriteAppConfig(app, token)),
  watchClientActivity: (on) => call('WatchClientActivity', () => App.WatchClientActivity(on)),

  on(event, handler) {
    if (!(window as unknown as { runtime?: object }).runtime) return () => {};
    return EventsOnMultiple(event, (payload: EventPayloads[typeof event]) => handler(payload), -1);
  },
};

// Types mirrored from the Go side (package app and the internal packages it
// returns). Keep in step with the Go structs' json tags.
//
// These are the shapes the stores see. Go sends times as RFC 3339 strings
// and durations as nanoseconds; normalize.ts turns the few fields where that
// matters into milliseconds, so every time below is "ms since the epoch"
// unless it says otherwise.

// ---- app ------------------------------------------------------------------

export interface KeyringStatus {
  backend: string;
  persistent: boolean;
  problem?: string;
  advice?: string;
}

export interface Problem {
  kind: 'database' | 'keyring' | string;
  message: string;
  advice?: string;
  fatal: boolean;
}

export interface Info {
  version: string;
  dataDir: string;
  database: string;
  logDir: string;
  keyring: KeyringStatus;
  problems: Problem[];
}

export type Theme = 'system' | 'light' | 'dark';

export interface Settings {
  theme: Theme;
  /** Characters of a tool result a model sees. */
  toolResultLimit: number;
  maxToolRounds: number;
  defaultSystemPrompt: string;
  defaultProviderId: string;
}

// ---- providers (internal/llm) --------------------------------------------

/** llm.Preset */
export interface Preset {
  id: string;
  name: string;
  /** Empty for the custom preset: the user gives it. */
  baseUrl: string;
  /** The environment variable conventionally holding the key; '' when none. */
  keyEnv: string;
  needsKey: boolean;
  local: boolean;
}

export interface ProviderView {
  id: string;
  name: string;
  preset: string;
  baseUrl: string;
  defaultModel: string;
  hasKey: boolean;
  /** The env var name when the key comes from the environment, else ''. */
  keyFromEnv: string;
}

export interface ProviderInput {
  /** '' creates a new provider (the backend picks the id). */
  id: string;
  name: string;
  preset: string;
  baseUrl: string;
  defaultModel: string;
  /** '' keeps the stored key. */
  apiKey: string;
  /** Forgets the stored key. */
  clearKey?: boolean;
}

export interface TestResult {
  ok: boolean;
  message: string;
  models: string[];
}

/** llm.Model */
export interface ModelInfo {
  id: string;
  ownedBy?: string;
}

/** llm.LocalServer */
export interface LocalServer {
  preset: Preset;
  models: ModelInfo[];
}

// ---- MCP servers (internal/mcpconn, internal/serverconf) ------------------

/** mcpconn.State */
export type ServerState = 'disconnected' | 'connecting' | 'connected' | 'degraded' | 'needs-auth' | 'failed';

/** mcpconn.Status, the payload of server:status. */
export interface ServerStatus {
  serverId: string;
  state: ServerState;
  reason?: string;
  toolCount: number;
  lastStderr?: string[];
  /** ms; absent when there is no session. */
  connectedAt?: number;
  protocolVersion?: string;
  attempt?: number;
  /** What is wrong with a server that works anyway (it logs to stdout); absent when nothing is. */
  warning?: string;
}

/** mcpconn.Tool */
export interface Tool {
  /** What models call it: unique across servers. */
  name: string;
  serverId: string;
  serverName: string;
  originalName: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  annotations?: Record<string, unknown>;
  enabled: boolean;
  /** Meant for the server's own view (MCP Apps): never offered to a model. */
  appOnly?: boolean;
}

/** mcpconn.ToolsEvent, the payload of server:tools. */
export interface ToolsEvent {
  serverId: string;
  tools: Tool[];
}

/** mcpconn content kinds. */
export type ContentType = 'text' | 'image' | 'audio' | 'resource_link' | 'resource';

/** mcpconn.Content: which fields are set depends on type. */
export interface Content {
  type: ContentType | string;
  text?: string;
  mimeType?: string;
  /** base64 (Go []byte) of an image or audio block. */
  data?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  size?: number;
  /** base64 of an embedded binary resource. */
  blob?: string;
  annotations?: unknown;
}

/** mcpconn.Result */
export interface ToolResult {
  content: Content[];
  structuredContent?: unknown;
  isError?: boolean;
  meta?: Record<string, unknown>;
}

export type Transport = 'stdio' | 'sse' | 'http';

/** serverconf.Value: plain text, or a reference to a keyring entry. */
export interface Value {
  plain?: string;
  secretRef?: string;
}

/** serverconf.Auth */
export interface ServerAuth {
  clientId?: string;
  clientSecretRef?: string;
  grant?: string;
  clientAuth?: string;
  privateKeyRef?: string;
  scopes?: string[];
  /** A new client secret or PEM key, sent once; the save moves it to the keyring. */
  clientSecret?: string;
  privateKey?: string;
}

/** serverconf.Config */
export interface ServerConfig {
  id: string;
  name: string;
  transport: Transport;
  command?: string;
  args?: string[];
  env?: Record<string, Value>;
  cwd?: string;
  /** Give a stdio server the app's whole environment; absent = only a short allowlist (PATH, HOME, LANG, ...) plus env. */
  inheritEnv?: boolean;
  url?: string;
  headers?: Record<string, Value>;
  enabled: boolean;
  /** Nanoseconds (Go time.Duration); 0 or absent = the default (60 s). */
  callTimeout?: number;
  disabledTools?: string[];
  auth?: ServerAuth;
}

/** serverconf.FieldError; field is a JSON path ("env.API_KEY", "args[2]"). */
export interface FieldError {
  field: string;
  message: string;
}

/** serverconf.ImportNote */
export interface ImportNote {
  server?: string;
  id?: string;
  message: string;
}

export interface InputPrompt {
  id: string;
  description?: string;
  password?: boolean;
}

/** serverconf.SecretInput */
export interface SecretInput {
  serverId: string;
  field: string;
  ref: string;
  template?: string;
  inputs?: InputPrompt[];
}

/** serverconf.ImportReport */
export interface ImportReport {
  format: 'claude' | 'vscode' | 'cursor' | string;
  added: ServerConfig[];
  skipped?: ImportNote[];
  failed?: ImportNote[];
  warnings?: ImportNote[];
  needsInput?: SecretInput[];
}

export interface ServerView {
  config: ServerConfig;
  status: ServerStatus;
  tools: Tool[];
}

// ---- logs (internal/logbuf) ----------------------------------------------

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** logbuf.Line */
export interface LogLine {
  seq: number;
  /** ms */
  time: number;
  level: LogLevel;
  text: string;
  /** Read back from the file at start: written before the app restarted. */
  restored?: boolean;
}

/** The payload of log:append. */
export interface LogAppend {
  /** 'app' or a server id. */
  source: string;
  lines: LogLine[];
  /** Lines that scrolled out of the ring before they could be sent (a flood). */
  skipped?: number;
}

// ---- approvals (internal/approval) ---------------------------------------

export type UserDecision = 'allow_once' | 'allow_always' | 'allow_all' | 'deny';
export type Decision = UserDecision | 'cancelled';

/** approval.Request, the payload of approval:requested. */
export interface ApprovalRequest {
  id: string;
  conversationId: string;
  serverId: string;
  /** The server's original tool name. */
  tool: string;
  serverName: string;
  description: string;
  fingerprint: string;
  /** The JSON the model produced (already parsed); null for none. */
  arguments: unknown;
  /** The hash of the tool's definition an "always" answer is tied to. */
  definitionHash?: string;
  /** The tool's input schema (parsed JSON). */
  inputSchema?: unknown;
  /**
   * Set when the user allowed this tool always, but the server changed it
   * since: previousDescription and previousInputSchema are what was allowed,
   * description and inputSchema what it is now.
   */
  changed?: boolean;
  previousDescription?: string;
  previousInputSchema?: unknown;
}

/** approval.Outcome */
export interface Outcome {
  allowed: boolean;
  decision: Decision;
  decidedBy: 'user' | 'policy' | 'system';
  arguments?: unknown;
  /** Why the system cancelled the call (its server's config changed, say). */
  reason?: string;
}

/** approval.Resolution, the payload of approval:resolved. */
export interface Resolution {
  id: string;
  outcome: Outcome;
}

/** approval.Grant */
export interface Grant {
  serverId: string;
  tool: string;
  fingerprint: string;
  /** The tool definition allowed; absent for grants from before definitions were pinned. */
  definitionHash?: string;
  description?: string;
  /** ms */
  createdAt: number;
}

/** approval.Policy, the payload of approval:policy. */
export interface Policy {
  yolo: boolean;
  grants: Grant[];
}

// ---- conversations --------------------------------------------------------

export interface ConversationSummary {
  id: string;
  title: string;
  providerId: string;
  model: string;
  /** ms */
  updatedAt: number;
  /** ms */
  createdAt: number;
  /** The conversation's tool selection; null = every enabled tool. */
  tools?: ToolSelection | null;
  /** The system prompt override; null = the default, '' = none. */
  systemPrompt?: string | null;
}

/** chat.ToolSelection: the zero value offers every enabled tool. */
export interface ToolSelection {
  /**
   * When not null, only these tools; [] offers none. Tools are named by key,
   * "serverId/originalName" (chat.ToolKey), which does not change when
   * exposed names collide; an entry without "/" is an exposed name stored
   * by an older version, read through the current tools.
   */
  only: string[] | null;
  /** Tools switched off for this conversation, by key. */
  off?: string[];
}

/** chat.ToolChoice: one tool as a conversation's tool picker shows it. */
export interface ToolChoice {
  /** The key a ToolSelection names it by (always sent by Go). */
  key?: string;
  name: string;
  server: string;
  description: string;
  /** False when the tool is switched off everywhere. */
  enabled: boolean;
  /** Whether this conversation offers it (if enabled). */
  selected: boolean;
}

/** chat.ToolSet: the tools of a conversation. */
export interface ToolSet {
  selection: ToolSelection;
  tools: ToolChoice[];
  offered: number;
  estimatedTokens: number;
  warning?: string;
}

/** One piece of a search snippet; match marks a matched term. */
export interface SnippetPart {
  text: string;
  match?: boolean;
}

export interface SearchHit {
  conversationId: string;
  title: string;
  messageId: number;
  /** Present when the backend sends it (store.SearchHit does). */
  seq?: number;
  /** Normalized from "[[match]]" text or from store's SnippetPart list. */
  snippet: SnippetPart[];
  /** ms */
  createdAt: number;
}

export type ExportFormat = 'markdown' | 'json';

// ---- chat (internal/chat, internal/store) -------------------------------
// Messages and tool-call records are store.Message and store.ToolCall; the
// events are internal/chat/events.go. normalize.ts maps the tool-call event
// (ToolCallEvent) onto the record's shape, so a card merges both.

export type Role = 'user' | 'assistant' | 'tool' | 'system';
export type MessageStatus = 'streaming' | 'done' | 'stopped' | 'error';

/** llm.ToolCall: one call an assistant message made. */
export interface LlmToolCall {
  id: string;
  name: string;
  /** JSON text exactly as streamed; may be invalid. */
  arguments: string;
}

/** chat.ReplyMeta, an assistant message's meta. */
export interface ReplyMeta {
  model?: string;
  providerId?: string;
  /** Time to first token, ms (Go: timeToFirstTokenMs). */
  ttftMs?: number;
  tokensPerSecond?: number;
  tokensPerSecondEstimated?: boolean;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number; reasoningTokens?: number };
  finishReason?: string;
  durationMs?: number;
  round?: number;
  /** An engine's note rather than a reply: "toolRoundsLimit". */
  note?: string;
}

/** store.ToolCall statuses and chat.ToolCallEvent statuses (waiting_approval, failed). */
export type ToolCallStatus = 'pending' | 'waiting_approval' | 'running' | 'done' | 'failed' | 'error' | 'denied' | 'cancelled';

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * store.ToolCall, the audit record of one call (GetToolCalls); chat:toolcall
 * (chat.ToolCallEvent) arrives in the same shape with what it carries: no
 * arguments, no full result, resultText instead, '' and 0 for the rest.
 */
export interface ToolCallRecord {
  id: string;
  /** The model's tool_call_id. */
  callId: string;
  conversationId: string;
  /** The assistant message that made the call. */
  messageId: number;
  serverId: string;
  serverName: string;
  /** The exposed tool name ("server__tool"). */
  tool: string;
  arguments: string;
  status: ToolCallStatus;
  decision?: string;
  decidedBy?: string;
  /** The whole result (mcpconn.Result); a plain-text result becomes one text block. */
  result?: ToolResult | null;
  /** The start of the result text, from the event. */
  resultText?: string;
  isError?: boolean;
  error?: string;
  /** ms */
  requestedAt: number;
  /** ms; 0 when it never ran. */
  startedAt: number;
  durationMs: number;
  progress?: ToolProgress;
}

/** store.Message; the payload of chat:message. */
export interface Message {
  id: number;
  conversationId: string;
  seq: number;
  role: Role;
  content: string;
  reasoning: string;
  toolCalls: LlmToolCall[];
  toolCallId: string;
  status: MessageStatus;
  error: string;
  meta: ReplyMeta | null;
  /** ms */
  createdAt: number;
}

/** chat:message (a store.Message, wrapped here with its conversation). */
export interface ChatMessageEvent {
  conversationId: string;
  message: Message;
}

/** chat.DeltaEvent: text appended to a streaming reply. */
export interface ChatDeltaEvent {
  conversationId: string;
  messageId: number;
  content?: string;
  reasoning?: string;
}

/** chat.ToolCallEvent, normalized to the record's shape. */
export type ChatToolCallEvent = ToolCallRecord;

/** chat.StatusEvent states; idle and error end a run. */
export type ChatState = 'streaming' | 'tools' | 'retrying' | 'idle' | 'error' | string;

/** chat.StatusEvent: what a conversation's run is doing. */
export interface ChatStatusEvent {
  conversationId: string;
  state: ChatState;
  /** Text to show as it is ("rate limited, retrying in 5 s"). */
  message?: string;
  /** When retrying: the wait in ms, read from the message. */
  retryInMs?: number;
}

/** chat.DoneEvent: a run ended. */
export interface ChatDoneEvent {
  conversationId: string;
  runId?: string;
  /** Not sent by Go today; when present, the message that ended. */
  messageId?: number;
  status: 'done' | 'stopped' | 'error';
  error?: string;
}

/** chat.TruncatedEvent: every message after afterSeq was deleted. */
export interface ChatTruncatedEvent {
  conversationId: string;
  afterSeq: number;
}

/** chat.WarningEvent: something to know before trusting the reply. */
export interface ChatWarningEvent {
  conversationId: string;
  message: string;
}

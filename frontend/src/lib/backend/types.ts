// The types the UI sees, named for it. Every type Go sends is generated
// from Go into frontend/wailsjs/go/models.ts (make generate); this file
// only gives them the names the stores use. Times are RFC 3339 strings,
// durations milliseconds (fields ending in Ms).
import type {
  app,
  approval,
  chat,
  core,
  llm,
  logbuf,
  mcpconn,
  providers,
  secrets,
  serverconf,
  servers,
  store,
} from '../../../wailsjs/go/models';

// ---- app ------------------------------------------------------------------
export type Info = app.Info;
export type KeyringStatus = secrets.Status;
export type Problem = core.Problem;
export type Settings = core.Settings;
export type Theme = core.Theme;

// ---- providers -------------------------------------------------------------
export type Preset = llm.Preset;
export type ProviderView = providers.View;
export type ProviderInput = providers.Input;
export type TestResult = providers.TestResult;
export type ModelInfo = llm.Model;
export type LocalServer = llm.LocalServer;

// ---- MCP servers ------------------------------------------------------------
export type ServerState = mcpconn.State;
export type ServerStatus = mcpconn.Status;
export type Tool = mcpconn.Tool;
export type ToolsEvent = mcpconn.ToolsEvent;
export type Content = mcpconn.Content;
export type ToolResult = mcpconn.Result;
export type Transport = serverconf.Transport;
export type Value = serverconf.Value;
export type ServerAuth = serverconf.Auth;
export type ServerConfig = serverconf.Config;
export type FieldError = serverconf.FieldError;
export type ImportNote = serverconf.ImportNote;
export type InputPrompt = serverconf.InputPrompt;
export type SecretInput = serverconf.SecretInput;
export type ImportReport = serverconf.ImportReport;
export type ServerView = servers.View;

// ---- logs -------------------------------------------------------------------
export type LogLevel = logbuf.Level;
export type LogLine = logbuf.Line;
export type LogAppend = app.LogAppend;

// ---- approvals --------------------------------------------------------------
export type Decision = approval.Decision;
/** The answers a user gives; cancelled is the system's. */
export type UserDecision = Exclude<Decision, 'cancelled'>;
export type ApprovalRequest = approval.Request;
export type Outcome = approval.Outcome;
export type Resolution = approval.Resolution;
export type Grant = approval.Grant;
export type Policy = approval.Policy;

// ---- conversations and chat ------------------------------------------------------
export type ConversationSummary = store.Conversation;
export type ToolSelection = chat.ToolSelection;
export type ToolChoice = chat.ToolChoice;
export type ToolSet = chat.ToolSet;
export type SnippetPart = store.SnippetPart;
export type SearchHit = store.SearchHit;
export type ExportFormat = 'markdown' | 'json';
export type Role = store.Role;
export type MessageStatus = store.MessageStatus;
export type Message = store.Message;
export type LlmToolCall = llm.ToolCall;
export type ReplyMeta = chat.ReplyMeta;
/** One word per tool-call state: the audit record's, the event's and the card's. */
export type ToolCallStatus = store.CallStatus;
export type ToolProgress = chat.Progress;
export type ToolCallRecord = store.ToolCall;
export type ChatToolCallEvent = chat.ToolCallEvent;
export type ChatDeltaEvent = chat.DeltaEvent;
export type ChatState = chat.RunState;
export type ChatStatusEvent = chat.StatusEvent;
export type ChatDoneEvent = chat.DoneEvent;
export type ChatTruncatedEvent = chat.TruncatedEvent;
export type ChatWarningEvent = chat.WarningEvent;

// ---- tasks (the MCP Tasks extension) ---------------------------------------------
/** One word per task state: the server's, the backend's and the UI's. */
export type TaskStatus = mcpconn.TaskStatus;
/** A call a server runs as a long-running task, as the backend follows it. */
export type Task = store.Task;

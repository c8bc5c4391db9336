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
export type ToolSearchMode = core.ToolSearchMode;
export type MetaTool = chat.MetaTool;

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
/** An MCP log level (notifications/message), least severe first; '' = the server's default. */
export type ServerLogLevel = serverconf.LogLevel;

// ---- logs -------------------------------------------------------------------
export type LogLevel = logbuf.Level;
export type LogLine = logbuf.Line;
export type LogAppend = app.LogAppend;

// ---- approvals --------------------------------------------------------------
export type Decision = approval.Decision;
/** The answers a user gives; cancelled and allow_read_only are the system's. */
export type UserDecision = Exclude<Decision, 'cancelled' | 'allow_read_only'>;
export type ApprovalRequest = approval.Request;
export type Outcome = approval.Outcome;
export type Resolution = approval.Resolution;
export type Grant = approval.Grant;
export type Policy = approval.Policy;
/** What a server says a tool does: claims, not guarantees. */
export type ToolHints = approval.ToolHints;
/** A server whose read-only tools run without asking. */
export type ReadOnlyServer = approval.ReadOnlyServer;
/** A tool the user marked as reading private data (the lethal-trifecta guard). */
export type PrivateTool = approval.PrivateTool;
/** Why the lethal-trifecta guard makes a call ask. */
export type TrifectaGuard = approval.Guard;
export type ToolIcon = mcpconn.Icon;

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
/** A file, image or resource attached to a user message; its bytes stay in Go (attachmentData shows them). */
export type Attachment = store.Attachment;
export type AttachmentKind = store.AttachmentKind;
export type LlmToolCall = llm.ToolCall;
export type ReplyMeta = chat.ReplyMeta;
/** One word per tool-call state: the audit record's, the event's and the card's. */
export type ToolCallStatus = store.CallStatus;
export type ToolProgress = chat.Progress;
export type ToolCallRecord = store.ToolCall;
// ---- tool activity (every conversation's calls) ------------------------------
export type ActivityFilter = store.ActivityFilter;
export type ActivityRow = store.ActivityRow;
export type ActivityPage = store.ActivityPage;
export type ActivityFacets = store.ActivityFacets;
/** Who let a call run or stopped it: the decision and decided_by read together. */
export type Who = store.Who;
export type ActivityExport = app.ActivityExport;
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

// ---- MCP resources, prompts and completion ------------------------------------------
/** What a connected server offers besides tools (on its status). */
export type ServerOffers = mcpconn.Offers;
export type Resource = mcpconn.Resource;
export type ResourceTemplate = mcpconn.ResourceTemplate;
export type ResourceList = mcpconn.ResourceList;
/** A resource (or a block a server sent) as the preview shows it. */
export type ResourcePreview = core.ResourcePreview;
export type PreviewPart = core.PreviewPart;
export type ResourceUpdated = mcpconn.ResourceUpdated;
export type ListChanged = mcpconn.ListChanged;
export type Prompt = mcpconn.Prompt;
export type PromptArgument = mcpconn.PromptArgument;
export type PromptList = mcpconn.PromptList;
export type PromptMessage = mcpconn.PromptMessage;
export type PromptResult = mcpconn.PromptResult;
/** How a filled-in prompt is used: its text into the composer, or its messages into the conversation. */
export type PromptMode = 'composer' | 'conversation';
export type PromptUse = core.PromptUse;
export type CompletionRef = mcpconn.CompletionRef;
export type Completion = mcpconn.Completion;

// ---- servers' views (MCP Apps) -------------------------------------------------------
/** A server's view opened for a tool-call card: where to load it and how to frame it. */
export type AppView = core.AppView;
/** Go ended a view on its own (server gone, tool changed, expired, too many). */
export type AppViewClosed = core.AppViewClosed;
/** The view a tool declares (_meta.ui). */
export type ToolUI = mcpconn.ToolUI;
/** A resource as read: its parts, text or base64. */
export type ResourceContents = mcpconn.ResourceContents;
export type ResourceContent = mcpconn.ResourceContent;

// ---- what servers ask of the user (elicitation, sampling) ---------------------------
import type { asks, elicit, sampling } from '../../../wailsjs/go/models';
/** How a server's request ended: answered, expired, cancelled (the server stopped waiting) or refused (never shown). */
export type AskOutcome = asks.Outcome;
export type AskEnded = asks.Ended;
/** A server's request for input: a form to fill in, or a page to open (mode url). */
export type ElicitRequest = elicit.Request;
export type ElicitAnswer = elicit.Answer;
export type ElicitAction = elicit.Action;
export type ElicitForm = elicit.Form;
export type ElicitField = elicit.Field;
export type ElicitFieldType = elicit.FieldType;
export type ElicitOption = elicit.Option;
/** A server said the step of a page the user was sent to is done (its dialog closes). */
export type ElicitCompleted = elicit.Completed;
/** A server's request for a completion, with the model it would use. */
export type SamplingRequest = sampling.Request;
export type SamplingDecision = sampling.Decision;
export type SamplingMessage = sampling.Message;
export type SamplingPart = sampling.Part;
/** A tool a sampling request offers the model; the server runs the calls the model makes. */
export type SamplingTool = sampling.Tool;

// ---- connected apps (Switchboard as an MCP server) ------------------------------------
import type { clientconfig, clients } from '../../../wailsjs/go/models';
/** An external MCP client the user registered, with its own token. */
export type ClientApp = clients.Client;
/** One conversation shared with one connected app. */
export type ClientGrant = clients.Grant;
/** read, or write (read and write). */
export type ClientAccess = clients.Access;
/** A tool a connected app's turns may run without asking. */
export type ClientToolRef = clients.ToolRef;
/** One request of a connected app, allowed or denied and why. */
export type AuditEntry = clients.AuditEntry;
export type AuditFilter = clients.AuditFilter;
/** The HTTP endpoint for connected apps: on, where, or why it could not start. */
export type EndpointStatus = core.EndpointStatus;
/** A new connected app and its token, which is shown once. */
export type AddedClient = app.AddedClient;
/** An app Switchboard connects in one step (writes its config entry). */
export type ConnectTarget = clientconfig.App;
/** Its config file and the entry for it. */
export type ConnectPreview = clientconfig.Preview;
export type ConnectWritten = clientconfig.Written;
/** The app connected: its client, the token (shown once) and the entry. */
export type AppConnection = core.AppConnection;

// ---- installed servers (npm packages, .tgz files, MCP Bundles) ------------------------
import type { installer } from '../../../wailsjs/go/models';
/** What to install: an npm package (name, version) or the path of a .tgz/.mcpb file; fetchNode is the user's consent to download Node. */
export type InstallRequest = core.InstallRequest;
/** A step of an install, an update or the Node download (id "node"). */
export type InstallProgress = installer.Progress;
/** How Switchboard installed a server: npm or mcpb, the version, pinned or not. */
export type ServerInstall = serverconf.Install;
/** The Node installed servers run on, and whether it has npm to install more. */
export type NodeInfo = core.NodeInfo;

// ---- the MCP registry (search, plan, install) ------------------------------------------
import type { mcpregistry } from '../../../wailsjs/go/models';
/** One page of a registry search; nextCursor '' = the last. */
export type RegistryPage = core.RegistryPage;
/** A registry entry with the ways Switchboard can add it (options; preferred -1 = none usable). */
export type RegistryItem = core.RegistryItem;
/** One way to add an entry; unsupported says why Switchboard cannot. */
export type RegistryOption = mcpregistry.Option;
/** What adding an option does and what it asks for (fields, notes, a suggested ID). */
export type RegistryPlan = mcpregistry.Plan;
/** One value the user gives: an env variable, a header, an argument; secret ones go to the keyring. */
export type RegistryField = mcpregistry.Field;
/** Adds one option of an entry (choice -1 = the preferred) with the user's values by field key. */
export type RegistryInstall = core.RegistryInstall;

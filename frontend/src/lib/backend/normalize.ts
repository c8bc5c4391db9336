// Turns what Go sends into the shapes of types.ts: RFC 3339 times into ms,
// raw JSON text into values, nulls into empty lists, a tool-call event into
// the record's shape, and a rate-limit message into a countdown. Only the
// wails backend uses these; the fake backend produces the shapes directly.
import type {
  ApprovalRequest,
  ChatDeltaEvent,
  ChatDoneEvent,
  ChatMessageEvent,
  ChatStatusEvent,
  ChatTruncatedEvent,
  ChatWarningEvent,
  ConversationSummary,
  Grant,
  LlmToolCall,
  LogAppend,
  LogLine,
  Message,
  Policy,
  ReplyMeta,
  SearchHit,
  ServerStatus,
  ServerView,
  SnippetPart,
  ToolCallRecord,
  ToolResult,
  ToolSelection,
} from './types';
import type { EventName } from './events';

type Raw = Record<string, unknown>;

function obj(v: unknown): Raw {
  return v && typeof v === 'object' ? (v as Raw) : {};
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : v == null ? '' : String(v);
}
function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
}

/** ms since the epoch from a number (ms), an RFC 3339 string, or nothing; Go's zero time is 0. */
export function toMs(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v === '' || v.startsWith('0001-01-01')) return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

/** A json.RawMessage may arrive as a value or, from some layers, as JSON text. */
export function jsonValue(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Splits "before [[match]] after" into parts, or passes a part list through. */
export function parseSnippet(v: unknown): SnippetPart[] {
  if (Array.isArray(v)) return v.map((p) => ({ text: str(obj(p).text), match: !!obj(p).match }));
  const s = str(v);
  const parts: SnippetPart[] = [];
  const re = /\[\[([\s\S]*?)\]\]/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) parts.push({ text: s.slice(last, m.index) });
    parts.push({ text: m[1], match: true });
    last = m.index + m[0].length;
  }
  if (last < s.length) parts.push({ text: s.slice(last) });
  return parts;
}

export function conversation(raw: unknown): ConversationSummary {
  const r = obj(raw);
  const out: ConversationSummary = {
    id: str(r.id),
    title: str(r.title),
    providerId: str(r.providerId),
    model: str(r.model),
    updatedAt: toMs(r.updatedAt),
    createdAt: toMs(r.createdAt),
  };
  if ('tools' in r) out.tools = toolSelection(r.tools);
  if ('systemPrompt' in r) out.systemPrompt = r.systemPrompt == null ? null : str(r.systemPrompt);
  return out;
}

/** chat.ToolSelection from a conversation's tools JSON; null = every enabled tool. */
export function toolSelection(raw: unknown): ToolSelection | null {
  const v = jsonValue(raw);
  if (Array.isArray(v)) return { only: v.map(str) };
  if (!v || typeof v !== 'object') return null;
  const o = v as Raw;
  const sel: ToolSelection = { only: Array.isArray(o.only) ? o.only.map(str) : null };
  if (Array.isArray(o.off) && o.off.length) sel.off = o.off.map(str);
  return sel.only === null && !sel.off ? null : sel;
}

export function searchHit(raw: unknown): SearchHit {
  const r = obj(raw);
  return {
    conversationId: str(r.conversationId),
    title: str(r.title ?? r.conversationTitle),
    messageId: num(r.messageId),
    seq: r.seq == null ? undefined : num(r.seq),
    snippet: parseSnippet(r.snippet),
    createdAt: toMs(r.createdAt),
  };
}

function meta(raw: unknown): ReplyMeta | null {
  const m = obj(jsonValue(raw));
  if (!raw || Object.keys(m).length === 0) return null;
  const out: ReplyMeta = { ...(m as ReplyMeta) };
  if (typeof m.timeToFirstTokenMs === 'number') out.ttftMs = m.timeToFirstTokenMs;
  else if (typeof m.timeToFirstToken === 'number') out.ttftMs = m.timeToFirstToken / 1e6; // llm.Reply: ns
  return out;
}

function llmToolCalls(raw: unknown): LlmToolCall[] {
  const v = jsonValue(raw);
  if (!Array.isArray(v)) return [];
  return v.map((c) => {
    const o = obj(c);
    const fn = obj(o.function); // OpenAI wire shape, just in case
    const args = o.arguments ?? fn.arguments;
    return { id: str(o.id), name: str(o.name ?? fn.name), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
  });
}

/**
 * A store.ToolCall (callId, arguments, the whole result) or a
 * chat.ToolCallEvent (toolCallId, server, the start of the result text) as
 * a ToolCallRecord; what an event does not carry is '' or 0.
 */
export function toolCall(raw: unknown): ToolCallRecord {
  const r = obj(raw);
  const isEvent = !('callId' in r) && 'toolCallId' in r;
  const args = r.arguments;
  let result: ToolResult | null = null;
  let resultText: string | undefined;
  if (isEvent) {
    if (r.result != null && r.result !== '') resultText = str(r.result);
  } else {
    const v = jsonValue(r.result);
    if (typeof v === 'string') result = { content: [{ type: 'text', text: v }] }; // a text-only result
    else if (v && typeof v === 'object') result = v as ToolResult;
  }
  return {
    id: str(r.id),
    callId: str(r.callId ?? r.toolCallId),
    conversationId: str(r.conversationId),
    messageId: num(r.messageId),
    serverId: str(r.serverId),
    serverName: str(r.serverName ?? r.server),
    tool: str(r.tool),
    arguments: args == null ? '' : typeof args === 'string' ? args : JSON.stringify(args),
    status: (str(r.status) || 'pending') as ToolCallRecord['status'],
    decision: r.decision ? str(r.decision) : undefined,
    decidedBy: r.decidedBy ? str(r.decidedBy) : undefined,
    result,
    resultText,
    isError: !!r.isError,
    error: r.error ? str(r.error) : undefined,
    requestedAt: toMs(r.requestedAt),
    startedAt: toMs(r.startedAt),
    durationMs: num(r.durationMs),
    progress: r.progress && typeof r.progress === 'object' ? (r.progress as ToolCallRecord['progress']) : undefined,
  };
}

export function message(raw: unknown): Message {
  const r = obj(raw);
  const out: Message = {
    id: num(r.id),
    conversationId: str(r.conversationId),
    seq: num(r.seq),
    role: (str(r.role) || 'assistant') as Message['role'],
    content: str(r.content),
    reasoning: str(r.reasoning),
    toolCalls: llmToolCalls(r.toolCalls),
    toolCallId: str(r.toolCallId),
    status: (str(r.status) || 'done') as Message['status'],
    error: str(r.error),
    meta: meta(r.meta),
    createdAt: toMs(r.createdAt),
  };
  return out;
}

export function logLine(raw: unknown): LogLine {
  const r = obj(raw);
  const level = str(r.level);
  return {
    seq: num(r.seq),
    time: toMs(r.time),
    level: level === 'error' || level === 'warn' || level === 'debug' ? level : 'info',
    text: str(r.text),
    restored: r.restored ? true : undefined,
  };
}

export function serverStatus(raw: unknown): ServerStatus {
  const r = obj(raw);
  return { ...(r as unknown as ServerStatus), toolCount: num(r.toolCount), connectedAt: toMs(r.connectedAt) || undefined };
}

export function serverView(raw: unknown): ServerView {
  const r = obj(raw);
  const cfg = obj(r.config) as unknown as ServerView['config'];
  const status = r.status ? serverStatus(r.status) : { serverId: cfg.id, state: 'disconnected' as const, toolCount: 0 };
  return { config: cfg, status, tools: Array.isArray(r.tools) ? (r.tools as ServerView['tools']) : [] };
}

function grant(raw: unknown): Grant {
  const r = obj(raw);
  return { serverId: str(r.serverId), tool: str(r.tool), fingerprint: str(r.fingerprint), createdAt: toMs(r.createdAt) };
}

export function policy(raw: unknown): Policy {
  const r = obj(raw);
  return { yolo: !!r.yolo, grants: Array.isArray(r.grants) ? r.grants.map(grant) : [] };
}

export function approvalRequest(raw: unknown): ApprovalRequest {
  const r = obj(raw);
  return { ...(r as unknown as ApprovalRequest), arguments: jsonValue(r.arguments) };
}

function chatMessage(raw: unknown): ChatMessageEvent {
  const r = obj(raw);
  const m = message(r.message && typeof r.message === 'object' ? r.message : r);
  return { conversationId: str(r.conversationId) || m.conversationId, message: { ...m, conversationId: m.conversationId || str(r.conversationId) } };
}

function chatDelta(raw: unknown): ChatDeltaEvent {
  const r = obj(raw);
  return {
    conversationId: str(r.conversationId),
    messageId: num(r.messageId ?? r.id),
    content: r.content != null ? str(r.content) : r.text != null ? str(r.text) : undefined,
    reasoning: r.reasoning != null ? str(r.reasoning) : undefined,
  };
}

function chatStatus(raw: unknown): ChatStatusEvent {
  const r = obj(raw);
  const out: ChatStatusEvent = { conversationId: str(r.conversationId), state: str(r.state) || 'idle' };
  if (r.message) out.message = str(r.message);
  // "rate limited, retrying in 5 s" becomes a countdown.
  const m = /retrying in (\d+(?:\.\d+)?) ?s\b/i.exec(out.message ?? '');
  if (typeof r.retryInMs === 'number') out.retryInMs = r.retryInMs;
  else if (m) out.retryInMs = Number(m[1]) * 1000;
  return out;
}

function chatDone(raw: unknown): ChatDoneEvent {
  const r = obj(raw);
  const status = str(r.status);
  return {
    conversationId: str(r.conversationId),
    runId: r.runId ? str(r.runId) : undefined,
    messageId: r.messageId == null ? undefined : num(r.messageId),
    status: status === 'stopped' || status === 'error' ? status : r.error ? 'error' : 'done',
    error: r.error ? str(r.error) : undefined,
  };
}

function chatTruncated(raw: unknown): ChatTruncatedEvent {
  const r = obj(raw);
  return { conversationId: str(r.conversationId), afterSeq: num(r.afterSeq) };
}

function chatWarning(raw: unknown): ChatWarningEvent {
  const r = obj(raw);
  return { conversationId: str(r.conversationId), message: str(r.message) };
}

function logAppend(raw: unknown): LogAppend {
  const r = obj(raw);
  const out: LogAppend = { source: str(r.source) || 'app', lines: Array.isArray(r.lines) ? r.lines.map(logLine) : [] };
  if (r.skipped) out.skipped = num(r.skipped);
  return out;
}

/** The normalizer of each event's payload. */
export const eventPayload: { [K in EventName]: (raw: unknown) => unknown } = {
  'server:status': serverStatus,
  'server:tools': (raw) => ({ serverId: str(obj(raw).serverId), tools: Array.isArray(obj(raw).tools) ? obj(raw).tools : [] }),
  'log:append': logAppend,
  'approval:requested': approvalRequest,
  'approval:resolved': (raw) => raw,
  'approval:policy': policy,
  'chat:message': chatMessage,
  'chat:delta': chatDelta,
  'chat:toolcall': toolCall,
  'chat:status': chatStatus,
  'chat:done': chatDone,
  'chat:truncated': chatTruncated,
  'chat:conversation': conversation,
  'chat:warning': chatWarning,
};

// Tool calls as cards: the audit records (GetToolCalls) merged with the
// live chat:toolcall events, and the model's calls that have no record yet.
import type { ChatToolCallEvent, MetaTool, Message, ToolCallRecord, ToolCallStatus, ToolProgress } from '../backend';

/** Tool search's meta-tools (chat.MetaTools): the model searches, then calls a found tool through the other. */
export const SEARCH_TOOL: MetaTool = 'search_tools';
export const CALL_TOOL: MetaTool = 'call_tool';

/** A tool call card's state: the one vocabulary of records, events and cards. */
export type CardStatus = ToolCallStatus;

/** What is known of a call: its audit record, and what the live events add (the start of the result, progress). */
export interface CallState extends ToolCallRecord {
  resultText?: string;
  progress?: ToolProgress;
}

/** What a tool call card shows. */
export interface ToolCallView {
  key: string;
  /** The tool's name (the server's own name when known). */
  tool: string;
  serverId: string;
  serverName: string;
  arguments: string;
  status: CardStatus;
  record?: CallState;
  /** The text the model got, when there is no audit record to show. */
  resultText?: string;
  error?: string;
  /** Set when the model called this (real) tool through tool search's call_tool. */
  via?: boolean;
  /** The query, when this is the model's tool search itself (search_tools). */
  search?: string;
}

/** The tool's own arguments inside call_tool's ({"name": …, "arguments": {…}}); raw itself when they cannot be read. */
export function innerArguments(raw: string): string {
  try {
    const a = JSON.parse(raw) as { arguments?: unknown };
    if (a && typeof a === 'object' && 'arguments' in a) return typeof a.arguments === 'string' ? a.arguments : JSON.stringify(a.arguments ?? {});
  } catch {
    // shown as the model wrote it
  }
  return raw;
}

/** A search_tools call's query; the raw arguments when they cannot be read. */
function searchQuery(raw: string): string {
  try {
    const a = JSON.parse(raw) as { query?: unknown };
    if (a && typeof a.query === 'string') return a.query;
  } catch {
    // shown as the model wrote it
  }
  return raw;
}

const isEvent = (r: ToolCallRecord | ChatToolCallEvent): r is ChatToolCallEvent => !('requestedAt' in r);

/**
 * Merges an audit record or a chat:toolcall event into what is known of a
 * call; an event lacks the arguments, the whole result and the times.
 */
export function mergeCall(old: CallState | undefined, r: ToolCallRecord | ChatToolCallEvent, now = new Date()): CallState {
  const startedAt = r.status === 'running' ? now.toISOString() : undefined;
  if (!isEvent(r)) return { ...r, resultText: old?.resultText, progress: r.status === 'running' ? old?.progress : undefined };
  const base: CallState = old ?? {
    id: r.id,
    callId: r.callId,
    conversationId: r.conversationId,
    messageId: r.messageId,
    serverId: r.serverId,
    serverName: r.serverName,
    tool: r.tool,
    arguments: '',
    status: r.status,
    decision: '',
    decidedBy: '',
    result: null,
    isError: false,
    error: '',
    requestedAt: now.toISOString(),
    durationMs: 0,
  };
  return {
    ...base,
    status: r.status,
    isError: r.isError ?? base.isError,
    error: r.error ?? base.error,
    resultText: r.resultText ?? base.resultText,
    startedAt: base.startedAt || startedAt,
    durationMs: r.durationMs || base.durationMs,
    progress: r.status === 'running' ? (r.progress ?? base.progress) : undefined,
  };
}

/** The cards of an assistant message: its records, then calls without one. */
export function toolCallViews(
  m: Message,
  records: CallState[],
  toolMessages: Map<string, Message>,
): ToolCallView[] {
  const views: ToolCallView[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    seen.add(r.callId);
    const asked = m.toolCalls?.find((tc) => tc.id === r.callId);
    // Through tool search, the model called call_tool; the record names the real tool.
    const via = !!asked && asked.name === CALL_TOOL && r.tool !== CALL_TOOL;
    views.push({
      key: r.id,
      tool: r.tool,
      serverId: r.serverId,
      serverName: r.serverName,
      // Events carry no arguments: take them from the message's calls.
      arguments: r.arguments || (asked ? (via ? innerArguments(asked.arguments) : asked.arguments) : ''),
      via,
      status: r.status,
      record: r,
      resultText: r.result ? undefined : (r.resultText ?? toolMessages.get(r.callId)?.content),
      error: r.error,
    });
  }
  for (const tc of m.toolCalls ?? []) {
    if (seen.has(tc.id)) continue;
    const answer = toolMessages.get(tc.id);
    const status: CardStatus = answer ? 'done' : m.status === 'streaming' ? 'pending' : m.status === 'stopped' ? 'cancelled' : 'done';
    const search = tc.name === SEARCH_TOOL ? searchQuery(tc.arguments) : undefined;
    views.push({ key: `m${m.id}-${tc.id}`, tool: tc.name, serverId: '', serverName: '', arguments: tc.arguments, status, resultText: answer?.content, search });
  }
  return views;
}

// Tool calls as cards: the audit records (GetToolCalls) merged with the
// live chat:toolcall events, and the model's calls that have no record yet.
import type { Message, ToolCallRecord } from '../backend';

/** A tool call card's state. */
export type CardStatus = 'queued' | 'approval' | 'running' | 'done' | 'failed' | 'denied' | 'cancelled';

/** What a tool call card shows. */
export interface ToolCallView {
  key: string;
  /** The tool's name (the server's own name when known). */
  tool: string;
  serverId: string;
  serverName: string;
  arguments: string;
  status: CardStatus;
  record?: ToolCallRecord;
  /** The text the model got, when there is no audit record to show. */
  resultText?: string;
  error?: string;
}

/** Merges a tool-call event into what is known: an event lacks arguments, the whole result and times. */
export function mergeCall(old: ToolCallRecord | undefined, r: ToolCallRecord): ToolCallRecord {
  if (!old) return { ...r, requestedAt: r.requestedAt || Date.now(), startedAt: r.startedAt || (r.status === 'running' ? Date.now() : 0) };
  return {
    ...old,
    ...r,
    serverId: r.serverId || old.serverId,
    serverName: r.serverName || old.serverName,
    tool: r.tool || old.tool,
    arguments: r.arguments || old.arguments,
    result: r.result ?? old.result,
    resultText: r.resultText ?? old.resultText,
    error: r.error ?? old.error,
    requestedAt: r.requestedAt || old.requestedAt,
    startedAt: r.startedAt || old.startedAt || (r.status === 'running' ? Date.now() : 0),
    durationMs: r.durationMs || old.durationMs,
    progress: r.status === 'running' ? (r.progress ?? old.progress) : undefined,
  };
}

/** Maps a record's status (and whether its approval waits) to a card status. */
export function cardStatus(r: ToolCallRecord, approvalPending: boolean): CardStatus {
  switch (r.status) {
    case 'waiting_approval':
      return 'approval';
    case 'pending':
      return approvalPending ? 'approval' : 'queued';
    case 'running':
      return 'running';
    case 'done':
      return r.isError || r.result?.isError ? 'failed' : 'done';
    case 'failed':
    case 'error':
      return 'failed';
    case 'denied':
      return 'denied';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'queued';
  }
}

/** The cards of an assistant message: its records, then calls without one. */
export function toolCallViews(
  m: Message,
  records: ToolCallRecord[],
  toolMessages: Map<string, Message>,
  isApprovalPending: (id: string) => boolean,
): ToolCallView[] {
  const views: ToolCallView[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    seen.add(r.callId);
    views.push({
      key: r.id,
      tool: r.tool,
      serverId: r.serverId,
      serverName: r.serverName,
      // Events carry no arguments: take them from the message's calls.
      arguments: r.arguments || (m.toolCalls.find((tc) => tc.id === r.callId)?.arguments ?? ''),
      status: cardStatus(r, isApprovalPending(r.id)),
      record: r,
      resultText: r.result ? undefined : (r.resultText ?? toolMessages.get(r.callId)?.content),
      error: r.error,
    });
  }
  for (const tc of m.toolCalls) {
    if (seen.has(tc.id)) continue;
    const answer = toolMessages.get(tc.id);
    const status: CardStatus = answer ? 'done' : m.status === 'streaming' ? 'queued' : m.status === 'stopped' ? 'cancelled' : 'done';
    views.push({ key: `m${m.id}-${tc.id}`, tool: tc.name, serverId: '', serverName: '', arguments: tc.arguments, status, resultText: answer?.content });
  }
  return views;
}

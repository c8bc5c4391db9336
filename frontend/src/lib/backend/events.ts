// Event names (Go -> UI), declared once; they mirror the Go constants
// (mcpconn.EventServerStatus, approval.EventRequested, chat.EventMessage,
// app.EventLogAppend, ...).
import type {
  ApprovalRequest,
  ChatDeltaEvent,
  ChatDoneEvent,
  ChatMessageEvent,
  ChatStatusEvent,
  ChatToolCallEvent,
  ChatTruncatedEvent,
  ChatWarningEvent,
  ConversationSummary,
  LogAppend,
  Policy,
  Resolution,
  ServerStatus,
  ToolsEvent,
} from './types';

export const Events = {
  serverStatus: 'server:status',
  serverTools: 'server:tools',
  logAppend: 'log:append',
  approvalRequested: 'approval:requested',
  approvalResolved: 'approval:resolved',
  approvalPolicy: 'approval:policy',
  chatMessage: 'chat:message',
  chatDelta: 'chat:delta',
  chatToolCall: 'chat:toolcall',
  chatStatus: 'chat:status',
  chatDone: 'chat:done',
  chatTruncated: 'chat:truncated',
  chatConversation: 'chat:conversation',
  chatWarning: 'chat:warning',
} as const;

/** The payload each event carries (after normalize.ts). */
export interface EventPayloads {
  'server:status': ServerStatus;
  'server:tools': ToolsEvent;
  'log:append': LogAppend;
  'approval:requested': ApprovalRequest;
  'approval:resolved': Resolution;
  'approval:policy': Policy;
  'chat:message': ChatMessageEvent;
  'chat:delta': ChatDeltaEvent;
  'chat:toolcall': ChatToolCallEvent;
  'chat:status': ChatStatusEvent;
  'chat:done': ChatDoneEvent;
  'chat:truncated': ChatTruncatedEvent;
  'chat:conversation': ConversationSummary;
  'chat:warning': ChatWarningEvent;
}

export type EventName = keyof EventPayloads;

package chat

import "github.com/switchboard-app/switchboard/internal/store"

// Event names, and the payload each one carries. app.EventPayloads
// declares them all for the frontend, whose TypeScript is generated from it.
const (
	// EventMessage carries a store.Message, created or changed as a whole
	// (the user's message, a reply starting or finishing, a tool result).
	EventMessage = "chat:message"
	// EventDelta carries a DeltaEvent: text appended to a streaming reply.
	EventDelta = "chat:delta"
	// EventToolCall carries a ToolCallEvent: a tool call changed state or
	// reported progress.
	EventToolCall = "chat:toolcall"
	// EventStatus carries a StatusEvent: what a conversation's run is doing.
	EventStatus = "chat:status"
	// EventDone carries a DoneEvent: a run ended.
	EventDone = "chat:done"
	// EventTruncated carries a TruncatedEvent: messages after a seq were
	// deleted (regenerate, edit-and-resend, retry).
	EventTruncated = "chat:truncated"
	// EventConversation carries a store.Conversation whose fields changed
	// (the title set from the first message).
	EventConversation = "chat:conversation"
	// EventWarning carries a WarningEvent: something the user should know
	// before the reply is trusted (too many tools offered, say).
	EventWarning = "chat:warning"
)

// A DeltaEvent is the text appended to a reply since the previous one.
type DeltaEvent struct {
	ConversationID string `json:"conversationId"`
	MessageID      int64  `json:"messageId"`
	Content        string `json:"content,omitempty"`
	Reasoning      string `json:"reasoning,omitempty"`
}

// Tool-call states of ToolCallEvent.Status: the audit record's
// (store.CallStatuses), one vocabulary for the store, the events and the UI.
const (
	ToolPending         = store.CallPending // requested, being checked
	ToolWaitingApproval = store.CallWaitingApproval
	ToolRunning         = store.CallRunning
	ToolDone            = store.CallDone
	ToolFailed          = store.CallFailed // refused by a check, failed, or the tool reported an error
	ToolDenied          = store.CallDenied
	ToolCancelled       = store.CallCancelled
)

// A ToolCallEvent is a tool call's state. Its fields have the names of the
// audit record's (store.ToolCall), so the UI merges the two.
type ToolCallEvent struct {
	ConversationID string `json:"conversationId"`
	// MessageID is the assistant message that made the call.
	MessageID int64 `json:"messageId"`
	// ID is the audit record's (store.ToolCall.ID); CallID is the model's,
	// which may repeat across rounds.
	ID         string `json:"id"`
	CallID     string `json:"callId"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	// Tool is the exposed name the model called.
	Tool string `json:"tool"`
	// Via is toolsearch.CallName when the model called Tool through tool
	// search's call_tool; empty for a direct call.
	Via    string `json:"via,omitempty"`
	Status string `json:"status" ts_type:"store.CallStatus"`
	// Progress is set on progress reports while running.
	Progress *Progress `json:"progress,omitempty"`
	// ResultText is the start of the result text once the call ended; the
	// whole result is the audit record's.
	ResultText string `json:"resultText,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
}

// Run states of StatusEvent.State.
const (
	StateStreaming = "streaming"
	StateTools     = "tools"
	StateRetrying  = "retrying"
	StateIdle      = "idle"
	StateError     = "error"
)

// RunStates lists every run state (the frontend's contract is generated
// from it).
var RunStates = []string{StateStreaming, StateTools, StateRetrying, StateIdle, StateError}

// A StatusEvent says what a conversation's run is doing.
type StatusEvent struct {
	ConversationID string `json:"conversationId"`
	State          string `json:"state" ts_type:"RunState"`
	// Message explains the state to the user ("rate limited, retrying in
	// 5 s", an error); often empty.
	Message string `json:"message,omitempty"`
	// RetryInMs is, when retrying, how long until the next attempt; the UI
	// counts it down.
	RetryInMs int64 `json:"retryInMs,omitempty"`
}

// A DoneEvent says a run ended and how.
type DoneEvent struct {
	ConversationID string `json:"conversationId"`
	RunID          string `json:"runId"`
	// Status is store.StatusDone, StatusStopped or StatusError.
	Status string `json:"status" ts_type:"store.MessageStatus"`
	Error  string `json:"error,omitempty"`
}

// A TruncatedEvent says every message after AfterSeq was deleted.
type TruncatedEvent struct {
	ConversationID string `json:"conversationId"`
	AfterSeq       int64  `json:"afterSeq"`
}

// A WarningEvent is a warning about a conversation.
type WarningEvent struct {
	ConversationID string `json:"conversationId"`
	Message        string `json:"message"`
}

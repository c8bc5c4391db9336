package chat

// Event names, and the payload each one carries. The frontend mirrors them
// once, in TypeScript.
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

// Tool-call states of ToolCallEvent.Status.
const (
	ToolPending         = "pending" // requested, being checked
	ToolWaitingApproval = "waiting_approval"
	ToolRunning         = "running"
	ToolDone            = "done"
	ToolFailed          = "failed" // refused by a check, failed, or the tool reported an error
	ToolDenied          = "denied"
	ToolCancelled       = "cancelled"
)

// A ToolCallEvent is a tool call's state.
type ToolCallEvent struct {
	ConversationID string `json:"conversationId"`
	// MessageID is the assistant message that made the call.
	MessageID int64 `json:"messageId"`
	// ID is the audit record's (store.ToolCall.ID); ToolCallID is the
	// model's, which may repeat across rounds.
	ID         string `json:"id"`
	ToolCallID string `json:"toolCallId"`
	Tool       string `json:"tool"`
	Server     string `json:"server"`
	Status     string `json:"status"`
	// Progress is set on progress reports while running.
	Progress *Progress `json:"progress,omitempty"`
	// Result is the start of the result text once the call ended.
	Result     string `json:"result,omitempty"`
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

// A StatusEvent says what a conversation's run is doing.
type StatusEvent struct {
	ConversationID string `json:"conversationId"`
	State          string `json:"state"`
	// Message explains the state to the user ("rate limited, retrying in
	// 5 s", an error); often empty.
	Message string `json:"message,omitempty"`
}

// A DoneEvent says a run ended and how.
type DoneEvent struct {
	ConversationID string `json:"conversationId"`
	RunID          string `json:"runId"`
	// Status is store.StatusDone, StatusStopped or StatusError.
	Status string `json:"status"`
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

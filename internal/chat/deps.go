package chat

import (
	"context"
	"encoding/json"
)

// A Tool is a tool as chat offers it to models. The fields are those of
// mcpconn.Tool, plus the server's fingerprint, which approval needs.
type Tool struct {
	// Name is the exposed (namespaced) name models call.
	Name         string          `json:"name"`
	ServerID     string          `json:"serverId"`
	ServerName   string          `json:"serverName"`
	OriginalName string          `json:"originalName"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	// Enabled is false when the user switched the tool off everywhere.
	Enabled bool `json:"enabled"`
	// Fingerprint identifies the server's configuration for approval
	// grants; empty when unknown.
	Fingerprint string `json:"fingerprint"`
}

// Progress is a running call's progress report.
type Progress struct {
	Progress float64 `json:"progress"`
	// Total is zero when unknown.
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// A ToolResult is a tool's answer.
type ToolResult struct {
	// Text is the whole result rendered for a model (mcpconn's
	// Result.ForModel with no limit); the engine cuts it to ResultLimit.
	Text string
	// IsError is set when the tool reported failure.
	IsError bool
	// Full is the whole result as JSON for the audit record; nil means the
	// Text, stored as a JSON string.
	Full json.RawMessage
}

// A ToolSource lists tools and calls them: mcpconn.Manager, adapted.
type ToolSource interface {
	// Tools returns every tool, disabled ones included.
	Tools() []Tool
	// CallTool runs the tool named name (the exposed name) with args, a
	// JSON object. onProgress may be called from another goroutine until
	// CallTool returns. The error is non-nil only when there is no answer.
	CallTool(ctx context.Context, name string, args json.RawMessage, onProgress func(Progress)) (ToolResult, error)
}

// An ApprovalRequest asks whether one call may run. Its fields are those of
// approval.Request, in the same order, so one converts to the other.
type ApprovalRequest struct {
	ID             string          `json:"id"`
	ConversationID string          `json:"conversationId"`
	ServerID       string          `json:"serverId"`
	Tool           string          `json:"tool"`
	ServerName     string          `json:"serverName"`
	Description    string          `json:"description"`
	Fingerprint    string          `json:"fingerprint"`
	Arguments      json.RawMessage `json:"arguments"`
}

// An ApprovalOutcome is the answer: approval.Outcome with string decisions.
type ApprovalOutcome struct {
	Allowed bool `json:"allowed"`
	// Decision is allow_once, allow_always, allow_all, deny or cancelled.
	Decision  string `json:"decision"`
	DecidedBy string `json:"decidedBy"`
	// Arguments are the ones to run the tool with when Allowed.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// DecisionCancelled is the Decision of a call cancelled before a decision.
const DecisionCancelled = "cancelled"

// An Approver decides whether a call may run: approval.Broker, adapted.
// Nothing runs without an outcome with Allowed set.
type Approver interface {
	Request(ctx context.Context, r ApprovalRequest) (ApprovalOutcome, error)
}

// A PolicyApprover is an Approver that can also tell, without asking
// anyone, that a standing policy (an "always" grant, yolo) allows a call.
// The engine then records the call as decided and started in one write
// instead of three. Decided returns ok only for an allowing outcome that
// Request would give at once for the same r.
type PolicyApprover interface {
	Approver
	Decided(ctx context.Context, r ApprovalRequest) (out ApprovalOutcome, ok bool)
}

// An Emitter sends an event to the UI. It is called from several
// goroutines (the run, its tool calls, the delta throttle) and must be safe
// for concurrent use and return quickly.
type Emitter interface {
	Emit(name string, payload any)
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

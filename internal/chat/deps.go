package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"github.com/switchboard-app/switchboard/internal/approval"
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
	// DefinitionHash identifies the tool's definition as the server sent
	// it (mcpconn.Tool.DefinitionHash); empty when unknown. Grants and
	// calls are pinned to it.
	DefinitionHash string `json:"definitionHash,omitempty"`
	// AppOnly is set when the server meant the tool for its own view only
	// (mcpconn.Tool.AppOnly): it is never offered to a model, and a
	// model's call of it is refused as of an unknown tool.
	AppOnly bool `json:"appOnly,omitempty"`
	// Title is the tool's display name, and Hints what the server says it
	// does (read-only, destructive, ...); both go to the approval request.
	Title string              `json:"title,omitempty"`
	Hints *approval.ToolHints `json:"hints,omitempty"`
	// Legs are the legs of the lethal trifecta the tool brings
	// (approval.ToolLegs of its hints, whether its server is local, and
	// the user's private mark); zero when none. The guard asks before a
	// call of an Outbound tool in a conversation whose earlier results
	// brought both of the others.
	Legs approval.Legs `json:"legs,omitzero"`
}

// Key is how a conversation's tool selection names the tool: ToolKey of
// its server and original name, which, unlike the exposed name, does not
// change when names collide.
func (t Tool) Key() string { return ToolKey(t.ServerID, cmp.Or(t.OriginalName, t.Name)) }

// Ref is the ToolRef that runs exactly this tool: this server, this
// definition.
func (t Tool) Ref() ToolRef {
	return ToolRef{ServerID: t.ServerID, Tool: cmp.Or(t.OriginalName, t.Name), DefinitionHash: t.DefinitionHash, Fingerprint: t.Fingerprint}
}

// ToolKey is "serverID/tool", tool being the server's own name for it.
// Server IDs have no "/", so the first one splits the key.
func ToolKey(serverID, tool string) string { return serverID + "/" + tool }

// A ToolRef names the tool a call runs on by what it is, not by its
// exposed name: mcpconn.ToolRef, plus the server's fingerprint.
type ToolRef struct {
	ServerID string
	// Tool is the server's own name for the tool.
	Tool string
	// DefinitionHash, when not empty, must be the tool's definition hash
	// now, or the call fails with ErrToolChanged and does not run.
	DefinitionHash string
	// Fingerprint, when not empty, must be the server's fingerprint now,
	// or the call fails with ErrToolChanged and does not run.
	Fingerprint string
}

// ErrToolChanged is the error of a call whose tool (its definition, or its
// server's configuration) changed after the call was approved; the call
// did not run. A ToolSource returns an error that wraps it.
var ErrToolChanged = errors.New("the server changed this tool since the call was approved")

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
	// Task is set when the server runs the call as a task: Text is empty,
	// and the result comes when the task ends (Tasks follows it).
	Task *TaskHandle
}

// A TaskHandle is a call the server runs as a task (the MCP Tasks
// extension): the ID to follow it by, and its first state.
type TaskHandle struct {
	ServerID      string
	TaskID        string
	Status        string
	StatusMessage string
	// State is the source's whole first state, handed back to Tasks.
	State any
}

// A TaskStart is a task to follow: the handle, and the call it answers.
type TaskStart struct {
	Handle TaskHandle
	// ToolCallID is the call's audit record (store.ToolCall.ID).
	ToolCallID     string
	ConversationID string
	ServerName     string
	// Tool is the exposed name the model called.
	Tool string
}

// Tasks follows tasks to their end: tasks.Tracker, adapted. When a task
// ends, whoever follows it calls Engine.LandTask, then Wait returns.
type Tasks interface {
	// Follow records the task and follows it; it returns the ID Wait
	// takes.
	Follow(ctx context.Context, t TaskStart) (string, error)
	// Wait returns nil once the task ended and its result landed, or
	// ctx's error.
	Wait(ctx context.Context, id string) error
}

// A TaskEnd is how a followed task ended, for LandTask.
type TaskEnd struct {
	// ToolCallID is the call's audit record (store.ToolCall.ID).
	ToolCallID string
	// Status is store.CallDone, CallFailed or CallCancelled.
	Status string
	// Text is the result for the model (cut to the result limit by
	// LandTask); Full the whole result as JSON for the audit record.
	Text    string
	Full    json.RawMessage
	IsError bool
	// Error says why a task failed or was cancelled, for the user.
	Error string
}

// A ToolSource lists tools and calls them: mcpconn.Manager, adapted.
type ToolSource interface {
	// Tools returns every tool, disabled ones included.
	Tools() []Tool
	// CallTool runs the tool ref names with args, a JSON object, and
	// fails with an error wrapping ErrToolChanged, without running it, when
	// the tool is no longer the one ref pins. onProgress may be called from
	// another goroutine until CallTool returns. The error is non-nil only
	// when there is no answer.
	CallTool(ctx context.Context, ref ToolRef, args json.RawMessage, onProgress func(Progress)) (ToolResult, error)
}

// An Approver decides whether a call may run: approval.Broker, adapted.
// Nothing runs without an outcome with Allowed set.
type Approver interface {
	Request(ctx context.Context, r approval.Request) (approval.Outcome, error)
}

// A PolicyApprover is an Approver that can also tell, without asking
// anyone, that a standing policy (an "always" grant, yolo) allows a call.
// The engine then records the call as decided and started in one write
// instead of three. Decided returns ok only for an allowing outcome that
// Request would give at once for the same r.
type PolicyApprover interface {
	Approver
	Decided(ctx context.Context, r approval.Request) (out approval.Outcome, ok bool)
}

// An Emitter sends an event to the UI. It is called from several
// goroutines (the run, its tool calls, the delta throttle) and must be safe
// for concurrent use and return quickly.
type Emitter interface {
	Emit(name string, payload any)
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

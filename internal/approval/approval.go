// Package approval decides whether a tool call may run: a Broker checks the
// remembered policy (per-tool "always" grants, per-server "read-only tools
// run unasked" settings, which trust the server's own ToolHints, and the
// global "yolo" switch) and otherwise parks the call until the user
// decides, the caller stops, the conversation closes or the app quits.
//
// The lethal-trifecta guard (trifecta.go) sits above that policy: a call
// whose Request carries a Guard asks even when a grant, yolo or the
// read-only setting would allow it, and an answer to it releases no other
// call.
//
// Each call is a small state machine (pending → allowed_once | allowed_always |
// allowed_all | allowed_read_only | denied | cancelled; every state but
// pending is final), and the
// Outcome carries the exact arguments the user saw, which are the ones to run.
// A store failure never leaves more trusted than the user asked for: grants and
// yolo are added only after the store saved them, and removed in memory even
// when the store could not delete them. Events leave in the order the state
// changed and never under a lock, so an Emitter may call back into the Broker.
package approval

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Event names the Broker emits, and the payload each one carries.
const (
	// EventRequested carries a Request: a call is waiting for the user.
	EventRequested = "approval:requested"
	// EventResolved carries a Resolution: a waiting call was decided.
	EventResolved = "approval:resolved"
	// EventPolicy carries a Policy: the remembered policy after a change.
	EventPolicy = "approval:policy"
)

// A Decision is what happened to a call.
type Decision string

const (
	// AllowOnce runs this call only.
	AllowOnce Decision = "allow_once"
	// AllowAlways runs this call and, from now on, every call of the same
	// tool on the same server while the server's fingerprint and the tool's
	// definition are unchanged.
	AllowAlways Decision = "allow_always"
	// AllowAll runs this call and turns yolo on: every call runs unasked.
	AllowAll Decision = "allow_all"
	// AllowReadOnly runs this call because the user lets the server's
	// read-only tools run unasked and the server says this tool is one
	// (ToolHints.ClaimsReadOnly). Only the Broker makes this decision.
	AllowReadOnly Decision = "allow_read_only"
	// Deny does not run this call; the caller tells the model the user declined.
	Deny Decision = "deny"
	// Cancelled does not run this call: the caller stopped, the conversation
	// closed or the app quit. Only the Broker makes this decision.
	Cancelled Decision = "cancelled"
)

// Decisions and DecidedBys list every value of their type (the frontend's
// contract is generated from them).
var (
	Decisions  = []Decision{AllowOnce, AllowAlways, AllowAll, AllowReadOnly, Deny, Cancelled}
	DecidedBys = []DecidedBy{ByUser, ByPolicy, BySystem, ByGuard}
)

// Allows reports whether a call with this decision runs.
func (d Decision) Allows() bool {
	return d == AllowOnce || d == AllowAlways || d == AllowAll || d == AllowReadOnly
}

// DecidedBy says who made a Decision, for the tool-call audit record.
type DecidedBy string

const (
	// ByUser means the user answered the prompt for this call.
	ByUser DecidedBy = "user"
	// ByPolicy means a remembered grant or yolo allowed the call, either when
	// it arrived or when the user's "always"/"all" answer to another call
	// released it.
	ByPolicy DecidedBy = "policy"
	// BySystem means the call was cancelled (Stop, closed conversation, quit).
	BySystem DecidedBy = "system"
	// ByGuard means the lethal-trifecta guard made the call ask (its
	// Request carried a Guard), whatever the standing policy: the decision
	// is the user's answer to that prompt, or Refuse's deny when nobody
	// could be asked.
	ByGuard DecidedBy = "guard"
)

// A Request asks whether one tool call may run.
type Request struct {
	// ID identifies the call among pending ones; it must be unique while the
	// call waits. Use the caller's own ID (e.g. the audit record's), not the
	// model's tool-call ID, which some models repeat.
	ID string `json:"id"`
	// ConversationID is the conversation the call belongs to; empty means
	// none, and CancelConversation never reaches the call.
	ConversationID string `json:"conversationId"`
	// ServerID and Tool (the server's original tool name, not the namespaced
	// one) identify the tool; both are required.
	ServerID string `json:"serverId"`
	Tool     string `json:"tool"`
	// ServerName, Title (the tool's display name; empty when it has none)
	// and Description are shown to the user.
	ServerName  string `json:"serverName"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// Hints are what the server says the tool does (read-only,
	// destructive, ...), shown to the user as the server's claims; nil when
	// it says nothing. A read-only claim lets the call run unasked if the
	// user allows that for the server (SetReadOnly).
	Hints *ToolHints `json:"hints,omitempty"`
	// Fingerprint identifies the server's configuration (a digest of its
	// command, args or URL, never a secret). A grant made for one fingerprint
	// does not allow calls that carry another.
	Fingerprint string `json:"fingerprint"`
	// Arguments is the JSON the model produced; nil means no arguments.
	Arguments json.RawMessage `json:"arguments" ts_type:"unknown"`
	// DefinitionHash identifies the tool's definition as the server sent
	// it (mcpconn.Tool.DefinitionHash); empty when unknown. A grant made
	// for one definition does not allow calls that carry another, so a
	// server cannot change what an allowed tool does.
	DefinitionHash string `json:"definitionHash,omitempty"`
	// InputSchema is the tool's input schema, shown to the user and kept
	// with an "always" grant; nil when unknown.
	InputSchema json.RawMessage `json:"inputSchema,omitempty" ts_type:"unknown"`
	// Changed is set by the Broker when the user had allowed this tool
	// always but the server changed its definition since: the grant no
	// longer applies, and PreviousDescription and PreviousInputSchema are
	// what the user allowed then (Description and InputSchema are now).
	Changed             bool            `json:"changed,omitempty"`
	PreviousDescription string          `json:"previousDescription,omitempty"`
	PreviousInputSchema json.RawMessage `json:"previousInputSchema,omitempty" ts_type:"unknown"`
	// Guard, when not nil, says the lethal-trifecta guard holds for this
	// call (see Guard): it asks even when a standing policy would allow
	// it, and the user is shown why. The caller sets it; nil means the
	// policy decides as usual.
	Guard *Guard `json:"guard,omitempty"`
	// RequestedBy says who asks for the call, for the user to see:
	// RequestedByView when the server's own view (MCP Apps) asks, not the
	// model; empty (or RequestedByModel) when the model does. The policy
	// decides alike for both.
	RequestedBy string `json:"requestedBy,omitempty"`
	// Client is the name of the connected app (an external MCP client)
	// whose turn made the call, shown to the user as "<Client> asks";
	// set with RequestedBy RequestedByClient, empty otherwise. Yolo does
	// not apply to such a call, and "allow all" is not an answer to it;
	// "always" grants and the read-only setting do apply.
	Client string `json:"client,omitempty"`
}

// Values of Request.RequestedBy.
const (
	RequestedByModel = "model"
	RequestedByView  = "view"
	// RequestedByClient is a call a model made in a turn a connected app
	// (an external MCP client) started; Request.Client names the app.
	RequestedByClient = "client"
)

// An Outcome is the final answer for a call.
type Outcome struct {
	// Allowed reports whether the call runs.
	Allowed bool `json:"allowed"`
	// Decision and DecidedBy are recorded in the tool-call audit record.
	Decision  Decision  `json:"decision" ts_type:"Decision"`
	DecidedBy DecidedBy `json:"decidedBy" ts_type:"DecidedBy"`
	// Arguments is a copy of the request's arguments when Allowed, nil
	// otherwise. Run the tool with exactly these.
	Arguments json.RawMessage `json:"arguments,omitempty" ts_type:"unknown"`
	// Reason says why the system cancelled the call (ReasonServerChanged)
	// or why Refuse denied it; empty for every other outcome and for a
	// cancel by the caller.
	Reason string `json:"reason,omitempty"`
}

// ReasonServerChanged is the Reason of a call cancelled because its
// server's configuration changed while it waited.
const ReasonServerChanged = "the server's configuration changed while the call waited for approval"

// A Resolution is the payload of EventResolved.
type Resolution struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
}

// A Grant remembers that a tool of a server runs without asking, while the
// server's fingerprint and the tool's definition are those the user saw.
type Grant struct {
	ServerID string `json:"serverId"`
	Tool     string `json:"tool"`
	// Fingerprint is the server's fingerprint when the user granted it.
	Fingerprint string `json:"fingerprint"`
	// DefinitionHash is the tool's definition hash when the user granted
	// it; a grant from before definitions were pinned has none and allows
	// only calls that carry none either.
	DefinitionHash string `json:"definitionHash,omitempty"`
	// Description and InputSchema are the definition the user allowed,
	// kept to show what changed when the server changes the tool. The
	// schema stays out of EventPolicy, which carries every grant.
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"-"`
	CreatedAt   time.Time       `json:"createdAt" ts_type:"string"`
}

// A Policy is the payload of EventPolicy: the whole remembered policy.
type Policy struct {
	Yolo bool `json:"yolo"`
	// Grants is sorted by server ID, then tool; never nil.
	Grants []Grant `json:"grants"`
	// ReadOnly lists the servers whose read-only tools run unasked,
	// sorted by server ID; nil when none.
	ReadOnly []ReadOnlyServer `json:"readOnly,omitempty"`
	// Private lists the tools the user marked as reading private data,
	// sorted by fingerprint, then tool; nil when none.
	Private []PrivateTool `json:"private,omitempty"`
}

// A PolicyStore persists grants and the yolo switch. The Broker serialises
// its writes, so an implementation need not order concurrent writers.
type PolicyStore interface {
	// Grants returns every stored grant.
	Grants(ctx context.Context) ([]Grant, error)
	// PutGrant stores g, replacing any grant for the same server and tool.
	PutGrant(ctx context.Context, g Grant) error
	// DeleteGrant removes the grant for serverID and tool; removing a grant
	// that does not exist is not an error.
	DeleteGrant(ctx context.Context, serverID, tool string) error
	// Yolo reports the yolo switch; false when never set.
	Yolo(ctx context.Context) (bool, error)
	// SetYolo stores the yolo switch.
	SetYolo(ctx context.Context, on bool) error
}

// An Emitter sends an event to the frontend. Emit must not block for long;
// it may call back into the Broker.
type Emitter interface {
	Emit(name string, payload any)
}

var (
	// ErrUnknownRequest means no pending call has this ID: it never existed
	// or was already resolved.
	ErrUnknownRequest = errors.New("no pending tool call with this id; it may have been decided or cancelled already")
	// ErrInvalidDecision means Decide got a decision a user cannot make
	// (anything but allow_once, allow_always, allow_all and deny).
	ErrInvalidDecision = errors.New("invalid approval decision")
	// ErrInvalidRequest means a Request lacks an ID, server or tool, has
	// arguments that are not JSON, or reuses the ID of a pending call.
	ErrInvalidRequest = errors.New("invalid approval request")
	// ErrNotRemembered means the call was allowed but the "always" or "all"
	// choice could not be saved, so later calls will ask again.
	ErrNotRemembered = errors.New("the call was allowed but the choice was not remembered")
)

package mcpconn

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Event names, emitted through Options.Emitter.
const (
	// EventServerStatus carries a Status on every state change of a server.
	EventServerStatus = "server:status"
	// EventServerTools carries a ToolsEvent when a server's tool list changes.
	EventServerTools = "server:tools"
)

// A State is where a server's connection stands.
type State string

const (
	StateDisconnected State = "disconnected"
	StateConnecting   State = "connecting"
	StateConnected    State = "connected"
	// StateDegraded: pings fail, or the connection was lost and is being
	// re-established with backoff. Reason says which.
	StateDegraded State = "degraded"
	// StateNeedsAuth: the server answered 401 (or 403 asking for a token);
	// the user has to sign in before it can connect.
	StateNeedsAuth State = "needs-auth"
	// StateFailed: connecting failed, or reconnecting gave up. Reason and
	// LastStderr say why; Connect tries again.
	StateFailed State = "failed"
)

// States lists every State (the frontend's contract is generated from it).
var States = []State{StateDisconnected, StateConnecting, StateConnected, StateDegraded, StateNeedsAuth, StateFailed}

// A Status is a snapshot of one server's connection, and the payload of
// EventServerStatus.
type Status struct {
	ServerID string `json:"serverId"`
	State    State  `json:"state" ts_type:"State"`
	// Reason explains a degraded, needs-auth or failed state; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// ToolCount is the number of tools the server lists (enabled or not).
	ToolCount int `json:"toolCount"`
	// LastStderr holds the server's last stderr lines when it failed.
	LastStderr []string `json:"lastStderr,omitempty"`
	// ConnectedAt is when the current session started; zero when there is none.
	ConnectedAt time.Time `json:"connectedAt,omitzero,omitempty" ts_type:"string"` // omitempty: optional in TypeScript
	// ProtocolVersion is the MCP version the current session speaks.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Attempt counts reconnect attempts while degraded; zero otherwise.
	Attempt int `json:"attempt,omitempty"`
	// Warning says what is wrong with a server that works anyway (it
	// writes log lines to stdout, which Switchboard skips); empty when
	// nothing is. It lasts until the server is started again.
	Warning string `json:"warning,omitempty"`
	// Logging is set while the session's server declares MCP logging: it
	// sends log messages (into its log), and Config.LogLevel applies.
	Logging bool `json:"logging,omitempty"`
	// Offers says what the session's server offers besides tools
	// (resources, prompts, completion); nil when there is no session.
	Offers *Offers `json:"offers,omitempty"`
}

func (s Status) clone() Status {
	s.LastStderr = slices.Clone(s.LastStderr)
	return s
}

// A ToolsEvent is the payload of EventServerTools: the server's tools as
// exposed to models (empty when the server disconnected).
type ToolsEvent struct {
	ServerID string `json:"serverId"`
	Tools    []Tool `json:"tools"` // never nil
}

// Errors returned by the Manager, to check with errors.Is.
var (
	ErrUnknownServer = errors.New("unknown server")
	ErrServerExists  = errors.New("server already exists")
	ErrNotStarted    = errors.New("connection manager not started")
	ErrClosed        = errors.New("connection manager closed")
	ErrNotConnected  = errors.New("server not connected")
	ErrUnknownTool   = errors.New("unknown tool")
	ErrToolDisabled  = errors.New("tool disabled")
	// ErrToolChanged means the server changed the tool's definition since
	// the call was approved; the call did not run.
	ErrToolChanged      = errors.New("the server changed this tool since the call was approved")
	ErrInvalidArguments = errors.New("tool arguments are not a JSON object")
	ErrCallTimeout      = errors.New("tool call timed out")
	ErrServerGone       = errors.New("server connection lost during the call")
	ErrNeedsAuth        = errors.New("server requires authorization")
	ErrCommandNotFound  = errors.New("command not found")
	ErrSecret           = errors.New("secret not available")
)

// A sentinelError reads as its own message and matches its sentinel with
// errors.Is, so a user sees "npx not found on PATH (...)" rather than
// "command not found: npx not found on PATH (...)".
type sentinelError struct {
	sentinel error
	msg      string
}

func (e *sentinelError) Error() string        { return e.msg }
func (e *sentinelError) Is(target error) bool { return target == e.sentinel }

func errorf(sentinel error, format string, args ...any) error {
	return &sentinelError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

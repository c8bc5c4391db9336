package app

import (
	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/sampling"
	"github.com/switchboard-app/switchboard/internal/store"
)

// EventLogAppend carries new log lines: LogAppend.
const EventLogAppend = "log:append"

// EventPayloads declares every event the backend sends the window: a
// field's JSON name is the event's name (the constant its package emits
// it by), its type the payload. It is the one declaration the frontend's
// event names and payload types are generated from (make generate), and
// Emit checks what it sends against it.
type EventPayloads struct {
	ServerStatus      mcpconn.Status      `json:"server:status"`
	ServerTools       mcpconn.ToolsEvent  `json:"server:tools"`
	LogAppend         LogAppend           `json:"log:append"`
	ApprovalRequested approval.Request    `json:"approval:requested"`
	ApprovalResolved  approval.Resolution `json:"approval:resolved"`
	ApprovalPolicy    approval.Policy     `json:"approval:policy"`
	ChatMessage       store.Message       `json:"chat:message"`
	ChatDelta         chat.DeltaEvent     `json:"chat:delta"`
	ChatToolCall      chat.ToolCallEvent  `json:"chat:toolcall"`
	ChatStatus        chat.StatusEvent    `json:"chat:status"`
	ChatDone          chat.DoneEvent      `json:"chat:done"`
	ChatTruncated     chat.TruncatedEvent `json:"chat:truncated"`
	ChatConversation  store.Conversation  `json:"chat:conversation"`
	ChatWarning       chat.WarningEvent   `json:"chat:warning"`
	TaskUpdate        store.Task          `json:"task:update"`
	// What servers ask of the user (app/asks.go).
	ElicitRequested   elicit.Request   `json:"elicit:requested"`
	ElicitEnded       asks.Ended       `json:"elicit:ended"`
	ElicitCompleted   elicit.Completed `json:"elicit:completed"`
	SamplingRequested sampling.Request `json:"sampling:requested"`
	SamplingEnded     asks.Ended       `json:"sampling:ended"`
	// Resources and prompts of MCP servers (app/resources.go).
	ResourceUpdated  mcpconn.ResourceUpdated `json:"resource:updated"`
	ResourcesChanged mcpconn.ListChanged     `json:"resources:changed"`
	PromptsChanged   mcpconn.ListChanged     `json:"prompts:changed"`
	// Servers' views (app/appviews.go).
	AppViewClosed core.AppViewClosed `json:"appview:closed"`
	// Installing servers (app/install.go).
	InstallProgress installer.Progress `json:"install:progress"`
	// Connected apps (app/clients.go): a request was audited.
	ClientsActivity clients.AuditEntry `json:"clients:activity"`
}

// LogAppend is the payload of EventLogAppend.
type LogAppend struct {
	// Source is "app" or a server ID.
	Source string        `json:"source"`
	Lines  []logbuf.Line `json:"lines"`
	// Skipped counts lines that scrolled out of the ring before they could
	// be sent (a flood); the viewer says so.
	Skipped uint64 `json:"skipped,omitempty"`
}

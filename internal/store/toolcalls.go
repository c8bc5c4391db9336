package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Tool-call statuses, in the order a call goes through them: the one
// vocabulary of the audit record, the chat:toolcall event and the UI.
const (
	CallPending         = "pending"          // requested, being checked
	CallWaitingApproval = "waiting_approval" // put to the user
	CallRunning         = "running"
	CallDone            = "done"
	CallFailed          = "failed" // refused before running, failed, or the tool reported an error; Error or Result says why
	CallDenied          = "denied"
	CallCancelled       = "cancelled"
)

// CallStatuses lists every tool-call status (the frontend's contract is
// generated from it).
var CallStatuses = []string{CallPending, CallWaitingApproval, CallRunning, CallDone, CallFailed, CallDenied, CallCancelled}

// A ToolCall is the audit record of one tool call a model asked for.
type ToolCall struct {
	// ID is the record's own ID; CallID is the model's tool_call_id, which
	// models may repeat across rounds.
	ID             string `json:"id"`
	CallID         string `json:"callId"`
	ConversationID string `json:"conversationId"`
	// MessageID is the assistant message that made the call; zero once
	// that message was deleted (regenerate), the record staying as audit.
	MessageID  int64  `json:"messageId"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	Tool       string `json:"tool"`
	// Arguments is the JSON text the model produced, valid or not.
	Arguments string `json:"arguments"`
	Status    string `json:"status" ts_type:"CallStatus"`
	Decision  string `json:"decision"`
	DecidedBy string `json:"decidedBy"`
	// Result is the tool's whole result as JSON, before any cut made for
	// the model; nil when it did not run.
	Result      json.RawMessage `json:"result" ts_type:"mcpconn.Result | null"`
	IsError     bool            `json:"isError"`
	Error       string          `json:"error"`
	RequestedAt time.Time       `json:"requestedAt" ts_type:"string"`
	// StartedAt is when the tool started running; zero (absent) if it
	// never ran.
	StartedAt  time.Time `json:"startedAt,omitzero,omitempty" ts_type:"string"` // omitempty: optional in TypeScript
	DurationMs int64     `json:"durationMs"`
	// Legs are the legs of the lethal trifecta the call's tool brings
	// (LegPrivate, LegUntrusted, LegOutbound, or'd), as classified when
	// the call was made; zero when none.
	Legs int `json:"-"`
	// RequestedBy is RequestedByView for a call a server's view made (MCP
	// Apps): it has no MessageID, and ToolCalls leaves it out (ViewCalls
	// lists them). RequestedByClientPrefix and the app's name for a
	// model's call in a turn a connected app (an external MCP client)
	// started. Empty for a model's call in the user's own turn.
	RequestedBy string `json:"requestedBy,omitempty"`
}

// RequestedByView is ToolCall.RequestedBy of a call a server's view made.
const RequestedByView = "view"

// RequestedByClientPrefix starts ToolCall.RequestedBy of a call made in a
// connected app's turn ("client:Claude Desktop").
const RequestedByClientPrefix = "client:"

// The legs of the lethal trifecta, as ToolCall.Legs records them.
const (
	LegPrivate   = 1 << iota // the result may hold private data
	LegUntrusted             // the result may hold content from outside
	LegOutbound              // the tool can send data out
)

const toolCallColumns = `id, call_id, conversation_id, message_id, server_id, server_name, tool, arguments, status,
	decision, decided_by, result, is_error, error, requested_at, started_at, duration_ms, legs, requested_by`

// InsertToolCall records a requested call. An empty ID gets a new one; an
// empty Status means CallPending; a zero RequestedAt means now.
func (s *Store) InsertToolCall(ctx context.Context, c ToolCall) (ToolCall, error) {
	if c.ID == "" {
		c.ID = NewID()
	}
	if c.Status == "" {
		c.Status = CallPending
	}
	if c.RequestedAt.IsZero() {
		c.RequestedAt = time.UnixMilli(now())
	}
	var msgID sql.NullInt64
	if c.MessageID != 0 {
		msgID = sql.NullInt64{Int64: c.MessageID, Valid: true}
	}
	// started_at is NOT NULL in the first schema; 0 means "not started".
	_, err := s.exec(ctx, nil, `INSERT INTO tool_calls(`+toolCallColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.CallID, c.ConversationID, msgID, c.ServerID, c.ServerName, c.Tool, c.Arguments, c.Status,
		c.Decision, c.DecidedBy, nullJSON(c.Result), c.IsError, c.Error, millis(c.RequestedAt), millis(c.StartedAt), c.DurationMs, c.Legs,
		c.RequestedBy)
	if err != nil {
		return ToolCall{}, fmt.Errorf("recording tool call %s: %w", c.Tool, err)
	}
	return c, nil
}

// DecideToolCall records the approval decision and the status it leads to.
func (s *Store) DecideToolCall(ctx context.Context, id, status, decision, decidedBy string) error {
	return s.updateToolCall(ctx, nil, id, `status = ?, decision = ?, decided_by = ?`, status, decision, decidedBy)
}

// StartToolCall records the allowing decision and marks the call running
// from at, in one write (this is on every call's path).
func (s *Store) StartToolCall(ctx context.Context, id string, at time.Time, decision, decidedBy string) error {
	return s.updateToolCall(ctx, nil, id, `status = ?, started_at = ?, decision = ?, decided_by = ?`, CallRunning, millis(at), decision, decidedBy)
}

// A ToolCallEnd is how a call ended.
type ToolCallEnd struct {
	// Status is CallDone, CallFailed or CallCancelled (or CallDenied).
	Status   string
	Result   json.RawMessage
	IsError  bool
	Error    string
	Duration time.Duration
}

const finishToolCall = `status = ?, result = ?, is_error = ?, error = ?, duration_ms = ?`

// FinishToolCall records how the call ended.
func (s *Store) FinishToolCall(ctx context.Context, id string, end ToolCallEnd) error {
	return s.updateToolCall(ctx, nil, id, finishToolCall,
		end.Status, nullJSON(end.Result), end.IsError, end.Error, end.Duration.Milliseconds())
}

// FinishToolCallWithReply records how the call ended and appends reply,
// the tool message that gives the model its result, in one transaction
// (this is on every call's path). It returns reply as stored.
func (s *Store) FinishToolCallWithReply(ctx context.Context, id string, end ToolCallEnd, reply Message) (Message, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Message{}, fmt.Errorf("updating tool call %s: %w", id, err)
	}
	defer tx.Rollback()
	if err := s.updateToolCall(ctx, tx, id, finishToolCall,
		end.Status, nullJSON(end.Result), end.IsError, end.Error, end.Duration.Milliseconds()); err != nil {
		return Message{}, err
	}
	if reply, err = s.appendMessage(ctx, tx, reply); err != nil {
		return Message{}, err
	}
	if err := tx.Commit(); err != nil {
		return Message{}, fmt.Errorf("updating tool call %s: %w", id, err)
	}
	return reply, nil
}

func (s *Store) updateToolCall(ctx context.Context, tx *sql.Tx, id, set string, args ...any) error {
	res, err := s.exec(ctx, tx, `UPDATE tool_calls SET `+set+` WHERE id = ?`, append(args, id)...)
	if err != nil {
		return fmt.Errorf("updating tool call %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("tool call %s: %w", id, ErrNotFound)
	}
	return nil
}

// ToolCallRecord returns the record id; ErrNotFound if there is none.
func (s *Store) ToolCallRecord(ctx context.Context, id string) (ToolCall, error) {
	c, err := scanToolCall(s.db.QueryRowContext(ctx, `SELECT `+toolCallColumns+` FROM tool_calls WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ToolCall{}, fmt.Errorf("tool call %s: %w", id, ErrNotFound)
	}
	return c, err
}

// ToolCalls returns the records of the tool calls a conversation's model
// made, in the order they were requested; messageID > 0 keeps only that
// message's. The calls of its views are left out (ViewCalls).
func (s *Store) ToolCalls(ctx context.Context, convID string, messageID int64) ([]ToolCall, error) {
	q := `SELECT ` + toolCallColumns + ` FROM tool_calls WHERE conversation_id = ? AND requested_by != ?`
	args := []any{convID, RequestedByView}
	if messageID > 0 {
		q += ` AND message_id = ?`
		args = append(args, messageID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY requested_at, rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading tool calls of %s: %w", convID, err)
	}
	return collect(rows, scanToolCall)
}

// ViewCalls returns the records of the tool calls the views shown in a
// conversation made (MCP Apps), in the order they were requested, at most
// limit of the latest (limit <= 0: all).
func (s *Store) ViewCalls(ctx context.Context, convID string, limit int) ([]ToolCall, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+toolCallColumns+` FROM tool_calls WHERE rowid IN (
		SELECT rowid FROM tool_calls WHERE conversation_id = ? AND requested_by = ? ORDER BY requested_at DESC, rowid DESC LIMIT ?)
		ORDER BY requested_at, rowid`, convID, RequestedByView, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the view calls of %s: %w", convID, err)
	}
	return collect(rows, scanToolCall)
}

func scanToolCall(r scanner) (ToolCall, error) {
	var c ToolCall
	var msgID sql.NullInt64
	var result sql.NullString
	var requested, started int64
	err := r.Scan(&c.ID, &c.CallID, &c.ConversationID, &msgID, &c.ServerID, &c.ServerName, &c.Tool, &c.Arguments,
		&c.Status, &c.Decision, &c.DecidedBy, &result, &c.IsError, &c.Error, &requested, &started, &c.DurationMs, &c.Legs, &c.RequestedBy)
	if err != nil {
		return ToolCall{}, err
	}
	c.MessageID = msgID.Int64
	if result.Valid {
		c.Result = json.RawMessage(result.String)
	}
	c.RequestedAt, c.StartedAt = fromMillis(requested), fromMillis(started)
	return c, nil
}

// LegSources names the tools whose results brought legs of the lethal
// trifecta into a conversation (ConversationLegs).
type LegSources struct {
	// Private and Untrusted are the tools (their exposed names) whose
	// results brought private data and outside content, earliest first.
	Private, Untrusted []string
	// MorePrivate and MoreUntrusted say more tools did than are listed.
	MorePrivate, MoreUntrusted bool
}

// ConversationLegs returns which tools' results brought private data and
// outside content into conversation convID: calls that returned a result
// (an error the tool reported counts: it is content too) and whose
// message is still in the conversation, made by a message other than
// exceptMessage (the one whose calls are being decided, whose results the
// model had not seen when it made them). At most limit tools of each leg
// are listed.
func (s *Store) ConversationLegs(ctx context.Context, convID string, exceptMessage int64, limit int) (LegSources, error) {
	var out LegSources
	var err error
	if out.Private, out.MorePrivate, err = s.legSources(ctx, convID, exceptMessage, LegPrivate, limit); err != nil {
		return out, err
	}
	out.Untrusted, out.MoreUntrusted, err = s.legSources(ctx, convID, exceptMessage, LegUntrusted, limit)
	return out, err
}

func (s *Store) legSources(ctx context.Context, convID string, exceptMessage int64, leg, limit int) ([]string, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT tool FROM tool_calls
		WHERE conversation_id = ? AND legs & ? != 0 AND result IS NOT NULL AND message_id IS NOT NULL AND message_id != ?
		GROUP BY tool ORDER BY MIN(requested_at), MIN(rowid) LIMIT ?`, convID, leg, exceptMessage, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("reading the tool calls of %s: %w", convID, err)
	}
	tools, err := collect(rows, func(r scanner) (string, error) {
		var t string
		return t, r.Scan(&t)
	})
	if err != nil {
		return nil, false, fmt.Errorf("reading the tool calls of %s: %w", convID, err)
	}
	if len(tools) > limit {
		return tools[:limit], true, nil
	}
	return tools, false, nil
}

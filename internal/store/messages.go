package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message statuses.
const (
	StatusStreaming = "streaming" // the reply is arriving
	StatusDone      = "done"
	StatusStopped   = "stopped" // the user stopped it; the content is partial
	StatusError     = "error"   // Error says what went wrong
)

// Roles and MessageStatuses list the values of Message.Role and
// Message.Status (the frontend's contract is generated from them).
var (
	Roles           = []string{RoleSystem, RoleUser, RoleAssistant, RoleTool}
	MessageStatuses = []string{StatusStreaming, StatusDone, StatusStopped, StatusError}
)

// A Message is one entry of a conversation.
type Message struct {
	ID             int64  `json:"id"`
	ConversationID string `json:"conversationId"`
	// Seq orders a conversation's messages, from 1.
	Seq       int64  `json:"seq"`
	Role      string `json:"role" ts_type:"Role"`
	Content   string `json:"content"`
	Reasoning string `json:"reasoning"`
	// ToolCalls is the JSON array of calls an assistant message made; nil
	// for none.
	ToolCalls json.RawMessage `json:"toolCalls" ts_type:"llm.ToolCall[] | null"`
	// ToolCallID names the call a tool message answers.
	ToolCallID string `json:"toolCallId"`
	// Status is one of the Status constants; empty means StatusDone.
	Status string `json:"status" ts_type:"MessageStatus"`
	Error  string `json:"error"`
	// Meta is JSON about the reply (package chat's ReplyMeta); nil for none.
	Meta json.RawMessage `json:"meta" ts_type:"chat.ReplyMeta | null"`
	// Attachments are the files, images and resources of a user message;
	// nil for none.
	Attachments []Attachment `json:"attachments,omitempty"`
	CreatedAt   time.Time    `json:"createdAt" ts_type:"string"`
	UpdatedAt   time.Time    `json:"updatedAt" ts_type:"string"`
}

const messageColumns = `id, conversation_id, seq, role, content, reasoning, tool_calls, tool_call_id, status, error, meta, attachments, created_at, updated_at`

// AppendMessage adds m at the end of its conversation (the next seq) and
// marks the conversation updated, in one transaction. It returns m as
// stored. ErrNotFound if the conversation does not exist.
func (s *Store) AppendMessage(ctx context.Context, m Message) (Message, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Message{}, fmt.Errorf("appending message: %w", err)
	}
	defer tx.Rollback()
	if m, err = s.appendMessage(ctx, tx, m); err != nil {
		return Message{}, err
	}
	if err := tx.Commit(); err != nil {
		return Message{}, fmt.Errorf("appending message: %w", err)
	}
	return m, nil
}

// appendMessage is AppendMessage's work inside tx.
func (s *Store) appendMessage(ctx context.Context, tx *sql.Tx, m Message) (Message, error) {
	if m.Status == "" {
		m.Status = StatusDone
	}
	ts := now()
	res, err := s.exec(ctx, tx, `UPDATE conversations SET updated_at = ? WHERE id = ?`, ts, m.ConversationID)
	if err != nil {
		return Message{}, fmt.Errorf("appending message: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Message{}, fmt.Errorf("conversation %s: %w", m.ConversationID, ErrNotFound)
	}
	err = s.queryRow(ctx, tx, `INSERT INTO messages(conversation_id, seq, role, content, reasoning, tool_calls, tool_call_id, status, error, meta, attachments, created_at, updated_at)
		SELECT ?, coalesce(max(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM messages WHERE conversation_id = ?
		RETURNING id, seq`,
		m.ConversationID, m.Role, m.Content, m.Reasoning, nullJSON(m.ToolCalls), nullEmpty(m.ToolCallID),
		m.Status, m.Error, nullJSON(m.Meta), attachmentsJSON(m.Attachments), ts, ts, m.ConversationID).Scan(&m.ID, &m.Seq)
	if err != nil {
		return Message{}, fmt.Errorf("appending message: %w", err)
	}
	m.CreatedAt, m.UpdatedAt = fromMillis(ts), fromMillis(ts)
	return m, nil
}

// UpdateStreaming saves the text of a message that is still arriving. It
// is called several times a second and writes only these columns.
func (s *Store) UpdateStreaming(ctx context.Context, id int64, content, reasoning string) error {
	_, err := s.exec(ctx, nil, `UPDATE messages SET content = ?, reasoning = ?, updated_at = ? WHERE id = ?`,
		content, reasoning, now(), id)
	if err != nil {
		return fmt.Errorf("saving message %d: %w", id, err)
	}
	return nil
}

// UpdateMessage saves m's content, reasoning, tool calls, status, error and
// meta (the message is found by m.ID) and returns it as stored.
func (s *Store) UpdateMessage(ctx context.Context, m Message) (Message, error) {
	if m.Status == "" {
		m.Status = StatusDone
	}
	row := s.db.QueryRowContext(ctx, `UPDATE messages SET content = ?, reasoning = ?, tool_calls = ?, status = ?, error = ?, meta = ?, updated_at = ?
		WHERE id = ? RETURNING `+messageColumns,
		m.Content, m.Reasoning, nullJSON(m.ToolCalls), m.Status, m.Error, nullJSON(m.Meta), now(), m.ID)
	out, err := scanMessage(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("message %d: %w", m.ID, ErrNotFound)
	}
	if err != nil {
		return Message{}, fmt.Errorf("saving message %d: %w", m.ID, err)
	}
	return out, nil
}

// ToolReply returns the tool message that answers call callID of
// assistant message msgID: the first one after it that names the call;
// ErrNotFound if there is none.
func (s *Store) ToolReply(ctx context.Context, convID string, msgID int64, callID string) (Message, error) {
	m, err := scanMessage(s.db.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE conversation_id = ? AND role = ? AND tool_call_id = ? AND seq > (SELECT seq FROM messages WHERE id = ?)
		ORDER BY seq LIMIT 1`, convID, RoleTool, callID, msgID))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("the reply to tool call %s: %w", callID, ErrNotFound)
	}
	return m, err
}

// Message returns the message id; ErrNotFound if there is none.
func (s *Store) Message(ctx context.Context, id int64) (Message, error) {
	m, err := scanMessage(s.db.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("message %d: %w", id, ErrNotFound)
	}
	return m, err
}

// MessageAt returns the message at seq of a conversation; ErrNotFound if
// there is none.
func (s *Store) MessageAt(ctx context.Context, convID string, seq int64) (Message, error) {
	m, err := scanMessage(s.db.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE conversation_id = ? AND seq = ?`, convID, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("message %d of conversation %s: %w", seq, convID, ErrNotFound)
	}
	return m, err
}

// A MessagePage selects a window of a conversation's messages.
type MessagePage struct {
	// BeforeSeq takes messages with a smaller seq; zero means from the end.
	BeforeSeq int64
	// Limit is the most messages returned; zero means all.
	Limit int
}

// Messages returns a conversation's messages in seq order: the last
// p.Limit before p.BeforeSeq. Opening a long conversation takes the last
// page; scrolling up asks for the page before the first seq shown. It
// reads through the (conversation_id, seq) index, so a page costs the same
// at any length.
func (s *Store) Messages(ctx context.Context, convID string, p MessagePage) ([]Message, error) {
	before := p.BeforeSeq
	if before <= 0 {
		before = 1<<63 - 1
	}
	limit := p.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, convID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("reading messages of %s: %w", convID, err)
	}
	out, err := collect(rows, scanMessage)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// DeleteMessagesAfter deletes a conversation's messages with a seq greater
// than seq (for regenerate and edit-and-resend) and returns how many went.
// Their tool-call records stay, detached, as the audit of what ran.
func (s *Store) DeleteMessagesAfter(ctx context.Context, convID string, seq int64) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM messages WHERE conversation_id = ? AND seq > ?`, convID, seq)
	if err != nil {
		return 0, fmt.Errorf("deleting messages of %s: %w", convID, err)
	}
	return res.RowsAffected()
}

// EditMessage replaces the content of the message at seq and deletes every
// later message, in one transaction, and returns the edited message. The
// message keeps its attachments.
func (s *Store) EditMessage(ctx context.Context, convID string, seq int64, content string) (Message, error) {
	return s.editMessage(ctx, convID, seq, content, false, nil)
}

// ReplaceMessage is EditMessage that also replaces the message's
// attachments (nil for none).
func (s *Store) ReplaceMessage(ctx context.Context, convID string, seq int64, content string, attachments []Attachment) (Message, error) {
	return s.editMessage(ctx, convID, seq, content, true, attachments)
}

func (s *Store) editMessage(ctx context.Context, convID string, seq int64, content string, replace bool, attachments []Attachment) (Message, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Message{}, fmt.Errorf("editing message: %w", err)
	}
	defer tx.Rollback()
	ts := now()
	m, err := scanMessage(tx.QueryRowContext(ctx, `UPDATE messages SET content = ?, updated_at = ?,
		attachments = CASE WHEN ? THEN ? ELSE attachments END
		WHERE conversation_id = ? AND seq = ? RETURNING `+messageColumns, content, ts, replace, attachmentsJSON(attachments), convID, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("message %d of conversation %s: %w", seq, convID, ErrNotFound)
	}
	if err != nil {
		return Message{}, fmt.Errorf("editing message: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE conversation_id = ? AND seq > ?`, convID, seq); err != nil {
		return Message{}, fmt.Errorf("editing message: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ? WHERE id = ?`, ts, convID); err != nil {
		return Message{}, fmt.Errorf("editing message: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Message{}, fmt.Errorf("editing message: %w", err)
	}
	return m, nil
}

func scanMessage(r scanner) (Message, error) {
	var m Message
	var toolCalls, toolCallID, meta, attachments sql.NullString
	var created, updated int64
	err := r.Scan(&m.ID, &m.ConversationID, &m.Seq, &m.Role, &m.Content, &m.Reasoning, &toolCalls, &toolCallID,
		&m.Status, &m.Error, &meta, &attachments, &created, &updated)
	if err != nil {
		return Message{}, err
	}
	if toolCalls.Valid {
		m.ToolCalls = json.RawMessage(toolCalls.String)
	}
	if meta.Valid {
		m.Meta = json.RawMessage(meta.String)
	}
	m.ToolCallID = toolCallID.String
	m.Attachments = parseAttachments(attachments)
	m.CreatedAt, m.UpdatedAt = fromMillis(created), fromMillis(updated)
	return m, nil
}

func nullEmpty(s string) sql.NullString {
	return sql.NullString{String: s, Valid: s != ""}
}

// InterruptedError is the error given to replies that were still streaming
// when the app stopped.
const InterruptedError = "The app closed before this reply finished; press Retry to ask again."

// MarkInterrupted ends what a crash or a kill left running: replies still
// streaming keep their saved text and get status error with
// InterruptedError, and tool calls still pending or running become
// cancelled, except those a server runs as a task (followed again, or
// landed, by the tasks tracker). Call it once at startup, before any run; it returns
// how many replies it marked.
func (s *Store) MarkInterrupted(ctx context.Context) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("marking interrupted replies: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, error = ?, updated_at = ? WHERE status = ?`,
		StatusError, InterruptedError, now(), StatusStreaming)
	if err != nil {
		return 0, fmt.Errorf("marking interrupted replies: %w", err)
	}
	n, _ := res.RowsAffected()
	// A call the server runs as a task is the task's to end: it is
	// followed again, or, ended, its result lands.
	if _, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = ?, error = ? WHERE status IN (?, ?)
		AND id NOT IN (SELECT tool_call_id FROM tasks WHERE tool_call_id != '')`,
		CallCancelled, "the app closed before the call finished", CallPending, CallRunning); err != nil {
		return 0, fmt.Errorf("marking interrupted tool calls: %w", err)
	}
	return n, tx.Commit()
}

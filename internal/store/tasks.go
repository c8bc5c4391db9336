package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrDuplicateTask is returned (wrapped) by InsertTask when the server's
// task is already recorded: a server's task IDs are unique to it.
var ErrDuplicateTask = errors.New("this server's task is already recorded")

// A Task is the record of a task (io.modelcontextprotocol/tasks) a server
// runs for a tool call, kept so that polling resumes after a restart. It
// holds what the server said, never a secret.
type Task struct {
	// ID is the record's own ID; TaskID is the server's, unique per server.
	ID         string `json:"id"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	TaskID     string `json:"taskId"`
	// ToolCallID is the tool-call audit record the task answers; empty if
	// none.
	ToolCallID string `json:"toolCallId"`
	// ConversationID is empty for a task run outside a conversation. A
	// task is deleted with its conversation.
	ConversationID string `json:"conversationId"`
	// Tool is the tool's exposed (namespaced) name.
	Tool string `json:"tool"`
	// Status is one of the extension's statuses (mcpconn.TaskWorking, ...).
	Status        string `json:"status" ts_type:"mcpconn.TaskStatus"`
	StatusMessage string `json:"statusMessage"`
	// Result is the call's result as JSON once the task completed; nil
	// until then.
	Result json.RawMessage `json:"result" ts_type:"mcpconn.Result | null"`
	// Error says why a failed task failed; empty otherwise.
	Error string `json:"error"`
	// PollIntervalMs and TTLMs are the server's last word; zero when it
	// gave none (TTLMs zero: no limit).
	PollIntervalMs int64     `json:"pollIntervalMs"`
	TTLMs          int64     `json:"ttlMs"`
	CreatedAt      time.Time `json:"createdAt" ts_type:"string"`
	UpdatedAt      time.Time `json:"updatedAt" ts_type:"string"`
	// EndedAt is when the task reached a terminal status; zero (absent)
	// while it runs.
	EndedAt time.Time `json:"endedAt,omitzero,omitempty" ts_type:"string"` // omitempty: optional in TypeScript
}

// Ended reports whether the task reached a terminal status.
func (t Task) Ended() bool { return !t.EndedAt.IsZero() }

const taskColumns = `id, server_id, server_name, task_id, tool_call_id, conversation_id, tool, status, status_message,
	result, error, poll_interval_ms, ttl_ms, created_at, updated_at, ended_at`

// InsertTask records a new task and returns it as stored. An empty ID gets
// a new one; a zero CreatedAt or UpdatedAt means now. A task already
// recorded for the same server and task ID is refused with
// ErrDuplicateTask.
func (s *Store) InsertTask(ctx context.Context, t Task) (Task, error) {
	if t.ID == "" {
		t.ID = NewID()
	}
	ts := fromMillis(now())
	if t.CreatedAt.IsZero() {
		t.CreatedAt = ts
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = ts
	}
	_, err := s.exec(ctx, nil, `INSERT INTO tasks(`+taskColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.ServerID, t.ServerName, t.TaskID, t.ToolCallID, nullID(t.ConversationID), t.Tool, t.Status, t.StatusMessage,
		nullJSON(t.Result), t.Error, t.PollIntervalMs, t.TTLMs, millis(t.CreatedAt), millis(t.UpdatedAt), millis(t.EndedAt))
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return Task{}, fmt.Errorf("recording task %s of %s: %w", t.TaskID, t.ServerName, ErrDuplicateTask)
		}
		return Task{}, fmt.Errorf("recording task %s of %s: %w", t.TaskID, t.ServerName, err)
	}
	return t, nil
}

// UpdateTask saves what changes over a task's life (status, message,
// result, error, poll interval, TTL, UpdatedAt, EndedAt) to the record
// t.ID; ErrNotFound if there is none (its conversation was deleted).
func (s *Store) UpdateTask(ctx context.Context, t Task) error {
	res, err := s.exec(ctx, nil, `UPDATE tasks SET status = ?, status_message = ?, result = ?, error = ?,
		poll_interval_ms = ?, ttl_ms = ?, updated_at = ?, ended_at = ? WHERE id = ?`,
		t.Status, t.StatusMessage, nullJSON(t.Result), t.Error, t.PollIntervalMs, t.TTLMs,
		millis(t.UpdatedAt), millis(t.EndedAt), t.ID)
	if err != nil {
		return fmt.Errorf("updating task %s: %w", t.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("task %s: %w", t.ID, ErrNotFound)
	}
	return nil
}

// Task returns the record id; ErrNotFound if there is none.
func (s *Store) Task(ctx context.Context, id string) (Task, error) {
	t, err := scanTask(s.queryRow(ctx, nil, `SELECT `+taskColumns+` FROM tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	return t, err
}

// TaskByToolCall returns the task that answers the tool-call record
// toolCallID; ErrNotFound if there is none.
func (s *Store) TaskByToolCall(ctx context.Context, toolCallID string) (Task, error) {
	if toolCallID == "" {
		return Task{}, fmt.Errorf("task of no tool call: %w", ErrNotFound)
	}
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE tool_call_id = ?
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, toolCallID))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("task of tool call %s: %w", toolCallID, ErrNotFound)
	}
	return t, err
}

// A TaskFilter selects the tasks Tasks returns. Its zero value selects the
// newest 200 of every conversation.
type TaskFilter struct {
	// Active keeps only the tasks that have not ended.
	Active bool `json:"active"`
	// ConversationID keeps only that conversation's tasks; empty means all.
	ConversationID string `json:"conversationId"`
	// Limit bounds the number of tasks: zero means 200, and it is at most
	// 1000.
	Limit int `json:"limit"`
}

// Bounds of TaskFilter.Limit.
const (
	DefaultTaskLimit = 200
	MaxTaskLimit     = 1000
)

// Tasks returns the tasks f selects, newest first.
func (s *Store) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	var where []string
	var args []any
	if f.Active {
		where = append(where, `ended_at = 0`)
	}
	if f.ConversationID != "" {
		where = append(where, `conversation_id = ?`)
		args = append(args, f.ConversationID)
	}
	limit := clampLimit(f.Limit, DefaultTaskLimit, MaxTaskLimit)
	q := `SELECT ` + taskColumns + ` FROM tasks` + whereAll(where)
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY created_at DESC, rowid DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("reading tasks: %w", err)
	}
	return collect(rows, scanTask)
}

// UnlandedTasks returns the tasks that ended while their tool call still
// shows running: their end was saved, but the app stopped before it
// reached the conversation.
func (s *Store) UnlandedTasks(ctx context.Context) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks
		WHERE ended_at != 0 AND tool_call_id IN (SELECT id FROM tool_calls WHERE status = ?) ORDER BY created_at`, CallRunning)
	if err != nil {
		return nil, fmt.Errorf("reading ended tasks: %w", err)
	}
	return collect(rows, scanTask)
}

// nullID stores an empty reference as NULL, which a foreign key lets be.
func nullID(id string) sql.NullString {
	return sql.NullString{String: id, Valid: id != ""}
}

func scanTask(r scanner) (Task, error) {
	var t Task
	var conv, result sql.NullString
	var created, updated, ended int64
	err := r.Scan(&t.ID, &t.ServerID, &t.ServerName, &t.TaskID, &t.ToolCallID, &conv, &t.Tool, &t.Status, &t.StatusMessage,
		&result, &t.Error, &t.PollIntervalMs, &t.TTLMs, &created, &updated, &ended)
	if err != nil {
		return Task{}, err
	}
	t.ConversationID = conv.String
	if result.Valid {
		t.Result = json.RawMessage(result.String)
	}
	t.CreatedAt, t.UpdatedAt, t.EndedAt = fromMillis(created), fromMillis(updated), fromMillis(ended)
	return t, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// A Watcher tells cheaply whether anything was committed to the database
// since it last looked, by another connection of this process or by
// another process (SQLite's PRAGMA data_version on a connection of its
// own). A `switchboard mcp serve` process uses it to notice what the
// window changes: polling is the only way across processes. Close it.
type Watcher struct {
	conn *sql.Conn
	last int64
}

// Watch opens a Watcher; its first Changed reports true.
func (s *Store) Watch(ctx context.Context) (*Watcher, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("watching the database: %w", err)
	}
	return &Watcher{conn: conn, last: -1}, nil
}

// Changed reports whether anything was committed since the last call
// (true the first time, and when the check fails, so that a caller looks
// rather than miss a change).
func (w *Watcher) Changed(ctx context.Context) bool {
	var v int64
	if err := w.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return true
	}
	changed := v != w.last
	w.last = v
	return changed
}

// Close gives the Watcher's connection back; safe to call twice.
func (w *Watcher) Close() error {
	if w == nil || w.conn == nil {
		return nil
	}
	err := w.conn.Close()
	w.conn = nil
	return err
}

// ConversationVersion returns a value that changes whenever the
// conversation id changes: a message added, saved (a streaming reply's
// text, its end), edited or deleted, or the conversation renamed.
// ErrNotFound once the conversation is gone. It reads through the
// (conversation_id, seq) index: the cost grows with the conversation, not
// with the database.
func (s *Store) ConversationVersion(ctx context.Context, id string) (string, error) {
	var updated, latest, count, maxID int64
	var title string
	err := s.queryRow(ctx, nil, `SELECT c.updated_at, c.title,
			coalesce(max(m.updated_at), 0), count(m.id), coalesce(max(m.id), 0)
		FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id
		WHERE c.id = ? GROUP BY c.id`, id).Scan(&updated, &title, &latest, &count, &maxID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("reading conversation %s: %w", id, err)
	}
	return fmt.Sprintf("%d/%d/%d/%d/%d", updated, latest, count, maxID, len(title)) + title, nil
}

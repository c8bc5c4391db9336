package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Conversation is one chat.
type Conversation struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// ProviderID and Model pick who answers; empty means the app's default
	// provider and that provider's default model.
	ProviderID string `json:"providerId"`
	Model      string `json:"model"`
	// SystemPrompt overrides the default system prompt; nil means the
	// default, and a pointer to "" means no system prompt at all.
	SystemPrompt *string `json:"systemPrompt" ts_type:"string | null"`
	// Tools is the conversation's tool selection as JSON (package chat
	// defines its shape); nil means every enabled tool.
	Tools     json.RawMessage `json:"tools,omitempty" ts_type:"chat.ToolSelection | null"`
	CreatedAt time.Time       `json:"createdAt" ts_type:"string"`
	UpdatedAt time.Time       `json:"updatedAt" ts_type:"string"`
	// Pinned keeps the conversation at the top of the list; Archived takes
	// it out of the list (it stays searchable and can be opened).
	// Pinning or archiving does not change UpdatedAt.
	Pinned   bool `json:"pinned,omitempty"`
	Archived bool `json:"archived,omitempty"`
}

const conversationColumns = `id, title, provider_id, model, system_prompt, tools, created_at, updated_at, pinned, archived`

// NewID returns a random ID for a conversation or a tool-call record.
func NewID() string { return rand.Text() }

// CreateConversation stores c and returns it as stored. An empty ID gets a
// new one; CreatedAt and UpdatedAt are set to now.
func (s *Store) CreateConversation(ctx context.Context, c Conversation) (Conversation, error) {
	if c.ID == "" {
		c.ID = NewID()
	}
	ts := now()
	c.CreatedAt, c.UpdatedAt = fromMillis(ts), fromMillis(ts)
	_, err := s.db.ExecContext(ctx, `INSERT INTO conversations(`+conversationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Title, c.ProviderID, c.Model, nullString(c.SystemPrompt), nullJSON(c.Tools), ts, ts, c.Pinned, c.Archived)
	if err != nil {
		return Conversation{}, fmt.Errorf("creating conversation: %w", err)
	}
	return c, nil
}

// Conversation returns the conversation id; ErrNotFound if there is none.
func (s *Store) Conversation(ctx context.Context, id string) (Conversation, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id)
	c, err := scanConversation(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	return c, err
}

// ErrAmbiguous is returned (wrapped) by ConversationByPrefix when more
// than one conversation's ID starts with the prefix.
var ErrAmbiguous = errors.New("more than one conversation matches")

// ConversationByPrefix returns the conversation whose ID is idOrPrefix or,
// failing that, the only one whose ID starts with it (ignoring ASCII
// case); ErrNotFound if none does, ErrAmbiguous if several do.
func (s *Store) ConversationByPrefix(ctx context.Context, idOrPrefix string) (Conversation, error) {
	if idOrPrefix == "" {
		return Conversation{}, fmt.Errorf("conversation with no ID: %w", ErrNotFound)
	}
	if c, err := s.Conversation(ctx, idOrPrefix); !errors.Is(err, ErrNotFound) {
		return c, err
	}
	like := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(idOrPrefix) + "%"
	rows, err := s.db.QueryContext(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE id LIKE ? ESCAPE '\' ORDER BY id LIMIT 2`, like)
	if err != nil {
		return Conversation{}, fmt.Errorf("finding conversation %s: %w", idOrPrefix, err)
	}
	found, err := collect(rows, scanConversation)
	switch {
	case err != nil:
		return Conversation{}, fmt.Errorf("finding conversation %s: %w", idOrPrefix, err)
	case len(found) == 0:
		return Conversation{}, fmt.Errorf("conversation %s: %w", idOrPrefix, ErrNotFound)
	case len(found) > 1:
		return Conversation{}, fmt.Errorf("conversation %s: %w; give more of its ID", idOrPrefix, ErrAmbiguous)
	}
	return found[0], nil
}

// ListConversations returns up to limit conversations, archived ones
// included, most recently updated first, skipping the first offset.
// limit <= 0 means all.
func (s *Store) ListConversations(ctx context.Context, limit, offset int) ([]Conversation, error) {
	return s.listConversations(ctx, "", "updated_at DESC, id", limit, offset)
}

// A Shelf is which conversations ListShelf returns.
type Shelf int

const (
	// ShelfActive is the conversations not archived, pinned ones first.
	ShelfActive Shelf = iota
	// ShelfArchived is the archived conversations, most recently updated
	// first.
	ShelfArchived
)

// ListShelf returns up to limit conversations of shelf, skipping the first
// offset; limit <= 0 means all.
func (s *Store) ListShelf(ctx context.Context, shelf Shelf, limit, offset int) ([]Conversation, error) {
	if shelf == ShelfArchived {
		return s.listConversations(ctx, "WHERE archived <> 0", "updated_at DESC, id", limit, offset)
	}
	return s.listConversations(ctx, "WHERE archived = 0", "pinned DESC, updated_at DESC, id", limit, offset)
}

func (s *Store) listConversations(ctx context.Context, where, order string, limit, offset int) ([]Conversation, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+conversationColumns+` FROM conversations
		`+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`, limit, max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("listing conversations: %w", err)
	}
	return collect(rows, scanConversation)
}

// PinConversation pins (true) or unpins the conversation. Its UpdatedAt
// stays: pinning is not a change to the chat.
func (s *Store) PinConversation(ctx context.Context, id string, pinned bool) error {
	return s.flagConversation(ctx, id, "pinned", pinned)
}

// ArchiveConversation archives (true) or unarchives the conversation;
// its pin stays, for when it comes back. UpdatedAt stays too.
func (s *Store) ArchiveConversation(ctx context.Context, id string, archived bool) error {
	return s.flagConversation(ctx, id, "archived", archived)
}

// flagConversation sets one of the 0/1 columns pinned and archived.
func (s *Store) flagConversation(ctx context.Context, id, column string, on bool) error {
	res, err := s.db.ExecContext(ctx, `UPDATE conversations SET `+column+` = ? WHERE id = ?`, on, id)
	if err != nil {
		return fmt.Errorf("updating conversation %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	return nil
}

// RenameConversation sets the title.
func (s *Store) RenameConversation(ctx context.Context, id, title string) error {
	return s.updateConversation(ctx, id, "title = ?", title)
}

// SetConversationModel sets who answers: providerID and model ("" for the
// defaults).
func (s *Store) SetConversationModel(ctx context.Context, id, providerID, model string) error {
	return s.updateConversation(ctx, id, "provider_id = ?, model = ?", providerID, model)
}

// SetSystemPrompt sets the conversation's system prompt; nil restores the
// default.
func (s *Store) SetSystemPrompt(ctx context.Context, id string, prompt *string) error {
	return s.updateConversation(ctx, id, "system_prompt = ?", nullString(prompt))
}

// SetConversationTools stores the tool selection JSON; nil restores the
// default (every enabled tool). Invalid JSON is refused.
func (s *Store) SetConversationTools(ctx context.Context, id string, tools json.RawMessage) error {
	if tools != nil && !json.Valid(tools) {
		return fmt.Errorf("conversation %s: tool selection is not valid JSON", id)
	}
	return s.updateConversation(ctx, id, "tools = ?", nullJSON(tools))
}

// DeleteConversation deletes the conversation with its messages and
// tool-call records; deleting one that does not exist is not an error.
func (s *Store) DeleteConversation(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deleting conversation %s: %w", id, err)
	}
	return nil
}

func (s *Store) updateConversation(ctx context.Context, id, set string, args ...any) error {
	args = append(args, now(), id)
	res, err := s.db.ExecContext(ctx, `UPDATE conversations SET `+set+`, updated_at = ? WHERE id = ?`, args...)
	if err != nil {
		return fmt.Errorf("updating conversation %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

// collect reads every row with scan and closes rows; never a nil slice.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func scanConversation(r scanner) (Conversation, error) {
	var c Conversation
	var prompt, tools sql.NullString
	var created, updated int64
	if err := r.Scan(&c.ID, &c.Title, &c.ProviderID, &c.Model, &prompt, &tools, &created, &updated, &c.Pinned, &c.Archived); err != nil {
		return Conversation{}, err
	}
	if prompt.Valid {
		c.SystemPrompt = &prompt.String
	}
	if tools.Valid {
		c.Tools = json.RawMessage(tools.String)
	}
	c.CreatedAt, c.UpdatedAt = fromMillis(created), fromMillis(updated)
	return c, nil
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func nullString(p *string) sql.NullString {
	if p == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *p, Valid: true}
}

func nullJSON(raw json.RawMessage) sql.NullString {
	if raw == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: string(raw), Valid: true}
}

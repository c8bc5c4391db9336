package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// A SearchHit is one message matching a search.
type SearchHit struct {
	MessageID         int64     `json:"messageId"`
	ConversationID    string    `json:"conversationId"`
	ConversationTitle string    `json:"conversationTitle"`
	Seq               int64     `json:"seq"`
	Role              string    `json:"role" ts_type:"Role"`
	CreatedAt         time.Time `json:"createdAt" ts_type:"string"`
	// Snippet is the matching passage, split into parts so that the UI can
	// highlight matches without parsing markup out of message text.
	Snippet []SnippetPart `json:"snippet"`
}

// A SnippetPart is a piece of a snippet; Match marks a matched term.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// Highlight markers given to snippet(): private-use characters that message
// text practically never holds.
const (
	markOpen  = "\uE000"
	markClose = "\uE001"
)

// DefaultSearchLimit is the number of hits Search returns when asked for
// none in particular.
const DefaultSearchLimit = 50

// RankLimit is the most matches Search ranks by relevance; a search with
// more shows the newest matches first.
const RankLimit = 2000

// Search finds user and assistant messages containing every word of text
// (the last one also as a prefix, for search-as-you-type), best first.
// Words are quoted before they reach FTS5, so no input is a syntax error;
// text without any word returns no hits. limit <= 0 means
// DefaultSearchLimit.
func (s *Store) Search(ctx context.Context, text string, limit int) ([]SearchHit, error) {
	return s.search(ctx, text, limit, "")
}

// search is Search with where, when not empty, a further condition on the
// message m (with its arguments args) that the query applies before
// counting, ranking and cutting snippets.
func (s *Store) search(ctx context.Context, text string, limit int, where string, args ...any) ([]SearchHit, error) {
	q := FTSQuery(text)
	if q == "" {
		return []SearchHit{}, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	// Ranking costs bm25 for every match before the LIMIT: cheap for a
	// rare word, tens of milliseconds for one in a quarter of 100,000
	// messages. Past RankLimit matches the newest come first instead.
	order := "rank"
	count := `SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)`
	countArgs := []any{q, RankLimit + 1}
	if where != "" {
		where = " AND " + where
		count = `SELECT count(*) FROM (SELECT 1 FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
			WHERE messages_fts MATCH ?` + where + ` LIMIT ?)`
		countArgs = append(append([]any{q}, args...), RankLimit+1)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, count, countArgs...).Scan(&n); err != nil {
		return nil, fmt.Errorf("searching for %q: %w", text, err)
	}
	if n > RankLimit {
		order = "messages_fts.rowid DESC"
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT m.id, m.conversation_id, c.title, m.seq, m.role, m.created_at,
			snippet(messages_fts, 0, ?, ?, '…', 16)
		FROM messages_fts
		JOIN messages m ON m.id = messages_fts.rowid
		JOIN conversations c ON c.id = m.conversation_id
		WHERE messages_fts MATCH ?`+where+`
		ORDER BY `+order+`
		LIMIT ?`, append(append([]any{markOpen, markClose, q}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("searching for %q: %w", text, err)
	}
	defer rows.Close()
	out := []SearchHit{}
	for rows.Next() {
		var h SearchHit
		var created int64
		var snippet string
		if err := rows.Scan(&h.MessageID, &h.ConversationID, &h.ConversationTitle, &h.Seq, &h.Role, &created, &snippet); err != nil {
			return nil, err
		}
		h.CreatedAt = fromMillis(created)
		h.Snippet = splitSnippet(snippet)
		out = append(out, h)
	}
	return out, rows.Err()
}

// FTSQuery turns what a user typed into an FTS5 query that is never a
// syntax error: each word becomes a quoted string (inner quotes doubled), so
// operators, column filters and parentheses are just text; the words are
// ANDed and the last is also matched as a prefix. Words with no letter or
// digit are dropped, since the tokenizer would drop them too. It returns ""
// when nothing is left.
func FTSQuery(text string) string {
	var terms []string
	for _, w := range strings.Fields(text) {
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			continue
		}
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	if len(terms) == 0 {
		return ""
	}
	terms[len(terms)-1] += "*"
	return strings.Join(terms, " ")
}

// splitSnippet cuts a snippet with markers into parts.
func splitSnippet(s string) []SnippetPart {
	parts := []SnippetPart{}
	for s != "" {
		i := strings.Index(s, markOpen)
		if i < 0 {
			parts = append(parts, SnippetPart{Text: s})
			break
		}
		if i > 0 {
			parts = append(parts, SnippetPart{Text: s[:i]})
		}
		s = s[i+len(markOpen):]
		j := strings.Index(s, markClose)
		if j < 0 {
			j = len(s)
		}
		if j > 0 {
			parts = append(parts, SnippetPart{Text: s[:j], Match: true})
		}
		s = strings.TrimPrefix(s[j:], markClose)
	}
	return parts
}

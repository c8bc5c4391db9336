package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Who says who let a tool call run or stopped it, in the words of the Tool
// activity view: the audit record's decision and decided_by read
// together (decided_by "policy" alone does not say whether a grant, yolo or
// the read-only setting allowed the call).
const (
	WhoUser     = "user"      // the user answered the prompt
	WhoAlways   = "always"    // an "always allow" grant of the tool
	WhoYolo     = "yolo"      // "allow all" was on
	WhoReadOnly = "read-only" // the server's read-only tools run unasked
	WhoApp      = "app-grant" // a tool the user allowed for a connected app
	WhoGuard    = "guard"     // the lethal-trifecta guard asked (or refused with nobody to ask)
	WhoSystem   = "system"    // cancelled: Stop, a closed conversation, quit
	WhoNone     = "none"      // no decision: the call failed before one, or waits
)

// Whos lists every Who (the frontend's contract is generated from it).
var Whos = []string{WhoUser, WhoAlways, WhoYolo, WhoReadOnly, WhoApp, WhoGuard, WhoSystem, WhoNone}

// whoConds are the SQL conditions on tool_calls tc of each Who. The words
// are approval's Decision and DecidedBy values (store imports no other
// package of the app; core's test checks that every pair maps).
var whoConds = map[string]string{
	WhoUser:     `tc.decided_by = 'user'`,
	WhoAlways:   `tc.decided_by = 'policy' AND tc.decision = 'allow_always'`,
	WhoYolo:     `tc.decided_by = 'policy' AND tc.decision = 'allow_all'`,
	WhoReadOnly: `tc.decided_by = 'policy' AND tc.decision = 'allow_read_only'`,
	WhoApp:      `tc.decided_by = 'policy' AND tc.decision NOT IN ('allow_always', 'allow_all', 'allow_read_only')`,
	WhoGuard:    `tc.decided_by = 'guard'`,
	WhoSystem:   `tc.decided_by = 'system'`,
	WhoNone:     `tc.decided_by = ''`,
}

// WhoOf maps an audit record's decision and decided_by to a Who; it
// agrees with the conditions ActivityFilter.Who applies.
func WhoOf(decision, decidedBy string) string {
	switch decidedBy {
	case "user":
		return WhoUser
	case "policy":
		switch decision {
		case "allow_always":
			return WhoAlways
		case "allow_all":
			return WhoYolo
		case "allow_read_only":
			return WhoReadOnly
		}
		return WhoApp
	case "guard":
		return WhoGuard
	case "system":
		return WhoSystem
	case "":
		return WhoNone
	}
	return decidedBy
}

// ActivityPreview is how many characters of a call's arguments and error a
// page of activity carries; Activity with Full carries them whole.
const ActivityPreview = 240

// DefaultActivityLimit and MaxActivityLimit bound a page of activity.
const (
	DefaultActivityLimit = 100
	MaxActivityLimit     = 1000
)

// An ActivityFilter chooses tool calls across all conversations. Zero
// fields do not filter.
type ActivityFilter struct {
	ServerID string `json:"serverId,omitempty"`
	// Tool is the server's own name of the tool.
	Tool   string `json:"tool,omitempty"`
	Who    string `json:"who,omitempty" ts_type:"Who"`
	Status string `json:"status,omitempty" ts_type:"CallStatus"`
	// Since and Until bound when the call was requested: Since <= t < Until.
	Since time.Time `json:"since,omitzero,omitempty" ts_type:"string"`
	Until time.Time `json:"until,omitzero,omitempty" ts_type:"string"`
	// Query keeps calls whose tool name, arguments, result text or error
	// hold every word (the last also as a prefix), as Search does.
	Query string `json:"query,omitempty"`
	// Cursor is an ActivityPage's Next: the page after it.
	Cursor string `json:"cursor,omitempty"`
	// Limit is the most rows of a page; 0 means DefaultActivityLimit, and
	// more than MaxActivityLimit means MaxActivityLimit.
	Limit int `json:"limit,omitempty"`
}

// An ActivityRow is one tool call as the Tool activity view lists it.
type ActivityRow struct {
	ID                string `json:"id"`
	ConversationID    string `json:"conversationId"`
	ConversationTitle string `json:"conversationTitle"`
	// MessageID is the assistant message that made the call; zero for a
	// view's call or once the message was deleted.
	MessageID  int64  `json:"messageId"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	Tool       string `json:"tool"`
	// Arguments are the first ActivityPreview characters of the JSON the
	// model produced (whole when the page was asked Full).
	Arguments string `json:"arguments"`
	Status    string `json:"status" ts_type:"CallStatus"`
	Decision  string `json:"decision"`
	DecidedBy string `json:"decidedBy"`
	Who       string `json:"who" ts_type:"Who"`
	IsError   bool   `json:"isError"`
	// Error is cut like Arguments.
	Error       string    `json:"error"`
	RequestedAt time.Time `json:"requestedAt" ts_type:"string"`
	DurationMs  int64     `json:"durationMs"`
	// ResultSize is the length in bytes of the result's JSON; 0 when the
	// call has none.
	ResultSize int64 `json:"resultSize"`
	// Result is the whole result, only in a Full page; nil otherwise.
	Result      json.RawMessage `json:"result,omitempty" ts_type:"unknown"`
	RequestedBy string          `json:"requestedBy,omitempty"`
}

// An ActivityPage is a page of tool calls, newest first.
type ActivityPage struct {
	Rows []ActivityRow `json:"rows"`
	// Next is the cursor of the next (older) page; empty at the end.
	Next string `json:"next,omitempty"`
}

// ErrBadFilter is returned (wrapped) for a filter with an unknown word or
// a malformed cursor.
var ErrBadFilter = errors.New("bad activity filter")

// activityProbeAbove is the number of matches of a search past which a
// page walks the calls newest first and keeps those among the matches,
// instead of fetching every match and sorting them all by time: a common
// word (half of 100,000 calls) then costs a set of row IDs and a short
// walk, not tens of thousands of rows read and sorted. Fewer matches are
// fetched and sorted, which beats walking every call for a rare word.
const activityProbeAbove = 2000

// where returns the filter's conditions on tool_calls tc, and their
// arguments. probe says how a query is matched (activityProbeAbove).
func (f ActivityFilter) where(probe bool) (string, []any, error) {
	var conds []string
	var args []any
	if f.ServerID != "" {
		conds, args = append(conds, `tc.server_id = ?`), append(args, f.ServerID)
	}
	if f.Tool != "" {
		conds, args = append(conds, `tc.tool = ?`), append(args, f.Tool)
	}
	if f.Who != "" {
		c, ok := whoConds[f.Who]
		if !ok {
			return "", nil, fmt.Errorf("%w: no decider %q; use one of %s", ErrBadFilter, f.Who, strings.Join(Whos, ", "))
		}
		conds = append(conds, "("+c+")")
	}
	if f.Status != "" {
		if !slices.Contains(CallStatuses, f.Status) {
			return "", nil, fmt.Errorf("%w: no status %q; use one of %s", ErrBadFilter, f.Status, strings.Join(CallStatuses, ", "))
		}
		conds, args = append(conds, `tc.status = ?`), append(args, f.Status)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, `tc.requested_at >= ?`), append(args, millis(f.Since))
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, `tc.requested_at < ?`), append(args, millis(f.Until))
	}
	if q := FTSQuery(f.Query); q != "" {
		match := `tc.rowid IN (SELECT rowid FROM tool_calls_fts WHERE tool_calls_fts MATCH ?)`
		if probe { // "+ 0": the matches are only looked up, never the rows fetched and sorted
			match = `tc.rowid + 0 IN (SELECT rowid FROM tool_calls_fts WHERE tool_calls_fts MATCH ?)`
		}
		conds, args = append(conds, match), append(args, q)
	}
	if f.Cursor != "" {
		at, rowid, ok := parseCursor(f.Cursor)
		if !ok {
			return "", nil, fmt.Errorf("%w: cursor %q is not one a page gave; start from the first page", ErrBadFilter, f.Cursor)
		}
		conds, args = append(conds, `(tc.requested_at < ? OR (tc.requested_at = ? AND tc.rowid < ?))`), append(args, at, at, rowid)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

// A cursor is "<requested_at ms>.<rowid>" of a page's last row.
func parseCursor(c string) (at, rowid int64, ok bool) {
	a, r, found := strings.Cut(c, ".")
	if !found {
		return 0, 0, false
	}
	at, err1 := strconv.ParseInt(a, 10, 64)
	rowid, err2 := strconv.ParseInt(r, 10, 64)
	return at, rowid, err1 == nil && err2 == nil
}

// Activity returns a page of the tool calls of every conversation that f
// keeps, newest first: the model's, views' and connected apps' calls
// alike. full carries arguments and error whole and the result (for an
// export); otherwise they are cut to ActivityPreview and the result is
// only measured.
func (s *Store) Activity(ctx context.Context, f ActivityFilter, full bool) (ActivityPage, error) {
	probe := false
	if q := FTSQuery(f.Query); q != "" {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM tool_calls_fts WHERE tool_calls_fts MATCH ? LIMIT ?)`,
			q, activityProbeAbove+1).Scan(&n); err != nil {
			return ActivityPage{}, fmt.Errorf("searching the tool activity for %q: %w", f.Query, err)
		}
		probe = n > activityProbeAbove
	}
	where, args, err := f.where(probe)
	if err != nil {
		return ActivityPage{}, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultActivityLimit
	}
	limit = min(limit, MaxActivityLimit)
	cols := `substr(tc.arguments, 1, ?), substr(tc.error, 1, ?), NULL`
	colArgs := []any{ActivityPreview, ActivityPreview}
	if full {
		cols, colArgs = `tc.arguments, tc.error, tc.result`, nil
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT tc.rowid, tc.id, tc.conversation_id, coalesce(c.title, ''), coalesce(tc.message_id, 0), tc.server_id, tc.server_name, tc.tool,
			`+cols+`, tc.status, tc.decision, tc.decided_by, tc.is_error, tc.requested_at, tc.duration_ms,
			coalesce(length(CAST(tc.result AS BLOB)), 0), tc.requested_by
		FROM tool_calls tc LEFT JOIN conversations c ON c.id = tc.conversation_id`+where+`
		ORDER BY tc.requested_at DESC, tc.rowid DESC
		LIMIT ?`, append(append(colArgs, args...), limit+1)...)
	if err != nil {
		return ActivityPage{}, fmt.Errorf("reading the tool activity: %w", err)
	}
	defer rows.Close()
	page := ActivityPage{Rows: []ActivityRow{}}
	var lastAt, lastRowid int64
	for rows.Next() {
		if len(page.Rows) == limit {
			page.Next = strconv.FormatInt(lastAt, 10) + "." + strconv.FormatInt(lastRowid, 10)
			break
		}
		var r ActivityRow
		var rowid, at int64
		var result sql.NullString
		if err := rows.Scan(&rowid, &r.ID, &r.ConversationID, &r.ConversationTitle, &r.MessageID, &r.ServerID, &r.ServerName, &r.Tool,
			&r.Arguments, &r.Error, &result, &r.Status, &r.Decision, &r.DecidedBy, &r.IsError, &at, &r.DurationMs,
			&r.ResultSize, &r.RequestedBy); err != nil {
			return ActivityPage{}, fmt.Errorf("reading the tool activity: %w", err)
		}
		if result.Valid {
			r.Result = json.RawMessage(result.String)
		}
		r.Who = WhoOf(r.Decision, r.DecidedBy)
		r.RequestedAt = fromMillis(at)
		lastAt, lastRowid = at, rowid
		page.Rows = append(page.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return ActivityPage{}, fmt.Errorf("reading the tool activity: %w", err)
	}
	return page, nil
}

// MaxActivityFacets bounds how many servers and tools ActivityFacets lists.
const MaxActivityFacets = 500

// ActivityFacets are the servers and tools that made calls, for the
// activity view's filters, most calls first.
type ActivityFacets struct {
	Servers []ActivityServer `json:"servers"`
	Tools   []ActivityTool   `json:"tools"`
	// Total is the number of calls recorded.
	Total int64 `json:"total"`
}

// An ActivityServer is a server that made calls, with its latest name.
type ActivityServer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
}

// An ActivityTool is a tool name that was called (on any server).
type ActivityTool struct {
	Tool  string `json:"tool"`
	Calls int64  `json:"calls"`
}

// ActivityFacets counts the calls of each server and tool, reading only
// the indexes, at most MaxActivityFacets of each.
func (s *Store) ActivityFacets(ctx context.Context) (ActivityFacets, error) {
	out := ActivityFacets{Servers: []ActivityServer{}, Tools: []ActivityTool{}}
	rows, err := s.db.QueryContext(ctx, `SELECT server_id, count(*) AS n FROM tool_calls INDEXED BY tool_calls_server
		GROUP BY server_id ORDER BY n DESC, server_id LIMIT ?`, MaxActivityFacets)
	if err != nil {
		return out, fmt.Errorf("counting the tool activity: %w", err)
	}
	servers, err := collect(rows, func(r scanner) (ActivityServer, error) {
		var a ActivityServer
		return a, r.Scan(&a.ID, &a.Calls)
	})
	if err != nil {
		return out, fmt.Errorf("counting the tool activity: %w", err)
	}
	for i := range servers {
		// The name it had last: one row through the index.
		err := s.db.QueryRowContext(ctx, `SELECT server_name FROM tool_calls WHERE server_id = ? ORDER BY requested_at DESC LIMIT 1`,
			servers[i].ID).Scan(&servers[i].Name)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return out, fmt.Errorf("counting the tool activity: %w", err)
		}
		out.Total += servers[i].Calls
	}
	out.Servers = servers
	rows, err = s.db.QueryContext(ctx, `SELECT tool, count(*) AS n FROM tool_calls INDEXED BY tool_calls_tool
		GROUP BY tool ORDER BY n DESC, tool LIMIT ?`, MaxActivityFacets)
	if err != nil {
		return out, fmt.Errorf("counting the tool activity: %w", err)
	}
	tools, err := collect(rows, func(r scanner) (ActivityTool, error) {
		var a ActivityTool
		return a, r.Scan(&a.Tool, &a.Calls)
	})
	if err != nil {
		return out, fmt.Errorf("counting the tool activity: %w", err)
	}
	out.Tools = tools
	if len(servers) == MaxActivityFacets { // more servers than listed: count them all
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM tool_calls`).Scan(&out.Total); err != nil {
			return out, fmt.Errorf("counting the tool activity: %w", err)
		}
	}
	return out, nil
}

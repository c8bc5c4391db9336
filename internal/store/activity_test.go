package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// activityCall records a finished call at minute min of a fixed day.
type activityCall struct {
	server, tool, args, result, errText string
	status, decision, decidedBy         string
	min                                 int
}

var activityDay = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func seedActivity(t *testing.T, s *Store, convID string, msgID int64, calls []activityCall) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, c := range calls {
		rec, err := s.InsertToolCall(ctx, ToolCall{ConversationID: convID, MessageID: msgID, ServerID: c.server, ServerName: "Server " + c.server,
			Tool: c.tool, Arguments: c.args, RequestedAt: activityDay.Add(time.Duration(c.min) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DecideToolCall(ctx, rec.ID, c.status, c.decision, c.decidedBy); err != nil {
			t.Fatal(err)
		}
		var res json.RawMessage
		if c.result != "" {
			res = json.RawMessage(c.result)
		}
		if err := s.FinishToolCall(ctx, rec.ID, ToolCallEnd{Status: c.status, Result: res, Error: c.errText, IsError: c.errText != "",
			Duration: time.Duration(c.min) * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	return ids
}

func activityTools(t *testing.T, s *Store, f ActivityFilter) []string {
	t.Helper()
	p, err := s.Activity(context.Background(), f, false)
	if err != nil {
		t.Fatalf("Activity(%+v): %v", f, err)
	}
	out := []string{}
	for _, r := range p.Rows {
		out = append(out, r.Tool)
	}
	return out
}

// TestActivityFilters: each filter keeps the calls it names, across
// conversations, newest first; full-text search reads the tool's name,
// the arguments, the text of the result (not its JSON keys) and the error.
func TestActivityFilters(t *testing.T) {
	s, _ := openTemp(t, nil)
	a, b := mustConversation(t, s, "Alpha"), mustConversation(t, s, "Beta")
	ma := mustAppend(t, s, a.ID, RoleAssistant, "")
	seedActivity(t, s, a.ID, ma.ID, []activityCall{
		{server: "fs", tool: "read_file", args: `{"path":"/etc/hosts"}`, result: `{"content":[{"type":"text","text":"127.0.0.1 localhost"}]}`,
			status: CallDone, decision: "allow_once", decidedBy: "user", min: 1},
		{server: "fs", tool: "write_file", args: `{"path":"/tmp/x","text":"quokka"}`, status: CallDenied, decision: "deny", decidedBy: "user", min: 2},
		{server: "web", tool: "fetch", args: `{"url":"https://example.com"}`, result: `{"content":[{"type":"text","text":"Example Domain"}],"structuredContent":{"title":"wombat"}}`,
			status: CallDone, decision: "allow_all", decidedBy: "policy", min: 3},
	})
	seedActivity(t, s, b.ID, 0, []activityCall{
		{server: "web", tool: "fetch", args: `{"url":"https://down.example"}`, errText: "connection refused by numbat",
			status: CallFailed, decision: "allow_always", decidedBy: "policy", min: 4},
		{server: "fs", tool: "list", args: `{}`, status: CallCancelled, decision: "cancelled", decidedBy: "system", min: 5},
		{server: "fs", tool: "stat", args: `{}`, result: `{"content":["not an object"]}`, status: CallDone, decision: "allow_read_only", decidedBy: "policy", min: 6},
		{server: "fs", tool: "grep", args: `not json`, result: `not json either`, status: CallDone, decision: "allow_once", decidedBy: "policy", min: 7},
	})

	for _, tc := range []struct {
		name string
		f    ActivityFilter
		want []string
	}{
		{"all, newest first", ActivityFilter{}, []string{"grep", "stat", "list", "fetch", "fetch", "write_file", "read_file"}},
		{"server", ActivityFilter{ServerID: "web"}, []string{"fetch", "fetch"}},
		{"tool", ActivityFilter{Tool: "read_file"}, []string{"read_file"}},
		{"server and tool", ActivityFilter{ServerID: "fs", Tool: "fetch"}, []string{}},
		{"user", ActivityFilter{Who: WhoUser}, []string{"write_file", "read_file"}},
		{"yolo", ActivityFilter{Who: WhoYolo}, []string{"fetch"}},
		{"always", ActivityFilter{Who: WhoAlways}, []string{"fetch"}},
		{"read-only", ActivityFilter{Who: WhoReadOnly}, []string{"stat"}},
		{"app grant", ActivityFilter{Who: WhoApp}, []string{"grep"}},
		{"system", ActivityFilter{Who: WhoSystem}, []string{"list"}},
		{"status", ActivityFilter{Status: CallDenied}, []string{"write_file"}},
		{"since", ActivityFilter{Since: activityDay.Add(5 * time.Minute)}, []string{"grep", "stat", "list"}},
		{"until", ActivityFilter{Until: activityDay.Add(2 * time.Minute)}, []string{"read_file"}},
		{"since and until", ActivityFilter{Since: activityDay.Add(2 * time.Minute), Until: activityDay.Add(4 * time.Minute)}, []string{"fetch", "write_file"}},
		{"query: result text", ActivityFilter{Query: "localhost"}, []string{"read_file"}},
		{"query: structured content", ActivityFilter{Query: "wombat"}, []string{"fetch"}},
		{"query: arguments", ActivityFilter{Query: "quokka"}, []string{"write_file"}},
		{"query: error", ActivityFilter{Query: "numbat"}, []string{"fetch"}},
		{"query: prefix", ActivityFilter{Query: "numb"}, []string{"fetch"}},
		{"query: tool name", ActivityFilter{Query: "write_file"}, []string{"write_file"}},
		{"query: text that is not JSON", ActivityFilter{Query: "either"}, []string{"grep"}},
		{"query: JSON keys are not text", ActivityFilter{Query: "type"}, []string{}},
		{"query and filter", ActivityFilter{Query: "example", ServerID: "web", Who: WhoAlways}, []string{"fetch"}},
		{"query of no words filters nothing", ActivityFilter{Query: `"*(`, ServerID: "web"}, []string{"fetch", "fetch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, activityTools(t, s, tc.f)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}

	p, err := s.Activity(context.Background(), ActivityFilter{Tool: "read_file"}, false)
	if err != nil || len(p.Rows) != 1 {
		t.Fatalf("read_file: %+v, %v", p, err)
	}
	r := p.Rows[0]
	if r.ConversationTitle != "Alpha" || r.MessageID != ma.ID || r.ServerName != "Server fs" || r.Who != WhoUser || r.DurationMs != 1 ||
		r.ResultSize != int64(len(`{"content":[{"type":"text","text":"127.0.0.1 localhost"}]}`)) || r.Result != nil {
		t.Errorf("row %+v", r)
	}

	for _, f := range []ActivityFilter{{Who: "boss"}, {Status: "exploded"}, {Cursor: "yesterday"}} {
		if _, err := s.Activity(context.Background(), f, false); !errors.Is(err, ErrBadFilter) {
			t.Errorf("Activity(%+v) = %v; want ErrBadFilter", f, err)
		}
	}
}

// TestActivityPagesAndFull: pages follow each other without a gap or a
// repeat, even across calls requested in the same millisecond; a full page
// carries whole arguments and results, a list page cuts and measures them.
func TestActivityPagesAndFull(t *testing.T) {
	s, _ := openTemp(t, nil)
	c := mustConversation(t, s, "x")
	ctx := context.Background()
	var want []string
	for i := range 25 {
		rec, err := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, ServerID: "s", Tool: "t",
			RequestedAt: activityDay.Add(time.Duration(i/3) * time.Millisecond)}) // three per millisecond
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{rec.ID}, want...)
	}
	var got []string
	f := ActivityFilter{Limit: 7}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pages never end")
		}
		p, err := s.Activity(ctx, f, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Rows {
			got = append(got, r.ID)
		}
		if p.Next == "" {
			break
		}
		f.Cursor = p.Next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paged IDs (-want +got):\n%s", diff)
	}

	long := `{"text":"` + strings.Repeat("ab", 400) + `"}`
	res := `{"content":[{"type":"text","text":"done"}]}`
	seedActivity(t, s, c.ID, 0, []activityCall{{server: "big", tool: "big", args: long, result: res, status: CallDone, decision: "allow_once", decidedBy: "user", min: 60}})
	list, err := s.Activity(ctx, ActivityFilter{ServerID: "big"}, false)
	if err != nil || len(list.Rows) != 1 {
		t.Fatal(list, err)
	}
	if r := list.Rows[0]; len(r.Arguments) != ActivityPreview || r.Result != nil || r.ResultSize != int64(len(res)) {
		t.Errorf("list row: %d characters of arguments, result %s, size %d", len(r.Arguments), r.Result, r.ResultSize)
	}
	full, err := s.Activity(ctx, ActivityFilter{ServerID: "big"}, true)
	if err != nil || len(full.Rows) != 1 {
		t.Fatal(full, err)
	}
	if r := full.Rows[0]; r.Arguments != long || string(r.Result) != res {
		t.Errorf("full row: arguments %d characters, result %s", len(r.Arguments), r.Result)
	}
}

// TestActivityIndexFollowsChanges: the search index follows a result
// recorded later, and forgets the calls of a deleted conversation.
func TestActivityIndexFollowsChanges(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	rec, err := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, ServerID: "s", Tool: "t", Arguments: `{"q":"first"}`})
	if err != nil {
		t.Fatal(err)
	}
	if got := activityTools(t, s, ActivityFilter{Query: "platypus"}); len(got) != 0 {
		t.Errorf("before the result: %v", got)
	}
	if err := s.FinishToolCall(ctx, rec.ID, ToolCallEnd{Status: CallDone, Result: json.RawMessage(`{"content":[{"type":"text","text":"platypus"}]}`)}); err != nil {
		t.Fatal(err)
	}
	if got := activityTools(t, s, ActivityFilter{Query: "platypus"}); len(got) != 1 {
		t.Errorf("after the result: %v", got)
	}
	if err := s.DeleteConversation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM tool_calls_fts WHERE tool_calls_fts MATCH 'platypus OR first'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("index rows of the deleted conversation's call: %d, %v", n, err)
	}
}

// TestActivityMigrationBackfills: calls recorded before migration 13 are
// searchable after it, and counted in the facets.
func TestActivityMigrationBackfills(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := Open(ctx, path, &Options{TargetVersion: 12})
	if err != nil {
		t.Fatal(err)
	}
	c := mustConversation(t, old, "old")
	seedActivity(t, old, c.ID, 0, []activityCall{
		{server: "fs", tool: "read_file", args: `{"path":"/srv/echidna"}`, result: `{"content":[{"type":"text","text":"bilby"}]}`, status: CallDone, decision: "allow_once", decidedBy: "user", min: 1},
		{server: "web", tool: "fetch", status: CallFailed, errText: "dingo", min: 2},
	})
	old.Close()

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string][]string{"echidna": {"read_file"}, "bilby": {"read_file"}, "dingo": {"fetch"}, "fetch": {"fetch"}} {
		if diff := cmp.Diff(want, activityTools(t, s, ActivityFilter{Query: q})); diff != "" {
			t.Errorf("query %q after migrating (-want +got):\n%s", q, diff)
		}
	}
	facets, err := s.ActivityFacets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ActivityFacets{
		Servers: []ActivityServer{{ID: "fs", Name: "Server fs", Calls: 1}, {ID: "web", Name: "Server web", Calls: 1}},
		Tools:   []ActivityTool{{Tool: "fetch", Calls: 1}, {Tool: "read_file", Calls: 1}},
		Total:   2,
	}
	if diff := cmp.Diff(want, facets); diff != "" {
		t.Errorf("facets (-want +got):\n%s", diff)
	}
}

// TestActivityCommonWordNewestFirst: a search matching more calls than
// activityProbeAbove walks the calls by time rather than sorting the
// matches, with the same answer: newest first by when they were requested
// (not by when they were recorded), pages without a gap.
func TestActivityCommonWordNewestFirst(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	n := activityProbeAbove + 50
	for i := range n {
		// Recorded out of time order: odd ones a day earlier.
		at := activityDay.Add(time.Duration(i) * time.Second)
		if i%2 == 1 {
			at = at.Add(-24 * time.Hour)
		}
		args := `{"q":"kiwi"}`
		if _, err := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, ServerID: "s", Tool: "t", Arguments: args, RequestedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	var times []time.Time
	f := ActivityFilter{Query: "kiwi", Limit: 500}
	for {
		p, err := s.Activity(ctx, f, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Rows {
			if !strings.Contains(r.Arguments, "kiwi") {
				t.Fatalf("row %+v does not match", r)
			}
			times = append(times, r.RequestedAt)
		}
		if p.Next == "" {
			break
		}
		f.Cursor = p.Next
	}
	if len(times) != n {
		t.Errorf("%d matches; want %d", len(times), n)
	}
	for i := 1; i < len(times); i++ {
		if !times[i].Before(times[i-1]) {
			t.Fatalf("row %d at %s is not older than row %d at %s", i, times[i], i-1, times[i-1])
		}
	}
}

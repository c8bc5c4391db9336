package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestActivityCommand: a script lists, filters and exports the tool calls
// of every conversation: JSON Lines carry whole records, CSV one row a
// call with formulas defused; mistakes say what to use instead.
func TestActivityCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, dir, "", "paths"); code != 0 { // creates the database
		t.Fatal(errOut)
	}
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conv, _ := st.CreateConversation(ctx, store.Conversation{Title: "Trip"})
	day := time.Date(2025, 3, 1, 12, 0, 0, 0, time.Local)
	for i, c := range []struct{ server, tool, args, result, errText, decision, by, status string }{
		{"fs", "read_file", `{"path":"/etc/hosts"}`, `{"content":[{"type":"text","text":"localhost"}]}`, "", "allow_once", "user", store.CallDone},
		{"web", "fetch", `{"url":"https://example.com"}`, "", "=HYPERLINK(\"x\")", "allow_all", "policy", store.CallFailed},
		{"web", "fetch", `{"url":"https://example.org"}`, `{"content":[{"type":"text","text":"kangaroo"}]}`, "", "deny", "user", store.CallDenied},
	} {
		rec, err := st.InsertToolCall(ctx, store.ToolCall{ConversationID: conv.ID, ServerID: c.server, ServerName: strings.ToUpper(c.server),
			Tool: c.tool, Arguments: c.args, RequestedAt: day.AddDate(0, 0, i)})
		if err != nil {
			t.Fatal(err)
		}
		st.DecideToolCall(ctx, rec.ID, c.status, c.decision, c.by)
		var res json.RawMessage
		if c.result != "" {
			res = json.RawMessage(c.result)
		}
		if err := st.FinishToolCall(ctx, rec.ID, store.ToolCallEnd{Status: c.status, Result: res, Error: c.errText, Duration: 42 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	code, out, errOut := run(t, dir, "", "activity")
	if code != 0 {
		t.Fatalf("activity: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "REQUESTED") || !strings.Contains(lines[1], "fetch") || !strings.Contains(lines[1], "denied") ||
		!strings.Contains(lines[3], "read_file") || !strings.Contains(lines[3], "user") || !strings.Contains(lines[3], "48 B") {
		t.Errorf("table:\n%s", out)
	}

	code, out, errOut = run(t, dir, "", "activity", "--server", "WEB", "--decision", "yolo", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("jsonl: exit %d\n%s", code, errOut)
	}
	var got []store.ActivityRow
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r store.ActivityRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if len(got) != 1 || got[0].Tool != "fetch" || got[0].Who != store.WhoYolo || got[0].Error != "=HYPERLINK(\"x\")" ||
		got[0].ConversationTitle != "Trip" || got[0].Arguments != `{"url":"https://example.com"}` {
		t.Errorf("jsonl rows: %+v", got)
	}

	code, out, errOut = run(t, dir, "", "activity", "--query", "kangaroo", "--format", "jsonl")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"result":{"content":[{"type":"text","text":"kangaroo"}]}`) {
		t.Errorf("jsonl with a query: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = run(t, dir, "", "activity", "--tool", "fetch", "--until", day.AddDate(0, 0, 1).Format(time.DateOnly), "--format", "csv")
	if code != 0 {
		t.Fatalf("csv: exit %d\n%s", code, errOut)
	}
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, out)
	}
	if len(records) != 2 {
		t.Fatalf("csv has %d records; want the header and one call:\n%s", len(records), out)
	}
	row := map[string]string{}
	for i, h := range records[0] {
		row[h] = records[1][i]
	}
	want := map[string]string{"tool": "fetch", "serverName": "WEB", "who": "yolo", "status": "failed", "durationMs": "42", "resultSize": "0",
		"error": "'=HYPERLINK(\"x\")", "conversationTitle": "Trip", "arguments": `{"url":"https://example.com"}`}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("csv %s = %q; want %q", k, row[k], v)
		}
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--decision", "boss"}, 2, "neither who decided (user, always, yolo"},
		{[]string{"--since", "yesterday"}, 2, "neither a day (2006-01-02)"},
		{[]string{"--format", "xml"}, 2, "use table, jsonl or csv"},
		{[]string{"--server", "nope"}, 1, "these did: web (WEB), fs (FS)"},
	} {
		code, _, errOut := run(t, dir, "", append([]string{"activity"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("activity %v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if diff := cmp.Diff("no tool calls match\n", func() string { _, o, _ := run(t, dir, "", "activity", "--query", "zebra"); return o }()); diff != "" {
		t.Errorf("no match (-want +got):\n%s", diff)
	}
}

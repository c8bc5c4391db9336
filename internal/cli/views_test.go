package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestViewsCommands: a script lists the tools with a view of the MCP Apps
// example servers (over --stdio), fetches one as the window would serve it
// (its policy's <meta> tag first, the policy on stderr), and audits what
// views called; mistakes say what to do.
func TestViewsCommands(t *testing.T) {
	nodeOnPath(t, "mcp-server-basic-vanillajs", "mcp-system-monitor-server")
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {
		"clock": {"command": "mcp-server-basic-vanillajs", "args": ["--stdio"]},
		"monitor": {"command": "mcp-system-monitor-server", "args": ["--stdio"]}}}`)

	code, out, errOut := run(t, dir, "", "views", "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"SERVER   TOOL               VIEW                              VISIBILITY",
		"clock    get-time           ui://get-time/mcp-app.html        model,app",
		"monitor  get-system-info    ui://system-monitor/mcp-app.html  model,app",
		"monitor  poll-system-stats  -                                 app",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run(t, dir, "", "views", "list", "clock"); code != 0 || strings.Contains(out, "monitor") || !strings.Contains(out, "get-time") {
		t.Errorf("list clock: exit %d\n%s", code, out)
	}

	code, out, errOut = run(t, dir, "", "views", "get", "clock", "get-time")
	if code != 0 {
		t.Fatalf("get: exit %d\n%s", code, errOut)
	}
	const meta = `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`
	if !strings.HasPrefix(strings.ToLower(out[:20]), "<!doctype html>") || !strings.HasPrefix(out[len("<!doctype html>"):], meta) || len(out) < 100<<10 {
		t.Errorf("get wrote %d bytes starting %.200q; want the document with the policy's <meta> first", len(out), out)
	}
	if !strings.Contains(errOut, "policy: default-src 'none';") || !strings.Contains(errOut, "frame-ancestors 'self'; sandbox allow-scripts\n") ||
		!strings.Contains(errOut, "outside origins: none\n") {
		t.Errorf("get's stderr:\n%s", errOut)
	}
	file := filepath.Join(t.TempDir(), "view.html")
	if code, out, errOut := run(t, dir, "", "views", "get", "-o", file, "monitor", "get-system-info"); code != 0 || out != "" {
		t.Fatalf("get -o: exit %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), meta) || len(data) < 200<<10 {
		t.Errorf("get -o saved %d bytes", len(data))
	}

	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"views", "get", "monitor", "poll-system-stats"}, 1, "has no view"},
		{[]string{"views", "get", "clock", "nope"}, 1, `has no tool "nope"`},
		{[]string{"views", "get", "nobody", "get-time"}, 1, `no server "nobody"`},
		{[]string{"views", "get", "clock"}, 2, "usage: switchboard views get"},
		{[]string{"views", "frob"}, 2, `unknown subcommand "frob"`},
		{[]string{"views", "calls", "no-such-conversation"}, 1, "no-such-conversation"},
	} {
		code, _, errOut := run(t, dir, "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tt.args, code, errOut, tt.code, tt.err)
		}
	}

	// The audit of views' calls.
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := st.CreateConversation(context.Background(), store.Conversation{})
	rec, _ := st.InsertToolCall(context.Background(), store.ToolCall{ConversationID: conv.ID, ServerID: "monitor", Tool: "monitor__poll-system-stats",
		Arguments: "{}", RequestedBy: store.RequestedByView})
	st.DecideToolCall(context.Background(), rec.ID, store.CallDenied, "deny", "user")
	st.Close()
	code, out, errOut = run(t, dir, "", "views", "calls", conv.ID)
	if code != 0 || !strings.Contains(out, "monitor  monitor__poll-system-stats  denied  deny (user)  {}") {
		t.Errorf("calls: exit %d\n%s%s", code, out, errOut)
	}
}

package cli

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// A script lets a server's read-only tools run unasked: ask (with no
// terminal to ask on) then runs the tool the server calls read-only and
// still denies the one it calls destructive; off again, both are denied.
// servers tools shows what the server says of each.
func TestServersReadOnly(t *testing.T) {
	var looked, wiped atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			looked.Add(1)
			return textResult("seen"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "wipe", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(true)}},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			wiped.Add(1)
			return &mcp.CallToolResult{}, nil, nil
		})
	dir := t.TempDir()
	importHTTP(t, dir, "files", serveMCP(t, srv))
	code, stdout, stderr := run(t, dir, "", "servers", "tools", "files")
	if code != 0 || !strings.Contains(stdout, "HINTS") || !regexpLine(stdout, `look\s+true\s+read-only,closed-world`) || !regexpLine(stdout, `wipe\s+true\s+read-only,destructive`) {
		t.Errorf("servers tools: %d\n%s%s", code, stdout, stderr)
	}

	ask := func(wantLooked, wantWiped int32) {
		t.Helper()
		looked.Store(0)
		wiped.Store(0)
		llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
			llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "files__look", Arguments: []string{`{}`}}, llmtest.ToolCall{ID: "c2", Name: "files__wipe", Arguments: []string{`{}`}}),
			llmtest.Text("done"),
		}})
		if code, _, stderr := run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--wait-servers", "20s", "look and wipe"); code != 0 {
			t.Fatalf("ask: %d %s", code, stderr)
		}
		if looked.Load() != wantLooked || wiped.Load() != wantWiped {
			t.Errorf("look ran %d times, wipe %d; want %d and %d", looked.Load(), wiped.Load(), wantLooked, wantWiped)
		}
	}
	ask(0, 0)
	if code, stdout, stderr := run(t, dir, "", "servers", "read-only", "files", "on"); code != 0 || !strings.Contains(stdout, "the server's claim") {
		t.Fatalf("read-only on: %d %q %q", code, stdout, stderr)
	}
	ask(1, 0)
	if code, _, stderr := run(t, dir, "", "servers", "read-only", "files", "off"); code != 0 {
		t.Fatalf("read-only off: %d %q", code, stderr)
	}
	ask(0, 0)
	if code, _, stderr := run(t, dir, "", "servers", "read-only", "nope", "on"); code != 1 || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("unknown server: %d %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "", "servers", "read-only", "files", "maybe"); code != 2 || !strings.Contains(stderr, "usage") {
		t.Errorf("bad value: %d %q", code, stderr)
	}
}

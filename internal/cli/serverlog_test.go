package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// A script sets a server's MCP log level, runs a tool that logs, and reads
// the server's log: the messages at that level and above are there, the
// others not.
func TestServersLogLevelAndLog(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "talker", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "say"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "t", Data: "quiet"})
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "t", Data: "said it"})
		return textResult("ok"), nil, nil
	})
	dir := t.TempDir()
	importHTTP(t, dir, "talker", serveMCP(t, srv))
	if code, _, stderr := run(t, dir, "", "servers", "log-level", "talker", "loud"); code != 1 || !strings.Contains(stderr, `unknown log level "loud"`) {
		t.Errorf("a level that is none: %d %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "", "servers", "log-level", "nope", "info"); code != 1 || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("an unknown server: %d %q", code, stderr)
	}
	if code, stdout, stderr := run(t, dir, "", "servers", "log-level", "talker", "info"); code != 0 || !strings.Contains(stdout, "info and above") {
		t.Fatalf("log-level: %d %q %q", code, stdout, stderr)
	}

	llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "talker__say", Arguments: []string{`{}`}}),
		llmtest.Text("done"),
	}})
	if code, _, stderr := run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--wait-servers", "20s", "--allow", "talker/say", "say it"); code != 0 {
		t.Fatalf("ask: %d %s", code, stderr)
	}
	code, stdout, stderr := run(t, dir, "", "servers", "log", "talker")
	if code != 0 || !strings.Contains(stdout, "info  [notice] t: said it") || strings.Contains(stdout, "quiet") {
		t.Errorf("servers log: %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, dir, "", "servers", "log", "nope"); code != 1 || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("log of an unknown server: %d %q", code, stderr)
	}
}

package drills

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// faultEnv, when set, turns the test binary into a stdio MCP server that
// misbehaves on demand; its value is the mode. (internal/mcpconn has a
// fuller one for its unit tests; this one has what the drills need.)
//
// Modes: "ok"; "garbage" (a banner on stdout before serving); "sqlite"
// (what mcp-server-sqlite prints on stdout before serving, and again on
// every call); "never-json" (log lines on stdout, never serving); "flood"
// (about 100 MB on stderr from the start, then "flood done"); "hostile"
// (see hostileMode).
// Tools: echo {text}; hang (returns only when cancelled, saying so on
// stderr); huge {bytes} (a text result of that size).
const faultEnv = "SWITCHBOARD_DRILL_SERVER"

func faultConfig(t *testing.T, id, mode string) serverconf.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return serverconf.Config{ID: id, Name: id, Transport: serverconf.TransportStdio, Command: exe,
		Env: map[string]serverconf.Value{faultEnv: {Plain: mode}}, Enabled: true}
}

type echoIn struct {
	Text string `json:"text"`
}

type hugeIn struct {
	Bytes int `json:"bytes"`
}

func runFaultServer(mode string) {
	if mode == hostileMode {
		runHostileServer()
		return
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	logf("drill server starting in mode %s", mode)
	switch mode {
	case "garbage":
		fmt.Println("Drill server v1.0 listening on stdio... (this banner is not JSON-RPC)")
	case "sqlite":
		fmt.Println("PRAGMA journal_mode = WAL")
	case "never-json":
		for i := 0; ; i++ {
			fmt.Printf("INFO indexing, %d files so far\n", i)
			time.Sleep(time.Millisecond)
		}
	case "flood":
		go func() {
			w := bufio.NewWriterSize(os.Stderr, 64<<10)
			pad := strings.Repeat("x", 980)
			for i := range 100_000 { // 100,000 lines of ~1 KB
				fmt.Fprintf(w, "flood %06d %s\n", i, pad)
			}
			w.Flush()
			logf("flood done")
		}()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "drill", Version: "1.0"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		if mode == "sqlite" {
			fmt.Println("PRAGMA journal_mode = WAL")
		}
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		logf("hang: started")
		<-ctx.Done() // the SDK cancels ctx on notifications/cancelled
		logf("hang: cancelled by the client")
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Returns a huge text."}, func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
		return text(strings.Repeat("0123456789", in.Bytes/10)), nil, nil
	})
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	logf("drill server stopped: %v", err)
}

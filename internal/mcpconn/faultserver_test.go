package mcpconn

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/spawn"
)

// faultEnv, when set, turns the test binary into a stdio MCP server that
// misbehaves on demand (the TestMain re-exec trick). Its value is the mode.
const faultEnv = "SWITCHBOARD_FAULT_SERVER"

// legacyEnv makes the fault server speak only pre-2026 versions, like the
// Node servers.
const legacyEnv = "SWITCHBOARD_FAULT_LEGACY"

// onceEnv names the file by which the "once" mode knows it ran before.
const onceEnv = "SWITCHBOARD_FAULT_ONCE"

func TestMain(m *testing.M) {
	spawn.Run(os.Args[1:]) // the test binary is its own trampoline, as the app is
	if mode := os.Getenv(faultEnv); mode != "" {
		runFaultServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// faultConfig is the config of a fault server in the given mode.
func faultConfig(t *testing.T, id, mode string, extraEnv ...string) serverconf.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]serverconf.Value{faultEnv: {Plain: mode}}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = serverconf.Value{Plain: extraEnv[i+1]}
	}
	return serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: exe, Env: env, Enabled: true}
}

type echoIn struct {
	Text string `json:"text"`
}

type slowIn struct {
	Steps      int `json:"steps"`
	IntervalMS int `json:"intervalMs"`
}

type hugeIn struct {
	Bytes int `json:"bytes"`
}

// runFaultServer serves MCP on stdin/stdout until stdin closes.
//
// Modes: "ok"; "crash-start" (explains on stderr, exits 3 before serving);
// "garbage" (prints a banner on stdout first, as mcp-server-sqlite prints
// "PRAGMA journal_mode = WAL"); "never-json" (prints log lines on stdout
// and never serves); "flood" (writes ~100 MB of stderr at start, then
// "flood done"); "hang-ping" (never answers pings); "once" (serves once:
// started again, it finds the file named by onceEnv and exits 3).
func runFaultServer(mode string) {
	stderr := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	stderr("fault server starting in mode %s", mode)
	switch mode {
	case "crash-start":
		stderr("fatal: cannot read config /etc/fault-server.json: permission denied")
		os.Exit(3)
	case "once":
		if _, err := os.Stat(os.Getenv(onceEnv)); err == nil {
			stderr("Error: the database is locked by a previous run")
			os.Exit(3)
		}
		os.WriteFile(os.Getenv(onceEnv), nil, 0o600)
	case "never-json":
		for i := 0; ; i++ {
			fmt.Printf("%s INFO still loading the index, %d files so far\n", time.Now().Format(time.RFC3339), i)
			time.Sleep(time.Millisecond)
		}
	case "garbage":
		fmt.Println("Hello from fault server! Listening on stdio...")
		fmt.Println("PRAGMA journal_mode = WAL")
	case "flood":
		go func() {
			w := bufio.NewWriterSize(os.Stderr, 64<<10)
			pad := strings.Repeat("x", 980)
			for i := range 100_000 { // 100,000 lines of ~1 KB
				fmt.Fprintf(w, "flood %06d %s\n", i, pad)
			}
			w.Flush()
			stderr("flood done")
		}()
	}

	var opts mcp.ServerOptions
	if os.Getenv(legacyEnv) != "" {
		opts.SupportedProtocolVersions = []string{"2025-11-25", "2025-06-18"}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fault", Version: "1.0"}, &opts)
	if mode == "hang-ping" {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "ping" {
					select {} // hung: ignores even cancellation
				}
				return next(ctx, method, req)
			}
		})
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		stderr("panic: simulated crash in tool crash")
		os.Exit(2)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never returns."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		select {}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "wait-cancel", Description: "Returns when cancelled."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		stderr("wait-cancel: started")
		<-ctx.Done()
		stderr("wait-cancel: cancelled by the client")
		return text("cancelled"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Reports progress."}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		for i := 1; i <= in.Steps; i++ {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.IntervalMS) * time.Millisecond):
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)})
			}
		}
		return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Returns a huge text."}, func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
		return text(strings.Repeat("0123456789", in.Bytes/10)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("the widget is broken")
	})
	var added atomic.Int32
	mcp.AddTool(s, &mcp.Tool{Name: "add-tool", Description: "Adds a tool."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		name := fmt.Sprintf("added-%d", added.Add(1))
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return text("hi from " + name), nil, nil
		})
		return text("added " + name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage-out", Description: "Writes garbage to stdout."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		fmt.Println("oops, debug output on stdout")
		return text("wrote garbage"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "weird.name/with spaces", Description: "A name providers reject."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return text("weird ok"), nil, nil
	})

	// Log every request's method as read from stdin, before the SDK can
	// reject it, so tests see exactly what the client sent.
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Method != "" && msg.Method != "ping" && !strings.HasPrefix(msg.Method, "notifications/") {
				stderr("request %s", msg.Method)
			}
			pw.Write(append(sc.Bytes(), '\n'))
		}
		pw.Close()
	}()
	err := s.Run(context.Background(), &mcp.IOTransport{Reader: pr, Writer: os.Stdout})
	stderr("fault server stopped: %v", err)
}

// Package mcptest is the test kit shared by the tests of mcpconn, chat,
// core, cli and the drills: a real stdio MCP server that misbehaves on
// demand (the fault server), the check that the real Node servers of
// test/node are installed, and a walk of /proc for a test's child
// processes. The Emit recorder is in internal/eventtest, which approval's
// tests can import without depending on anything MCP.
//
// The fault server is the test binary itself (the TestMain re-exec trick):
// a test package's TestMain calls RunIfChild first, and FaultServer returns
// the config of a stdio server that starts the test binary again in the
// mode asked for. mcptest imports no internal package but serverconf, so
// mcpconn's own tests can use it.
package mcptest

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
)

// FaultEnv, when set, turns the test binary into the fault server; its
// value is the mode.
const FaultEnv = "SWITCHBOARD_FAULT_SERVER"

// FaultLegacyEnv, when set, makes the fault server speak only pre-2026
// protocol versions, like the Node servers.
const FaultLegacyEnv = "SWITCHBOARD_FAULT_LEGACY"

// FaultOnceEnv names the file by which mode "once" knows it ran before.
const FaultOnceEnv = "SWITCHBOARD_FAULT_ONCE"

// RunIfChild serves as the fault server and exits when this process was
// started as one (FaultEnv is set); otherwise it returns at once. Call it
// first in TestMain.
func RunIfChild() {
	mode, ok := os.LookupEnv(FaultEnv)
	if !ok {
		return
	}
	runFaultServer(mode)
	os.Exit(0)
}

// FaultServer returns the config of server id: this test binary, run as
// the fault server in mode. extraEnv are more NAME, value pairs for its
// environment (FaultLegacyEnv, FaultOnceEnv).
//
// Modes:
//   - "ok": serves.
//   - "crash-start": explains on stderr, exits 3 before serving.
//   - "once": serves once; started again, it finds the file named by
//     FaultOnceEnv and exits 3.
//   - "garbage": prints a banner and "PRAGMA journal_mode = WAL" on stdout
//     before serving.
//   - "sqlite": prints what mcp-server-sqlite prints on stdout ("PRAGMA
//     journal_mode = WAL") before serving, and again on every echo.
//   - "never-json": prints log lines on stdout and never serves.
//   - "flood": writes about 100 MB of stderr from the start, then "flood
//     done".
//   - "hang-ping": never answers pings.
//   - "hostile": everything a hostile server does at once; see runHostile.
//
// Tools (all modes but hostile): echo {text}; crash (exits mid-call);
// hang (never returns, ignoring cancellation); wait-cancel (returns when
// cancelled, saying so on stderr); slow {steps, intervalMs} (reports
// progress); huge {bytes} (a text of that size); fail (a tool error);
// add-tool (adds tool added-N, sending list_changed); garbage-out (writes
// to stdout mid-session); "weird.name/with spaces". Every request's method
// (not pings or notifications) is logged on stderr as "request METHOD".
func FaultServer(t testing.TB, id, mode string, extraEnv ...string) serverconf.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]serverconf.Value{FaultEnv: {Plain: mode}}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = serverconf.Value{Plain: extraEnv[i+1]}
	}
	return serverconf.Config{ID: id, Name: id, Transport: serverconf.TransportStdio, Command: exe, Env: env, Enabled: true}
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

func stderrf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// runFaultServer serves MCP on stdin/stdout until stdin closes.
func runFaultServer(mode string) {
	if mode == "hostile" {
		runHostile()
		return
	}
	stderrf("fault server starting in mode %s", mode)
	switch mode {
	case "crash-start":
		stderrf("fatal: cannot read config /etc/fault-server.json: permission denied")
		os.Exit(3)
	case "once":
		if _, err := os.Stat(os.Getenv(FaultOnceEnv)); err == nil {
			stderrf("Error: the database is locked by a previous run")
			os.Exit(3)
		}
		os.WriteFile(os.Getenv(FaultOnceEnv), nil, 0o600)
	case "never-json":
		for i := 0; ; i++ {
			fmt.Printf("%s INFO still loading the index, %d files so far\n", time.Now().Format(time.RFC3339), i)
			time.Sleep(time.Millisecond)
		}
	case "garbage":
		fmt.Println("Hello from fault server! Listening on stdio...")
		fmt.Println("PRAGMA journal_mode = WAL")
	case "sqlite":
		fmt.Println("PRAGMA journal_mode = WAL")
	case "flood":
		go func() {
			w := bufio.NewWriterSize(os.Stderr, 64<<10)
			pad := strings.Repeat("x", 980)
			for i := range 100_000 { // 100,000 lines of ~1 KB
				fmt.Fprintf(w, "flood %06d %s\n", i, pad)
			}
			w.Flush()
			stderrf("flood done")
		}()
	}

	var opts mcp.ServerOptions
	if os.Getenv(FaultLegacyEnv) != "" {
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
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		if mode == "sqlite" {
			fmt.Println("PRAGMA journal_mode = WAL")
		}
		return textResult(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		stderrf("panic: simulated crash in tool crash")
		os.Exit(2)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never returns."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		select {}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "wait-cancel", Description: "Returns when cancelled."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		stderrf("wait-cancel: started")
		<-ctx.Done() // the SDK cancels ctx on notifications/cancelled
		stderrf("wait-cancel: cancelled by the client")
		return textResult("cancelled"), nil, nil
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
		return textResult(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Returns a huge text."}, func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
		return textResult(strings.Repeat("0123456789", in.Bytes/10)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("the widget is broken")
	})
	var added atomic.Int32
	mcp.AddTool(s, &mcp.Tool{Name: "add-tool", Description: "Adds a tool."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		name := fmt.Sprintf("added-%d", added.Add(1))
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return textResult("hi from " + name), nil, nil
		})
		return textResult("added " + name), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage-out", Description: "Writes garbage to stdout."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		fmt.Println("oops, debug output on stdout")
		return textResult("wrote garbage"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "weird.name/with spaces", Description: "A name providers reject."}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return textResult("weird ok"), nil, nil
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
				stderrf("request %s", msg.Method)
			}
			pw.Write(append(sc.Bytes(), '\n'))
		}
		pw.Close()
	}()
	err := s.Run(context.Background(), &mcp.IOTransport{Reader: pr, Writer: os.Stdout})
	stderrf("fault server stopped: %v", err)
}

package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
)

type logLine = logbuf.Line

// echoIn is the input of the in-memory servers' echo tool, as of the
// fault server's.
type echoIn struct {
	Text string `json:"text"`
}

// A recorder is an Emitter that keeps every event, with what the tests
// ask of mcpconn's events.
type recorder struct{ eventtest.Recorder }

// statuses lists the statuses emitted for a server, with their times.
func (r *recorder) statuses(id string) ([]Status, []time.Time) {
	var out []Status
	var at []time.Time
	for _, e := range r.Named(EventServerStatus) {
		if st, ok := e.Payload.(Status); ok && st.ServerID == id {
			out = append(out, st)
			at = append(at, e.At)
		}
	}
	return out, at
}

// states lists the states emitted for a server, in order.
func (r *recorder) states(id string) []State {
	var out []State
	for _, st := range eventtest.Payloads[Status](&r.Recorder, EventServerStatus) {
		if st.ServerID == id {
			out = append(out, st.State)
		}
	}
	return out
}

// toolEvents lists the tool names of each EventServerTools for a server.
func (r *recorder) toolEvents(id string) [][]string {
	var out [][]string
	for _, te := range eventtest.Payloads[ToolsEvent](&r.Recorder, EventServerTools) {
		if te.ServerID == id {
			var names []string
			for _, t := range te.Tools {
				names = append(names, t.OriginalName)
			}
			out = append(out, names)
		}
	}
	return out
}

// testLogger writes the manager's log to the test log, until the test ends.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(newTWriter(t), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// A tWriter writes to t.Log until the test's cleanup, then discards (a
// goroutine logging after the test ended would panic).
type tWriter struct {
	t    *testing.T
	mu   *sync.Mutex
	done *bool
}

func newTWriter(t *testing.T) tWriter {
	w := tWriter{t: t, mu: new(sync.Mutex), done: new(bool)}
	t.Cleanup(func() {
		w.mu.Lock()
		*w.done = true
		w.mu.Unlock()
	})
	return w
}

func (w tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !*w.done {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

// newTestManager starts a Manager with fast test defaults; it is closed
// when the test ends.
func newTestManager(t *testing.T, opts *Options) (*Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Emitter = rec
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	if o.ShellPATH == nil {
		o.ShellPATH = func() string { return os.Getenv("PATH") }
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 20 * time.Second
	}
	if o.LogDir == "" {
		o.LogDir = t.TempDir()
	}
	m := NewManager(&o)
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, rec
}

// waitState waits until the server reaches one of the states.
func waitState(t *testing.T, m *Manager, id string, timeout time.Duration, states ...State) Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	st, err := m.Wait(ctx, id, func(st Status) bool { return slices.Contains(states, st.State) })
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("server %s: state %s (%s) after %s, want %v", id, st.State, st.Reason, timeout, states)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// requireNode returns where Node 22 and the real MCP servers these tests
// run are installed, or skips (fails under make test): see mcptest.Node.
func requireNode(t *testing.T) mcptest.NodeServers {
	t.Helper()
	return mcptest.Node(t, "mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs server-everything over "sse" or "streamableHttp"
// on a free port and returns its base URL.
func startEverythingHTTP(t *testing.T, e mcptest.NodeServers, mode string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(e.Node, e.Script("server-everything"), mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.Stderr = newTWriter(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(15 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %d", mode, port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var _ http.RoundTripper = (*httpRecorder)(nil)

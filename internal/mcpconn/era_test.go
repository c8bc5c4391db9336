package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Both MCP eras, with no wasted round trip: a 2026-07-28 server is never
// sent initialize, a server known to be older never server/discover.

const (
	methodDiscover   = "server/discover"
	methodInitialize = "initialize"
)

// A methodLog wraps an MCP server's HTTP handler: it records the method of
// every JSON-RPC request or notification POSTed to it, in order, and
// answers the methods in refuse with that JSON-RPC error instead of
// passing them on, as a server that does not know them would.
type methodLog struct {
	next   http.Handler
	refuse map[string]*jsonrpc.Error

	mu   sync.Mutex
	seen []string
}

func (l *methodLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		l.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	// A batch (a JSON array) fails to decode and is passed on unrecorded:
	// no client of these tests sends one.
	if json.Unmarshal(body, &msg) != nil || msg.Method == "" {
		l.next.ServeHTTP(w, r)
		return
	}
	l.mu.Lock()
	l.seen = append(l.seen, msg.Method)
	l.mu.Unlock()
	if e := l.refuse[msg.Method]; e != nil && msg.ID != nil {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": e})
		return
	}
	l.next.ServeHTTP(w, r)
}

// methods returns the methods received so far, in order.
func (l *methodLog) methods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// count is how many times method was received.
func (l *methodLog) count(method string) int {
	n := 0
	for _, m := range l.methods() {
		if m == method {
			n++
		}
	}
	return n
}

// echoServer is an MCP server with one tool, echo.
func echoServer(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "era", Version: "1"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return s
}

// serveLogged serves h behind a methodLog on a test server; it returns the
// log and the server's URL.
func serveLogged(t *testing.T, h http.Handler, refuse ...string) (*methodLog, string) {
	t.Helper()
	l := &methodLog{next: h, refuse: map[string]*jsonrpc.Error{}}
	for _, m := range refuse {
		l.refuse[m] = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method %q not found", m)}
	}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, srv.URL
}

// connectAndEcho waits until server id is connected, with the protocol
// version want, and calls its echo tool.
func connectAndEcho(t *testing.T, m *Manager, id, want string) {
	t.Helper()
	st := waitState(t, m, id, 20*time.Second, StateConnected, StateFailed, StateNeedsAuth)
	if st.State != StateConnected {
		t.Fatalf("state %s: %s", st.State, st.Reason)
	}
	if st.ProtocolVersion != want {
		t.Errorf("protocol version = %q, want %q", st.ProtocolVersion, want)
	}
	if got := callText(t, m, id+"__echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo = %q", got)
	}
}

// restart restarts server id and waits until it is connected again.
func restart(t *testing.T, m *Manager, id, want string) {
	t.Helper()
	if err := m.Restart(id); err != nil {
		t.Fatal(err)
	}
	connectAndEcho(t, m, id, want)
}

// TestEraModernOnlyServer: a 2026-07-28 server that answers server/discover
// and refuses initialize connects, lists and calls, and is never sent
// initialize, neither at first nor after a restart.
func TestEraModernOnlyServer(t *testing.T) {
	// The SDK serves 2026-07-28 over streamable HTTP in stateless mode
	// only; it would still answer initialize, so the log refuses it.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer(nil) },
		&mcp.StreamableHTTPOptions{Stateless: true})
	log, url := serveLogged(t, h, methodInitialize)

	m, _ := newTestManager(t, nil)
	m.Add(serverconf.Config{ID: "modern", Transport: serverconf.TransportHTTP, URL: url, Enabled: true})
	connectAndEcho(t, m, "modern", modernProtocol)
	restart(t, m, "modern", modernProtocol)

	got := log.methods()
	t.Logf("methods: %v", got)
	if n := log.count(methodInitialize); n != 0 {
		t.Errorf("initialize sent %d times: %v", n, got)
	}
	// One discover per connection: a modern server is not remembered as
	// anything but modern.
	if n := log.count(methodDiscover); n != 2 {
		t.Errorf("server/discover sent %d times, want 2: %v", n, got)
	}
	for _, want := range []string{"tools/list", "tools/call"} {
		if log.count(want) != 2 {
			t.Errorf("%s sent %d times, want 2: %v", want, log.count(want), got)
		}
	}
}

// TestEraModernOnlyServerWithStaleHint: a server remembered as old (a
// persisted hint) that now speaks only 2026-07-28 refuses the initialize
// it is sent; the manager forgets the hint, connects with server/discover
// and does not send initialize again.
func TestEraModernOnlyServerWithStaleHint(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer(nil) },
		&mcp.StreamableHTTPOptions{Stateless: true})
	log, url := serveLogged(t, h, methodInitialize)

	m, _ := newTestManager(t, &Options{ProtocolHints: map[string]string{"modern": "2025-06-18"}})
	m.Add(serverconf.Config{ID: "modern", Transport: serverconf.TransportHTTP, URL: url, Enabled: true})
	connectAndEcho(t, m, "modern", modernProtocol)
	restart(t, m, "modern", modernProtocol)
	got := log.methods()
	if n := log.count(methodInitialize); n != 1 || got[0] != methodInitialize {
		t.Errorf("want one initialize, first, then none: %v", got)
	}
	if n := log.count(methodDiscover); n != 2 {
		t.Errorf("server/discover sent %d times, want 2: %v", n, got)
	}
}

// TestEraLegacySSEServer: a 2024-11-05 server on the HTTP+SSE transport
// connects, lists and calls, and is never sent server/discover: 2026-07-28
// is not defined on that transport, so such a server is old by definition.
func TestEraLegacySSEServer(t *testing.T) {
	s := echoServer(&mcp.ServerOptions{SupportedProtocolVersions: []string{"2024-11-05"}})
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	// Not refused here: the SDK's SSE server answers server/discover with
	// the versions it supports (an answer on the event stream, which
	// methodLog cannot give), so that a probe shows in the log instead of
	// hanging the connection.
	log, url := serveLogged(t, h)

	m, _ := newTestManager(t, nil)
	m.Add(serverconf.Config{ID: "old", Transport: serverconf.TransportSSE, URL: url, Enabled: true})
	connectAndEcho(t, m, "old", "2024-11-05")
	restart(t, m, "old", "2024-11-05")

	got := log.methods()
	t.Logf("methods: %v", got)
	if n := log.count(methodDiscover); n != 0 {
		t.Errorf("server/discover sent %d times: %v", n, got)
	}
	if n := log.count(methodInitialize); n != 2 {
		t.Errorf("initialize sent %d times, want 2: %v", n, got)
	}
}

// TestEraLegacyServerIsRemembered: a server that speaks only initialize
// (2025-11-25) and refuses server/discover is probed once; the manager
// remembers it is old, so a restart sends initialize directly. Reached
// another way (another URL or command), it may be another server: probed
// again, once.
func TestEraLegacyServerIsRemembered(t *testing.T) {
	tests := []struct {
		name string
		// start returns the server's config and a counter of the requests
		// it received by method, so far.
		start func(t *testing.T) (serverconf.Config, func(m *Manager, method string) int)
		// move returns cfg reaching the same server another way.
		move func(cfg serverconf.Config) serverconf.Config
	}{
		{
			name: "http",
			start: func(t *testing.T) (serverconf.Config, func(*Manager, string) int) {
				s := echoServer(&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
				h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
				log, url := serveLogged(t, h, methodDiscover)
				cfg := serverconf.Config{ID: "old", Transport: serverconf.TransportHTTP, URL: url + "/mcp", Enabled: true}
				return cfg, func(_ *Manager, method string) int { return log.count(method) }
			},
			move: func(cfg serverconf.Config) serverconf.Config {
				cfg.URL = strings.TrimSuffix(cfg.URL, "/mcp") + "/v2/mcp"
				return cfg
			},
		},
		{
			// The fault server in legacy mode refuses server/discover
			// (as an unsupported version) and logs every request's method
			// on stderr, which the manager keeps across restarts (and, in
			// its log file, across a Remove and Add).
			name: "stdio",
			start: func(t *testing.T) (serverconf.Config, func(*Manager, string) int) {
				cfg := mcptest.FaultServer(t, "old", "ok", mcptest.FaultLegacyEnv, "1")
				return cfg, func(m *Manager, method string) int {
					n := 0
					for _, l := range m.Stderr("old").Lines(0, 0) {
						if l.Text == "request "+method {
							n++
						}
					}
					return n
				}
			},
			move: func(cfg serverconf.Config) serverconf.Config {
				cfg.Args = append(slices.Clone(cfg.Args), "--v2") // the fault server ignores its arguments
				return cfg
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, count := tt.start(t)
			m, _ := newTestManager(t, nil)
			seen := func() (discover, initialize int) {
				return count(m, methodDiscover), count(m, methodInitialize)
			}
			m.Add(cfg)
			connectAndEcho(t, m, "old", "2025-11-25")
			if d, i := seen(); d != 1 || i != 1 {
				t.Fatalf("first connect: %d server/discover, %d initialize; want 1 and 1", d, i)
			}

			restart(t, m, "old", "2025-11-25")
			if d, i := seen(); d != 1 || i != 2 {
				t.Errorf("after a restart: %d server/discover, %d initialize in all; want 1 and 2", d, i)
			}

			// Reached another way: probed once more, then remembered again.
			if err := m.Update(tt.move(cfg)); err != nil {
				t.Fatal(err)
			}
			connectAndEcho(t, m, "old", "2025-11-25")
			restart(t, m, "old", "2025-11-25")
			if d, i := seen(); d != 2 || i != 4 {
				t.Errorf("after a change of address and a restart: %d server/discover, %d initialize in all; want 2 and 4", d, i)
			}

			// Removed and added again as it was: the same server, still
			// remembered.
			if err := m.Remove("old"); err != nil {
				t.Fatal(err)
			}
			m.Add(tt.move(cfg))
			connectAndEcho(t, m, "old", "2025-11-25")
			if d, i := seen(); d != 2 || i != 5 {
				t.Errorf("added again: %d server/discover, %d initialize in all; want 2 and 5", d, i)
			}
		})
	}
}

// TestEraHintFollowsTheAddress: what the manager remembers of an old
// server holds for that server only. Removed and replaced, under the same
// ID, by a 2026-07-28 server elsewhere, the new one is probed with
// server/discover at once, not sent the old one's initialize.
func TestEraHintFollowsTheAddress(t *testing.T) {
	old := echoServer(&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	oldLog, oldURL := serveLogged(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return old }, nil), methodDiscover)
	modern := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer(nil) },
		&mcp.StreamableHTTPOptions{Stateless: true})
	newLog, newURL := serveLogged(t, modern, methodInitialize)

	m, _ := newTestManager(t, nil)
	m.Add(serverconf.Config{ID: "x", Transport: serverconf.TransportHTTP, URL: oldURL, Enabled: true})
	connectAndEcho(t, m, "x", "2025-11-25")
	if err := m.Remove("x"); err != nil {
		t.Fatal(err)
	}
	m.Add(serverconf.Config{ID: "x", Transport: serverconf.TransportHTTP, URL: newURL, Enabled: true})
	connectAndEcho(t, m, "x", modernProtocol)
	if n := newLog.count(methodInitialize); n != 0 {
		t.Errorf("the new server was sent initialize %d times: %v", n, newLog.methods())
	}
	if n := oldLog.count(methodDiscover); n != 1 {
		t.Errorf("the old server was sent server/discover %d times: %v", n, oldLog.methods())
	}
}

// TestEraDoctorUsesTheHint: doctor, too, sends a server known to be old
// initialize directly, and probes the same ID at another address.
func TestEraDoctorUsesTheHint(t *testing.T) {
	s := echoServer(&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	log, url := serveLogged(t, h, methodDiscover)
	cfg := serverconf.Config{ID: "old", Transport: serverconf.TransportHTTP, URL: url + "/mcp", Enabled: true}

	m, _ := newTestManager(t, nil)
	m.Add(cfg)
	connectAndEcho(t, m, "old", "2025-11-25")
	r := m.Doctor(t.Context(), []serverconf.Config{cfg})[0]
	if r.State != StateConnected || r.ProtocolVersion != "2025-11-25" {
		t.Fatalf("doctor: %+v", r)
	}
	if n := log.count(methodDiscover); n != 1 {
		t.Errorf("server/discover sent %d times, want 1 (at the first connect): %v", n, log.methods())
	}
	moved := cfg
	moved.URL = url + "/other"
	if r := m.Doctor(t.Context(), []serverconf.Config{moved})[0]; r.State != StateConnected {
		t.Fatalf("doctor: %+v", r)
	}
	if n := log.count(methodDiscover); n != 2 {
		t.Errorf("server/discover sent %d times, want 2 (another address is probed): %v", n, log.methods())
	}
}

package mcpconn

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// protectedServer is a streamable-HTTP MCP server that wants
// "Authorization: Bearer good".
func protectedServer(t *testing.T) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are good"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.invalid/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

type fakeOAuth struct{ token string }

func (f fakeOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if f.token == "" {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.token, TokenType: "Bearer"}), nil
}

func (fakeOAuth) Authorize(context.Context, *http.Request, *http.Response) error {
	return errors.New("the user closed the browser")
}

func TestNeedsAuth(t *testing.T) {
	url := protectedServer(t)
	tests := []struct {
		name    string
		opts    Options
		headers map[string]serverconf.Value
		want    State
	}{
		{"no credentials", Options{}, nil, StateNeedsAuth},
		{"authorization failed", Options{AuthHandler: func(serverconf.Config) auth.OAuthHandler { return fakeOAuth{} }}, nil, StateNeedsAuth},
		{"header from the keyring", Options{Secrets: fakeSecrets{serverconf.HeaderSecretRef("p", "Authorization"): "Bearer good"}},
			map[string]serverconf.Value{"Authorization": {SecretRef: serverconf.HeaderSecretRef("p", "Authorization")}}, StateConnected},
		{"token from the OAuth handler", Options{AuthHandler: func(serverconf.Config) auth.OAuthHandler { return fakeOAuth{token: "good"} }}, nil, StateConnected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, rec := newTestManager(t, &tt.opts)
			m.Add(serverconf.Config{ID: "p", Transport: serverconf.TransportHTTP, URL: url, Headers: tt.headers, Enabled: true})
			st := waitState(t, m, "p", 20*time.Second, StateNeedsAuth, StateConnected, StateFailed)
			if st.State != tt.want {
				t.Fatalf("state %s (%s), want %s", st.State, st.Reason, tt.want)
			}
			if tt.want == StateNeedsAuth {
				if !strings.Contains(st.Reason, "HTTP 401") || !strings.Contains(st.Reason, "sign in") {
					t.Errorf("reason = %q", st.Reason)
				}
				if states := rec.states("p"); len(states) != 2 {
					t.Errorf("states = %v (no reconnect loop expected)", states)
				}
				return
			}
			if got := callText(t, m, "p__whoami", ""); got != "you are good" {
				t.Errorf("whoami = %q", got)
			}
		})
	}
}

func TestUnreachableRemoteServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	// Retried with backoff (it may come up later), then failed with why.
	m, _ := newTestManager(t, &Options{BackoffBase: 20 * time.Millisecond, BackoffMax: 50 * time.Millisecond, MaxReconnects: 3})
	m.Add(serverconf.Config{ID: "r", Transport: serverconf.TransportSSE, URL: url + "/sse", Enabled: true})
	st := waitState(t, m, "r", 20*time.Second, StateFailed)
	if !strings.Contains(st.Reason, "connection refused") || !strings.Contains(st.Reason, "gave up after 3 reconnect attempts") {
		t.Errorf("reason = %q", st.Reason)
	}
}

func TestDoctor(t *testing.T) {
	m := NewManager(&Options{ShellPATH: func() string { return "/usr/bin:/bin" }})
	reports := m.Doctor(t.Context(), []serverconf.Config{
		mcptest.FaultServer(t, "ok", "ok"),
		mcptest.FaultServer(t, "crash", "crash-start"),
		{ID: "missing", Transport: serverconf.TransportStdio, Command: "no-such-server"},
		{ID: "auth", Transport: serverconf.TransportHTTP, URL: protectedServer(t)},
	})
	for _, r := range reports {
		t.Logf("%s: %s in %s, %d tools, protocol %s %s", r.ServerID, r.State, r.ConnectTime.Round(time.Millisecond), len(r.Tools), r.ProtocolVersion, r.Error)
	}
	if r := reports[0]; r.State != StateConnected || len(r.Tools) != 10 || r.Server != "fault 1.0" || r.ConnectTime <= 0 {
		t.Errorf("ok: %+v", r)
	}
	if r := reports[1]; r.State != StateFailed || !strings.Contains(r.Error, "exit status 3") ||
		len(r.Stderr) != 2 || !strings.Contains(r.Stderr[1], "permission denied") {
		t.Errorf("crash: %+v", r)
	}
	if r := reports[2]; r.State != StateFailed || !strings.Contains(r.Error, "no-such-server not found on PATH (/usr/bin:/bin)") {
		t.Errorf("missing: %+v", r)
	}
	if r := reports[3]; r.State != StateNeedsAuth {
		t.Errorf("auth: %+v", r)
	}
}

// TestRemoteServerUnreachableAtStartIsRetried: a remote server that is not
// up yet when the app starts (the network comes later) is retried with
// backoff and connects once it answers; it is not left failed.
func TestRemoteServerUnreachableAtStartIsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there for now

	m, rec := newTestManager(t, &Options{BackoffBase: 50 * time.Millisecond, BackoffMax: 200 * time.Millisecond, MaxReconnects: 50})
	m.Add(serverconf.Config{ID: "late", Transport: serverconf.TransportHTTP, URL: "http://" + addr + "/mcp", Enabled: true})
	waitState(t, m, "late", 10*time.Second, StateDegraded)

	s := mcp.NewServer(&mcp.Implementation{Name: "late", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "hello"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
	})
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	st := waitState(t, m, "late", 10*time.Second, StateConnected)
	if st.ToolCount != 1 {
		t.Errorf("tool count = %d", st.ToolCount)
	}
	if states := rec.states("late"); len(states) < 3 || states[len(states)-1] != StateConnected {
		t.Errorf("states = %v", states)
	}
}

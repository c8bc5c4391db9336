package mcpconn

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// hostSpy is a second origin (another port on 127.0.0.1) that records
// every request it gets.
type hostSpy struct {
	URL string
	mu  sync.Mutex
	got []string // "METHOD path X-Api-Key=value"
}

func newHostSpy(t *testing.T) *hostSpy {
	s := &hostSpy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, fmt.Sprintf("%s %s X-Api-Key=%s", r.Method, r.URL.Path, r.Header.Get("X-Api-Key")))
		s.mu.Unlock()
		http.Error(w, "spy", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *hostSpy) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func echoMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "hello"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
	})
	return s
}

var apiKey = map[string]serverconf.Value{"X-Api-Key": {Plain: "sk-secret"}}

// TestCrossOriginRedirectRefused: a server answering 307 to another origin
// does not get Switchboard, nor its configured API key, there.
func TestCrossOriginRedirectRefused(t *testing.T) {
	spy := newHostSpy(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, spy.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)

	m, _ := newTestManager(t, &Options{MaxReconnects: -1})
	m.Add(serverconf.Config{ID: "r", Transport: serverconf.TransportHTTP, URL: srv.URL + "/mcp", Headers: apiKey, Enabled: true})
	st := waitState(t, m, "r", 20*time.Second, StateFailed, StateConnected, StateNeedsAuth)
	if st.State != StateFailed || !strings.Contains(st.Reason, "the server redirected to another origin ("+strings.ToLower(spy.URL)) ||
		!strings.Contains(st.Reason, "set the server's URL to the final address") {
		t.Errorf("state %s, reason %q", st.State, st.Reason)
	}
	if got := spy.requests(); len(got) != 0 {
		t.Errorf("the other origin got %v", got)
	}
}

// TestSameOriginRedirectFollowed: a redirect within the origin is
// followed, with the configured headers.
func TestSameOriginRedirectFollowed(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoMCPServer() }, nil)
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusPermanentRedirect)
			return
		}
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	m, _ := newTestManager(t, &Options{MaxReconnects: -1})
	m.Add(serverconf.Config{ID: "r", Transport: serverconf.TransportHTTP, URL: srv.URL + "/old", Headers: apiKey, Enabled: true})
	if st := waitState(t, m, "r", 20*time.Second, StateFailed, StateConnected, StateNeedsAuth); st.State != StateConnected {
		t.Fatalf("state %s, reason %q", st.State, st.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) == 0 || keys[0] != "sk-secret" {
		t.Errorf("keys at /new = %q", keys)
	}
}

// TestCrossOriginSSEEndpointRefused: an SSE server whose endpoint event
// names another origin gets no POST there.
func TestCrossOriginSSEEndpointRefused(t *testing.T) {
	spy := newHostSpy(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?session=1\n\n", spy.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)

	m, _ := newTestManager(t, &Options{MaxReconnects: -1})
	m.Add(serverconf.Config{ID: "s", Transport: serverconf.TransportSSE, URL: srv.URL + "/sse", Headers: apiKey, Enabled: true})
	st := waitState(t, m, "s", 20*time.Second, StateFailed, StateConnected, StateNeedsAuth)
	if st.State != StateFailed || !strings.Contains(st.Reason, "another origin ("+strings.ToLower(spy.URL)) {
		t.Errorf("state %s, reason %q", st.State, st.Reason)
	}
	if got := spy.requests(); len(got) != 0 {
		t.Errorf("the other origin got %v", got)
	}
}

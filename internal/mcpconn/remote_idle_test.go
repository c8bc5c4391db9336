package mcpconn

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Each remote session has a transport of its own, so its kept-alive
// connections go when it does: a removed (or reconnected) server leaves no
// sockets open behind it.
func TestEndedRemoteSessionClosesItsConnections(t *testing.T) {
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	changed := make(chan struct{}, 1)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoMCPServer() }, nil)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		mu.Lock()
		switch st {
		case http.StateNew:
			open[c] = true
		case http.StateClosed, http.StateHijacked:
			delete(open, c)
		}
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	m, _ := newTestManager(t, &Options{MaxReconnects: -1, PingInterval: -1})
	m.Add(serverconf.Config{ID: "r", Transport: serverconf.TransportHTTP, URL: srv.URL, Enabled: true})
	if st := waitState(t, m, "r", 20*time.Second, StateFailed, StateConnected); st.State != StateConnected {
		t.Fatalf("state %s, reason %q", st.State, st.Reason)
	}
	callText(t, m, "r__hello", `{}`)
	if err := m.Remove("r"); err != nil {
		t.Fatal(err)
	}
	// Idle connections would otherwise stay for the transport's 90 s.
	deadline := time.After(10 * time.Second)
	for {
		mu.Lock()
		n := len(open)
		mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%d connections still open 10 s after the server was removed", n)
		}
	}
}

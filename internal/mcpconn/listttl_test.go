package mcpconn

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A listing the server says may be kept for ttlMs is read again when that
// time is up (never sooner than the floor), so a change on a server that
// sends no tools/list_changed is still seen; one without ttlMs is kept
// until the server says it changed.
func TestToolListingLifetime(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ttlMs int
		want  bool // the second tool is seen
	}{
		{"with ttlMs", 50, true},
		{"without ttlMs", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lists atomic.Int32
			srv := mcp.NewServer(&mcp.Implementation{Name: "ttl", Version: "1"}, &mcp.ServerOptions{
				// No listChanged: the server cannot say its tools changed.
				Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
				SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
					if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
						lists.Add(1)
						c.TTLMs = tc.ttlMs
					}
				},
			})
			noop := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			}
			mcp.AddTool(srv, &mcp.Tool{Name: "first"}, noop)
			m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1})
			m.minListTTL = 20 * time.Millisecond
			m.testTransport = func(serverconf.Config) (mcp.Transport, error) {
				st, ct := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(context.Background(), st, nil); err != nil {
					return nil, err
				}
				return ct, nil
			}
			defer m.Close()
			m.Start(t.Context())
			m.Add(serverconf.Config{ID: "ttl", Enabled: true})
			waitState(t, m, "ttl", 10*time.Second, StateConnected)
			// The server adds a tool and says nothing (no list_changed:
			// the SDK sends it only with the capability, which is off).
			mcp.AddTool(srv, &mcp.Tool{Name: "second"}, noop)
			deadline := time.Now().Add(2 * time.Second)
			seen := false
			for !seen && time.Now().Before(deadline) {
				_, seen = m.Lookup("ttl__second")
				time.Sleep(10 * time.Millisecond)
			}
			if seen != tc.want {
				t.Errorf("second tool seen = %v after 2 s (%d listings), want %v", seen, lists.Load(), tc.want)
			}
		})
	}
}

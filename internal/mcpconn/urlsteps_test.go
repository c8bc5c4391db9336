package mcpconn

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// gateServer's tool "gate" always fails with a URL-elicitation-required
// error naming n steps; calls counts its calls.
func gateServer(calls *int, mu *sync.Mutex) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "gate"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ N int }) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		*calls++
		mu.Unlock()
		var steps []*mcp.ElicitParams
		for i := range in.N {
			steps = append(steps, &mcp.ElicitParams{Mode: "url", ElicitationID: fmt.Sprint("e", i), URL: fmt.Sprintf("https://pay%d.example.com/x?token=secret", i), Message: "Pay first."})
		}
		return nil, nil, mcp.URLElicitationRequiredError(steps)
	})
	return srv
}

// TestURLStepsRetryOnce: a call that needs steps in the browser has them
// taken (Options.URLSteps) and is retried once, over both protocol eras;
// a server that asks again, asks for too many, or a Manager that cannot
// show them, ends in a result telling the model, never in a loop. The
// pages' URLs (which may carry a token) are not told to the model.
func TestURLStepsRetryOnce(t *testing.T) {
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			var asked [][]string
			opts := &Options{Logger: testLogger(t), PingInterval: -1, ProtocolHints: map[string]string{"g": proto},
				URLSteps: func(_ context.Context, serverID string, steps []*mcp.ElicitParams) error {
					var ids []string
					for _, s := range steps {
						ids = append(ids, serverID+":"+s.ElicitationID)
					}
					mu.Lock()
					asked = append(asked, ids)
					mu.Unlock()
					return nil
				}}
			m := NewManager(opts)
			connectInProcess(m, gateServer(&calls, &mu))
			defer m.Close()
			m.Start(t.Context())
			m.Add(serverconf.Config{ID: "g", Name: "Gate", Enabled: true})
			if st := waitState(t, m, "g", 10*time.Second, StateConnected); st.ProtocolVersion != proto {
				t.Fatalf("protocol %s", st.ProtocolVersion)
			}

			got := callText(t, m, "g__gate", `{"N":2}`)
			mu.Lock()
			if calls != 2 || len(asked) != 1 || strings.Join(asked[0], " ") != "g:e0 g:e1" {
				t.Errorf("%d calls, steps asked %v; want 2 calls, one round of g:e0 g:e1", calls, asked)
			}
			mu.Unlock()
			for _, want := range []string{"[tool error]", "Gate needs the user to complete a step in their browser before this tool can run",
				"“Pay first.” (at pay0.example.com); “Pay first.” (at pay1.example.com)",
				"It was not completed: the server asked for steps again once the user had completed them, so the call was not retried a second time."} {
				if !strings.Contains(got, want) {
					t.Errorf("result lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "secret") {
				t.Errorf("the model was told a page's URL: %s", got)
			}

			got = callText(t, m, "g__gate", fmt.Sprintf(`{"N":%d}`, MaxURLSteps+1))
			if !strings.Contains(got, "It was not completed: the server asks for 4 steps, more than the 3 Switchboard puts to the user at once.") {
				t.Errorf("too many steps: %s", got)
			}
			mu.Lock()
			if calls != 3 || len(asked) != 1 {
				t.Errorf("too many steps: %d calls, %d rounds asked", calls, len(asked))
			}
			mu.Unlock()

			m.opts.URLSteps = nil
			if got := callText(t, m, "g__gate", `{"N":1}`); !strings.Contains(got, "It was not completed: Switchboard cannot show them here.") {
				t.Errorf("without URLSteps: %s", got)
			}
		})
	}
}

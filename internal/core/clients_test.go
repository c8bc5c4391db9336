package core

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// clientServices are services whose window is visible when visible says
// so, with an MCP server "tools" whose tool "note" counts its runs, a
// connected app "Agent" that may write conversation conv, and a session
// of that app.
type clientServices struct {
	svc     *Services
	user    *userAtUI
	visible atomic.Bool
	notes   atomic.Int32
	conv    string
	session *mcp.ClientSession
	cl      clients.Client
}

func newClientServices(t *testing.T) *clientServices {
	t.Helper()
	cs := &clientServices{user: &userAtUI{decision: approval.AllowOnce}}
	tools := mcp.NewServer(&mcp.Implementation{Name: "tools", Version: "1"}, nil)
	mcp.AddTool(tools, &mcp.Tool{Name: "note"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		cs.notes.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
	})
	provider := llmtest.NewServer(t, nil) // echoes; "use tool NAME" calls it
	p := paths.In(t.TempDir())
	c, err := Open(t.Context(), &Options{Paths: &p, Secrets: &secrets.Memory{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cs.svc, err = c.Services(&ServiceOptions{Emitter: cs.user, Manager: &mcpconn.Options{PingInterval: -1},
		Visible: cs.visible.Load,
		Provider: func(ctx context.Context, _ string) (*llm.Client, string, error) {
			cl, err := llm.NewClient(llm.ProviderConfig{BaseURL: provider.URL})
			return cl, "test-model", err
		}})
	if err != nil {
		t.Fatal(err)
	}
	cs.user.broker = func() *approval.Broker { return cs.svc.Broker }
	if _, err := cs.svc.Servers.Save(t.Context(), serverconf.Config{ID: "tools", Name: "Tools", Transport: serverconf.TransportHTTP,
		URL: serveMCP(t, tools), Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := cs.svc.Start(t.Context(), c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, cs.svc, "tools", mcpconn.StateConnected)
	// Yolo is on for the user's own turns: it must not apply to the app's.
	if err := cs.svc.Broker.SetYolo(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	conv, err := c.Store.CreateConversation(t.Context(), store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	cs.conv = conv.ID
	cl, token, err := cs.svc.Clients().Add(t.Context(), "Agent", false)
	if err != nil {
		t.Fatal(err)
	}
	cs.cl = cl
	if err := cs.svc.GrantClient(t.Context(), "Agent", conv.ID, clients.Write, time.Time{}); err != nil {
		t.Fatal(err)
	}
	srv := cs.svc.NewClientServer(mcpserve.TransportStdio)
	t.Cleanup(func() { srv.Close() })
	ct, st := mcp.NewInMemoryTransports()
	go srv.Serve(context.Background(), token, st)
	cs.session, err = mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.session.Close() })
	return cs
}

// send has the app ask the model to call the note tool and returns the
// call's audit record.
func (cs *clientServices) send(t *testing.T) store.ToolCall {
	t.Helper()
	res, err := cs.session.CallTool(t.Context(), &mcp.CallToolParams{Name: mcpserve.ToolSend,
		Arguments: map[string]any{"conversationId": cs.conv, "text": "use tool tools__note {}"}})
	if err != nil || res.IsError {
		t.Fatalf("send_message: %v %+v", err, res)
	}
	calls, err := cs.svc.store.ToolCalls(t.Context(), cs.conv, 0)
	if err != nil || len(calls) == 0 {
		t.Fatalf("no tool call recorded: %v", err)
	}
	return calls[len(calls)-1]
}

func (cs *clientServices) asked() []approval.Request {
	var out []approval.Request
	for _, e := range cs.user.Named(approval.EventRequested) {
		out = append(out, e.Payload.(approval.Request))
	}
	return out
}

// A connected app's turn runs a tool only as the user allows it: with no
// window, a tool not allowed for the app is refused saying how to allow it
// (yolo notwithstanding), one allowed for it runs unasked; with the window
// visible, the user is asked, told which app asks.
func TestClientTurnApprovals(t *testing.T) {
	cs := newClientServices(t)

	call := cs.send(t)
	if call.Status != store.CallDenied || !strings.Contains(call.Error, `switchboard clients allow "Agent" tools note`) {
		t.Errorf("no window, not allowed: %+v", call)
	}
	if call.RequestedBy != "client:Agent" {
		t.Errorf("RequestedBy = %q", call.RequestedBy)
	}
	if cs.notes.Load() != 0 || len(cs.asked()) != 0 {
		t.Fatalf("the tool ran (%d) or the user was asked (%d)", cs.notes.Load(), len(cs.asked()))
	}

	cs.visible.Store(true)
	call = cs.send(t)
	asked := cs.asked()
	if len(asked) != 1 || asked[0].RequestedBy != approval.RequestedByClient || asked[0].Client != "Agent" {
		t.Fatalf("with the window: asked %+v", asked)
	}
	if call.Status != store.CallDone || call.DecidedBy != string(approval.ByUser) || cs.notes.Load() != 1 {
		t.Errorf("with the window, the user allowing: %+v (ran %d)", call, cs.notes.Load())
	}

	cs.visible.Store(false)
	if err := cs.svc.Clients().AllowTool(t.Context(), "Agent", "tools", "note"); err != nil {
		t.Fatal(err)
	}
	call = cs.send(t)
	if call.Status != store.CallDone || cs.notes.Load() != 2 || len(cs.asked()) != 1 {
		t.Errorf("allowed for the app: %+v (ran %d, asked %d)", call, cs.notes.Load(), len(cs.asked()))
	}

	// The user's own turn still runs on yolo.
	if _, err := cs.svc.Chat.Run(t.Context(), cs.conv, "use tool tools__note {}"); err != nil {
		t.Fatal(err)
	}
	if cs.notes.Load() != 3 || len(cs.asked()) != 1 {
		t.Errorf("the user's turn: ran %d, asked %d", cs.notes.Load(), len(cs.asked()))
	}
}

// Revoking through the services ends the app's sessions on the endpoint
// at once; the endpoint listens on 127.0.0.1 and is off by default.
func TestClientEndpoint(t *testing.T) {
	cs := newClientServices(t)
	if st := cs.svc.ClientEndpoint(); st.On {
		t.Fatalf("the endpoint is on by default: %+v", st)
	}
	st, err := cs.svc.SetClientEndpoint(t.Context(), true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !st.On || st.Port == 0 || !strings.HasPrefix(st.URL, "http://127.0.0.1:") {
		t.Fatalf("status %+v", st)
	}
	t.Cleanup(func() { cs.svc.SetClientEndpoint(context.Background(), false, 0) })
	_, token, err := cs.svc.Clients().Add(t.Context(), "Web", false)
	if err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "web", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: st.URL, HTTPClient: bearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if _, err := session.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if err := cs.svc.RevokeClient(t.Context(), "Web"); err != nil {
		t.Fatal(err)
	}
	if _, err := session.ListTools(t.Context(), nil); err == nil {
		t.Error("the revoked app's session still answers")
	}
	var set endpointSetting
	if err := cs.svc.store.Setting(t.Context(), endpointKey, &set); err != nil || !set.On || set.Port != st.Port {
		t.Errorf("saved setting %+v %v; want on, port %d", set, err, st.Port)
	}
	if _, err := cs.svc.SetClientEndpoint(t.Context(), false, 0); err != nil {
		t.Fatal(err)
	}
	if st := cs.svc.ClientEndpoint(); st.On {
		t.Errorf("after off: %+v", st)
	}
}

// bearerClient sends token as a bearer token with every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Start starts the endpoint when the user turned it on, and only for the
// window (ClientEndpoint): a CLI command never takes its port.
func TestClientEndpointStartsWhenOn(t *testing.T) {
	for _, window := range []bool{false, true} {
		p := paths.In(t.TempDir())
		c, err := Open(t.Context(), &Options{Paths: &p, Secrets: &secrets.Memory{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Store.SetSetting(t.Context(), endpointKey, endpointSetting{On: true}); err != nil {
			t.Fatal(err)
		}
		svc, err := c.Services(&ServiceOptions{ClientEndpoint: window})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Start(t.Context(), c.Log); err != nil {
			t.Fatal(err)
		}
		if st := svc.ClientEndpoint(); st.On != window || (window && st.Port == 0) {
			t.Errorf("window %v: endpoint %+v", window, st)
		}
		c.Close()
		if st := svc.ClientEndpoint(); st.On {
			t.Errorf("after Close: %+v", st)
		}
	}
}

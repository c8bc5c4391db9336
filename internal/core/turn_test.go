package core

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// userAtUI plays the user in front of the approval modal: it records every
// event and answers each approval request with decision.
type userAtUI struct {
	eventtest.Recorder
	broker   func() *approval.Broker
	decision approval.Decision
}

func (u *userAtUI) Emit(name string, payload any) {
	u.Recorder.Emit(name, payload)
	if r, ok := payload.(approval.Request); ok && name == approval.EventRequested {
		go u.broker().Decide(context.Background(), r.ID, u.decision)
	}
}

// TestTurnWithTwoParallelToolCallsAgainstRealServers is the whole product
// path: a streamed reply whose two tool calls (split across chunks and
// interleaved) run concurrently on two real MCP servers after the user
// allowed them, the results go back to the model with their tool_call_id,
// and the exchange is stored, audited and searchable.
func TestTurnWithTwoParallelToolCallsAgainstRealServers(t *testing.T) {
	path := mcptest.Node(t, "mcp-server-everything", "mcp-server-memory").PATH()
	ctx := context.Background()
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		{
			Content:    []string{"Let me ", "check both."},
			Interleave: true,
			ToolCalls: []llmtest.ToolCall{
				{ID: "call_echo", Name: "everything__echo", Arguments: []string{`{"mess`, `age": "quokka`, ` holiday"}`}},
				{ID: "call_graph", Name: "memory__read_graph", Arguments: []string{`{`, `}`}},
			},
		},
		llmtest.Text("The echo said ", "quokka holiday and the graph is empty."),
	}})

	dir := t.TempDir()
	user := &userAtUI{decision: approval.AllowOnce}
	c, svc := startServices(t, dir, provider.URL, user, &mcpconn.Options{ShellPATH: func() string { return path }, PingInterval: -1})
	user.broker = func() *approval.Broker { return svc.Broker }
	for _, cfg := range []serverconf.Config{
		{ID: "everything", Name: "Everything", Transport: serverconf.TransportStdio, Command: "mcp-server-everything", Args: []string{"stdio"}, Enabled: true},
		{ID: "memory", Name: "Memory", Transport: serverconf.TransportStdio, Command: "mcp-server-memory", Env: map[string]serverconf.Value{"MEMORY_FILE_PATH": {Plain: filepath.Join(dir, "memory.json")}}, Enabled: true},
	} {
		if _, err := svc.Servers.Save(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	connectCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if sts := svc.Manager.Statuses(); len(sts) != 2 {
		t.Fatalf("%d servers configured; want 2", len(sts))
	}
	for _, st := range svc.Manager.Statuses() {
		st, err := svc.Manager.Wait(connectCtx, st.ServerID, func(st mcpconn.Status) bool {
			return st.State == mcpconn.StateConnected || st.State == mcpconn.StateFailed
		})
		if err != nil {
			t.Fatalf("servers not connected (%v): %+v", err, svc.Manager.Statuses())
		}
		if st.State == mcpconn.StateFailed {
			t.Fatalf("%s failed: %s\n%s", st.ServerID, st.Reason, strings.Join(st.LastStderr, "\n"))
		}
	}

	conv, err := c.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Chat.Run(ctx, conv.ID, "Where is the quokka picture?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != store.StatusDone {
		t.Fatalf("run ended %s: %s", res.Status, res.Error)
	}

	// The model's second request carries both results with their ids.
	reqs := provider.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("provider saw %d requests; want 2", len(reqs))
	}
	body, _ := json.Marshal(reqs[1])
	for _, want := range []string{`"tool_call_id":"call_echo"`, `"tool_call_id":"call_graph"`, "quokka holiday", "everything__echo"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("second request lacks %s:\n%s", want, body)
		}
	}

	msgs, err := c.Store.Messages(ctx, conv.ID, store.MessagePage{})
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,tool,assistant" {
		t.Fatalf("stored roles = %s", got)
	}
	if last := msgs[len(msgs)-1]; last.Content != "The echo said quokka holiday and the graph is empty." {
		t.Errorf("final answer = %q", last.Content)
	}

	calls, err := c.Store.ToolCalls(ctx, conv.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("audit has %d calls; want 2", len(calls))
	}
	for _, tc := range calls {
		if tc.Decision != "allow_once" || tc.DecidedBy != "user" || tc.Status != "done" {
			t.Errorf("audit %s: decision %s by %s, status %s", tc.Tool, tc.Decision, tc.DecidedBy, tc.Status)
		}
	}

	hits, err := c.Store.Search(ctx, "quokka", 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search for quokka: %v, %v", hits, err)
	}
	for _, ev := range []string{chat.EventDelta, chat.EventToolCall, approval.EventRequested, mcpconn.EventServerStatus} {
		if len(user.Named(ev)) == 0 {
			t.Errorf("no %s event emitted", ev)
		}
	}
}

// startServices opens a Core in dir, with an in-memory keyring, and its
// services with em as the UI, mgr for the servers, and every provider
// being the fake at providerURL; the Core closes when the test ends.
func startServices(t *testing.T, dir, providerURL string, em Emitter, mgr *mcpconn.Options) (*Core, *Services) {
	t.Helper()
	p := paths.In(dir)
	c, err := Open(t.Context(), &Options{Paths: &p, Secrets: &secrets.Memory{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	svc, err := c.Services(&ServiceOptions{
		Emitter: em,
		Manager: mgr,
		Provider: func(ctx context.Context, _ string) (*llm.Client, string, error) {
			cl, err := llm.NewClient(llm.ProviderConfig{BaseURL: providerURL})
			return cl, "test-model", err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, svc
}

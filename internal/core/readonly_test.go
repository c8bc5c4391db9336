package core

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

func TestToolHints(t *testing.T) {
	tests := []struct {
		raw  string
		want *approval.ToolHints
	}{
		{``, nil},
		{`{}`, nil},
		{`{"title":"x"}`, nil},
		{`not json`, nil},
		{`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`,
			&approval.ToolHints{ReadOnly: new(true), Destructive: new(false), Idempotent: new(true), OpenWorld: new(false)}},
		{`{"destructiveHint":true}`, &approval.ToolHints{Destructive: new(true)}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ToolHints(json.RawMessage(tt.raw))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.raw, diff)
		}
	}
}

// With server-everything's annotated tools: the approval request carries
// each tool's title and hints; with "allow read-only tools" on for the
// server, echo (readOnlyHint true) runs unasked, recorded as
// allow_read_only by policy, while toggle-simulated-logging (readOnlyHint
// false) still asks; off again, echo asks.
func TestReadOnlyToolsOfEverything(t *testing.T) {
	e := mcptest.Node(t, "mcp-server-everything")
	ctx := context.Background()
	echo := llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "ev__echo", Arguments: []string{`{"message":"hi"}`}})
	toggle := llmtest.Calls(llmtest.ToolCall{ID: "c2", Name: "ev__toggle-simulated-logging", Arguments: []string{`{}`}})
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		echo, llmtest.Text("1"), // asked: the setting is off
		echo, llmtest.Text("2"), // unasked
		toggle, llmtest.Text("3"), // asked: not read-only
		echo, llmtest.Text("4"), // asked: the setting is off again
	}})
	user := &askedUser{decisions: []approval.Decision{approval.AllowOnce, approval.Deny, approval.Deny}}
	c, svc := startServices(t, t.TempDir(), provider.URL, user, &mcpconn.Options{PingInterval: -1, ShellPATH: e.PATH})
	user.broker = func() *approval.Broker { return svc.Broker }
	if _, err := svc.Servers.Save(ctx, serverconf.Config{ID: "ev", Name: "Everything", Transport: serverconf.TransportStdio,
		Command: "mcp-server-everything", Args: []string{"stdio"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if st, err := svc.Manager.Wait(wctx, "ev", func(st mcpconn.Status) bool { return st.State == mcpconn.StateConnected }); err != nil {
		t.Fatalf("%+v: %v", st, err)
	}
	conv, err := c.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	turn := func(prompt string) {
		t.Helper()
		if res, err := svc.Chat.Run(ctx, conv.ID, prompt); err != nil || res.Status != store.StatusDone {
			t.Fatalf("%s: %+v, %v", prompt, res, err)
		}
	}

	turn("echo, asked")
	if err := svc.SetReadOnly(ctx, "ev", true); err != nil {
		t.Fatal(err)
	}
	turn("echo, unasked")
	turn("toggle, asked")
	if err := svc.SetReadOnly(ctx, "ev", false); err != nil {
		t.Fatal(err)
	}
	turn("echo, asked again")
	if err := svc.SetReadOnly(ctx, "nope", true); err == nil {
		t.Error("read-only setting of an unknown server")
	}

	var asked []string
	for _, r := range user.requests() {
		asked = append(asked, r.Tool)
		switch r.Tool {
		case "echo":
			if r.Title != "Echo Tool" || !r.Hints.ClaimsReadOnly() {
				t.Errorf("echo asked with title %q, hints %+v", r.Title, r.Hints)
			}
		case "toggle-simulated-logging":
			if r.Hints == nil || r.Hints.ReadOnly == nil || *r.Hints.ReadOnly || r.Hints.ClaimsReadOnly() {
				t.Errorf("toggle asked with hints %+v", r.Hints)
			}
		}
	}
	if diff := cmp.Diff([]string{"echo", "toggle-simulated-logging", "echo"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	calls, err := c.Store.ToolCalls(ctx, conv.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range calls {
		got = append(got, r.Decision+"/"+r.DecidedBy)
	}
	want := []string{"allow_once/user", "allow_read_only/policy", "deny/user", "deny/user"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit decisions (-want +got):\n%s", diff)
	}
}

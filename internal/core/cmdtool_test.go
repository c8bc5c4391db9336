package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A command tool goes through approvals like any tool: denied, the
// command does not run; allowed, it runs; both audited.
func TestCommandToolNeedsApproval(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no touch")
	}
	ctx := context.Background()
	dir := t.TempDir()
	marker := filepath.Join(dir, "touched")
	args := `{"path": "` + marker + `"}`
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "files__touch", Arguments: []string{args}}}},
		llmtest.Text("You declined."),
		{ToolCalls: []llmtest.ToolCall{{ID: "call_2", Name: "files__touch", Arguments: []string{args}}}},
		llmtest.Text("Touched."),
	}})
	user := &userAtUI{decision: approval.Deny}
	c, svc := startServices(t, dir, provider.URL, user, &mcpconn.Options{ShellPATH: func() string { return os.Getenv("PATH") }, PingInterval: -1})
	user.broker = func() *approval.Broker { return svc.Broker }
	cfg := serverconf.Config{ID: "files", Name: "Files", Transport: serverconf.TransportCommand, Enabled: true, Tools: []serverconf.CommandTool{{
		Name: "touch", Description: "Creates an empty file.",
		InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Command:     []string{"touch", "--", "{{path}}"},
	}}}
	if _, err := svc.Servers.Save(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if st, err := svc.Manager.Wait(wctx, "files", func(st mcpconn.Status) bool { return st.State == mcpconn.StateConnected }); err != nil {
		t.Fatalf("not connected: %v %+v", err, st)
	}

	conv, err := c.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := svc.Chat.Run(ctx, conv.ID, "touch the file"); err != nil || res.Status != store.StatusDone {
		t.Fatalf("run: %v %+v", err, res)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a denied call ran: %s exists (%v)", marker, err)
	}
	if log := logOf(svc.Manager, "files"); strings.Contains(log, "run touch") {
		t.Errorf("a denied call ran:\n%s", log)
	}

	user.decision = approval.AllowOnce
	if res, err := svc.Chat.Run(ctx, conv.ID, "now do it"); err != nil || res.Status != store.StatusDone {
		t.Fatalf("run: %v %+v", err, res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the allowed call did not run: %v\n%s", err, logOf(svc.Manager, "files"))
	}

	calls, err := c.Store.ToolCalls(ctx, conv.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("audit has %d calls; want 2", len(calls))
	}
	for i, want := range []struct{ status, decision string }{{store.CallDenied, "deny"}, {store.CallDone, "allow_once"}} {
		if calls[i].ServerID != "files" || calls[i].Tool != "files__touch" || calls[i].Status != want.status || calls[i].Decision != want.decision {
			t.Errorf("audit %d: %s/%s %s %s; want files/files__touch %s %s", i, calls[i].ServerID, calls[i].Tool, calls[i].Status, calls[i].Decision, want.status, want.decision)
		}
	}
}

func logOf(m *mcpconn.Manager, id string) string {
	var b strings.Builder
	for _, l := range m.Stderr(id).Lines(0, 0) {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

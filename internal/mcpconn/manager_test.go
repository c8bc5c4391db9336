package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func TestSetServers(t *testing.T) {
	rec := &recorder{}
	m := NewManager(&Options{Emitter: rec, Logger: testLogger(t), LogDir: t.TempDir()})
	defer m.Close()
	a := mcptest.FaultServer(t, "a", "ok")
	b := mcptest.FaultServer(t, "b", "ok")
	off := mcptest.FaultServer(t, "off", "ok")
	off.Enabled = false
	if err := m.SetServers([]serverconf.Config{a, b, off}); err != nil {
		t.Fatal(err)
	}
	// Nothing connects before Start, and Start does not wait.
	if st, _ := m.Status("a"); st.State != StateDisconnected {
		t.Errorf("before Start: %s", st.State)
	}
	if err := m.Connect("a"); !errors.Is(err, ErrNotStarted) {
		t.Errorf("Connect before Start: %v", err)
	}
	start := time.Now()
	m.Start(t.Context())
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("Start took %s", d)
	}
	waitState(t, m, "a", 20*time.Second, StateConnected)
	waitState(t, m, "b", 20*time.Second, StateConnected)
	if st, _ := m.Status("off"); st.State != StateDisconnected {
		t.Errorf("disabled server: %s", st.State)
	}

	// b goes, c comes, off is switched on; order follows the new list.
	c := mcptest.FaultServer(t, "c", "ok")
	off.Enabled = true
	if err := m.SetServers([]serverconf.Config{c, off, a}); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "c", 20*time.Second, StateConnected)
	waitState(t, m, "off", 20*time.Second, StateConnected)
	var ids []string
	for _, st := range m.Statuses() {
		ids = append(ids, st.ServerID)
	}
	if diff := cmp.Diff([]string{"c", "off", "a"}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if _, err := m.Status("b"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("b: %v", err)
	}
	if _, ok := m.Lookup("b__echo"); ok {
		t.Error("b's tools still registered")
	}
	if diff := cmp.Diff([]State{StateConnecting, StateConnected}, rec.states("a")); diff != "" {
		t.Errorf("a was disturbed (-want +got):\n%s", diff)
	}

	if err := m.SetServers([]serverconf.Config{a, a}); !errors.Is(err, ErrServerExists) {
		t.Errorf("duplicate IDs: %v", err)
	}
	if err := m.Add(a); !errors.Is(err, ErrServerExists) {
		t.Errorf("Add twice: %v", err)
	}
	if err := m.Update(serverconf.Config{ID: "zzz"}); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Update unknown: %v", err)
	}
}

func TestUpdateFixesFailedServer(t *testing.T) {
	m, _ := newTestManager(t, nil)
	cfg := mcptest.FaultServer(t, "f", "crash-start")
	m.Add(cfg)
	waitState(t, m, "f", 20*time.Second, StateFailed)
	cfg.Env[mcptest.FaultEnv] = serverconf.Value{Plain: "ok"}
	m.Update(cfg)
	waitState(t, m, "f", 20*time.Second, StateConnected)
}

func TestToolsArePaginated(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	for i := range 7 {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	m := NewManager(&Options{Logger: testLogger(t)})
	m.testTransport = func(serverconf.Config) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	defer m.Close()
	m.Start(t.Context())
	m.Add(serverconf.Config{ID: "p", Enabled: true})
	if st := waitState(t, m, "p", 10*time.Second, StateConnected); st.ToolCount != 7 {
		t.Errorf("ToolCount = %d, want 7", st.ToolCount)
	}
	if n := len(m.Tools()); n != 7 {
		t.Errorf("%d tools registered", n)
	}
}

func TestRedactArgs(t *testing.T) {
	got := redactArgs([]string{"-y", "@x/server", "--api-key", "sk-123", "--token=abc", "--verbose", "--password", "--port", "80"})
	want := []string{"-y", "@x/server", "--api-key", "***", "--token=***", "--verbose", "--password", "--port", "80"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

package mcpconn

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
)

// crash calls the fault server's crash tool, which exits mid-call.
func crash(t *testing.T, m *Manager, name string) {
	t.Helper()
	if _, err := m.CallTool(t.Context(), name, nil, nil); !errors.Is(err, ErrServerGone) {
		t.Fatalf("crash: err = %v, want ErrServerGone", err)
	}
}

// TestCallRightAfterCrashWaitsForReconnect: a call made while the server
// reconnects after a crash waits for the new session instead of failing
// with "no tool named" or a state that is not true.
func TestCallRightAfterCrashWaitsForReconnect(t *testing.T) {
	m, _ := newTestManager(t, &Options{BackoffBase: 400 * time.Millisecond, BackoffMax: 400 * time.Millisecond})
	m.Add(mcptest.FaultServer(t, "f", "ok"))
	waitState(t, m, "f", 20*time.Second, StateConnected)

	// At once: the session is dead but not yet detached.
	crash(t, m, "f__crash")
	if got := callText(t, m, "f__echo", `{"text":"at once"}`); got != "at once" {
		t.Errorf("echo right after the crash = %q", got)
	}

	// While degraded: the tools have left the registry.
	waitState(t, m, "f", 20*time.Second, StateConnected)
	crash(t, m, "f__crash")
	waitState(t, m, "f", 20*time.Second, StateDegraded)
	if slices.ContainsFunc(m.Tools(), func(tl Tool) bool { return tl.ServerID == "f" }) {
		t.Log("the registry still lists the tools while degraded")
	}
	if got := callText(t, m, "f__echo", `{"text":"while degraded"}`); got != "while degraded" {
		t.Errorf("echo while degraded = %q", got)
	}

	// By ref, too.
	waitState(t, m, "f", 20*time.Second, StateConnected)
	crash(t, m, "f__crash")
	waitState(t, m, "f", 20*time.Second, StateDegraded)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := m.CallToolRef(ctx, ToolRef{ServerID: "f", Tool: "echo"}, []byte(`{"text":"by ref"}`), nil)
	if err != nil || res.ForModel(0) != "by ref" {
		t.Errorf("CallToolRef while degraded: %v", err)
	}
}

// TestCallDuringReconnectTellsTheTruth: when the reconnect fails, or takes
// longer than the caller waits, the error says so.
func TestCallDuringReconnectTellsTheTruth(t *testing.T) {
	t.Run("reconnect fails", func(t *testing.T) {
		m, _ := newTestManager(t, &Options{BackoffBase: 50 * time.Millisecond, MaxReconnects: 1})
		m.Add(mcptest.FaultServer(t, "f", "once", mcptest.FaultOnceEnv, filepath.Join(t.TempDir(), "ran")))
		waitState(t, m, "f", 20*time.Second, StateConnected)
		crash(t, m, "f__crash")
		start := time.Now()
		_, err := m.CallTool(t.Context(), "f__echo", []byte(`{"text":"x"}`), nil)
		t.Logf("the caller sees: %v", err)
		if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "f failed: ") ||
			!strings.Contains(err.Error(), "the database is locked") {
			t.Errorf("err = %v, want ErrNotConnected saying the server failed and why", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s", d)
		}
		// Later calls say the same, not "no tool named".
		_, err = m.CallTool(t.Context(), "f__echo", []byte(`{"text":"x"}`), nil)
		if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "failed") {
			t.Errorf("a later call: err = %v", err)
		}
	})
	t.Run("caller gives up first", func(t *testing.T) {
		m, _ := newTestManager(t, &Options{BackoffBase: 10 * time.Second, BackoffMax: 10 * time.Second})
		m.Add(mcptest.FaultServer(t, "f", "ok"))
		waitState(t, m, "f", 20*time.Second, StateConnected)
		crash(t, m, "f__crash")
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := m.CallTool(ctx, "f__echo", []byte(`{"text":"x"}`), nil)
		t.Logf("the caller sees: %v", err)
		if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "still reconnecting") ||
			strings.Contains(err.Error(), "is connected") {
			t.Errorf("err = %v, want ErrNotConnected saying the server is still reconnecting", err)
		}
		if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
			t.Errorf("returned after %s, want about 300ms", d)
		}
	})
}

package drills

import (
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

type logLine = logbuf.Line

func call(id, name, args string) llmtest.Reply {
	return llmtest.Calls(llmtest.ToolCall{ID: id, Name: name, Arguments: []string{args}})
}

// waitRunning waits until a call of tool runs.
func (u *user) waitRunning(t *testing.T, tool string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	running := eventtest.Is(chat.EventToolCall, func(tc chat.ToolCallEvent) bool { return tc.Tool == tool && tc.Status == chat.ToolRunning })
	if _, err := u.Wait(ctx, 0, running); err != nil {
		t.Fatalf("waiting for %s to run: %v", tool, err)
	}
}

func lastEnd(t *testing.T, u *user, tool string) chat.ToolCallEvent {
	t.Helper()
	ends := u.toolEnds()
	for i := len(ends) - 1; i >= 0; i-- {
		if ends[i].Tool == tool {
			return ends[i]
		}
	}
	t.Fatalf("no end event for %s", tool)
	return chat.ToolCallEvent{}
}

// TestDrillServerKilledMidCall kills a real Node MCP server (SIGKILL)
// while one of its tools runs: the call fails with a message that says so,
// the model is told and the turn ends normally, the server is restarted
// with backoff, and the next call works. mcpconn's TestCrashMidCallReconnects
// covers the manager alone with a server that exits by itself.
func TestDrillServerKilledMidCall(t *testing.T) {
	n := mcptest.Node(t, "mcp-server-everything")
	everything := n.Script("server-everything")
	cfg := serverconf.Config{ID: "everything", Name: "Everything", Transport: serverconf.TransportStdio,
		Command: n.Node, Args: []string{everything, "stdio"}, Enabled: true}
	a := newApp(t, appOptions{path: n.PATH(), servers: []serverconf.Config{cfg}, replies: []llmtest.Reply{
		call("call_long", "everything__trigger-long-running-operation", `{"duration": 20, "steps": 20}`),
		llmtest.Text("The tool's server went away; I will go on without it."),
		call("call_echo", "everything__echo", `{"message": "back again"}`),
		llmtest.Text("It answered."),
	}})
	a.waitState("everything", 60*time.Second, mcpconn.StateConnected)
	conv := a.conversation()

	done := make(chan chat.RunResult, 1)
	go func() { done <- a.turn(conv.ID, "Run the long operation.") }()
	a.user.waitRunning(t, "everything__trigger-long-running-operation", 30*time.Second)
	time.Sleep(300 * time.Millisecond) // mid-call
	pids := childPIDs(everything)
	if len(pids) != 1 {
		t.Fatalf("found %d server-everything processes (%v), want 1", len(pids), pids)
	}
	killed := time.Now()
	syscall.Kill(pids[0], syscall.SIGKILL)

	var res chat.RunResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn did not end after the server was killed")
	}
	failedIn := time.Since(killed)
	if res.Status != store.StatusDone {
		t.Fatalf("the turn ended %s (%s); it should go on to the model's answer", res.Status, res.Error)
	}
	end := lastEnd(t, a.user, "everything__trigger-long-running-operation")
	t.Logf("the call failed %s after the kill; the user sees: %s", failedIn.Round(time.Millisecond), end.Error)
	if end.Status != chat.ToolFailed || !strings.Contains(end.Error, "connection lost") {
		t.Errorf("tool card: %s %q; want failed, saying the connection was lost", end.Status, end.Error)
	}
	if told := a.lastRequestTools(); len(told) != 1 || !strings.Contains(told[0], "failed") || !strings.Contains(told[0], "connection lost") {
		t.Errorf("the model was told %q", told)
	}
	if msgs := a.messages(conv.ID); last(msgs).Content != "The tool's server went away; I will go on without it." {
		t.Errorf("final answer = %q", last(msgs).Content)
	}

	// Restarted with backoff: degraded (with the reason and the attempt)
	// first, then connected again, a new process.
	st := a.waitState("everything", 30*time.Second, mcpconn.StateConnected)
	states := a.user.serverStates("everything")
	i := slices.IndexFunc(states, func(s mcpconn.Status) bool { return s.State == mcpconn.StateDegraded })
	if i < 0 {
		t.Fatalf("no degraded state after the kill: %+v", states)
	}
	t.Logf("server status after the kill: %s (attempt %d): %q; connected again %s after the kill", states[i].State, states[i].Attempt, states[i].Reason, st.ConnectedAt.Sub(killed).Round(time.Millisecond))
	if states[i].Reason == "" {
		t.Error("the degraded status gives no reason")
	}
	if again := childPIDs(everything); len(again) != 1 || again[0] == pids[0] {
		t.Errorf("server processes after the restart: %v (killed %d)", again, pids[0])
	}

	res = a.turn(conv.ID, "Try the echo.")
	if end := lastEnd(t, a.user, "everything__echo"); res.Status != store.StatusDone || end.Status != chat.ToolDone || !strings.Contains(end.ResultText, "back again") {
		t.Errorf("after the restart: turn %s, echo %s %q %q", res.Status, end.Status, end.ResultText, end.Error)
	}
}

// TestDrillHangingTool calls a tool that never answers: the server's
// timeout fires, the server gets notifications/cancelled, the model is
// told, and the turn and the server go on. mcpconn's TestHungServer and
// TestCancelSendsNotificationsCancelled cover the manager alone.
func TestDrillHangingTool(t *testing.T) {
	cfg := mcptest.FaultServer(t, "drill", "ok")
	cfg.CallTimeout = time.Second
	a := newApp(t, appOptions{servers: []serverconf.Config{cfg}, replies: []llmtest.Reply{
		call("call_hang", "drill__wait-cancel", `{}`),
		llmtest.Text("The tool did not answer; going on without it."),
		call("call_echo", "drill__echo", `{"text": "still here"}`),
		llmtest.Text("Done."),
	}})
	a.waitState("drill", 30*time.Second, mcpconn.StateConnected)
	conv := a.conversation()

	start := time.Now()
	res := a.turn(conv.ID, "Call the tool that hangs.")
	took := time.Since(start)
	if res.Status != store.StatusDone {
		t.Fatalf("the turn ended %s (%s)", res.Status, res.Error)
	}
	end := lastEnd(t, a.user, "drill__wait-cancel")
	t.Logf("turn took %s; the user sees: %s", took.Round(time.Millisecond), end.Error)
	if end.Status != chat.ToolFailed || !strings.Contains(end.Error, "timed out") || !strings.Contains(end.Error, "1s") {
		t.Errorf("tool card: %s %q; want failed, timed out after 1s", end.Status, end.Error)
	}
	if end.DurationMs < 1000 || end.DurationMs > 5000 {
		t.Errorf("the call took %d ms; the timeout is 1 s", end.DurationMs)
	}
	if told := a.lastRequestTools(); len(told) != 1 || !strings.Contains(told[0], "timed out") {
		t.Errorf("the model was told %q", told)
	}
	ring := a.svc.Manager.Stderr("drill")
	timetest.WaitFor(t, 10*time.Second, "the server to log the cancellation", func() bool {
		return slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return l.Text == "wait-cancel: cancelled by the client" })
	})

	if st, _ := a.svc.Manager.Status("drill"); st.State != mcpconn.StateConnected {
		t.Errorf("after the timeout the server is %s (%s)", st.State, st.Reason)
	}
	res = a.turn(conv.ID, "And now the echo.")
	if end := lastEnd(t, a.user, "drill__echo"); res.Status != store.StatusDone || end.Status != chat.ToolDone || end.ResultText != "still here" {
		t.Errorf("next call: turn %s, echo %s %q %q", res.Status, end.Status, end.ResultText, end.Error)
	}
}

// TestDrillMisbehavingServers runs bad servers in one app: one writes
// sqlite's "PRAGMA journal_mode = WAL" on stdout, one writes nothing but
// log lines there, one floods 100 MB of stderr, one returns a 10 MB result.
// The first works, with a warning that says what to fix; the second fails
// with a reason that does; the flood stays in bounded logs, the huge result reaches the model cut, with
// a notice, and the app's memory stays bounded. mcpconn's
// TestGarbageOnStdout, TestStderrFloodStaysBounded and TestHugeResult cover
// each alone in the manager; chat's TestResultIsCutForTheModelButKeptWhole
// the cut.
func TestDrillMisbehavingServers(t *testing.T) {
	mem := mcptest.WatchMemory(t)
	a := newApp(t, appOptions{servers: []serverconf.Config{
		mcptest.FaultServer(t, "sqlite", "sqlite"), mcptest.FaultServer(t, "garbage", "never-json"),
		mcptest.FaultServer(t, "flood", "flood"), mcptest.FaultServer(t, "big", "ok"),
	}, replies: []llmtest.Reply{
		call("call_huge", "big__huge", `{"bytes": 10000000}`),
		llmtest.Text("That was a lot of digits."),
	}})

	st := a.waitState("sqlite", 30*time.Second, mcpconn.StateConnected)
	t.Logf("the user sees for the sqlite-style server: %s", st.Warning)
	if !strings.Contains(st.Warning, "stdout") || !strings.Contains(st.Warning, "stderr") {
		t.Errorf("warning %q does not say the server logs to stdout and should log to stderr", st.Warning)
	}
	for range 2 { // sqlite prints its PRAGMA line on every call, too
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := a.svc.Manager.CallTool(ctx, "sqlite__echo", []byte(`{"text":"rows"}`), nil)
		cancel()
		if err != nil || res.ForModel(0) != "rows" {
			t.Errorf("a call of the sqlite-style server: %v", err)
		}
	}
	if !slices.ContainsFunc(a.svc.Manager.Stderr("sqlite").Lines(0, 0), func(l logLine) bool {
		return strings.HasSuffix(l.Text, "PRAGMA journal_mode = WAL")
	}) {
		t.Error("the skipped stdout line is not in the server's log")
	}

	st = a.waitState("garbage", 30*time.Second, mcpconn.StateFailed)
	t.Logf("the user sees for the garbage server: %s", st.Reason)
	if !strings.Contains(st.Reason, "JSON-RPC") || !strings.Contains(st.Reason, "stderr") {
		t.Errorf("reason %q does not say the server printed non-JSON-RPC to stdout and should log to stderr", st.Reason)
	}

	a.waitState("flood", 30*time.Second, mcpconn.StateConnected)
	a.waitState("big", 30*time.Second, mcpconn.StateConnected)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if res, err := a.svc.Manager.CallTool(ctx, "flood__echo", []byte(`{"text":"during the flood"}`), nil); err != nil || res.ForModel(0) != "during the flood" {
		t.Errorf("a call during the flood: %v", err)
	}
	ring := a.svc.Manager.Stderr("flood")
	timetest.WaitFor(t, 60*time.Second, "the flood to end", func() bool {
		return slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return l.Text == "flood done" })
	})
	lines, bytes := ring.Size()
	var logs int64
	entries, _ := os.ReadDir(a.c.Paths.Logs)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "flood") {
			info, _ := e.Info()
			logs += info.Size()
		}
	}
	t.Logf("after 100 MB of stderr: the ring holds %d lines (%d KB), the log files %.1f MB", lines, bytes>>10, float64(logs)/(1<<20))
	if bytes > 1<<20 || logs > 16<<20 {
		t.Errorf("stderr is not bounded: ring %d bytes, files %d bytes", bytes, logs)
	}
	floodPeak := mem.PeakGrowth()

	conv := a.conversation()
	res := a.turn(conv.ID, "Fetch the huge result.")
	if res.Status != store.StatusDone {
		t.Fatalf("the turn ended %s (%s)", res.Status, res.Error)
	}
	told := a.lastRequestTools()
	if len(told) != 1 || !strings.Contains(told[0], "[Result truncated: 10000000 characters") || len(told[0]) > 33_000 {
		t.Errorf("the model was told %d characters ending %q", len(told[0]), told[0][max(0, len(told[0])-160):])
	}
	calls, err := a.c.Store.ToolCalls(context.Background(), conv.ID, 0)
	if err != nil || len(calls) != 1 || len(calls[0].Result) < 10_000_000 {
		t.Errorf("the audit record does not keep the whole result: %v", err)
	}
	peak := mem.Stop()
	t.Logf("memory: Go heap grew by at most %.0f MB during the flood and %.0f MB in all (10 MB result included); peak RSS of the app (this test process) %.0f MB",
		float64(floodPeak)/(1<<20), float64(peak)/(1<<20), float64(mcptest.PeakRSS())/(1<<20))
	if floodPeak > 64<<20 {
		t.Errorf("the heap grew by %d MB during the stderr flood", floodPeak>>20)
	}
	if peak > 400<<20 {
		t.Errorf("the heap grew by %d MB handling a 10 MB result", peak>>20)
	}
}

func last[T any](s []T) T {
	var zero T
	if len(s) == 0 {
		return zero
	}
	return s[len(s)-1]
}

package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// callText calls a tool and returns the text a model would see.
func callText(t *testing.T, m *Manager, name, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := m.CallTool(ctx, name, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res.ForModel(0)
}

func TestFaultServerConnectsAndCalls(t *testing.T) {
	m, rec := newTestManager(t, nil)
	if err := m.Add(mcptest.FaultServer(t, "fault", "ok")); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, m, "fault", 20*time.Second, StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("state %s: %s\n%s", st.State, st.Reason, strings.Join(st.LastStderr, "\n"))
	}
	if st.ProtocolVersion != modernProtocol || st.ConnectedAt.IsZero() || st.ToolCount != 10 {
		t.Errorf("status = %+v", st)
	}
	if got := callText(t, m, "fault__echo", `{"text":"hello"}`); got != "hello" {
		t.Errorf("echo = %q", got)
	}
	if diff := cmp.Diff([]State{StateConnecting, StateConnected}, rec.states("fault")); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}

	// The tool with an invalid name is exposed under a valid one and maps back.
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	var weird Tool
	for _, tool := range m.Tools() {
		if !valid.MatchString(tool.Name) {
			t.Errorf("exposed name %q is invalid", tool.Name)
		}
		if tool.OriginalName == "weird.name/with spaces" {
			weird = tool
		}
	}
	if !strings.HasPrefix(weird.Name, "fault__weird_name_with_spaces_") {
		t.Fatalf("weird tool exposed as %q", weird.Name)
	}
	if got := callText(t, m, weird.Name, ``); got != "weird ok" {
		t.Errorf("weird tool = %q", got)
	}
	if tool, ok := m.Lookup(weird.Name); !ok || tool.ServerID != "fault" || tool.OriginalName != "weird.name/with spaces" {
		t.Errorf("Lookup = %+v, %v", tool, ok)
	}

	// isError results reach the model, marked.
	got := callText(t, m, "fault__fail", `{}`)
	if !strings.HasPrefix(got, "[tool error]") || !strings.Contains(got, "the widget is broken") {
		t.Errorf("fail = %q", got)
	}
	// A JSON-RPC error (bad arguments) is a Result too.
	res, err := m.CallTool(t.Context(), "fault__echo", json.RawMessage(`{"text":5}`), nil)
	if err != nil || !res.IsError {
		t.Errorf("bad args: %+v, %v", res, err)
	}
	if _, err := m.CallTool(t.Context(), "fault__echo", json.RawMessage(`[1]`), nil); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("array args: err = %v, want ErrInvalidArguments", err)
	}
	if _, err := m.CallTool(t.Context(), "nope__x", nil, nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: err = %v", err)
	}

	// The stderr of the server is captured, in the ring and in the file.
	if lines := m.Stderr("fault").Lines(0, 0); !slices.ContainsFunc(lines, func(l logLine) bool { return strings.Contains(l.Text, "fault server starting") }) {
		t.Errorf("stderr ring lacks the start line: %v", lines)
	}
}

func TestCrashAtStartShowsWhy(t *testing.T) {
	m, rec := newTestManager(t, nil)
	m.Add(mcptest.FaultServer(t, "crash", "crash-start"))
	m.Add(mcptest.FaultServer(t, "ok", "ok"))
	st := waitState(t, m, "crash", 20*time.Second, StateFailed)
	if !strings.Contains(st.Reason, "exited during startup with exit status 3") ||
		!strings.Contains(st.Reason, "fatal: cannot read config /etc/fault-server.json: permission denied") {
		t.Errorf("reason = %q", st.Reason)
	}
	want := []string{"fault server starting in mode crash-start", "fatal: cannot read config /etc/fault-server.json: permission denied"}
	if diff := cmp.Diff(want, st.LastStderr); diff != "" {
		t.Errorf("LastStderr (-want +got):\n%s", diff)
	}
	// The failure event (which may come just after the status changed)
	// carries the stderr lines too.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ev, err := rec.Wait(ctx, 0, eventtest.Is(EventServerStatus, func(st Status) bool { return st.ServerID == "crash" && st.State == StateFailed }))
	if err != nil {
		t.Fatalf("no failure event: %v", err)
	}
	if last := ev.Payload.(Status); len(last.LastStderr) != 2 {
		t.Errorf("failure event LastStderr = %q", last.LastStderr)
	}
	if diff := cmp.Diff([]State{StateConnecting, StateFailed}, rec.states("crash")); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	// The manager keeps working.
	waitState(t, m, "ok", 20*time.Second, StateConnected)
	if got := callText(t, m, "ok__echo", `{"text":"still here"}`); got != "still here" {
		t.Errorf("echo = %q", got)
	}
	// A retry fails the same way, and the file log keeps both attempts.
	// (Connect shows the server connecting before it returns, so this
	// waits for the retry's failure.)
	m.Connect("crash")
	waitState(t, m, "crash", 20*time.Second, StateFailed)
	data, _ := os.ReadFile(filepath.Join(m.opts.LogDir, "crash.log"))
	if n := strings.Count(string(data), "permission denied"); n != 2 {
		t.Errorf("log file has the reason %d times, want 2:\n%s", n, data)
	}
}

func TestMissingCommandFailsAtOnce(t *testing.T) {
	m, _ := newTestManager(t, &Options{ShellPATH: func() string { return "/usr/bin:/bin" }})
	start := time.Now()
	m.Add(serverconf.Config{ID: "npx", Transport: serverconf.TransportStdio, Command: "npx-missing-for-test", Enabled: true})
	st := waitState(t, m, "npx", 5*time.Second, StateFailed)
	want := "npx-missing-for-test not found on PATH (/usr/bin:/bin); set the full path in the server's command"
	if !strings.Contains(st.Reason, want) {
		t.Errorf("reason = %q, want it to contain %q", st.Reason, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s to fail", d)
	}
}

func TestCrashMidCallReconnects(t *testing.T) {
	m, rec := newTestManager(t, &Options{BackoffBase: 50 * time.Millisecond})
	m.Add(mcptest.FaultServer(t, "f", "ok"))
	waitState(t, m, "f", 20*time.Second, StateConnected)

	_, err := m.CallTool(t.Context(), "f__crash", nil, nil)
	if !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("err = %v, want ErrServerGone with the exit status", err)
	}
	// Degraded while reconnecting, then connected again.
	waitState(t, m, "f", 20*time.Second, StateDegraded)
	st := waitState(t, m, "f", 20*time.Second, StateConnected)
	if got := callText(t, m, "f__echo", `{"text":"back"}`); got != "back" {
		t.Errorf("echo after reconnect = %q", got)
	}
	states := rec.states("f")
	if !slices.Contains(states, StateDegraded) {
		t.Errorf("states %v lack degraded", states)
	}
	if st.ToolCount != 10 {
		t.Errorf("tool count after reconnect = %d", st.ToolCount)
	}
	// The crash is in the stderr log.
	if !slices.ContainsFunc(m.Stderr("f").Lines(0, 0), func(l logLine) bool { return strings.Contains(l.Text, "panic: simulated crash") }) {
		t.Error("stderr lacks the panic line")
	}
}

func TestHungServer(t *testing.T) {
	m, rec := newTestManager(t, &Options{
		PingInterval: 250 * time.Millisecond, PingTimeout: 100 * time.Millisecond, PingFailures: 2,
		MaxReconnects: 1, BackoffBase: 20 * time.Millisecond,
	})
	cfg := mcptest.FaultServer(t, "hang", "hang-ping")
	cfg.CallTimeout = 150 * time.Millisecond
	m.Add(cfg)
	m.Add(mcptest.FaultServer(t, "ok", "ok"))
	waitState(t, m, "hang", 20*time.Second, StateConnected)

	// A hung call times out (and the server is told to cancel).
	start := time.Now()
	_, err := m.CallTool(t.Context(), "hang__hang", nil, nil)
	if !errors.Is(err, ErrCallTimeout) {
		t.Errorf("hung call: err = %v, want ErrCallTimeout", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 3*time.Second {
		t.Errorf("hung call returned after %s, want about 150ms", d)
	}

	// Hung pings: degraded, reconnected once, then failed.
	st := waitState(t, m, "hang", 20*time.Second, StateFailed)
	if !strings.Contains(st.Reason, "stopped answering") || !strings.Contains(st.Reason, "gave up after 1 reconnect") {
		t.Errorf("reason = %q", st.Reason)
	}
	states := rec.states("hang")
	want := []State{StateConnecting, StateConnected, StateDegraded, StateDegraded, StateConnected, StateDegraded, StateFailed}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	// The other server never noticed.
	if got := callText(t, m, "ok__echo", `{"text":"fine"}`); got != "fine" {
		t.Errorf("echo = %q", got)
	}
}

// TestGarbageOnStdout: log lines on stdout (a banner, sqlite's "PRAGMA
// journal_mode = WAL") are skipped, kept in the server's log as warnings
// and named once in the status; a stream that never becomes JSON-RPC
// still fails, saying why.
func TestGarbageOnStdout(t *testing.T) {
	m, rec := newTestManager(t, &Options{MaxReconnects: -1})
	m.Add(mcptest.FaultServer(t, "g", "garbage"))
	st := waitState(t, m, "g", 20*time.Second, StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("state %s: %s", st.State, st.Reason)
	}
	if st.Warning != stdoutWarning {
		t.Errorf("warning = %q, want %q", st.Warning, stdoutWarning)
	}
	if got := callText(t, m, "g__echo", `{"text":"fine"}`); got != "fine" {
		t.Errorf("echo = %q", got)
	}
	var warned []string
	for _, l := range m.Stderr("g").Lines(0, 0) {
		if l.Level == logbuf.LevelWarn && strings.Contains(l.Text, "not JSON-RPC") {
			warned = append(warned, strings.TrimPrefix(l.Text, markerPrefix+"skipped a line on stdout that is not JSON-RPC: "))
		}
	}
	if diff := cmp.Diff([]string{"Hello from fault server! Listening on stdio...", "PRAGMA journal_mode = WAL"}, warned); diff != "" {
		t.Errorf("warnings in the log (-want +got):\n%s", diff)
	}

	// Garbage mid-session is skipped too; the warning is said once.
	m.Add(mcptest.FaultServer(t, "g2", "ok"))
	waitState(t, m, "g2", 20*time.Second, StateConnected)
	if st, _ := m.Status("g2"); st.Warning != "" {
		t.Errorf("a clean server has the warning %q", st.Warning)
	}
	for range 3 {
		if got := callText(t, m, "g2__garbage-out", ""); got != "wrote garbage" {
			t.Errorf("garbage-out = %q", got)
		}
	}
	if st, _ := m.Status("g2"); st.State != StateConnected || st.Warning != stdoutWarning {
		t.Errorf("after garbage mid-session: %s, warning %q", st.State, st.Warning)
	}
	sts, _ := rec.statuses("g2")
	var warned2 []string
	for i, st := range sts {
		if st.Warning != "" && (i == 0 || sts[i-1].Warning == "") {
			warned2 = append(warned2, st.Warning)
		}
	}
	if len(warned2) != 1 {
		t.Errorf("the warning appeared %d times in status events, want once", len(warned2))
	}

	// A stream that never becomes JSON-RPC fails, with the reason.
	m.Add(mcptest.FaultServer(t, "n", "never-json"))
	st = waitState(t, m, "n", 20*time.Second, StateFailed)
	if !strings.Contains(st.Reason, "other than JSON-RPC to stdout") || !strings.Contains(st.Reason, "must log to stderr") ||
		!strings.Contains(st.Reason, "still loading the index") {
		t.Errorf("reason = %q", st.Reason)
	}
}

func TestCancelSendsNotificationsCancelled(t *testing.T) {
	m, _ := newTestManager(t, nil)
	m.Add(mcptest.FaultServer(t, "c", "ok"))
	waitState(t, m, "c", 20*time.Second, StateConnected)
	ring := m.Stderr("c")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "c__wait-cancel", nil, nil)
		done <- err
	}()
	waitForLine(t, ring, "wait-cancel: started")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	waitForLine(t, ring, "wait-cancel: cancelled by the client")
}

func waitForLine(t *testing.T, ring interface{ Lines(uint64, int) []logLine }, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return l.Text == text }) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("stderr never showed %q", text)
}

func TestSlowToolWithProgressOutlivesTimeout(t *testing.T) {
	m, _ := newTestManager(t, nil)
	cfg := mcptest.FaultServer(t, "s", "ok")
	cfg.CallTimeout = 400 * time.Millisecond
	m.Add(cfg)
	waitState(t, m, "s", 20*time.Second, StateConnected)

	var mu sync.Mutex
	var got []Progress
	start := time.Now()
	res, err := m.CallTool(t.Context(), "s__slow", json.RawMessage(`{"steps":8,"intervalMs":150}`), func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("call took %s, want > 1s (longer than the 400ms timeout)", d)
	}
	if text := res.ForModel(0); text != "done after 8 steps" {
		t.Errorf("result = %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	// The last notification may lose the race with the result (the SDK
	// handles notifications and responses on different goroutines).
	if len(got) < 7 || got[0] != (Progress{Progress: 1, Total: 8, Message: "step 1"}) {
		t.Errorf("progress = %+v", got)
	}

	// Without progress the same timeout ends the call.
	_, err = m.CallTool(t.Context(), "s__slow", json.RawMessage(`{"steps":1,"intervalMs":2000}`), nil)
	if !errors.Is(err, ErrCallTimeout) {
		t.Errorf("err = %v, want ErrCallTimeout", err)
	}
}

func TestHugeResult(t *testing.T) {
	m, _ := newTestManager(t, nil)
	m.Add(mcptest.FaultServer(t, "h", "ok"))
	waitState(t, m, "h", 20*time.Second, StateConnected)
	start := time.Now()
	res, err := m.CallTool(t.Context(), "h__huge", json.RawMessage(`{"bytes":10000000}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10 MB result took %s", time.Since(start))
	if n := len(res.Content[0].Text); n != 10_000_000 {
		t.Errorf("full result has %d bytes, want 10,000,000", n)
	}
	text := res.ForModel(0)
	wantEnd := "\n[result truncated: 10,000,000 characters, showing the first 32,000]"
	if !strings.HasSuffix(text, wantEnd) || len(text) != 32_000+len(wantEnd) {
		t.Errorf("ForModel: %d chars, ends %q", len(text), text[max(0, len(text)-80):])
	}
	if got := callText(t, m, "h__echo", `{"text":"ok"}`); got != "ok" {
		t.Errorf("echo after huge = %q", got)
	}
}

// A result past MaxMessageBytes is never buffered whole: the call fails,
// says why, and the server is reconnected.
func TestResultPastMessageLimit(t *testing.T) {
	m, rec := newTestManager(t, &Options{BackoffBase: 10 * time.Millisecond})
	m.Add(mcptest.FaultServer(t, "h", "ok"))
	waitState(t, m, "h", 20*time.Second, StateConnected)
	args := fmt.Sprintf(`{"bytes":%d}`, MaxMessageBytes+1<<20)
	_, err := m.CallTool(t.Context(), "h__huge", json.RawMessage(args), nil)
	if !errors.Is(err, ErrServerGone) {
		t.Fatalf("err = %v, want ErrServerGone", err)
	}
	// The status says why the connection was dropped, then it is back.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	saidWhy := func() bool {
		sts, _ := rec.statuses("h")
		return slices.ContainsFunc(sts, func(s Status) bool { return strings.Contains(s.Reason, "larger than 16 MiB") })
	}
	if _, err := m.Wait(ctx, "h", func(st Status) bool { return st.State == StateConnected && saidWhy() }); err != nil {
		sts, _ := rec.statuses("h")
		t.Fatalf("%v; statuses: %+v", err, sts)
	}
	if got := callText(t, m, "h__echo", `{"text":"ok"}`); got != "ok" {
		t.Errorf("echo after the oversized result = %q", got)
	}
}

func TestToolListChanged(t *testing.T) {
	m, rec := newTestManager(t, nil)
	m.Add(mcptest.FaultServer(t, "l", "ok"))
	waitState(t, m, "l", 20*time.Second, StateConnected)
	callText(t, m, "l__add-tool", ``)
	// The registry is rebuilt before the status shows the new count.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := m.Wait(ctx, "l", func(st Status) bool { return st.ToolCount == 11 }); err != nil {
		t.Fatalf("added tool never counted: %v", err)
	}
	if _, ok := m.Lookup("l__added-1"); !ok {
		t.Fatal("added tool never appeared")
	}
	if got := callText(t, m, "l__added-1", ``); got != "hi from added-1" {
		t.Errorf("added tool = %q", got)
	}
	evs := rec.toolEvents("l")
	if len(evs) < 2 || !slices.Contains(evs[len(evs)-1], "added-1") {
		t.Errorf("tool events = %v", evs)
	}
	if st, _ := m.Status("l"); st.ToolCount != 11 {
		t.Errorf("ToolCount = %d, want 11", st.ToolCount)
	}
}

func TestDisabledToolsAndUpdate(t *testing.T) {
	m, rec := newTestManager(t, nil)
	cfg := mcptest.FaultServer(t, "d", "ok")
	cfg.DisabledTools = []string{"echo"}
	m.Add(cfg)
	waitState(t, m, "d", 20*time.Second, StateConnected)
	if tool, _ := m.Lookup("d__echo"); tool.Enabled {
		t.Error("echo enabled")
	}
	if _, err := m.CallTool(t.Context(), "d__echo", nil, nil); !errors.Is(err, ErrToolDisabled) {
		t.Errorf("err = %v, want ErrToolDisabled", err)
	}
	// Enabling the tool applies in place, without reconnecting.
	cfg.DisabledTools = nil
	if err := m.Update(cfg); err != nil {
		t.Fatal(err)
	}
	if tool, _ := m.Lookup("d__echo"); !tool.Enabled {
		t.Error("echo still disabled")
	}
	if diff := cmp.Diff([]State{StateConnecting, StateConnected}, rec.states("d")); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	// Changing the command's env reconnects.
	cfg.Env["EXTRA"] = serverconf.Value{Plain: "1"}
	m.Update(cfg)
	waitState(t, m, "d", 20*time.Second, StateConnected)
	if n := len(rec.states("d")); n != 4 {
		t.Errorf("states after env change = %v", rec.states("d"))
	}
	// Disconnect, Restart, Remove.
	if err := m.Disconnect("d"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("d"); st.State != StateDisconnected {
		t.Errorf("after Disconnect: %s", st.State)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools after Disconnect: %d", len(m.Tools()))
	}
	if _, err := m.CallTool(t.Context(), "d__fail", nil, nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("call after Disconnect: %v", err)
	}
	m.Restart("d")
	waitState(t, m, "d", 20*time.Second, StateConnected)
	if err := m.Remove("d"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Status("d"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Status after Remove: %v", err)
	}
}

func TestSecretsResolved(t *testing.T) {
	m, _ := newTestManager(t, &Options{Secrets: fakeSecrets{serverconf.EnvSecretRef("s", mcptest.FaultEnv): "ok"}})
	cfg := mcptest.FaultServer(t, "s", "")
	cfg.Env[mcptest.FaultEnv] = serverconf.Value{SecretRef: serverconf.EnvSecretRef("s", mcptest.FaultEnv)} // the mode comes from the keyring
	m.Add(cfg)
	waitState(t, m, "s", 20*time.Second, StateConnected)

	cfg2 := mcptest.FaultServer(t, "s2", "ok")
	cfg2.Env["TOKEN"] = serverconf.Value{SecretRef: serverconf.EnvSecretRef("s2", "TOKEN")}
	m.Add(cfg2)
	st := waitState(t, m, "s2", 20*time.Second, StateFailed)
	if !strings.Contains(st.Reason, "environment variable TOKEN") || !strings.Contains(st.Reason, "set it again") {
		t.Errorf("reason = %q", st.Reason)
	}
}

type fakeSecrets map[string]string

func (f fakeSecrets) Get(k string) (string, error) {
	if v, ok := f[k]; ok {
		return v, nil
	}
	return "", errors.New("secret not found")
}

func TestProtocolHintSkipsDiscover(t *testing.T) {
	var mu sync.Mutex
	persisted := map[string]string{}
	opts := &Options{OnProtocol: func(id, v string) {
		mu.Lock()
		persisted[id] = v
		mu.Unlock()
	}}
	m, _ := newTestManager(t, opts)
	m.Add(mcptest.FaultServer(t, "old", "ok", mcptest.FaultLegacyEnv, "1"))
	m.Add(mcptest.FaultServer(t, "new", "ok"))
	waitState(t, m, "old", 20*time.Second, StateConnected)
	waitState(t, m, "new", 20*time.Second, StateConnected)
	mu.Lock()
	if diff := cmp.Diff(map[string]string{"old": "2025-11-25", "new": modernProtocol}, persisted); diff != "" {
		t.Errorf("persisted (-want +got):\n%s", diff)
	}
	mu.Unlock()

	// Without a hint, the old server was probed with server/discover first.
	if !hasLine(m.Stderr("old"), "request server/discover") {
		t.Error("no server/discover probe without a hint")
	}

	// With the hint, an old server is sent initialize directly.
	m2, _ := newTestManager(t, &Options{ProtocolHints: map[string]string{"old": "2025-11-25"}})
	m2.Add(mcptest.FaultServer(t, "old", "ok", mcptest.FaultLegacyEnv, "1"))
	st := waitState(t, m2, "old", 20*time.Second, StateConnected)
	if st.ProtocolVersion != "2025-11-25" {
		t.Errorf("protocol = %s", st.ProtocolVersion)
	}
	if hasLine(m2.Stderr("old"), "request server/discover") || !hasLine(m2.Stderr("old"), "request initialize") {
		t.Errorf("with a hint the server saw:\n%v", m2.Stderr("old").Lines(0, 0))
	}

	// A server upgraded since its hint still connects, over the old
	// handshake it also speaks (the hint does not hold once its command
	// line or URL changes).
	m3, _ := newTestManager(t, &Options{ProtocolHints: map[string]string{"new": "2025-06-18"}})
	m3.Add(mcptest.FaultServer(t, "new", "ok"))
	if st := waitState(t, m3, "new", 20*time.Second, StateConnected); st.ProtocolVersion != "2025-11-25" {
		t.Errorf("stale hint protocol = %s", st.ProtocolVersion)
	}
}

func hasLine(ring *logbuf.Ring, text string) bool {
	return slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return l.Text == text })
}

func TestCloseIsFastAndIdempotent(t *testing.T) {
	m, _ := newTestManager(t, nil)
	for _, id := range []string{"a", "b", "c"} {
		m.Add(mcptest.FaultServer(t, id, "ok"))
	}
	for _, id := range []string{"a", "b", "c"} {
		waitState(t, m, id, 20*time.Second, StateConnected)
	}
	start := time.Now()
	m.Close()
	m.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	if err := m.Connect("a"); !errors.Is(err, ErrClosed) {
		t.Errorf("Connect after Close: %v", err)
	}
}

func TestStderrFloodStaysBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /proc")
	}
	m, _ := newTestManager(t, nil)
	// Measure this test alone: the watch collects earlier tests' garbage
	// and resets the process's peak RSS.
	mem := mcptest.WatchMemory(t)
	m.Add(mcptest.FaultServer(t, "flood", "flood"))
	start := time.Now()
	waitState(t, m, "flood", 20*time.Second, StateConnected)
	// Calls work while stderr pours in.
	if got := callText(t, m, "flood__echo", `{"text":"during flood"}`); got != "during flood" {
		t.Errorf("echo = %q", got)
	}
	callDuring := time.Since(start)
	waitForLine(t, m.Stderr("flood"), "flood done")
	elapsed := time.Since(start)
	growth := mem.Stop()

	lines, bytes := m.Stderr("flood").Size()
	if lines > 2000 || bytes > 512<<10 {
		t.Errorf("ring holds %d lines, %d bytes", lines, bytes)
	}
	var total int64
	entries, _ := os.ReadDir(m.opts.LogDir)
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
		if info.Size() > 5<<20 {
			t.Errorf("%s is %d bytes", e.Name(), info.Size())
		}
	}
	if total > 16<<20 {
		t.Errorf("log files total %d bytes", total)
	}
	t.Logf("100 MB stderr flood: %s (echo answered after %s); heap %.1f MB before, peak %.1f MB (+%.1f MB); peak RSS of the test process %.1f MB; ring %d lines %d KB; log files %.1f MB in %d files",
		elapsed.Round(time.Millisecond), callDuring.Round(time.Millisecond), float64(mem.Base())/(1<<20), float64(mem.Base()+growth)/(1<<20),
		float64(growth)/(1<<20), float64(mcptest.PeakRSS())/(1<<20), lines, bytes>>10, float64(total)/(1<<20), len(entries))
	if growth > 64<<20 {
		t.Errorf("heap grew by %d MB during the flood", growth>>20)
	}
}

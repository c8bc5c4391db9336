package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// cmdChildEnv, set, makes the test binary a program for command tools to
// run; its first argument is the mode (see init).
const cmdChildEnv = "SWITCHBOARD_CMDTOOL_CHILD"

// The test binary as a command tool's program (init runs before TestMain):
//   - argv ARGS...: prints ARGS as a JSON array on stdout;
//   - flood N: writes N bytes of "x" on stdout;
//   - fail: writes two lines on stderr and exits 3;
//   - family PIDFILE: starts a child of its own ("nap"), writes the
//     child's PID into PIDFILE, then sleeps;
//   - nap: sleeps a minute.
func init() {
	if os.Getenv(cmdChildEnv) == "" || len(os.Args) < 2 {
		return
	}
	switch mode, args := os.Args[1], os.Args[2:]; mode {
	case "argv":
		json.NewEncoder(os.Stdout).Encode(args)
	case "flood":
		n, _ := strconv.Atoi(args[0])
		os.Stdout.Write([]byte(strings.Repeat("x", n)))
	case "fail":
		fmt.Fprintln(os.Stderr, "warming up")
		fmt.Fprintln(os.Stderr, "boom: the widget broke")
		os.Exit(3)
	case "family":
		exe, _ := os.Executable()
		child := exec.Command(exe, "nap")
		child.Env = os.Environ()
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.WriteFile(args[0], []byte(strconv.Itoa(child.Process.Pid)), 0o600)
		time.Sleep(time.Minute)
	case "nap":
		time.Sleep(time.Minute)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
	os.Exit(0)
}

// selfCommand is argv running the test binary in mode.
func selfCommand(t *testing.T, mode string, args ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, mode}, args...)
}

// textSchema is the input schema of one required string, "text".
const textSchema = `{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","default":7}},"required":["text"]}`

// commandServer starts a Manager with a command server of tools and waits
// until it is connected.
func startCommandServer(t *testing.T, tools ...serverconf.CommandTool) *Manager {
	t.Helper()
	m, _ := newTestManager(t, &Options{PingInterval: -1})
	cfg := serverconf.Config{ID: "cmd", Name: "Commands", Transport: serverconf.TransportCommand, Enabled: true,
		Env: map[string]serverconf.Value{cmdChildEnv: {Plain: "1"}}, Tools: tools}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(cfg); err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, m, "cmd", 20*time.Second, StateConnected, StateFailed); st.State != StateConnected {
		t.Fatalf("command server %s: %s", st.State, st.Reason)
	}
	return m
}

func resultText(r *Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// logText is the server's log so far.
func logText(m *Manager, id string) string {
	var b strings.Builder
	for _, l := range m.Stderr(id).Lines(0, 0) {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// A command tool is a server like any other: listed with its server's
// prefix, local, its read-only claim kept, called through CallTool; and
// what a model passes reaches the program as one literal argument each,
// whatever shell syntax it holds, with nothing else run.
func TestCommandToolLiteralArguments(t *testing.T) {
	dir := t.TempDir()
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "args", Description: "Prints its arguments.", InputSchema: json.RawMessage(textSchema),
		Command: append(selfCommand(t, "argv"), "--", "{{text}}", "n={{n}}"), Cwd: dir, ReadOnly: true,
	})
	tools := m.Tools()
	if len(tools) != 1 || tools[0].Name != "cmd__args" || !tools[0].Local || tools[0].Description != "Prints its arguments." ||
		!strings.Contains(string(tools[0].Annotations), `"readOnlyHint":true`) {
		t.Fatalf("tools = %+v", tools)
	}
	marker := filepath.Join(dir, "pwned")
	for _, attack := range []string{
		"; touch " + marker,
		"$(touch " + marker + ")",
		"`touch " + marker + "`",
		"x\ntouch " + marker,
		"&& touch " + marker + " #",
		"| touch " + marker,
		"'; touch " + marker + "; echo '",
		`"; touch ` + marker + `; echo "`,
		"${IFS}touch${IFS}" + marker,
		"> " + marker,
		"--output=" + marker,
		"* ~ $HOME {a,b} \\",
	} {
		args, _ := json.Marshal(map[string]any{"text": attack})
		res, err := m.CallTool(t.Context(), "cmd__args", args, nil)
		if err != nil {
			t.Fatalf("%q: %v", attack, err)
		}
		if res.IsError {
			t.Fatalf("%q: error result %s", attack, resultText(res))
		}
		var got []string
		if err := json.Unmarshal([]byte(resultText(res)), &got); err != nil {
			t.Fatalf("%q: output %q: %v", attack, resultText(res), err)
		}
		if diff := cmp.Diff([]string{"--", attack, "n=7"}, got); diff != "" {
			t.Errorf("the program's arguments (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%q created %s (%v)", attack, marker, err)
		}
	}
	log := logText(m, "cmd")
	for _, want := range []string{
		"serving 1 command tools: args",
		"run args: ", "-- '; touch " + marker + "' n=7 (in " + dir + ")",
		`"x\ntouch ` + marker + `"`, // one line, Go-quoted
		"args: exit status 0 in ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the server's log lacks %q:\n%s", want, log)
		}
	}
}

// Even through a shell, a value passed as a positional argument ("$1") is
// data: the shell expands the parameter and does not read its text.
func TestCommandToolShellPositional(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "say", InputSchema: json.RawMessage(textSchema), Command: []string{"sh", "-c", `printf '%s' "$1"`, "sh", "{{text}}"},
	})
	for _, attack := range []string{"; touch " + marker, "$(touch " + marker + ")", "`touch " + marker + "`", "a\ntouch " + marker} {
		args, _ := json.Marshal(map[string]any{"text": attack})
		res, err := m.CallTool(t.Context(), "cmd__say", args, nil)
		if err != nil || res.IsError {
			t.Fatalf("%q: %v %+v", attack, err, res)
		}
		if got := resultText(res); got != attack {
			t.Errorf("printed %q; want %q", got, attack)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%q created %s (%v)", attack, marker, err)
		}
	}
}

// Arguments that break the schema, or that no program can receive, run
// nothing and say why.
func TestCommandToolRefusedArguments(t *testing.T) {
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "args", InputSchema: json.RawMessage(textSchema), Command: append(selfCommand(t, "argv"), "{{text}}"),
	})
	for args, want := range map[string]string{
		`{}`:                       `invalid arguments for args`,
		`{"text": 5}`:              `invalid arguments for args`,
		`{"text": "a", "n": "no"}`: `invalid arguments for args`,
		`{"text": "a\u0000b"}`:     `text contains a NUL character`,
	} {
		res, err := m.CallTool(t.Context(), "cmd__args", json.RawMessage(args), nil)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if !res.IsError || !strings.Contains(resultText(res), want) || !strings.Contains(resultText(res), "nothing was run") {
			t.Errorf("%s: %+v; want an error result saying %q", args, res, want)
		}
	}
	if log := logText(m, "cmd"); strings.Contains(log, "run args") {
		t.Errorf("a refused call ran:\n%s", log)
	}
}

// A run past its timeout is killed with everything it started, and the
// result says so.
func TestCommandToolTimeoutKillsTheGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are job objects there")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "family", Command: selfCommand(t, "family", pidFile), Timeout: time.Second,
	})
	start := time.Now()
	res, err := m.CallTool(t.Context(), "cmd__family", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %s; the timeout is 1s", took)
	}
	if !res.IsError || !strings.Contains(resultText(res), "timed out after 1s and was stopped, with everything it started") {
		t.Errorf("result = %+v", res)
	}
	waitGone(t, readPID(t, pidFile))
	if log := logText(m, "cmd"); !strings.Contains(log, "family: timed out after 1s; killed its process group") {
		t.Errorf("log:\n%s", log)
	}
}

// Cancelling a call kills the run's process group.
func TestCommandToolCancelKillsTheGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are job objects there")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "family", Command: selfCommand(t, "family", pidFile), Timeout: time.Minute,
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "cmd__family", nil, nil)
		done <- err
	}()
	pid := readPID(t, pidFile) // waits for the run to be under way
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool = %v; want context.Canceled", err)
	}
	waitGone(t, pid)
	waitLog(t, m, "family: cancelled after")
}

// Output past the tool's limit is cut, and the model is told how much
// there was.
func TestCommandToolOutputLimit(t *testing.T) {
	m := startCommandServer(t, serverconf.CommandTool{
		Name: "flood", Command: selfCommand(t, "flood", "100000"), OutputLimit: 2048,
	})
	res, err := m.CallTool(t.Context(), "cmd__flood", nil, nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	want := strings.Repeat("x", 2048) + "\n[output cut: the first 2.0 KiB of 97.7 KiB]"
	if got := resultText(res); got != want {
		t.Errorf("result is %d bytes ending %q; want %d ending %q", len(got), got[max(0, len(got)-60):], len(want), want[len(want)-60:])
	}
	if log := logText(m, "cmd"); !strings.Contains(log, "flood: exit status 0 in ") || !strings.Contains(log, "97.7 KiB of output, cut at 2.0 KiB") {
		t.Errorf("log:\n%s", log)
	}
}

// A non-zero exit is an error result with the stderr, which also goes to
// the server's log.
func TestCommandToolFailure(t *testing.T) {
	m := startCommandServer(t, serverconf.CommandTool{Name: "fail", Command: selfCommand(t, "fail")})
	res, err := m.CallTool(t.Context(), "cmd__fail", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if !res.IsError || !strings.Contains(text, "ended with exit status 3") || !strings.Contains(text, "stderr:\nwarming up\nboom: the widget broke") {
		t.Errorf("result = %q", text)
	}
	log := logText(m, "cmd")
	if !strings.Contains(log, "boom: the widget broke\n") || !strings.Contains(log, "fail: exit status 3 in ") {
		t.Errorf("log:\n%s", log)
	}
}

// A program that is not there: the server still connects (its other
// tools work), the log says so at once, and a call says what to do.
func TestCommandToolMissingProgram(t *testing.T) {
	m := startCommandServer(t,
		serverconf.CommandTool{Name: "gone", Command: []string{"switchboard-no-such-program", "x"}},
		serverconf.CommandTool{Name: "lost", Command: []string{"/nonexistent/bin/tool"}},
		serverconf.CommandTool{Name: "args", Command: selfCommand(t, "argv", "ok")},
	)
	res, err := m.CallTool(t.Context(), "cmd__gone", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	for _, want := range []string{"switchboard-no-such-program", "is not on the PATH Switchboard searches (" + os.Getenv("PATH") + ")", "write its full path", "login shell"} {
		if !res.IsError || !strings.Contains(text, want) {
			t.Errorf("result %q lacks %q", text, want)
		}
	}
	res, err = m.CallTool(t.Context(), "cmd__lost", nil, nil)
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "/nonexistent/bin/tool, does not exist") {
		t.Errorf("%v %+v", err, res)
	}
	res, err = m.CallTool(t.Context(), "cmd__args", nil, nil)
	if err != nil || res.IsError || strings.TrimSpace(resultText(res)) != `["ok"]` {
		t.Errorf("the tool that is there: %v %+v", err, res)
	}
	if log := logText(m, "cmd"); !strings.Contains(log, "tool gone: the program of tool gone, switchboard-no-such-program, is not on the PATH") {
		t.Errorf("log:\n%s", log)
	}
	st, _ := m.Status("cmd")
	if want := "the program of tool gone (switchboard-no-such-program), lost (/nonexistent/bin/tool) was not found"; !strings.HasPrefix(st.Warning, want) {
		t.Errorf("status warning %q; want it to start %q", st.Warning, want)
	}
	rep := m.Doctor(t.Context(), []serverconf.Config{{ID: "doc", Transport: serverconf.TransportCommand,
		Tools: []serverconf.CommandTool{{Name: "gone", Command: []string{"switchboard-no-such-program"}}}}})
	if len(rep) != 1 || rep[0].State != StateConnected || !strings.Contains(rep[0].Warning, "gone (switchboard-no-such-program)") || len(rep[0].Tools) != 1 {
		t.Errorf("doctor: %+v", rep)
	}
}

// A changed tool reconnects the server with the new definition.
func TestCommandToolUpdate(t *testing.T) {
	m := startCommandServer(t, serverconf.CommandTool{Name: "args", Command: selfCommand(t, "argv", "one")})
	cfg := serverconf.Config{ID: "cmd", Transport: serverconf.TransportCommand, Enabled: true,
		Env:   map[string]serverconf.Value{cmdChildEnv: {Plain: "1"}},
		Tools: []serverconf.CommandTool{{Name: "args", Command: selfCommand(t, "argv", "two")}, {Name: "more", Command: selfCommand(t, "argv")}}}
	if err := m.Update(cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := m.Wait(ctx, "cmd", func(st Status) bool { return st.State == StateConnected && st.ToolCount == 2 }); err != nil {
		t.Fatal(err)
	}
	res, err := m.CallTool(t.Context(), "cmd__args", nil, nil)
	if err != nil || strings.TrimSpace(resultText(res)) != `["two"]` {
		t.Errorf("%v %+v", err, res)
	}
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never written", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until process pid is gone: dead, or a zombie (whose
// parent died; a container's init may never reap it).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	zombie := func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		_, rest, ok := strings.Cut(string(stat), ") ")
		return err == nil && ok && strings.HasPrefix(rest, "Z")
	}
	for processAlive(pid) && !zombie() {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, started by the run, is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitLog(t *testing.T, m *Manager, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logText(m, "cmd"), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, logText(m, "cmd"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

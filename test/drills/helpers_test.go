package drills

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// The test binary is also the fault server the drills start
// (mcptest.FaultServer).
func TestMain(m *testing.M) {
	mcptest.RunIfChild()
	os.Exit(m.Run())
}

// required is whether a missing prerequisite fails a drill rather than
// skipping it.
func required() bool { return os.Getenv("SWITCHBOARD_REQUIRE_E2E") == "1" }

func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if required() {
		t.Fatal(msg + " (SWITCHBOARD_REQUIRE_E2E=1)")
	}
	t.Skip(msg)
}

// repoRoot is the directory of go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the drills")
		}
	}
}

// binary returns the release binary, skipping (or failing under
// SWITCHBOARD_REQUIRE_E2E=1) when it is missing or older than the Go
// sources, so that a drill never passes or fails on a stale build.
func binary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	bin := os.Getenv("SWITCHBOARD_BIN")
	if bin == "" {
		bin = filepath.Join(root, "build", "bin", "switchboard")
	}
	info, err := os.Stat(bin)
	if err != nil {
		missing(t, "%s not built; run make build", bin)
	}
	if os.Getenv("SWITCHBOARD_BIN") == "" {
		if newer := newestSource(root, info.ModTime()); newer != "" {
			missing(t, "%s is older than %s; run make build", bin, newer)
		}
	}
	return bin
}

// newestSource returns a Go source of the product changed after t, or "".
func newestSource(root string, t time.Time) string {
	var found string
	for _, dir := range []string{"internal", "app"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || found != "" || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(t) {
				found = p
			}
			return nil
		})
	}
	return found
}

// A user sits at the app: it keeps every event the UI would get and
// answers approval requests as told (allow once unless decision is set).
type user struct {
	eventtest.Recorder
	mu       sync.Mutex // guards broker
	broker   func() *approval.Broker
	decision approval.Decision
}

func (u *user) Emit(name string, payload any) {
	u.Recorder.Emit(name, payload)
	u.mu.Lock()
	b := u.broker
	u.mu.Unlock()
	if r, ok := payload.(approval.Request); ok && name == approval.EventRequested && b != nil {
		d := u.decision
		if d == "" {
			d = approval.AllowOnce
		}
		go b().Decide(context.Background(), r.ID, d)
	}
}

// toolEvents returns the tool-call events that ended a call.
func (u *user) toolEnds() []chat.ToolCallEvent {
	var out []chat.ToolCallEvent
	for _, tc := range eventtest.Payloads[chat.ToolCallEvent](&u.Recorder, chat.EventToolCall) {
		switch tc.Status {
		case chat.ToolDone, chat.ToolFailed, chat.ToolDenied, chat.ToolCancelled:
			out = append(out, tc)
		}
	}
	return out
}

func (u *user) statuses() []chat.StatusEvent {
	return eventtest.Payloads[chat.StatusEvent](&u.Recorder, chat.EventStatus)
}

// serverStates lists the states a server went through, with their reasons.
func (u *user) serverStates(id string) []mcpconn.Status {
	var out []mcpconn.Status
	for _, s := range eventtest.Payloads[mcpconn.Status](&u.Recorder, mcpconn.EventServerStatus) {
		if s.ServerID == id {
			out = append(out, s)
		}
	}
	return out
}

// An app is Switchboard's core as the window runs it, on a fresh data
// directory, with the fake provider configured as provider "fake".
type app struct {
	t        *testing.T
	dir      string
	c        *core.Core
	svc      *core.Services
	user     *user
	provider *llmtest.Server
}

type appOptions struct {
	// replies script the fake provider; after them it echoes.
	replies []llmtest.Reply
	// servers are saved (and connected) before the app starts.
	servers []serverconf.Config
	// path is the PATH stdio servers are found on.
	path string
	// secrets replaces the keyring; nil means an in-memory one.
	secrets secrets.Store
	// osKeyring uses the real secrets.Open (the keyring drill).
	osKeyring bool
	manager   *mcpconn.Options
}

func newApp(t *testing.T, o appOptions) *app {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	p := paths.In(filepath.Join(dir, "data"))
	copts := &core.Options{Paths: &p}
	if !o.osKeyring {
		copts.Secrets = o.secrets
		if copts.Secrets == nil {
			copts.Secrets = &secrets.Memory{}
		}
	}
	c, err := core.Open(ctx, copts)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, dir: dir, c: c, user: &user{}}
	t.Cleanup(func() { c.Close() })
	mo := mcpconn.Options{PingInterval: -1, BackoffBase: 200 * time.Millisecond}
	if o.manager != nil {
		mo = *o.manager
	}
	if o.path != "" {
		path := o.path
		mo.ShellPATH = func() string { return path }
	} else if mo.ShellPATH == nil {
		mo.ShellPATH = func() string { return "/usr/bin:/bin" }
	}
	svc, err := c.Services(&core.ServiceOptions{Emitter: a.user, Manager: &mo})
	if err != nil {
		t.Fatal(err)
	}
	a.svc = svc
	a.user.mu.Lock()
	a.user.broker = func() *approval.Broker { return svc.Broker }
	a.user.mu.Unlock()
	a.provider = llmtest.NewServer(t, &llmtest.Options{Models: []string{"m"}, Replies: o.replies})
	if _, err := svc.Providers.Save(ctx, providers.Input{ID: "fake", Name: "Fake", Preset: "custom", BaseURL: a.provider.URL, DefaultModel: "m"}); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range o.servers {
		if _, err := svc.Servers.Save(ctx, cfg); err != nil {
			t.Fatalf("saving server %s: %v", cfg.ID, err)
		}
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	return a
}

// conversation starts a conversation with the fake provider.
func (a *app) conversation() store.Conversation {
	a.t.Helper()
	conv, err := a.c.Store.CreateConversation(context.Background(), store.Conversation{ProviderID: "fake", Model: "m"})
	if err != nil {
		a.t.Fatal(err)
	}
	return conv
}

// turn runs one turn to its end.
func (a *app) turn(convID, text string) chat.RunResult {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := a.svc.Chat.Run(ctx, convID, text)
	if err != nil {
		a.t.Fatalf("run: %v", err)
	}
	return res
}

func (a *app) messages(convID string) []store.Message {
	a.t.Helper()
	msgs, err := a.c.Store.Messages(context.Background(), convID, store.MessagePage{})
	if err != nil {
		a.t.Fatal(err)
	}
	return msgs
}

// waitState waits for a server to reach one of states.
func (a *app) waitState(id string, timeout time.Duration, states ...mcpconn.State) mcpconn.Status {
	a.t.Helper()
	deadline := time.Now().Add(timeout)
	var st mcpconn.Status
	for time.Now().Before(deadline) {
		st, _ = a.svc.Manager.Status(id)
		if slices.Contains(states, st.State) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.t.Fatalf("server %s is %s (%s), not %v, after %s", id, st.State, st.Reason, states, timeout)
	return st
}

// lastRequestTools returns the tool messages of the provider's last chat
// request: what the model was told.
func (a *app) lastRequestTools() []string {
	reqs := a.provider.ChatRequests()
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// childPIDs lists this process's descendants whose command line contains
// what.
func childPIDs(what string) []int {
	var out []int
	for _, pid := range mcptest.Descendants(os.Getpid()) {
		if strings.Contains(mcptest.Cmdline(pid), what) {
			out = append(out, pid)
		}
	}
	return out
}

// run runs the binary with env added, returning its stdout, stderr and
// exit code.
func run(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return out.String(), errb.String(), code
}

// dataEnv is the environment of a binary on data directory dir, with no
// session bus (so no keyring probe, and no secret leaves the process).
func dataEnv(dir string) []string {
	return []string{"SWITCHBOARD_DATA_DIR=" + dir, "DBUS_SESSION_BUS_ADDRESS=", "XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg")}
}

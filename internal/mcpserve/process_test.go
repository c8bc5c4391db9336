package mcpserve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/cli"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// A window is a data directory with the window's services open on it, a
// fake provider configured in it (so that `mcp serve`, another process,
// finds it too), and the test binary standing for the switchboard command.
type window struct {
	t   *testing.T
	dir string
	c   *core.Core
	svc *core.Services
	llm *llmtest.Server
	bin string
}

func newWindow(t *testing.T) *window {
	t.Helper()
	w := &window{t: t, dir: t.TempDir(), llm: llmtest.NewServer(t, nil)}
	p := paths.In(w.dir)
	var err error
	if w.c, err = core.Open(t.Context(), &core.Options{Paths: &p, Secrets: &secrets.Memory{}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.c.Close() })
	if w.svc, err = w.c.Services(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Providers.Save(t.Context(), providers.Input{ID: "fake", Preset: "custom", BaseURL: w.llm.URL, DefaultModel: "fake-model"}); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.Start(t.Context(), w.c.Log); err != nil {
		t.Fatal(err)
	}
	if w.bin, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	return w
}

// env is the environment of a switchboard command over the window's data
// directory, plus extra NAME=value pairs.
func (w *window) env(extra ...string) []string {
	return append(os.Environ(), append([]string{cliChildEnv + "=1", paths.EnvDataDir + "=" + w.dir, "DBUS_SESSION_BUS_ADDRESS="}, extra...)...)
}

func (w *window) conv(title string, texts ...string) store.Conversation {
	w.t.Helper()
	ctx := context.Background()
	c, err := w.c.Store.CreateConversation(ctx, store.Conversation{Title: title})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, text := range texts {
		if _, err := w.c.Store.AppendMessage(ctx, store.Message{ConversationID: c.ID, Role: store.RoleUser, Content: text}); err != nil {
			w.t.Fatal(err)
		}
	}
	return c
}

// serve starts `switchboard mcp serve` with token, connects to it over
// its stdio and lists its tools. It returns the session, closed when the
// test ends, and the process's stderr.
func (w *window) serve(ctx context.Context, token string) (*mcp.ClientSession, *lockedBuffer) {
	w.t.Helper()
	cmd := exec.Command(w.bin, "mcp", "serve")
	cmd.Env = w.env(cli.TokenEnv + "=" + token)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("starting mcp serve: %v\n%s", err, stderr)
	}
	w.t.Cleanup(func() { cs.Close() })
	if _, err := cs.ListTools(ctx, nil); err != nil {
		w.t.Fatal(err)
	}
	return cs, stderr
}

// lockedBuffer is a bytes.Buffer a child process and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The window's services and a `switchboard mcp serve` process write the
// same database at the same time: turns in the window and an app's
// send_message turns, audits and all. Nothing is lost or refused as busy,
// each side sees the other's writes, and the file stays sound.
func TestWindowAndServeProcessWriteAtOnce(t *testing.T) {
	w := newWindow(t)
	ctx := context.Background()
	_, token, err := w.svc.Clients().Add(ctx, "Agent", false)
	if err != nil {
		t.Fatal(err)
	}
	winConv, appConv := w.conv("window's"), w.conv("app's")
	// A reply the window is writing: mcp serve must leave it alone (it is
	// not one a crash interrupted).
	busy := w.conv("busy")
	streaming, err := w.c.Store.AppendMessage(ctx, store.Message{ConversationID: busy.ID, Role: store.RoleAssistant, Status: store.StatusStreaming, Content: "half"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.svc.GrantClient(ctx, "Agent", appConv.ID, clients.Write, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.GrantClient(ctx, "Agent", winConv.ID, clients.Read, time.Time{}); err != nil {
		t.Fatal(err)
	}
	cs, stderr := w.serve(ctx, token)
	if m, err := w.c.Store.Message(ctx, streaming.ID); err != nil || m.Status != store.StatusStreaming {
		t.Errorf("mcp serve marked the window's reply: %+v %v", m, err)
	}

	const n = 15
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			res, err := w.svc.Chat.Run(ctx, winConv.ID, fmt.Sprintf("window %d", i))
			if err != nil || res.Status != store.StatusDone {
				t.Errorf("window turn %d: %+v %v", i, res, err)
			}
		}
	})
	wg.Go(func() {
		for i := range n {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserve.ToolSend,
				Arguments: map[string]any{"conversationId": appConv.ID, "text": fmt.Sprintf("app %d", i)}})
			if err != nil || res.IsError {
				t.Errorf("app turn %d: %v %s", i, err, text(res))
			}
		}
	})
	wg.Wait()
	if t.Failed() {
		t.Fatalf("mcp serve's stderr:\n%s", stderr)
	}

	for _, c := range []store.Conversation{winConv, appConv} {
		ms, err := w.c.Store.Messages(ctx, c.ID, store.MessagePage{})
		if err != nil || len(ms) != 2*n {
			t.Errorf("%s: %d messages (%v), want %d", c.Title, len(ms), err, 2*n)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserve.ToolRead, Arguments: map[string]any{"conversationId": winConv.ID, "limit": 100}})
	if err != nil || res.IsError {
		t.Fatalf("reading the window's conversation: %v %s", err, text(res))
	}
	var read mcpserve.ReadOutput
	json.Unmarshal(mustJSON(res.StructuredContent), &read)
	if len(read.Messages) != 2*n || read.Messages[2*n-1].Text != fmt.Sprintf("You said: window %d", n-1) {
		t.Errorf("the app reads %d messages of the window's turns: %+v", len(read.Messages), read.Messages[len(read.Messages)-1])
	}
	sends, err := w.svc.Clients().Audit(ctx, clients.AuditFilter{Client: "Agent", Operation: "tools/call " + mcpserve.ToolSend})
	if err != nil || len(sends) != n {
		t.Errorf("%d send_message audit entries (%v), want %d", len(sends), err, n)
	}
	if check, err := w.c.Store.IntegrityCheck(ctx); err != nil || check != "ok" {
		t.Errorf("integrity check: %q %v", check, err)
	}
	if strings.Contains(stderr.String(), "locked") || strings.Contains(stderr.String(), "busy") {
		t.Errorf("mcp serve's stderr:\n%s", stderr)
	}
}

// `mcp serve` without a token, or with a bad one, refuses to start and
// says what to do on stderr; revoked while serving, it ends saying so.
func TestServeProcessRefusesAndEnds(t *testing.T) {
	w := newWindow(t)
	ctx := context.Background()
	for _, tc := range []struct{ token, want string }{
		{"", "no token: set " + cli.TokenEnv},
		{"sbc_" + strings.Repeat("x", 43), "is not valid"},
	} {
		cmd := exec.Command(w.bin, "mcp", "serve")
		cmd.Env = w.env(cli.TokenEnv + "=" + tc.token)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("token %q: %v\n%s", tc.token, err, out)
		}
	}
	_, token, err := w.svc.Clients().Add(ctx, "Agent", false)
	if err != nil {
		t.Fatal(err)
	}
	cs, stderr := w.serve(ctx, token)
	// The window revokes it: the process, polling, ends on its own.
	if err := w.svc.RevokeClient(ctx, "Agent"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("mcp serve still runs after the revoke; stderr:\n%s", stderr)
	}
	timetest.WaitFor(t, 10*time.Second, "the message on stderr", func() bool { return strings.Contains(stderr.String(), "revoked") })
}

// mcpdo drives the MCP Inspector's command-line client (mcpdo, from
// @modelcontextprotocol/inspector) with its own private daemon, in a home
// of its own; it stops the daemon when the test ends.
type mcpdo struct {
	t    *testing.T
	bin  string
	env  []string
	node mcptest.NodeServers
}

func newMCPDo(t *testing.T) *mcpdo {
	t.Helper()
	n := mcptest.Node(t, "mcpdo")
	home := t.TempDir()
	d := &mcpdo{t: t, bin: n.Command("mcpdo"), node: n,
		env: []string{"PATH=" + n.PATH(), "HOME=" + home, "MCP_INSPECTOR_SECRET_STORE=memory", "NO_COLOR=1"}}
	out, err := d.run("private")
	if err != nil {
		t.Fatalf("mcpdo private: %v\n%s", err, out)
	}
	// export NAME='value' lines: a daemon of this test's own.
	for _, line := range strings.Split(out, "\n") {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		if ok && strings.HasPrefix(name, "MCP_INSPECTOR_DAEMON_") {
			d.env = append(d.env, name+"="+strings.Trim(value, "'\""))
		}
	}
	if len(d.env) < 6 {
		t.Fatalf("mcpdo private printed no daemon settings:\n%s", out)
	}
	t.Cleanup(func() { d.run("daemon", "stop") })
	return d
}

// run runs mcpdo with args and returns its standard output (standard
// error too when it fails).
func (d *mcpdo) run(args ...string) (string, error) {
	stdout, stderr, err := d.run2(args...)
	if err != nil {
		return stdout + stderr, err
	}
	return stdout, nil
}

func (d *mcpdo) run2(args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.bin, args...)
	cmd.Env = d.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// json runs mcpdo with --format json on connection conn and decodes the
// answer it prints into out (a tool's error result too, for which mcpdo
// exits non-zero); it fails the test when mcpdo prints no answer.
func (d *mcpdo) json(t *testing.T, conn string, out any, args ...string) {
	t.Helper()
	stdout, stderr, err := d.run2(append([]string{"--connection", conn, "--format", "json"}, args...)...)
	if jerr := json.Unmarshal([]byte(stdout), out); jerr != nil || strings.Contains(stdout, `"error":{`) {
		t.Fatalf("mcpdo %s: %v %v\n%s%s", strings.Join(args, " "), err, jerr, stdout, stderr)
	}
}

// A tool call's answer as mcpdo prints it.
type mcpdoResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// The MCP Inspector's CLI, a client no one here wrote, over stdio (the
// switchboard command started by it) and over HTTP (a headless `mcp serve
// --http`): it is refused without a token, lists the tools, sees exactly
// its granted conversations, reads one, sends a message the fake provider
// answers, is refused another's, and is cut off when revoked mid-session.
func TestInspectorCLI(t *testing.T) {
	d := newMCPDo(t)
	w := newWindow(t)
	ctx := context.Background()
	shared := w.conv("Bird notes", "the blue heron nests by the lake")
	private := w.conv("Private diary", "my secret pin is 4321")

	t.Run("stdio", func(t *testing.T) {
		_, token, err := w.svc.Clients().Add(ctx, "Inspector", false)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.svc.GrantClient(ctx, "Inspector", shared.ID, clients.Write, time.Time{}); err != nil {
			t.Fatal(err)
		}
		serve := func(conn string, env ...string) (string, error) {
			args := []string{"--stored-auth-only", "--connection", conn, "--format", "json", "connect", "--connect-timeout", "30000",
				"-e", cliChildEnv + "=1", "-e", paths.EnvDataDir + "=" + w.dir, "-e", "DBUS_SESSION_BUS_ADDRESS=/nonexistent"}
			for _, e := range env {
				args = append(args, "-e", e)
			}
			return d.run(append(args, "--", w.bin, "mcp", "serve")...)
		}
		if out, err := serve("notoken"); err == nil && !strings.Contains(out, "error") {
			t.Errorf("connected without a token:\n%s", out)
		}
		if out, err := serve("badtoken", cli.TokenEnv+"=sbc_"+strings.Repeat("x", 43)); err == nil && !strings.Contains(out, "error") {
			t.Errorf("connected with a bad token:\n%s", out)
		}
		if out, err := serve("sb", cli.TokenEnv+"="+token); err != nil {
			t.Fatalf("connect: %v\n%s", err, out)
		}
		inspect(t, d, "sb", shared, private, func() {
			if err := w.svc.RevokeClient(ctx, "Inspector"); err != nil {
				t.Fatal(err)
			}
		})
	})

	t.Run("http", func(t *testing.T) {
		_, token, err := w.svc.Clients().Add(ctx, "Inspector over HTTP", false)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.svc.GrantClient(ctx, "Inspector over HTTP", shared.ID, clients.Write, time.Time{}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(w.bin, "mcp", "serve", "--http", "127.0.0.1:0")
		cmd.Env = w.env()
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(stdout).ReadString('\n')
		url := strings.TrimSpace(line)
		if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, mcpserve.Path) {
			t.Fatalf("mcp serve --http printed %q (%v); stderr:\n%s", line, err, stderr)
		}
		connect := func(conn string, header ...string) (string, error) {
			args := []string{"--stored-auth-only", "--connection", conn, "--format", "json", "connect", "--transport", "http"}
			for _, h := range header {
				args = append(args, "--header", h)
			}
			return d.run(append(args, "--", url)...)
		}
		if out, err := connect("h-notoken"); err == nil && !strings.Contains(out, "error") {
			t.Errorf("connected without a token:\n%s", out)
		}
		if out, err := connect("h-badtoken", "Authorization: Bearer sbc_"+strings.Repeat("x", 43)); err == nil && !strings.Contains(out, "error") {
			t.Errorf("connected with a bad token:\n%s", out)
		}
		if out, err := connect("h", "Authorization: Bearer "+token); err != nil {
			t.Fatalf("connect: %v\n%s", err, out)
		}
		// The window revokes: the headless server, another process, finds
		// out by its poll and by the token check of the next request.
		inspect(t, d, "h", shared, private, func() {
			if err := w.svc.RevokeClient(ctx, "Inspector over HTTP"); err != nil {
				t.Fatal(err)
			}
		})
	})

	audit, err := w.svc.Clients().Audit(ctx, clients.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var refusedAuth, refusedPrivate bool
	for _, e := range audit {
		refusedAuth = refusedAuth || (e.Operation == "auth" && !e.Allowed)
		refusedPrivate = refusedPrivate || (e.ConversationID == private.ID && !e.Allowed)
		if strings.Contains(e.Reason, "4321") || strings.Contains(e.Reason, "Private diary") {
			t.Errorf("the audit leaks: %+v", e)
		}
	}
	if !refusedAuth || !refusedPrivate {
		t.Errorf("the audit lacks the refused token (%v) or the refused conversation (%v)", refusedAuth, refusedPrivate)
	}
}

// inspect runs the Inspector's session on connection conn: tools, the
// shared conversation only, reading, sending, a refusal, and the cut-off
// after revoke runs.
func inspect(t *testing.T, d *mcpdo, conn string, shared, private store.Conversation, revoke func()) {
	t.Helper()
	var tools struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	d.json(t, conn, &tools, "tools/list")
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"list_conversations", "read_conversation", "search_messages", "send_message"}; !slices.Equal(names, want) {
		t.Errorf("tools/list: %q, want %q", names, want)
	}

	var res mcpdoResult
	d.json(t, conn, &res, "tools/call", "list_conversations")
	var list mcpserve.ListOutput
	json.Unmarshal(res.StructuredContent, &list)
	if len(list.Conversations) != 1 || list.Conversations[0].ID != shared.ID || list.Conversations[0].Title != "Bird notes" {
		t.Errorf("list_conversations: %s", res.StructuredContent)
	}
	var resources struct {
		Resources []struct{ URI string } `json:"resources"`
	}
	d.json(t, conn, &resources, "resources/list")
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Equal(uris, []string{mcpserve.ConversationsURI, mcpserve.ConversationURI(shared.ID)}) {
		t.Errorf("resources/list: %q", uris)
	}

	res = mcpdoResult{}
	d.json(t, conn, &res, "tools/call", "read_conversation", "--tool-args-json", jsonArgs("conversationId", shared.ID))
	if res.IsError || !strings.Contains(string(res.StructuredContent), "the blue heron nests by the lake") {
		t.Errorf("read_conversation: %+v", res)
	}
	res = mcpdoResult{}
	d.json(t, conn, &res, "tools/call", "read_conversation", "--tool-args-json", jsonArgs("conversationId", private.ID))
	if !res.IsError || strings.Contains(fmt.Sprint(res), "4321") || strings.Contains(fmt.Sprint(res), "Private diary") {
		t.Errorf("read_conversation of another: %+v", res)
	}
	res = mcpdoResult{}
	d.json(t, conn, &res, "tools/call", "search_messages", "--tool-args-json", jsonArgs("query", "secret pin"))
	if strings.Contains(string(res.StructuredContent), private.ID) || strings.Contains(fmt.Sprint(res), "4321") {
		t.Errorf("search_messages found the private conversation: %+v", res)
	}

	res = mcpdoResult{}
	d.json(t, conn, &res, "tools/call", "send_message", "--tool-args-json", jsonArgs("conversationId", shared.ID, "text", "hello from the inspector "+conn))
	var sent mcpserve.SendOutput
	json.Unmarshal(res.StructuredContent, &sent)
	if res.IsError || sent.Status != store.StatusDone || sent.Reply != "You said: hello from the inspector "+conn {
		t.Errorf("send_message: %+v", res)
	}

	revoke()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := d.run("--connection", conn, "--format", "json", "tools/call", "list_conversations")
		// Cut off: mcpdo's own error (the connection closed, the token
		// refused), not a tool's error result.
		if err != nil && strings.Contains(out, `"error":{"code":`) && !strings.Contains(out, "tool_is_error") {
			t.Logf("after the revoke: %s", out)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still served after the revoke:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// jsonArgs is a JSON object of name, value pairs.
func jsonArgs(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return string(mustJSON(m))
}

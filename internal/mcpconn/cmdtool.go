package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/boundedio"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Command tools (serverconf.TransportCommand) are plain programs the user
// declared as tools. A small MCP server in this process serves them, over
// the SDK's in-memory transports, so that they go through this Manager
// like any server's tools: its status, names, approvals, audit and log.
// Each run is a process group of its own, started with an argv (never a
// shell) and killed whole when the call times out or is cancelled; its
// command line, exit status, time and stderr go to the server's log.

// Bounds of the command runs of one server.
const (
	// maxCommandRuns is how many commands of one server run at once; a
	// further call waits for a slot, within its own deadline.
	maxCommandRuns = 4
	// maxRunStderr is how much of a run's stderr is kept, for the log and
	// the result of a failed run.
	maxRunStderr = 16 << 10
	// maxShownArg is how much of one argument the log shows.
	maxShownArg = 512
	// runWaitDelay bounds the wait for a command's output to end once it
	// exited or was killed (a child it left may hold the pipes).
	runWaitDelay = time.Second
)

// A commandServer serves one server's command tools in process.
type commandServer struct {
	tools    []serverconf.CommandTool
	schemas  []*jsonschema.Resolved // per tool, as validated
	env      []string               // the child environment, PATH included
	pathList string                 // where programs are looked up
	cwd      string                 // the server's folder; "" is home
	ring     *logbuf.Ring
	wrap     func(*exec.Cmd)
	grace    time.Duration
	// life is the session's context: its end stops every run.
	life  context.Context
	slots chan struct{}
}

// commandTransport starts cfg's in-process server and returns the client
// end of its in-memory transport. The server lives as long as the
// session's context.
func (m *Manager) commandTransport(cfg serverconf.Config, ring *logbuf.Ring, s *session) (mcp.Transport, error) {
	if err := serverconf.Validate(&cfg); err != nil {
		return nil, permanent(fmt.Errorf("the command tools' settings are not valid (%v); fix them in the server's settings", err))
	}
	env, err := m.resolveValues(cfg.ID, cfg.Env, "environment variable")
	if err != nil {
		return nil, err
	}
	pathList := m.pathList()
	if p, ok := env["PATH"]; ok { // the server's own PATH wins
		pathList = p
		delete(env, "PATH")
	}
	c := &commandServer{
		tools: serverconf.CloneTools(cfg.Tools), env: childEnv(pathList, env, cfg.InheritEnv),
		pathList: pathList, cwd: cfg.Cwd, ring: ring, wrap: m.opts.Wrap, grace: m.opts.StopGrace,
		life: s.ctx, slots: make(chan struct{}, maxCommandRuns),
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "switchboard-command-tools", Version: m.opts.ClientVersion}, nil)
	var names, missing []string
	for i := range c.tools {
		t := &c.tools[i]
		resolved, err := resolveToolSchema(t.Schema())
		if err != nil { // Validate checked it
			return nil, permanent(fmt.Errorf("tool %s: %w", t.Name, err))
		}
		c.schemas = append(c.schemas, resolved)
		tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Schema()}
		if t.ReadOnly {
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		srv.AddTool(tool, c.handler(i))
		names = append(names, t.Name)
		if _, err := c.lookPath(t, t.Command[0]); err != nil {
			ring.AppendLevel(logbuf.LevelWarn, fmt.Sprintf("%stool %s: %v", markerPrefix, t.Name, err))
			missing = append(missing, fmt.Sprintf("%s (%s)", t.Name, t.Command[0]))
		}
	}
	if len(missing) > 0 {
		s.cmdWarning = fmt.Sprintf("the program of tool %s was not found: install it, or write its full path in the tool's command; the server's log says where Switchboard looked", strings.Join(missing, ", "))
	}
	m.setCommandWarning(cfg.ID, s.cmdWarning)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(s.ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("starting the command tools' server: %w", err)
	}
	context.AfterFunc(s.ctx, func() { _ = ss.Close() })
	ring.AppendLevel(logbuf.LevelInfo, fmt.Sprintf("%sserving %d command tools: %s", markerPrefix, len(names), strings.Join(names, ", ")))
	return ct, nil
}

func resolveToolSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("reading its input schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving its input schema: %w", err)
	}
	return r, nil
}

// handler runs tool i for each call.
func (c *commandServer) handler(i int) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		return c.call(ctx, i, raw), nil
	}
}

// cmdError is a failed call the model sees.
func cmdError(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// call checks the arguments, builds the argv and runs it.
func (c *commandServer) call(ctx context.Context, i int, raw json.RawMessage) *mcp.CallToolResult {
	t := &c.tools[i]
	args, err := c.arguments(i, raw)
	if err != nil {
		return cmdError("invalid arguments for %s: %v; nothing was run", t.Name, err)
	}
	argv, err := t.Argv(args)
	if err != nil {
		return cmdError("%v; nothing was run", err)
	}
	path, err := c.lookPath(t, argv[0])
	if err != nil {
		c.ring.AppendLevel(logbuf.LevelError, fmt.Sprintf("%s%s: %v", markerPrefix, t.Name, err))
		return cmdError("%v", err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(c.life, stop)()
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return cmdError("cancelled while waiting for another run of this server's tools to end")
	}
	return c.run(ctx, t, path, argv)
}

// arguments decodes a call's arguments (numbers as json.Number, so they
// reach the program as written), checks them against the tool's schema
// and fills in the schema's defaults.
func (c *commandServer) arguments(i int, raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var plain map[string]any // float64 numbers, as the validator wants them
	if err := json.Unmarshal(raw, &plain); err != nil {
		return nil, fmt.Errorf("they must be a JSON object: %v", err)
	}
	if err := c.schemas[i].Validate(plain); err != nil {
		return nil, err
	}
	v, err := decodeNumbers(raw)
	args, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("they must be a JSON object: %v", err)
	}
	for name, p := range c.schemas[i].Schema().Properties {
		if _, ok := args[name]; ok || p == nil || len(p.Default) == 0 {
			continue
		}
		if v, err := decodeNumbers(p.Default); err == nil {
			args[name] = v
		}
	}
	return args, nil
}

// decodeNumbers decodes JSON with its numbers as json.Number.
func decodeNumbers(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// dir is the folder tool runs in.
func (c *commandServer) dir(t *serverconf.CommandTool) string {
	switch {
	case t.Cwd != "":
		return expandHome(t.Cwd)
	case c.cwd != "":
		return expandHome(c.cwd)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return ""
}

// lookPath finds the program of tool's command, saying how to fix it when
// it is not there.
func (c *commandServer) lookPath(t *serverconf.CommandTool, program string) (string, error) {
	p := expandHome(program)
	if strings.ContainsAny(p, `/\`) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.dir(t), p)
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", errorf(ErrCommandNotFound, "the program of tool %s, %s, does not exist; check the first element of the tool's command", t.Name, p)
		}
		return p, nil
	}
	if found, ok := lookPath(p, c.pathList); ok {
		return found, nil
	}
	return "", errorf(ErrCommandNotFound, "the program of tool %s, %s, is not on the PATH Switchboard searches (%s); install it, or write its full path as the first element of the tool's command (a terminal's `command -v %s` prints it). An app started from the desktop does not get a terminal's PATH: Switchboard uses your login shell's, which may lack what an interactive shell adds, and a PATH in the server's environment replaces it",
		t.Name, program, c.pathList, program)
}

// cutText is what b kept, as UTF-8, with a note when some of what (the
// output, stderr) was cut.
func cutText(b *boundedio.Buffer, what string) string {
	s := strings.ToValidUTF8(b.String(), "\uFFFD")
	if b.Cut() {
		s += fmt.Sprintf("\n[%s cut: the first %s of %s]", what, byteSize(int64(len(b.Bytes()))), byteSize(b.Total()))
	}
	return s
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// run runs argv (its program found at path) in a process group of its
// own, with stdin empty, for at most the tool's timeout; the end of ctx
// kills the group.
func (c *commandServer) run(ctx context.Context, t *serverconf.CommandTool, path string, argv []string) *mcp.CallToolResult {
	stdout := &boundedio.Buffer{Limit: t.Limit()}
	stderr := &boundedio.Buffer{Limit: maxRunStderr}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = c.env
	cmd.Dir = c.dir(t)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = runWaitDelay
	setProcessGroup(cmd)
	if c.wrap != nil {
		c.wrap(cmd)
	}
	shown := displayArgv(argv)
	c.ring.AppendLevel(logbuf.LevelInfo, fmt.Sprintf("%srun %s: %s (in %s)", markerPrefix, t.Name, shown, cmd.Dir))
	start := time.Now()
	if err := cmd.Start(); err != nil {
		c.ring.AppendLevel(logbuf.LevelError, fmt.Sprintf("%s%s: %v", markerPrefix, t.Name, err))
		return cmdError("starting %s: %v; nothing was run", argv[0], err)
	}
	group := newProcessGroup(cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timeout := t.RunTimeout()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	var why string // why it was killed
	select {
	case waitErr = <-done:
	case <-timer.C:
		why = "timed out"
	case <-ctx.Done():
		why = "cancelled"
	}
	if why != "" {
		group.kill()
		waitErr = <-done // the kill ends it; WaitDelay bounds its pipes
	}
	group.cleanup(c.grace) // what it left behind in its group
	took := time.Since(start).Round(time.Millisecond)

	if stderr.Total() > 0 {
		w := c.ring.Writer()
		w.Write(stderr.Bytes())
		if stderr.Cut() {
			fmt.Fprintf(w, "\n%s%s: stderr cut at %s of %s", markerPrefix, t.Name, byteSize(int64(len(stderr.Bytes()))), byteSize(stderr.Total()))
		}
		w.Close()
	}
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	status := exitStatus(cmd, waitErr)
	level := logbuf.LevelInfo
	if why != "" || code != 0 {
		level = logbuf.LevelWarn
	}
	note := ""
	if stdout.Cut() {
		note = fmt.Sprintf(", cut at %s", byteSize(int64(len(stdout.Bytes()))))
	}
	switch why {
	case "timed out":
		c.ring.AppendLevel(level, fmt.Sprintf("%s%s: timed out after %s; killed its process group (%s), %s of output%s", markerPrefix, t.Name, timeout, status, byteSize(stdout.Total()), note))
		return failure(fmt.Sprintf("%s timed out after %s and was stopped, with everything it started; a longer timeout can be set in the tool's settings.", argv[0], timeout), stdout, stderr)
	case "cancelled":
		c.ring.AppendLevel(level, fmt.Sprintf("%s%s: cancelled after %s; killed its process group", markerPrefix, t.Name, took))
		return cmdError("cancelled: %s was stopped after %s", argv[0], took)
	}
	c.ring.AppendLevel(level, fmt.Sprintf("%s%s: %s in %s, %s of output%s", markerPrefix, t.Name, status, took, byteSize(stdout.Total()), note))
	if code != 0 {
		return failure(fmt.Sprintf("%s ended with %s after %s.", argv[0], status, took), stdout, stderr)
	}
	out := cutText(stdout, "output")
	if out == "" {
		out = "(no output)"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}
}

// failure is the result of a run that failed: what happened, its stderr
// and its output, each cut.
func failure(head string, stdout, stderr *boundedio.Buffer) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(head)
	if stderr.Total() > 0 {
		b.WriteString("\nstderr:\n")
		b.WriteString(cutText(stderr, "stderr"))
	} else {
		b.WriteString(" It wrote nothing to stderr.")
	}
	if stdout.Total() > 0 {
		b.WriteString("\noutput:\n")
		b.WriteString(cutText(stdout, "output"))
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}

// exitStatus says how a run ended: "exit status 2", "signal: killed".
func exitStatus(cmd *exec.Cmd, waitErr error) string {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.String()
	}
	if waitErr != nil {
		return waitErr.Error()
	}
	return "exit status 0"
}

// plainArg is an argument a shell would read as it is.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// displayArgv is argv for the log, quoted as a POSIX shell would need it
// (a value with control characters Go-quoted instead, so that it stays on
// one line), long values cut, secret-looking option values hidden.
func displayArgv(argv []string) string {
	parts := redactArgs(argv)
	for i, a := range parts {
		cut := ""
		if len(a) > maxShownArg {
			a, cut = strings.ToValidUTF8(a[:maxShownArg], ""), fmt.Sprintf("…(%d bytes)", len(a))
		}
		switch {
		case a == "":
			parts[i] = "''" + cut
		case plainArg.MatchString(a):
			parts[i] = a + cut
		case strings.IndexFunc(a, unicode.IsControl) >= 0:
			parts[i] = strconv.Quote(a) + cut
		default:
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'" + cut
		}
	}
	return strings.Join(parts, " ")
}

// setCommandWarning makes warning (empty: none) the Status.Warning of
// command server id, for as long as it runs.
func (m *Manager) setCommandWarning(id, warning string) {
	m.mu.Lock()
	srv := m.servers[id]
	m.mu.Unlock()
	if srv == nil {
		return
	}
	srv.mu.Lock()
	changed := srv.warning != warning
	srv.warning = warning
	srv.mu.Unlock()
	if changed {
		srv.setStatus(func(*Status) {})
	}
}

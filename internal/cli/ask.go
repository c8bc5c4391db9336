package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/sampling"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

func init() {
	register("ask", "one chat turn on the terminal: ask [--provider ID | --base-url URL] [--model M] [--conversation ID] [--yolo] [--allow SERVER/TOOL] [--attach FILE] [--tool-search auto|always|off] \"prompt\"", runAsk)
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runAsk runs one turn with the same engine as the window: the answer
// streams to stdout, tool calls and results go to stderr, and the exchange
// is stored. A tool call that needs approval is asked about on the terminal;
// without one it is denied unless --yolo or --allow says otherwise (for this
// run only: nothing is remembered).
func runAsk(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	providerID := fs.String("provider", "", "configured provider ID (default: the default provider)")
	baseURL := fs.String("base-url", "", "an OpenAI-compatible base URL to use instead of a configured provider (key from SWITCHBOARD_API_KEY)")
	model := fs.String("model", "", "model (default: the provider's default model)")
	convID := fs.String("conversation", "", "continue this conversation (default: a new one)")
	yolo := fs.Bool("yolo", false, "allow every tool call of this run without asking")
	var allow stringList
	fs.Var(&allow, "allow", "allow calls of this tool without asking (repeatable): server/tool (server ID or name, the server's tool name), the exposed name models see, or a tool name only one server has")
	wait := fs.Duration("wait-servers", 15*time.Second, "how long to wait for MCP servers to connect")
	toolSearch := fs.String("tool-search", "", "for this run: auto, always or off (default: the setting, see switchboard settings)")
	var attachFiles stringList
	fs.Var(&attachFiles, "attach", fmt.Sprintf("attach a file to the message (repeatable, at most %d): an image (PNG, JPEG, GIF, WebP; up to %s) for a vision model, a text file (inlined; cut at %s) or a PDF (its text)",
		chat.MaxAttachments, core.FormatBytes(core.MaxImageBytes), core.FormatBytes(core.MaxTextBytes)))
	if err := fs.Parse(args); err != nil {
		return 2
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if len(attachFiles) > chat.MaxAttachments {
		fmt.Fprintf(env.Stderr, "switchboard: %d files to attach; a message can have at most %d\n", len(attachFiles), chat.MaxAttachments)
		return 2
	}
	if prompt == "" && len(attachFiles) == 0 {
		fmt.Fprintln(env.Stderr, `usage: switchboard ask [flags] "prompt"`)
		return 2
	}
	if *toolSearch != "" && !slices.Contains(core.ToolSearchModes, toolsearch.Mode(*toolSearch)) {
		fmt.Fprintf(env.Stderr, "switchboard: --tool-search %q: choose auto, always or off\n", *toolSearch)
		return 2
	}

	c, err := core.Open(ctx, nil)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	defer c.Close()
	if p := c.Fatal(); p != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s\n%s\n", p.Message, p.Advice)
		return 1
	}

	// A turn's events come from several goroutines (tool calls run at once,
	// approvals are decided apart), so the printer writes through one lock.
	lw := lockedEnv(env)
	out := &askPrinter{env: lw, tools: toolLine{w: lw.Stderr, tty: isTerminalWriter(env.Stderr)}}
	opts := &core.ServiceOptions{Emitter: out}
	if isTerminal(env.Stdin) && isTerminalWriter(env.Stderr) {
		// What servers ask for is answered on the terminal (termasks.go).
		opts.Visible = func() bool { return true }
	}
	if *baseURL != "" {
		url, key := *baseURL, os.Getenv("SWITCHBOARD_API_KEY")
		opts.Provider = func(ctx context.Context, _ string) (*llm.Client, string, error) {
			cl, err := llm.NewClient(llm.ProviderConfig{BaseURL: url, APIKey: key})
			if err != nil || *model != "" {
				return cl, *model, err
			}
			// No --model: the server's first model, as a local server
			// usually has just the one loaded.
			models, err := cl.ListModels(ctx)
			if err != nil {
				return nil, "", err
			}
			if len(models) == 0 {
				return nil, "", fmt.Errorf("%s lists no models; pass --model", url)
			}
			return cl, models[0].ID, nil
		}
	}
	svc, err := c.Services(opts)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	out.broker = svc.Broker
	if *toolSearch != "" {
		set, err := core.LoadSettings(ctx, c.Store)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		ts := set.ToolSearchSettings()
		ts.Mode = toolsearch.Mode(*toolSearch)
		svc.Chat.SetToolSearch(ts)
	}
	policy := askPolicy{yolo: *yolo, interactive: isTerminal(env.Stdin), in: bufio.NewReader(env.Stdin)}
	if opts.Visible != nil {
		out.asker = &termAsker{in: policy.in, out: lw.Stderr, lock: &out.promptMu, svc: svc}
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	waitForServers(ctx, svc.Manager, *wait, env.Stderr)
	if policy.allow, err = resolveAllow(allow, svc.Manager.Tools()); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 2
	}
	out.setPolicy(policy)

	attachments, err := askAttachments(ctx, svc, attachFiles, env.Stderr)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	conv, err := askConversation(ctx, c.Store, *convID, *providerID, *model, *baseURL)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	out.conv = conv.ID
	res, err := svc.Chat.Run(ctx, conv.ID, prompt, attachments...)
	out.finish()
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "[conversation %s: %s]\n", conv.ID, res.Status)
	switch res.Status {
	case store.StatusDone:
		return 0
	case store.StatusStopped:
		return 130
	}
	fmt.Fprintln(env.Stderr, "switchboard:", res.Error)
	return 1
}

// askAttachments reads and stores the files of --attach, each read no
// further than core.MaxAttachmentBytes; a text cut to its limit is said
// on w.
func askAttachments(ctx context.Context, svc *core.Services, files []string, w io.Writer) ([]store.Attachment, error) {
	var out []store.Attachment
	for _, f := range files {
		in, err := core.ReadAttachment(f)
		if err != nil {
			return nil, fmt.Errorf("--attach %s: %w", f, err)
		}
		a, err := svc.Attach(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("--attach %s: %w", f, err)
		}
		if a.Truncated {
			fmt.Fprintf(w, "[%s is cut to its first %s; the model is told]\n", f, core.FormatBytes(a.Size))
		}
		out = append(out, a)
	}
	return out, nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func askConversation(ctx context.Context, st *store.Store, id, providerID, model, baseURL string) (store.Conversation, error) {
	if id != "" {
		conv, err := st.Conversation(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return conv, fmt.Errorf("no conversation %q (see the app's sidebar for IDs)", id)
		}
		if err == nil && (providerID != "" || model != "") {
			err = st.SetConversationModel(ctx, id, providerID, model)
		}
		return conv, err
	}
	if baseURL != "" {
		providerID = ""
	}
	return st.CreateConversation(ctx, store.Conversation{ProviderID: providerID, Model: model})
}

// waitForServers gives enabled servers a bounded time to connect, so their
// tools are offered; a server that does not make it is reported and skipped.
func waitForServers(ctx context.Context, m *mcpconn.Manager, d time.Duration, w io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	// A server past connecting does not go back to it (reconnects show
	// degraded), so waiting for each in turn is waiting for all at once.
	// Once ctx ends, each Wait returns at once; a removed server's returns
	// an error, and it is not reported below either.
	settled := func(st mcpconn.Status) bool { return st.State != mcpconn.StateConnecting }
	for _, st := range m.Statuses() {
		m.Wait(ctx, st.ServerID, settled)
	}
	for _, st := range m.Statuses() {
		if st.State != mcpconn.StateConnected && st.State != mcpconn.StateDisconnected {
			fmt.Fprintf(w, "[server %s is %s: %s]\n", st.ServerID, st.State, st.Reason)
		}
	}
}

type askPolicy struct {
	yolo, interactive bool
	// allow holds the tools --allow names, each with the definition hash
	// it had when the run started.
	allow map[allowedTool]string
	in    *bufio.Reader
}

// An allowedTool is a tool by server ID and the server's own name.
type allowedTool struct{ serverID, tool string }

// resolveAllow finds the tools that --allow values name among tools. A
// value names a tool exactly: "server/tool" (server ID or display name,
// and the server's own tool name), the exposed name models see, or a bare
// tool name, which must belong to one server only: otherwise a hostile
// server could list a tool of that name and have it run unasked.
func resolveAllow(values []string, tools []mcpconn.Tool) (map[allowedTool]string, error) {
	out := map[allowedTool]string{}
	for _, v := range values {
		var found []mcpconn.Tool
		for _, t := range tools {
			if t.Name == v {
				found = []mcpconn.Tool{t}
				break
			}
			server, tool, ok := strings.Cut(v, "/")
			if ok && (server == t.ServerID || server == t.ServerName) && tool == t.OriginalName {
				found = append(found, t)
			}
		}
		if len(found) == 0 && !strings.Contains(v, "/") {
			for _, t := range tools {
				if t.OriginalName == v {
					found = append(found, t)
				}
			}
		}
		switch {
		case len(found) == 0:
			return nil, fmt.Errorf("--allow %s: no connected server has this tool; pass server/tool or the exposed name (%s)", v, toolNames(tools))
		case len(found) > 1:
			var names []string
			for _, t := range found {
				names = append(names, t.Name)
			}
			return nil, fmt.Errorf("--allow %s: %d tools have this name (%s); pass the one you mean by its exposed name, or as server/tool with the server's ID", v, len(found), strings.Join(names, ", "))
		}
		out[allowedTool{found[0].ServerID, found[0].OriginalName}] = found[0].DefinitionHash
	}
	return out, nil
}

// toolNames lists the exposed names of tools, the first few of many.
func toolNames(tools []mcpconn.Tool) string {
	if len(tools) == 0 {
		return "none is connected"
	}
	var names []string
	for i, t := range tools {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(tools)-i))
			break
		}
		names = append(names, t.Name)
	}
	return "connected: " + strings.Join(names, ", ")
}

// allows reports whether --allow covers r: the same server and tool, with
// the definition it had when the run started.
func (p askPolicy) allows(r approval.Request) bool {
	hash, ok := p.allow[allowedTool{r.ServerID, r.Tool}]
	return ok && hash == r.DefinitionHash
}

// askPrinter turns engine and broker events into terminal output, and
// answers approval requests by the run's policy or by asking.
type askPrinter struct {
	env    *Env
	broker *approval.Broker
	policy askPolicy
	conv   string

	// tools prints tool-call activity and progress (progress.go).
	tools toolLine

	mu        sync.Mutex
	wroteText bool
	prompts   sync.WaitGroup
	promptMu  sync.Mutex
	// asker answers what servers ask on the terminal; nil: refused.
	asker *termAsker
	// searches are the queries of the model's tool searches, by call ID,
	// until their results come.
	searches map[string]string
}

// setPolicy sets how approval requests are answered; until then (servers
// still starting), a request is denied.
func (p *askPrinter) setPolicy(pol askPolicy) {
	p.mu.Lock()
	p.policy = pol
	p.mu.Unlock()
}

func (p *askPrinter) Emit(name string, payload any) {
	switch name {
	case chat.EventDelta:
		d, ok := payload.(chat.DeltaEvent)
		if !ok || d.Content == "" {
			return
		}
		p.mu.Lock()
		io.WriteString(p.env.Stdout, d.Content)
		p.wroteText = true
		p.mu.Unlock()
	case chat.EventToolCall:
		t, ok := payload.(chat.ToolCallEvent)
		if !ok {
			return
		}
		p.mu.Lock()
		afterText := p.wroteText
		p.mu.Unlock()
		p.tools.event(t, afterText)
	case chat.EventMessage:
		if m, ok := payload.(store.Message); ok {
			p.searchLine(m)
		}
	case chat.EventWarning:
		// Sent before the request it is about (too many tools, say).
		if w, ok := payload.(chat.WarningEvent); ok && w.Message != "" {
			fmt.Fprintf(p.env.Stderr, "switchboard: warning: %s\n", w.Message)
		}
	case chat.EventStatus:
		if s, ok := payload.(chat.StatusEvent); ok && s.State == chat.StateRetrying {
			fmt.Fprintf(p.env.Stderr, "[%s]\n", s.Message)
		}
	case elicit.EventRequested, sampling.EventRequested:
		if p.asker != nil {
			p.prompts.Add(1)
			go func() { // never block the broker
				defer p.prompts.Done()
				p.asker.answer(context.Background(), payload)
			}()
		}
	case elicit.EventEnded, sampling.EventEnded:
		refusedAsk(p.env.Stderr, name, payload)
	case approval.EventRequested:
		r, ok := payload.(approval.Request)
		if !ok {
			return
		}
		p.prompts.Add(1)
		go func() { // never block the broker's event goroutine
			defer p.prompts.Done()
			p.decide(r)
		}()
	}
}

func (p *askPrinter) decide(r approval.Request) {
	ctx := context.Background()
	p.mu.Lock()
	pol := p.policy
	p.mu.Unlock()
	switch {
	case r.Guard != nil && !pol.interactive:
		// The lethal-trifecta guard overrides --yolo and --allow: with no
		// terminal to ask on, the call is refused and the model told why.
		fmt.Fprintf(p.env.Stderr, "[tool %s on %s refused by the lethal-trifecta guard: %s No terminal to ask on; run it interactively to decide, or turn the guard off: switchboard settings set trifecta-guard off]\n", r.Tool, r.ServerName, r.Guard.Reason)
		p.broker.Refuse(r.ID, r.Guard.Reason+" Switchboard asks the user before such a call, and nobody could be asked here.")
		return
	case r.Guard != nil:
		// Asked below, even under --yolo or --allow.
	case pol.yolo:
		p.broker.Decide(ctx, r.ID, approval.AllowOnce)
		return
	case pol.allows(r):
		p.broker.Decide(ctx, r.ID, approval.AllowOnce)
		return
	case !pol.interactive:
		fmt.Fprintf(p.env.Stderr, "[tool %s on %s denied: no terminal to ask on; pass --allow %s/%s or --yolo]\n", r.Tool, r.ServerName, r.ServerID, r.Tool)
		p.broker.Decide(ctx, r.ID, approval.Deny)
		return
	}
	p.promptMu.Lock()
	defer p.promptMu.Unlock()
	var args any
	json.Unmarshal(r.Arguments, &args)
	pretty, _ := json.MarshalIndent(args, "  ", "  ")
	if r.Changed {
		fmt.Fprintf(p.env.Stderr, "\nThe server changed tool %q since you allowed it always.\n  Before: %s\n  Now:    %s\n", r.Tool, r.PreviousDescription, r.Description)
	}
	if r.Guard != nil {
		fmt.Fprintf(p.env.Stderr, "\nWarning (lethal-trifecta guard): %s\nCheck the arguments before you allow it. Allowing always, --yolo and --allow do not silence this for the next such call.\n", r.Guard.Reason)
	}
	fmt.Fprintf(p.env.Stderr, "\nAllow tool %q of server %s?\n  %s\n[y] once  [a] always for this tool  [n] deny > ", r.Tool, r.ServerName, pretty)
	line, _ := pol.in.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		p.broker.Decide(ctx, r.ID, approval.AllowOnce)
	case "a", "always":
		p.broker.Decide(ctx, r.ID, approval.AllowAlways)
	default:
		p.broker.Decide(ctx, r.ID, approval.Deny)
	}
}

// searchLine prints the model's tool searches (tool search's
// search_tools, which has no tool-call events): the query when the reply
// that asks is saved, and the tools found when the result is.
func (p *askPrinter) searchLine(m store.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case m.Role == store.RoleAssistant && m.Status == store.StatusDone && len(m.ToolCalls) > 0:
		var calls []llm.ToolCall
		json.Unmarshal(m.ToolCalls, &calls)
		for _, c := range calls {
			if c.Name != toolsearch.SearchName {
				continue
			}
			if p.searches == nil {
				p.searches = map[string]string{}
			}
			q, err := toolsearch.ParseSearch(c.Arguments)
			if err != nil {
				q.Query = c.Arguments
			}
			p.searches[c.ID] = clipLine(strings.Join(strings.Fields(q.Query), " "), 200)
		}
	case m.Role == store.RoleTool && p.searches != nil:
		q, ok := p.searches[m.ToolCallID]
		if !ok {
			return
		}
		delete(p.searches, m.ToolCallID)
		var r struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		var names []string
		if json.Unmarshal([]byte(m.Content), &r) == nil {
			for _, t := range r.Tools {
				names = append(names, t.Name)
			}
		}
		found := "nothing"
		if len(names) > 0 {
			found = strings.Join(names, ", ")
		} else if !strings.HasPrefix(m.Content, "{") {
			found = clipLine(m.Content, 200)
		}
		nl := ""
		if p.wroteText {
			nl = "\n"
			p.wroteText = false
		}
		fmt.Fprintf(p.env.Stderr, "%s[tool search %q: %s]\n", nl, q, found)
	}
}

func (p *askPrinter) finish() {
	p.tools.end()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wroteText {
		fmt.Fprintln(p.env.Stdout)
	}
}

// lockedEnv returns env with its two writers behind one lock, for output
// written from several goroutines (a test's buffer is not safe for that).
func lockedEnv(env *Env) *Env {
	mu := new(sync.Mutex)
	return &Env{Stdin: env.Stdin, Stdout: &lockedWriter{mu: mu, w: env.Stdout}, Stderr: &lockedWriter{mu: mu, w: env.Stderr}}
}

// A lockedWriter writes to w holding mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

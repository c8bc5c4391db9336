package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// modernProtocol is the first MCP version without the initialize handshake
// (SEP-2575). The SDK probes for it with server/discover and falls back to
// initialize, costing an old server one extra round trip.
const modernProtocol = "2026-07-28"

// legacyProtocol is the newest version this SDK speaks with initialize:
// what a server hinted as pre-2026 is asked for directly.
var legacyProtocol = func() string {
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < modernProtocol {
			return v
		}
	}
	return ""
}()

// markerPrefix starts the lines Switchboard itself writes into a server's
// stderr log (process started, exited); LastStderr leaves them out.
const markerPrefix = "[switchboard] "

// A session is one live connection to a server.
type session struct {
	serverID    string
	cs          *mcp.ClientSession
	proc        *process      // stdio only
	ring        *logbuf.Ring  // the server's stderr log
	rec         *httpRecorder // sse and http only
	transport   serverconf.Transport
	url         string // sse and http only
	protocol    string
	connectedAt time.Time
	noisy       atomic.Bool  // stdio: a line that is not JSON-RPC was skipped
	cmdWarning  string       // command: the programs not found (cmdtool.go)
	tools       []*mcp.Tool  // as listed at connect, the ones kept
	listing     *toolListing // the same, prepared

	// ctx lives as long as the session; every request derives from it, so
	// stopping retires them all and Close never waits on a hung call.
	ctx    context.Context
	cancel context.CancelCauseFunc

	done   chan struct{} // closed when the connection or the process ended
	endErr error         // why; valid after done

	toolsChanged chan struct{} // buffered 1: a tools/list_changed arrived

	progMu   sync.Mutex
	progress map[string]func(*mcp.ProgressNotificationParams)

	// The server's MCP log messages and the level asked of it (serverlog.go).
	logGate  logGate
	logLevel atomic.Value // serverconf.LogLevel wanted
	logMu    sync.Mutex   // serializes sendLogLevel
	logSent  serverconf.LogLevel

	// The roots offered (roots.go); client is nil in a failed dial.
	client    *mcp.Client
	rootsWant atomic.Value // []string wanted
	rootsMu   sync.Mutex   // serializes sendRoots
	rootsSent []string

	stopOnce sync.Once
}

var (
	errSessionStopped = errors.New("session stopped")
	errConnectTimeout = errors.New("connect timeout")
)

// A stoppedError is the cause of a session's context once the manager
// stopped it: why it did (a failed health check, a disconnect).
type stoppedError struct{ reason error }

func (e *stoppedError) Error() string        { return e.reason.Error() }
func (e *stoppedError) Unwrap() error        { return e.reason }
func (e *stoppedError) Is(target error) bool { return target == errSessionStopped }

// stopCause is why the session's context ended.
func (s *session) stopCause() error {
	cause := context.Cause(s.ctx)
	var se *stoppedError
	if errors.As(cause, &se) {
		return se.reason
	}
	return errors.New("the server was disconnected")
}

// A dialError is a failed connection attempt, classified.
type dialError struct {
	err        error
	needsAuth  bool
	permanent  bool // retrying cannot help (missing command, missing secret)
	protocolNo bool // the server answered with a JSON-RPC error: drop the hint and retry
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// permanent marks err as one that retrying cannot fix.
func permanent(err error) error { return &dialError{err: err, permanent: true} }

// openSession connects to the server, with the protocol hint; if the server
// rejects the hinted handshake, it forgets the hint and tries once more.
func (m *Manager) openSession(ctx context.Context, cfg serverconf.Config, ring *logbuf.Ring) (*session, error) {
	pv, hinted := m.protocolFor(cfg)
	sess, err := m.dial(ctx, cfg, ring, pv)
	var de *dialError
	if hinted && errors.As(err, &de) && de.protocolNo && ctx.Err() == nil {
		// Upgraded since, to a server that no longer answers initialize.
		m.clearHint(cfg.ID)
		sess, err = m.dial(ctx, cfg, ring, "")
	}
	if err != nil {
		return nil, err
	}
	m.setHint(cfg, sess.protocol)
	return sess, nil
}

// protocolFor is the ClientSessionOptions.ProtocolVersion to connect to
// cfg's server with. Empty, the SDK's default, sends server/discover
// (2026-07-28) first and falls back to initialize on any error, a wasted
// round trip for an older server; so a server known to be older is sent
// initialize at once, with legacyProtocol:
//   - an HTTP+SSE server, always: 2026-07-28 defines only the stdio and
//     streamable HTTP transports (the SDK's own SSE server does not offer
//     it). The SDK probes whatever the transport; this goes once its
//     Client.Connect skips discover on a client transport that says it
//     cannot carry 2026-07-28 (as ProtocolVersionSupporter does for
//     server transports) and SSEClientTransport says so.
//   - a server that spoke an older version when last reached the same way
//     (hint). hinted reports this case: the server may have been upgraded
//     since, so a refusal is worth a retry with the default.
func (m *Manager) protocolFor(cfg serverconf.Config) (pv string, hinted bool) {
	if cfg.Transport == serverconf.TransportSSE {
		return legacyProtocol, false
	}
	if h := m.hint(cfg); h != "" && h < modernProtocol {
		return legacyProtocol, true
	}
	return "", false
}

// dial makes one connection attempt and lists the server's tools, all
// within ConnectTimeout.
func (m *Manager) dial(parent context.Context, cfg serverconf.Config, ring *logbuf.Ring, protocol string) (*session, error) {
	ctx, cancel := context.WithCancelCause(parent)
	timer := time.AfterFunc(m.opts.ConnectTimeout, func() { cancel(errConnectTimeout) })
	s := &session{
		serverID:     cfg.ID,
		transport:    cfg.Transport,
		url:          cfg.URL,
		ring:         ring,
		ctx:          ctx,
		cancel:       cancel,
		done:         make(chan struct{}),
		toolsChanged: make(chan struct{}, 1),
		progress:     make(map[string]func(*mcp.ProgressNotificationParams)),
	}
	fail := func(err error) (*session, error) {
		timer.Stop()
		err = s.classify(err)
		cancel(&stoppedError{err})
		if s.cs != nil {
			go s.cs.Close()
		}
		if s.proc != nil {
			s.proc.stop()
			ring.AppendLevel(logbuf.LevelInfo, markerPrefix+"stopped: "+s.proc.exitReason())
		}
		s.rec.closeIdle()
		return nil, err
	}

	transport, err := m.transport(cfg, ring, s)
	if err != nil {
		return fail(err)
	}
	// Roots only when the user offers the server some (roots.go): servers
	// such as server-filesystem replace their configured directories with
	// the client's roots when it advertises them. Tasks where a call's task
	// handle can be caught (see taskwire.go): not over the legacy SSE
	// transport.
	caps := &mcp.ClientCapabilities{}
	if len(cfg.Roots) > 0 {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	// Elicitation in both modes, and sampling with tools (see
	// Options.Elicit and Options.Sample): set here, as the SDK would
	// declare no URL mode.
	if m.opts.Elicit != nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	if m.opts.Sample != nil {
		caps.Sampling = &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}}
	}
	if m.opts.AppViews { // MCP Apps (appui.go)
		caps.AddExtension(UIExtension, map[string]any{"mimeTypes": []any{UIMIMEType}})
	}
	if cfg.Transport != serverconf.TransportSSE {
		caps.AddExtension(TasksExtension, map[string]any{})
		if _, ok := transport.(*mcp.StreamableClientTransport); !ok {
			transport = taskTransport{transport}
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: m.opts.ClientName, Version: m.opts.ClientVersion}, &mcp.ClientOptions{
		Logger:       m.log.With("server", cfg.ID),
		Capabilities: caps,

		// Requests that wait on the user (capabilities above).
		ElicitationHandler:            m.elicitHandler(cfg.ID),
		ElicitationCompleteHandler:    m.elicitCompleteHandler(cfg.ID),
		CreateMessageWithToolsHandler: m.sampleHandler(cfg.ID),

		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select { // runs on the read loop: just signal the supervisor
			case s.toolsChanged <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.onProgress(req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s.onLog(req.Params)
		},
		// Resources and prompts (resources.go): events for the UI, throttled.
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			m.onResourceUpdated(cfg.ID, req.Params)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			m.ui.drop(cfg.ID) // its views may have changed too
			m.onListChanged(cfg.ID, EventResourcesChanged)
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			m.onListChanged(cfg.ID, EventPromptsChanged)
		},
	})
	if err := addTaskMethods(client); err != nil {
		return fail(err)
	}
	if len(cfg.Roots) > 0 {
		s.client = client
		noteMissingRoots(ring, cfg.Roots)
		client.AddRoots(rootsOf(cfg.Roots)...) // no session yet: nothing is sent
		s.rootsSent = slices.Clone(cfg.Roots)
		s.rootsWant.Store(slices.Clone(cfg.Roots))
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return fail(err)
	}
	s.cs = cs
	s.protocol = cs.InitializeResult().ProtocolVersion
	s.logLevel.Store(cfg.LogLevel)
	s.sendLogLevel(ctx)
	listing, err := s.listTools(ctx, m.opts.MaxTools)
	if err != nil {
		return fail(fmt.Errorf("listing tools: %w", err))
	}
	if !timer.Stop() {
		return fail(errConnectTimeout)
	}
	s.tools, s.listing = listing.kept, listing
	s.connectedAt = time.Now()
	go s.watch()
	return s, nil
}

// transport builds the SDK transport for cfg, starting the process of a
// stdio server.
func (m *Manager) transport(cfg serverconf.Config, ring *logbuf.Ring, s *session) (mcp.Transport, error) {
	if m.testTransport != nil {
		return m.testTransport(cfg)
	}
	switch cfg.Transport {
	case serverconf.TransportStdio, "":
		if cfg.Install != nil && m.opts.Installed != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			run, err := m.opts.Installed(ctx, cfg)
			cancel()
			if err != nil {
				return nil, permanent(errorf(ErrCommandNotFound, "%v", err))
			}
			cfg = run
		}
		env, err := m.resolveValues(cfg.ID, cfg.Env, "environment variable")
		if err != nil {
			return nil, err
		}
		pathList := m.pathList()
		path, err := resolveCommand(cfg.Command, cfg.Cwd, pathList)
		if err != nil {
			return nil, err
		}
		if p, ok := env["PATH"]; ok { // the server's own PATH wins
			pathList = p
			delete(env, "PATH")
		}
		// Passwords in args are kept in the keyring as ${secret:NAME}: put
		// them back for the child only; the log shows the placeholders.
		shown := cfg.Args
		if cfg.Args, err = m.resolveArgs(cfg.ID, cfg.Args); err != nil {
			return nil, err
		}
		proc, err := startProcess(cfg, path, childEnv(pathList, env, cfg.InheritEnv), ring, m.opts.StopGrace, m.opts.Wrap)
		if err != nil {
			return nil, permanent(err)
		}
		s.proc = proc
		ring.AppendLevel(logbuf.LevelInfo, fmt.Sprintf("%sstarted %s (pid %d)", markerPrefix,
			strings.Join(append([]string{cfg.Command}, redactArgs(shown)...), " "), proc.cmd.Process.Pid))
		return proc.transport(func(line string) {
			s.noisy.Store(true)
			m.noteStdoutNoise(cfg.ID, ring, line)
		}), nil
	case serverconf.TransportCommand:
		return m.commandTransport(cfg, ring, s) // cmdtool.go
	case serverconf.TransportSSE, serverconf.TransportHTTP:
		if cfg.URL == "" {
			return nil, permanent(errors.New("the server has no URL; set one in its settings"))
		}
		headers, err := m.resolveValues(cfg.ID, cfg.Headers, "header")
		if err != nil {
			return nil, err
		}
		t, rec := m.remoteTransport(cfg, headers)
		s.rec = rec
		return t, nil
	default:
		return nil, permanent(fmt.Errorf("unknown transport %q", cfg.Transport))
	}
}

// resolveValues turns server id's config values into strings, reading
// secrets. A reference to another server's keyring entry is refused before
// anything is read: a config (crafted, or pasted from elsewhere) must not be
// able to hand one server's token to another.
func (m *Manager) resolveValues(id string, vals map[string]serverconf.Value, what string) (map[string]string, error) {
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		if v.SecretRef == "" {
			out[k] = v.Plain
			continue
		}
		if err := serverconf.CheckSecretRef(id, v.SecretRef); err != nil {
			return nil, permanent(secretError{fmt.Errorf("%s %s: %w", what, k, err)})
		}
		if m.opts.Secrets == nil {
			return nil, permanent(errorf(ErrSecret, "%s %s is kept in the keyring, which is not available", what, k))
		}
		sec, err := m.opts.Secrets.Get(v.SecretRef)
		if err != nil {
			return nil, permanent(errorf(ErrSecret, "reading %s %s from the keyring: %v; set it again in the server's settings", what, k, err))
		}
		out[k] = sec
	}
	return out, nil
}

// classify turns a failed attempt's error into a dialError a user can read.
func (s *session) classify(err error) error {
	var de *dialError
	if errors.As(err, &de) {
		return err
	}
	out := &dialError{err: err}
	switch {
	case s.rec != nil && s.rec.needsAuth() != 0:
		out.needsAuth = true
		out.err = fmt.Errorf("%w (HTTP %d); sign in from the server's settings", ErrNeedsAuth, s.rec.needsAuth())
	case s.rec != nil && s.rec.refusal() != nil:
		// Whatever the SDK reports (often the stream's EOF), the cause is
		// the request kept from another origin.
		out.err = s.rec.refusal()
	case errors.Is(context.Cause(s.ctx), errConnectTimeout):
		out.err = errors.New("the server did not finish connecting in time")
		if s.rec != nil {
			out.err = errors.New("the server did not finish connecting in time; is it running, and can this computer reach it (network, VPN, firewall)?")
		}
	case isJSONSyntax(err):
		// Before the exit check: a server that exits once its stdin
		// closes would otherwise hide the cause behind "exited".
		out.err = fmt.Errorf("the server wrote something other than JSON-RPC to stdout (%v); servers must log to stderr", err)
	case s.proc != nil && s.proc.exitedWithin(300*time.Millisecond):
		out.err = fmt.Errorf("the server exited during startup with %s", s.proc.exitReason())
	default:
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			out.protocolNo = true
		}
		out.err = fmt.Errorf("connecting: %w", err)
		if s.rec != nil {
			if a := remoteAdvice(s.transport, s.url, err); a != "" {
				out.err = fmt.Errorf("connecting: %w; %s", err, a)
			}
		}
	}
	return out
}

// remoteAdvice suggests the likely fix for a remote server's failed
// connection: a wrong path, the other transport, a server that is not
// running or not reachable. The SDK reports an HTTP status by its text
// only ("sending "initialize": Not Found"), so that text is matched;
// TestRemoteHeadlines fails if it changes.
func remoteAdvice(transport serverconf.Transport, rawURL string, err error) string {
	msg := err.Error()
	status := func(codes ...int) bool {
		for _, c := range codes {
			if strings.HasSuffix(msg, ": "+http.StatusText(c)) || strings.Contains(msg, fmt.Sprintf("%d %s", c, http.StatusText(c))) {
				return true
			}
		}
		return false
	}
	path := ""
	if u, perr := url.Parse(rawURL); perr == nil {
		path = u.Path
	}
	other := "this may be an SSE server: try the sse transport"
	if transport == serverconf.TransportSSE {
		other = "this may be a streamable HTTP server: try the http transport"
	}
	switch {
	case status(http.StatusNotFound):
		if path == "" {
			path = "/"
		}
		a := fmt.Sprintf("check the URL's path (%s): streamable HTTP servers usually answer at /mcp, SSE servers at /sse", path)
		if transport == serverconf.TransportSSE && strings.HasSuffix(path, "/mcp") ||
			transport != serverconf.TransportSSE && strings.HasSuffix(path, "/sse") {
			a += "; " + other
		}
		return a
	case status(http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType):
		return other
	case strings.Contains(msg, "connection refused"):
		return "nothing answers at that address: is the server running, and on that port?"
	case strings.Contains(msg, "no such host"):
		return "the host name does not resolve: check it, and that this computer is online"
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "network is unreachable"), strings.Contains(msg, "no route to host"):
		return "the server may need network access: is this computer online, and is the server reachable from it (VPN, firewall)?"
	}
	return ""
}

func isJSONSyntax(err error) bool {
	var se *json.SyntaxError
	var ne *noiseError
	msg := fmt.Sprint(err)
	return errors.As(err, &se) || errors.As(err, &ne) || strings.Contains(msg, "invalid character") ||
		strings.Contains(msg, "lines that are not JSON-RPC")
}

// exitedWithin reports whether the process exits within d.
func (p *process) exitedWithin(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// listTools lists the server's tools, following pagination, keeping the
// first limit of them (see toolListing). It reads at most maxListingPages
// pages and countedTools*limit tools, so a server cannot keep it busy.
func (s *session) listTools(ctx context.Context, limit int) (*toolListing, error) {
	l := newToolListing(limit)
	if res := s.cs.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Tools == nil {
		return l, nil
	}
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := s.cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			l.add(t)
		}
		if ttl := time.Duration(res.GetTTLMs()) * time.Millisecond; ttl > 0 && (l.ttl == 0 || ttl < l.ttl) {
			l.ttl = ttl
		}
		if res.NextCursor == "" {
			return l, nil
		}
		if page >= maxListingPages || l.listed >= countedTools*limit {
			l.more = true
			return l, nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// watch closes done when the connection ends or the process exits,
// whichever comes first, recording why. A process exit is the better reason:
// the closed stdout that ends the connection is only its symptom.
func (s *session) watch() {
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.cs.Wait() }()
	var exited <-chan struct{}
	if s.proc != nil {
		exited = s.proc.exited
	}
	var reason error
	select {
	case err := <-waitErr:
		if s.ctx.Err() != nil { // we closed it
			reason = s.stopCause()
		} else if isStreamFault(err) {
			// Garbage on stdout, or a message past the limit, is the
			// cause even when the process then dies of the closed pipe
			// (SIGPIPE).
			reason = connectionLost(err)
		} else if s.proc != nil && s.proc.exitedWithin(200*time.Millisecond) {
			reason = fmt.Errorf("the server exited with %s", s.proc.exitReason())
		} else {
			reason = connectionLost(err)
		}
	case <-exited:
		// The connection's own error, arriving at the same moment, may be
		// the cause: garbage on stdout closes the pipe, which kills the
		// server with SIGPIPE.
		select {
		case err := <-waitErr:
			if s.ctx.Err() == nil && isStreamFault(err) {
				reason = connectionLost(err)
			}
		case <-time.After(50 * time.Millisecond):
		}
		if reason == nil {
			reason = fmt.Errorf("the server exited with %s", s.proc.exitReason())
		}
	}
	s.endErr = reason
	close(s.done)
}

func connectionLost(err error) error {
	switch {
	case err == nil:
		return errors.New("the server closed the connection")
	case isJSONSyntax(err):
		return fmt.Errorf("the server wrote something other than JSON-RPC to stdout (%v); servers must log to stderr", err)
	case isFrameTooLarge(err):
		return fmt.Errorf("the server sent a message larger than %d MiB, so Switchboard closed the connection", MaxMessageBytes>>20)
	default:
		return fmt.Errorf("connection lost: %w", err)
	}
}

// isStreamFault reports whether err is the server's fault on the stream
// itself: bytes that are not JSON-RPC, or one message past the limit.
func isStreamFault(err error) bool { return isJSONSyntax(err) || isFrameTooLarge(err) }

// ended reports whether the session ended on its own.
func (s *session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop closes the session for reason (nil: a plain disconnect) and, for
// stdio, ends the process tree. It returns within about two grace periods
// for stdio and a second for remote servers (a slow DELETE finishes in the
// background). Safe to call twice.
func (s *session) stop(reason error) {
	s.stopOnce.Do(func() {
		if reason == nil {
			reason = errors.New("the server was disconnected")
		}
		s.cancel(&stoppedError{reason})
		closed := make(chan struct{})
		go func() {
			_ = s.cs.Close()
			close(closed)
		}()
		if s.proc != nil {
			s.proc.stop()
			s.ring.AppendLevel(logbuf.LevelInfo, fmt.Sprintf("%sstopped (%v): %s", markerPrefix, reason, s.proc.exitReason()))
		}
		select {
		case <-closed:
		case <-time.After(time.Second):
		}
		s.rec.closeIdle()
	})
}

// ping checks the server answers. Under 2026-07-28 ping is no longer part of
// the protocol (and the SDK's KeepAlive does not run): any JSON-RPC answer,
// even "method not found", proves the server is alive.
func (s *session) ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	err := s.cs.Ping(ctx, nil)
	var rpcErr *jsonrpc.Error
	if err == nil || errors.As(err, &rpcErr) {
		return nil
	}
	if ctx.Err() != nil && s.ctx.Err() == nil {
		return fmt.Errorf("no answer to a ping within %s", timeout)
	}
	return err
}

var progressSeq atomic.Uint64

// watchProgress registers f for the progress notifications of one request
// and returns the token to send with it and a function to unregister.
func (s *session) watchProgress(f func(*mcp.ProgressNotificationParams)) (string, func()) {
	token := fmt.Sprintf("switchboard-%d", progressSeq.Add(1))
	s.progMu.Lock()
	s.progress[token] = f
	s.progMu.Unlock()
	return token, func() {
		s.progMu.Lock()
		delete(s.progress, token)
		s.progMu.Unlock()
	}
}

func (s *session) onProgress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token := fmt.Sprint(p.ProgressToken)
	s.progMu.Lock()
	f := s.progress[token]
	s.progMu.Unlock()
	if f != nil {
		f(p)
	}
}

// lastStderr returns up to n of the server's own stderr lines after seq,
// leaving out Switchboard's markers.
func lastStderr(ring *logbuf.Ring, seq uint64, n int) []string {
	lines := ring.Lines(seq, 0)
	var out []string
	for _, l := range slices.Backward(lines) {
		if len(out) == n {
			break
		}
		if !strings.HasPrefix(l.Text, markerPrefix) {
			out = append(out, l.Text)
		}
	}
	slices.Reverse(out)
	return out
}

// stderrHint picks the stderr line that best explains a failure, with
// the likely fix when one is known: the first line naming a specific
// cause (npm's "404 Not Found", "ENOTFOUND"; npm prints the most specific
// first), else the last line that looks like an error (a traceback's last
// line is its message), else the last line. npm's noise is never picked:
// "npm warn ...", "A complete log of this run can be found in ...", and
// its bare "code E404" / "errno" lines when a better one follows.
func stderrHint(lines []string) string {
	best, bestScore := "", 0
	for _, l := range lines {
		score := hintScore(l)
		// Specific causes: the first wins; error lines: the last.
		if score > bestScore || score == 2 && bestScore == 2 || score == 1 && bestScore == 1 {
			best, bestScore = l, score
		}
	}
	if best == "" {
		return ""
	}
	best = strings.TrimSpace(best)
	if len(best) > 240 {
		best = best[:240] + "…"
	}
	if a := stderrAdvice(best); a != "" {
		best += " (" + a + ")"
	}
	return best
}

// npmNoise matches npm's lines that never explain a failure.
var npmNoise = regexp.MustCompile(`(?i)^\s*(npm (warn|notice|verb|info)\b|(npm (error|err!)\s+)?a complete log of this run can be found in)`)

// npmPrefix is the prefix of npm's error lines.
var npmPrefix = regexp.MustCompile(`(?i)^\s*npm (error|err!)`)

// npmBare matches npm's lines that only name an error code ("npm error
// code E404", "npm error errno ENOTFOUND", "npm error syscall ...").
var npmBare = regexp.MustCompile(`(?i)^\s*npm (error|err!)\s+(code|errno|syscall)\s`)

// specificCause matches a line that names a cause precisely.
var specificCause = regexp.MustCompile(`\bE404\b|\b404 Not Found\b|is not in this registry|\bENOTFOUND\b|\bEAI_AGAIN\b|\bECONNREFUSED\b|\bETIMEDOUT\b|\bECONNRESET\b|\bENOENT\b|\bEACCES\b|command not found|No such file or directory|ModuleNotFoundError|Cannot find module`)

// looksLikeError matches a line that reports an error in words.
var looksLikeError = regexp.MustCompile(`\bERR!|\bError:|\berror:|\bError\b|\bFATAL\b|\bfatal\b`)

// hintScore ranks a stderr line as the headline of a failure: 0 noise or
// blank, 1 an ordinary line, 2 an error, 3 a specific cause.
func hintScore(l string) int {
	switch {
	case npmNoise.MatchString(l),
		// Blank, or npm's "npm error 404" spacer lines.
		len(strings.Fields(npmPrefix.ReplaceAllString(l, ""))) <= 1 && npmPrefix.MatchString(l),
		strings.TrimSpace(l) == "":
		return 0
	case npmBare.MatchString(l):
		return 1
	case specificCause.MatchString(l):
		return 3
	case looksLikeError.MatchString(l) || logbuf.GuessLevel(l) == logbuf.LevelError:
		return 2
	default:
		return 1
	}
}

// stderrAdvice is the likely fix for the cause a stderr line names, or "".
func stderrAdvice(l string) string {
	switch {
	case missingPackage.MatchString(l):
		return "check the package name in the server's arguments"
	case offline.MatchString(l):
		return "the server may need network access: npx and uvx download it on first use"
	}
	return ""
}

var (
	missingPackage = regexp.MustCompile(`\bE404\b|\b404 Not Found\b|is not in this registry`)
	offline        = regexp.MustCompile(`\bENOTFOUND\b|\bEAI_AGAIN\b|\bETIMEDOUT\b|\bECONNRESET\b|\bECONNREFUSED\b`)
)

// secretish matches flag names whose value should not reach a log file.
var secretish = regexp.MustCompile(`(?i)(key|token|secret|passw|auth|credential|dsn|[-_]pat($|=))`)

// redactArgs hides the values of arguments that look like secrets
// ("--api-key xyz", "--token=xyz") and the passwords of URLs
// ("postgresql://u:***@host/db") in the command line written to the log.
func redactArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		out[i] = serverconf.RedactURLPasswords(a)
	}
	for i, a := range out {
		if !strings.HasPrefix(a, "-") || !secretish.MatchString(a) {
			continue
		}
		if name, _, ok := strings.Cut(a, "="); ok {
			out[i] = name + "=***"
		} else if i+1 < len(out) && !strings.HasPrefix(out[i+1], "-") {
			out[i+1] = "***"
		}
	}
	return out
}

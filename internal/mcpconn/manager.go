package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// An Emitter sends an event to the UI. The app passes one backed by the
// Wails runtime; tests pass a recorder.
type Emitter interface {
	Emit(name string, payload any)
}

// Secrets resolves serverconf.Value.SecretRef to the secret's value.
type Secrets interface {
	Get(key string) (string, error)
}

// Options configures a Manager. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// Logger receives the manager's own log; nil discards it.
	Logger *slog.Logger
	// Emitter receives EventServerStatus and EventServerTools; nil drops them.
	Emitter Emitter
	// LogDir holds one rotated stderr log per stdio server, <id>.log; empty
	// keeps stderr in memory only.
	LogDir string
	// Secrets resolves env and header values kept in the keyring; nil makes
	// a server that needs one fail with ErrSecret.
	Secrets Secrets

	// PingInterval is the time between health pings; zero means 30 s,
	// negative disables pings (a dead process is still noticed at once).
	PingInterval time.Duration
	// PingTimeout bounds one ping; zero means 10 s.
	PingTimeout time.Duration
	// PingFailures is how many pings in a row may fail before the session is
	// dropped and reconnected; zero means 2. The first failure marks the
	// server degraded.
	PingFailures int
	// ConnectTimeout bounds connecting and listing tools; zero means 30 s.
	ConnectTimeout time.Duration
	// MaxReconnects is how many times in a row a lost session is
	// re-established before the server is marked failed; zero means 5,
	// negative means never reconnect. A session that stayed up for
	// StableAfter resets the count.
	MaxReconnects int
	// BackoffBase and BackoffMax shape the reconnect delay: BackoffBase
	// doubling per attempt up to BackoffMax, with jitter. Zero means 500 ms
	// and 30 s.
	BackoffBase, BackoffMax time.Duration
	// StableAfter is how long a session must last for its loss to count as a
	// fresh failure; zero means 1 minute.
	StableAfter time.Duration
	// StopGrace is how long a stdio server gets to exit after its stdin is
	// closed, and again after SIGTERM; zero means 300 ms.
	StopGrace time.Duration

	// ResultLimit is the number of characters of a tool result a model sees
	// (Result.ForModel); zero means DefaultResultLimit.
	ResultLimit int

	// MaxTools is how many of one server's tools Switchboard uses: the
	// first MaxTools it lists, the rest left out with a note in the
	// server's log. Zero means DefaultMaxTools.
	MaxTools int
	// MaxCallDuration bounds a tool call however much progress it reports
	// (progress only restarts the server's idle timeout); zero means
	// DefaultMaxCallDuration. A server whose Config.Timeout() is longer
	// gets that instead.
	MaxCallDuration time.Duration

	// ShellPATH returns the PATH used to find stdio commands and given to
	// them; it is called once. Nil means the PATH of the user's login shell
	// ("$SHELL -l -i -c", 3 s timeout) followed by the app's own entries,
	// or just the app's PATH if the shell fails (and on Windows).
	ShellPATH func() string

	// Wrap, when set, rewrites every child command (stdio servers, the
	// login shell) before it starts. The app passes spawn's trampoline, so
	// that children inherit none of the window's stray descriptors.
	Wrap func(*exec.Cmd)

	// Installed rewrites the config of a server Switchboard installed
	// (Config.Install set) into the command that runs it: its folder in
	// place of ${install}, the Node it picked in place of "node"
	// (installer.Prepare). Nil runs such a config as it is.
	Installed func(ctx context.Context, cfg serverconf.Config) (serverconf.Config, error)

	// AuthHandler returns the OAuth handler for a streamable-HTTP server;
	// nil (or a nil result) means none: a 401 then puts the server in
	// StateNeedsAuth.
	AuthHandler func(cfg serverconf.Config) auth.OAuthHandler

	// ProtocolHints maps server IDs to the MCP version each spoke last time,
	// as persisted from OnProtocol. A server known to speak a pre-2026
	// version is sent "initialize" at once instead of first probing with
	// "server/discover", which it would reject after a round trip. A hint
	// holds for the configuration the server is added with; reached
	// another way (another serverconf.Fingerprint), it is probed again.
	ProtocolHints map[string]string
	// OnProtocol is called (from a connecting goroutine, no lock held) when
	// a server negotiates a version other than its hint, so the caller can
	// persist it. Nil means nobody persists hints; they still live in memory.
	OnProtocol func(serverID, version string)

	// Elicit answers a server's elicitation/create (the user fills in the
	// form or opens the URL). Nil means Switchboard does not advertise
	// elicitation, and the SDK refuses such requests.
	Elicit func(ctx context.Context, serverID string, req *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Sample answers a server's sampling/createMessage (the user approves
	// a completion). Nil means Switchboard does not advertise sampling.
	// Sampling is advertised with tools (sampling.tools): Sample sends a
	// request's tools to the model and returns its calls for the server to
	// run.
	Sample func(ctx context.Context, serverID string, req *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	// ElicitComplete hears a server say that the step of a URL-mode
	// elicitation is done (notifications/elicitation/complete); it is
	// called on the session's read loop, so it must not block. Nil
	// ignores such notifications.
	ElicitComplete func(serverID, elicitationID string)
	// URLSteps puts to the user the pages a tool call needs them to visit
	// first (a URL-elicitation-required error, -32042) and returns once
	// every step is done, or an error saying why not. On nil the call is
	// retried once; otherwise, and when URLSteps is nil, the call's result
	// tells the model the user must complete the steps (see urlsteps.go).
	URLSteps func(ctx context.Context, serverID string, steps []*mcp.ElicitParams) error

	// ClientName and ClientVersion identify Switchboard to servers; zero
	// means "switchboard" and "dev".
	ClientName, ClientVersion string

	// AppViews advertises the MCP Apps extension (UIExtension, views of
	// type UIMIMEType) to every server, which may then declare views for
	// its tools. Set it only where a view can be shown: the window sets
	// it, the command line only for its views commands. False (the
	// default) advertises nothing, and servers send no views.
	AppViews bool
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(v *time.Duration, x time.Duration) {
		if *v == 0 {
			*v = x
		}
	}
	def(&d.PingInterval, 30*time.Second)
	def(&d.PingTimeout, 10*time.Second)
	def(&d.ConnectTimeout, 30*time.Second)
	def(&d.BackoffBase, 500*time.Millisecond)
	def(&d.BackoffMax, 30*time.Second)
	def(&d.StableAfter, time.Minute)
	def(&d.StopGrace, 300*time.Millisecond)
	if d.PingFailures <= 0 {
		d.PingFailures = 2
	}
	if d.MaxReconnects == 0 {
		d.MaxReconnects = 5
	}
	if d.ResultLimit <= 0 {
		d.ResultLimit = DefaultResultLimit
	}
	if d.MaxTools <= 0 {
		d.MaxTools = DefaultMaxTools
	}
	if d.MaxCallDuration <= 0 {
		d.MaxCallDuration = DefaultMaxCallDuration
	}
	if d.ClientName == "" {
		d.ClientName = "switchboard"
	}
	if d.ClientVersion == "" {
		d.ClientVersion = "dev"
	}
	return d
}

// A Manager supervises one MCP session per configured server: it connects
// enabled servers in the background, watches their health, reconnects with
// backoff, captures stdio servers' stderr, keeps the registry of tools
// exposed to models, and routes tool calls.
type Manager struct {
	opts Options
	log  *slog.Logger

	pathOnce  sync.Once
	shellPATH string

	// testTransport, set by tests, replaces the real transport of every
	// server.
	testTransport func(cfg serverconf.Config) (mcp.Transport, error)
	// minListTTL is the least time a listing is kept, whatever its ttlMs
	// says (defaultMinListTTL; tests lower it).
	minListTTL time.Duration

	// regMu serializes registry rebuilds (taken before mu and server.mu).
	regMu sync.Mutex

	mu       sync.Mutex
	ctx      context.Context // from Start; nil before
	cancel   context.CancelFunc
	closed   bool
	servers  map[string]*server
	order    []string                // server IDs in configuration order
	hints    map[string]protocolHint // by server ID
	registry []Tool                  // tools of connected servers
	byName   map[string]toolKey      // exposed name -> server and tool
	regTools map[string][]Tool       // server ID -> its part of registry

	res resourceState // subscriptions and notifications (resources.go)
	ui  uiCache       // the views read, per server session (appui.go)
}

// NewManager returns a Manager; call Start to connect servers.
func NewManager(opts *Options) *Manager {
	o := opts.withDefaults()
	hints := make(map[string]protocolHint, len(o.ProtocolHints))
	for k, v := range o.ProtocolHints {
		hints[k] = protocolHint{version: v} // bound by Add
	}
	return &Manager{
		opts:       o,
		log:        o.Logger,
		servers:    make(map[string]*server),
		hints:      hints,
		byName:     make(map[string]toolKey),
		regTools:   make(map[string][]Tool),
		minListTTL: defaultMinListTTL,
	}
}

// Start connects every enabled server, in parallel and in the background,
// and returns at once. Cancelling ctx stops supervising; Close is still
// needed to release the servers' logs.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if m.ctx != nil {
		m.mu.Unlock()
		return nil
	}
	m.ctx, m.cancel = context.WithCancel(ctx)
	var enabled []*server
	for _, id := range m.order {
		if s := m.servers[id]; s.config().Enabled {
			enabled = append(enabled, s)
		}
	}
	base := m.ctx
	m.mu.Unlock()
	for _, s := range enabled {
		s.startRun(base)
	}
	return nil
}

// Close disconnects every server, in parallel, and releases their logs.
// It emits no events. It is safe to call twice.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := m.serversLocked()
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			s.markGone(ErrClosed)
			s.stopRun()
			s.setStatusQuiet(func(st *Status) { *st = Status{ServerID: s.id, State: StateDisconnected} })
			s.stderr.Close()
		})
	}
	wg.Wait()
	return nil
}

func (m *Manager) serversLocked() []*server {
	out := make([]*server, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.servers[id])
	}
	return out
}

// SetServers makes cfgs the configured servers: new ones are added (and
// connected if enabled and started), missing ones removed, changed ones
// updated. It does not wait for any connection.
func (m *Manager) SetServers(cfgs []serverconf.Config) error {
	seen := map[string]bool{}
	for _, c := range cfgs {
		if c.ID == "" {
			return errors.New("server with an empty ID")
		}
		if seen[c.ID] {
			return fmt.Errorf("%w: %s appears twice", ErrServerExists, c.ID)
		}
		seen[c.ID] = true
	}
	m.mu.Lock()
	var gone []string
	for _, id := range m.order {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	m.mu.Unlock()
	var errs []error
	for _, id := range gone {
		errs = append(errs, m.Remove(id))
	}
	for _, c := range cfgs {
		err := m.Add(c)
		if errors.Is(err, ErrServerExists) {
			err = m.Update(c)
		}
		errs = append(errs, err)
	}
	m.mu.Lock()
	ordered := make([]string, 0, len(cfgs))
	for _, c := range cfgs {
		if _, ok := m.servers[c.ID]; ok {
			ordered = append(ordered, c.ID)
		}
	}
	m.order = ordered
	m.mu.Unlock()
	return errors.Join(errs...)
}

// Add configures a new server and, if it is enabled and the Manager is
// started, connects it in the background.
func (m *Manager) Add(cfg serverconf.Config) error {
	if cfg.ID == "" {
		return errors.New("server with an empty ID")
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if _, ok := m.servers[cfg.ID]; ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrServerExists, cfg.ID)
	}
	s := &server{m: m, id: cfg.ID, cfg: cloneConfig(cfg), status: Status{ServerID: cfg.ID, State: StateDisconnected}}
	s.published = s.status
	s.stderr = m.openStderr(cfg.ID)
	if h, ok := m.hints[cfg.ID]; ok && h.identity == "" {
		h.identity = serverconf.Fingerprint(&cfg)
		m.hints[cfg.ID] = h
	}
	m.servers[cfg.ID] = s
	m.order = append(m.order, cfg.ID)
	base := m.ctx
	m.mu.Unlock()
	if base != nil && cfg.Enabled {
		s.startRun(base)
	}
	return nil
}

// openStderr opens the server's stderr ring, backed by LogDir/<id>.log when
// LogDir is set (falling back to memory if the file cannot be opened).
func (m *Manager) openStderr(id string) *logbuf.Ring {
	ropts := &logbuf.Options{MaxLines: 2000, MaxBytes: 512 << 10}
	if m.opts.LogDir == "" {
		return logbuf.New(ropts)
	}
	r, err := logbuf.Open(LogFile(m.opts.LogDir, id), ropts, &logbuf.FileOptions{MaxBytes: 5 << 20, Keep: 2})
	if err != nil {
		m.log.Warn("stderr log file unavailable; keeping stderr in memory", "server", id, "error", err)
		return logbuf.New(ropts)
	}
	return r
}

// Update applies a changed configuration. A change to how the server is
// reached (transport, command, env, URL, headers, auth) reconnects it (or
// connects it, if it is enabled and not running, say after a failure);
// a change to its name, timeout or disabled tools applies in place;
// enabling or disabling it connects or disconnects it.
func (m *Manager) Update(cfg serverconf.Config) error {
	s, base, err := m.lookupServer(cfg.ID)
	if err != nil {
		return err
	}
	cfg = cloneConfig(cfg)
	s.mu.Lock()
	old := s.cfg
	s.cfg = cfg
	running := s.runningLocked()
	s.mu.Unlock()

	reach := !sameReach(old, cfg)
	switch {
	case !cfg.Enabled && old.Enabled && running:
		m.disconnect(s, true)
	case running && reach:
		s.stopRun()
		if base != nil {
			s.startRun(base)
		}
	case cfg.Enabled && (!old.Enabled || reach) && !running && base != nil:
		// Enabled, or its settings fixed after a failure: connect.
		s.startRun(base)
	}
	if old.Name != cfg.Name || !slices.Equal(old.DisabledTools, cfg.DisabledTools) {
		m.rebuildRegistry()
		s.emitTools()
	}
	if old.LogLevel != cfg.LogLevel && !reach {
		s.applyLogLevel(cfg.LogLevel)
	}
	if !slices.Equal(old.Roots, cfg.Roots) && !reach {
		s.applyRoots(cfg.Roots)
	}
	return nil
}

// sameReach reports whether a and b reach the server the same way.
func sameReach(a, b serverconf.Config) bool {
	a.Name, b.Name = "", ""
	a.Enabled, b.Enabled = false, false
	a.CallTimeout, b.CallTimeout = 0, 0
	a.DisabledTools, b.DisabledTools = nil, nil
	a.LogLevel, b.LogLevel = "", "" // applied to the live session
	if (len(a.Roots) > 0) == (len(b.Roots) > 0) {
		a.Roots, b.Roots = nil, nil // sent as roots/list_changed
	}
	if a.Install != nil && b.Install != nil { // a pin changes nothing that runs
		ai, bi := *a.Install, *b.Install
		ai.Pinned, bi.Pinned = false, false
		a.Install, b.Install = &ai, &bi
	}
	return reflect.DeepEqual(a, b)
}

func cloneConfig(c serverconf.Config) serverconf.Config {
	c.Args = slices.Clone(c.Args)
	c.DisabledTools = slices.Clone(c.DisabledTools)
	c.Roots = slices.Clone(c.Roots)
	c.Tools = serverconf.CloneTools(c.Tools)
	if c.Env != nil {
		env := make(map[string]serverconf.Value, len(c.Env))
		for k, v := range c.Env {
			env[k] = v
		}
		c.Env = env
	}
	if c.Headers != nil {
		h := make(map[string]serverconf.Value, len(c.Headers))
		for k, v := range c.Headers {
			h[k] = v
		}
		c.Headers = h
	}
	if c.Auth != nil {
		a := *c.Auth
		a.Scopes = slices.Clone(a.Scopes)
		c.Auth = &a
	}
	return c
}

// Remove disconnects a server and forgets it; its log file stays on disk.
func (m *Manager) Remove(id string) error {
	m.mu.Lock()
	s, ok := m.servers[id]
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknownServer, id)
	}
	delete(m.servers, id)
	m.order = slices.DeleteFunc(m.order, func(x string) bool { return x == id })
	m.mu.Unlock()
	s.markGone(fmt.Errorf("%w: %s was removed", ErrUnknownServer, id))
	s.stopRun()
	s.detachSession(nil)
	s.stderr.Close()
	m.forgetSubscriptions(id)
	m.ui.drop(id)
	return nil
}

func (m *Manager) lookupServer(id string) (*server, context.Context, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, nil, ErrClosed
	}
	s, ok := m.servers[id]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnknownServer, id)
	}
	return s, m.ctx, nil
}

// Connect connects a server in the background, whether or not it is
// enabled. It does nothing if the server is already connecting or connected,
// and retries a failed one.
func (m *Manager) Connect(id string) error {
	s, base, err := m.lookupServer(id)
	if err != nil {
		return err
	}
	if base == nil {
		return ErrNotStarted
	}
	s.startRun(base)
	return nil
}

// Disconnect closes a server's session and stops reconnecting it; it
// returns once the server's process has exited.
func (m *Manager) Disconnect(id string) error {
	s, _, err := m.lookupServer(id)
	if err != nil {
		return err
	}
	m.disconnect(s, true)
	return nil
}

func (m *Manager) disconnect(s *server, emit bool) {
	s.stopRun()
	s.detachSession(nil)
	set := s.setStatus
	if !emit {
		set = s.setStatusQuiet
	}
	set(func(st *Status) { *st = Status{ServerID: s.id, State: StateDisconnected} })
}

// Restart disconnects a server and connects it again.
func (m *Manager) Restart(id string) error {
	s, base, err := m.lookupServer(id)
	if err != nil {
		return err
	}
	if base == nil {
		return ErrNotStarted
	}
	s.stopRun()
	s.detachSession(nil)
	s.startRun(base)
	return nil
}

// Status returns a server's current status.
func (m *Manager) Status(id string) (Status, error) {
	m.mu.Lock()
	s, ok := m.servers[id]
	m.mu.Unlock()
	if !ok {
		return Status{}, fmt.Errorf("%w: %s", ErrUnknownServer, id)
	}
	return s.statusSnapshot(), nil
}

// Statuses returns every server's status, in configuration order.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	servers := m.serversLocked()
	m.mu.Unlock()
	out := make([]Status, len(servers))
	for i, s := range servers {
		out[i] = s.statusSnapshot()
	}
	return out
}

// Stderr returns a server's stderr ring (lines from its previous runs
// included) for the live log view; nil if the server is unknown.
func (m *Manager) Stderr(id string) *logbuf.Ring {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.servers[id]; ok {
		return s.stderr
	}
	return nil
}

// Note writes a line of Switchboard's own into a server's log, where the
// user looks for what the server did (a request of the server's that
// Switchboard declined, say); nothing happens if the server is unknown.
func (m *Manager) Note(id, text string) {
	if r := m.Stderr(id); r != nil {
		r.AppendLevel(logbuf.LevelWarn, markerPrefix+text)
	}
}

// pathList is the PATH for stdio servers, captured once.
// PathList is the PATH stdio servers are looked up in and given: the
// user's login shell's (see Options.ShellPATH), captured once.
func (m *Manager) PathList() string { return m.pathList() }

func (m *Manager) pathList() string {
	m.pathOnce.Do(func() {
		if m.opts.ShellPATH != nil {
			m.shellPATH = m.opts.ShellPATH()
			return
		}
		start := time.Now()
		m.shellPATH = loginShellPATH(3*time.Second, m.opts.Wrap)
		m.log.Info("captured login shell PATH", "path", m.shellPATH, "took", time.Since(start))
	})
	return m.shellPATH
}

func (m *Manager) emit(name string, payload any) {
	if m.opts.Emitter != nil {
		m.opts.Emitter.Emit(name, payload)
	}
}

// A protocolHint is the MCP version a server spoke, and the identity
// (serverconf.Fingerprint: the program or URL, as grants are tied to) of
// the configuration it spoke it under. It lives in
// memory, and in whatever the caller persists through OnProtocol.
type protocolHint struct {
	version string
	// identity is the configuration's serverconf.Fingerprint. Empty (a
	// hint from Options.ProtocolHints whose server is not added yet)
	// matches any; Add binds it to the configuration added.
	identity string
}

// hint is the version cfg's server spoke last, if it was reached the same
// way; "" if unknown.
func (m *Manager) hint(cfg serverconf.Config) string {
	m.mu.Lock()
	h, ok := m.hints[cfg.ID]
	m.mu.Unlock()
	if !ok || h.identity != "" && h.identity != serverconf.Fingerprint(&cfg) {
		return ""
	}
	return h.version
}

// setHint records the version cfg's server spoke and tells OnProtocol if
// it is news.
func (m *Manager) setHint(cfg serverconf.Config, version string) {
	m.mu.Lock()
	old := m.hints[cfg.ID]
	m.hints[cfg.ID] = protocolHint{version: version, identity: serverconf.Fingerprint(&cfg)}
	m.mu.Unlock()
	if old.version != version && m.opts.OnProtocol != nil {
		m.opts.OnProtocol(cfg.ID, version)
	}
}

func (m *Manager) clearHint(id string) {
	m.mu.Lock()
	delete(m.hints, id)
	m.mu.Unlock()
}

// elicitHandler adapts Options.Elicit for the session of server id; nil
// when elicitation is not offered.
func (m *Manager) elicitHandler(id string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if m.opts.Elicit == nil {
		return nil
	}
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return m.opts.Elicit(ctx, id, req.Params)
	}
}

// elicitCompleteHandler adapts Options.ElicitComplete for the session of
// server id; nil when nobody listens.
func (m *Manager) elicitCompleteHandler(id string) func(context.Context, *mcp.ElicitationCompleteNotificationRequest) {
	if m.opts.ElicitComplete == nil {
		return nil
	}
	return func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
		if req.Params != nil && req.Params.ElicitationID != "" {
			m.opts.ElicitComplete(id, req.Params.ElicitationID)
		}
	}
}

// sampleHandler adapts Options.Sample for the session of server id; nil
// when sampling is not offered.
func (m *Manager) sampleHandler(id string) func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	if m.opts.Sample == nil {
		return nil
	}
	return func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		return m.opts.Sample(ctx, id, req.Params)
	}
}

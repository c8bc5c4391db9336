// Package mcpserve is Switchboard's own MCP server: other apps (Claude
// Desktop, VS Code, Cursor, coding agents), registered by the user in
// package clients, read and continue the conversations the user shared
// with them, and nothing else. It is built on the official go-sdk's server
// side (stdio and streamable HTTP); no transport is written here.
//
// Design notes:
//   - One mcp.Server per session, made for the client that opened it, so
//     the identity of every request is known without trusting anything the
//     request says, and update notifications go to that session only.
//   - Nothing is cached that could outlive a grant: every request looks up
//     the client again (revoked or removed: refused, and its sessions end)
//     and every conversation it names is checked against the grants in the
//     database. A refusal for a conversation says why in the same words
//     whether it is missing or not shared, and never holds a title or text.
//   - Every request is audited (Registry.Record) as allowed or denied with
//     why. Floods are refused by a per-client token bucket, and audited as
//     one summary a minute rather than a row each; bad tokens likewise.
//   - A `switchboard mcp serve` process is not the window's: it learns of
//     revocations, grant changes and new messages by polling the database
//     (PRAGMA data_version first, so an idle poll costs one query). The
//     window's own endpoint polls the same way, which also covers the
//     CLI's changes, and is told at once of its own (Disconnect, Changed).
//   - Everything that comes in is bounded: the text of send_message, page
//     sizes, search results, subscriptions and HTTP sessions per client,
//     request rate, the turns a client runs at once and their time.
package mcpserve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/store"
)

// EventActivity carries a clients.AuditEntry: a client's request was
// audited (the window's "Connected apps" view refreshes its list).
const EventActivity = "clients:activity"

// Transports, as the audit names them.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Bounds of what a client may ask for.
const (
	// MaxMessageBytes is the longest text send_message takes.
	MaxMessageBytes = 64 << 10
	// MaxPage is the most items one page of list_conversations,
	// read_conversation or resources/list holds; DefaultPage when a client
	// asks for none in particular.
	MaxPage     = 100
	DefaultPage = 50
	// MaxSearchResults is the most hits search_messages returns.
	MaxSearchResults = 50
	// MaxQueryBytes is the longest search query.
	MaxQueryBytes = 1000
	// MaxSubscriptions is the most conversations one session follows.
	MaxSubscriptions = 64
	// MaxSessions is the most HTTP sessions one client has open at once.
	MaxSessions = 8
	// MaxTurns is the most send_message turns one client runs at once.
	MaxTurns = 2
	// maxPageBytes bounds the text of one page of a conversation; a
	// message's text is cut at maxMessageText characters.
	maxPageBytes   = 512 << 10
	maxMessageText = 32_000
)

// Defaults of Options.
const (
	DefaultTurnTimeout = 5 * time.Minute
	DefaultPoll        = 2 * time.Second
	DefaultRate        = 20 // requests per second per client
	DefaultBurst       = 60
)

// ErrDisconnected is returned by ServeStdio when Switchboard ended the
// session: the client was revoked or removed.
var ErrDisconnected = errors.New("Switchboard ended this app's session")

// Options configure a Server. Registry and Store are required.
type Options struct {
	Registry *clients.Registry
	Store    *store.Store
	// Chat runs send_message turns; nil: send_message says it is
	// unavailable.
	Chat *chat.Engine
	// Transport is "stdio" or "http", for the audit; empty means by how
	// the session came (ServeStdio or Handler).
	Transport string
	// Emitter receives EventActivity after each audited request; nil
	// drops them.
	Emitter interface {
		Emit(name string, payload any)
	}
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// TurnTimeout bounds a send_message turn; zero means
	// DefaultTurnTimeout.
	TurnTimeout time.Duration
	// Poll is how often open sessions re-read the database for other
	// processes' changes (revocation, grants, conversation updates); zero
	// means DefaultPoll.
	Poll time.Duration
	// Rate and Burst are each client's token bucket: requests per second
	// and the most at once; zero means DefaultRate and DefaultBurst.
	Rate  float64
	Burst int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// A Server serves clients their shared conversations over MCP. It starts
// no goroutine until a session opens (ServeStdio, Handler's first
// request); Close ends every session and the poll.
type Server struct {
	opts    Options
	log     *slog.Logger
	schemas *mcp.SchemaCache
	// proto answers the SDK's protocol-version check of HTTP requests
	// that belong to no new session; it never serves one.
	proto *mcp.Server

	mu       sync.Mutex
	sessions map[*session]struct{}
	buckets  map[string]*bucket // by client ID
	authFail throttle           // audit of bad or missing tokens
	polling  bool
	closed   bool
	stop     chan struct{}
	pollDone chan struct{}
}

// New returns a Server; see Options.
func New(opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.TurnTimeout = cmp.Or(o.TurnTimeout, DefaultTurnTimeout)
	o.Poll = cmp.Or(o.Poll, DefaultPoll)
	o.Rate = cmp.Or(o.Rate, DefaultRate)
	o.Burst = cmp.Or(o.Burst, DefaultBurst)
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: o, log: log, schemas: mcp.NewSchemaCache(), sessions: map[*session]struct{}{},
		buckets: map[string]*bucket{}, stop: make(chan struct{}), pollDone: make(chan struct{})}
	s.proto = mcp.NewServer(implementation(), &mcp.ServerOptions{Logger: discard, SupportedProtocolVersions: legacyVersions()})
	return s
}

var discard = slog.New(slog.DiscardHandler)

func implementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: buildinfo.Version}
}

const instructions = `Switchboard is the user's chat app. You see only the conversations the user shared with you: list_conversations lists them, read_conversation reads one (newest messages first page), search_messages searches them, and send_message continues one you may write to (or starts one, if the user lets you). Conversations are also resources (switchboard://conversations/ID) you can subscribe to.`

// A session is one client's open MCP session.
type session struct {
	client    clients.Client
	transport string
	srv       *mcp.Server
	ctx       context.Context // cancelled when Switchboard ends the session
	cancel    context.CancelFunc

	mu   sync.Mutex
	ss   *mcp.ServerSession
	why  string            // why Switchboard ended it; empty while open
	subs map[string]string // subscribed conversation ID -> its version when last seen
}

func (ss *session) serverSession() *mcp.ServerSession {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.ss
}

// open registers a new session of client cl, refusing it past
// MaxSessions over HTTP, and starts the poll with the first one.
func (s *Server) open(cl clients.Client, transport string) (*session, error) {
	ctx, cancel := context.WithCancel(context.Background())
	sess := &session{client: cl, transport: transport, ctx: ctx, cancel: cancel, subs: map[string]string{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cancel()
		return nil, errors.New("Switchboard's MCP server is shutting down")
	}
	if transport == TransportHTTP {
		n := 0
		for o := range s.sessions {
			if o.client.ID == cl.ID && o.transport == TransportHTTP {
				n++
			}
		}
		if n >= MaxSessions {
			cancel()
			return nil, fmt.Errorf("this app already has %d sessions open, the most Switchboard allows; close one first", MaxSessions)
		}
	}
	sess.srv = s.newMCPServer(sess)
	s.sessions[sess] = struct{}{}
	if !s.polling {
		s.polling = true
		go s.poll()
	}
	return sess, nil
}

// drop forgets sess once its connection ended.
func (s *Server) drop(sess *session) {
	sess.cancel()
	s.mu.Lock()
	delete(s.sessions, sess)
	s.mu.Unlock()
}

// bind notes the SDK's session of sess and drops sess when it ends.
func (s *Server) bind(sess *session, ss *mcp.ServerSession) {
	sess.mu.Lock()
	if sess.ss != nil {
		sess.mu.Unlock()
		return
	}
	sess.ss = ss
	sess.mu.Unlock()
	go func() {
		_ = ss.Wait()
		s.drop(sess)
	}()
}

// end ends sess now, saying why: handlers running for it are cancelled
// and its connection is closed. It does not wait for the close.
func (s *Server) end(sess *session, why string) {
	s.endAfter(sess, why, 0)
}

// endAfter is end that leaves the connection open for delay, so that the
// answer of the request that found out reaches the client first; from now
// on every request is refused.
func (s *Server) endAfter(sess *session, why string, delay time.Duration) {
	sess.mu.Lock()
	if sess.why == "" {
		sess.why = why
	}
	ss := sess.ss
	sess.mu.Unlock()
	sess.cancel()
	if ss != nil {
		// Close waits for running handlers, which were just cancelled.
		time.AfterFunc(delay, func() { ss.Close() })
	}
}

// forClient returns the open sessions of clientID.
func (s *Server) forClient(clientID string) []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*session
	for sess := range s.sessions {
		if sess.client.ID == clientID {
			out = append(out, sess)
		}
	}
	return out
}

// Disconnect ends clientID's open sessions now (after a revoke or a
// remove): their running requests are cancelled, a stdio ServeStdio
// returns ErrDisconnected, an HTTP session is closed.
func (s *Server) Disconnect(clientID string) {
	s.disconnect(clientID, "access was revoked in Switchboard")
}

// TokenReplaced ends the client's open sessions, all opened with a token
// the user just replaced (Registry.Rotate).
func (s *Server) TokenReplaced(clientID string) {
	s.disconnect(clientID, tokenReplaced)
}

func (s *Server) disconnect(clientID, why string) {
	for _, sess := range s.forClient(clientID) {
		s.log.Info("ending a connected app's session", "client", sess.client.Name, "why", why)
		s.end(sess, why)
	}
}

// Changed tells the open sessions of clientID that its grants changed:
// subscriptions to conversations no longer shared are dropped and the
// client is told the list of resources changed.
func (s *Server) Changed(clientID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	live, err := s.opts.Registry.Live(ctx, clientID)
	if err != nil {
		s.log.Warn("reading a connected app's grants", "clientId", clientID, "err", err)
		live = nil // fail closed: no subscription survives
	}
	granted := map[string]bool{}
	for _, g := range live {
		granted[g.ConversationID] = true
	}
	for _, sess := range s.forClient(clientID) {
		sess.mu.Lock()
		for id := range sess.subs {
			if !granted[id] {
				delete(sess.subs, id)
			}
		}
		sess.mu.Unlock()
		s.addListResource(sess) // re-adding it sends resources/list_changed
	}
}

// Close ends every session and stops the poll; safe to call twice.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	polling := s.polling
	all := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		all = append(all, sess)
	}
	s.mu.Unlock()
	close(s.stop)
	for _, sess := range all {
		s.end(sess, "Switchboard's MCP server stopped")
	}
	if polling {
		<-s.pollDone
	}
	return nil
}

// authenticate checks token and audits a refusal.
func (s *Server) authenticate(ctx context.Context, token, transport string) (clients.Client, error) {
	cl, err := s.opts.Registry.Authenticate(ctx, token)
	if err != nil {
		reason := "no valid token: " + tokenProblem(token, err)
		s.auditAuthFailure(ctx, transport, reason)
		return clients.Client{}, err
	}
	return cl, nil
}

// tokenProblem says what is wrong with a refused token, never echoing it.
func tokenProblem(token string, err error) string {
	switch {
	case token == "":
		return "none was given"
	case errors.Is(err, clients.ErrBadToken):
		return "unknown, malformed or revoked"
	}
	return "it could not be checked"
}

// ServeStdio serves one client over in and out (the process's standard
// input and output under `switchboard mcp serve`) until the client closes
// them, ctx ends, or Switchboard ends the session (then it returns an
// error wrapping ErrDisconnected). token is the client's; a bad one is
// refused (an error wrapping clients.ErrBadToken) before anything is read.
func (s *Server) ServeStdio(ctx context.Context, token string, in io.Reader, out io.Writer) error {
	return s.Serve(ctx, token, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}, MaxLineLength: maxRequestBody})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Serve is ServeStdio over any transport (tests use in-memory ones).
func (s *Server) Serve(ctx context.Context, token string, t mcp.Transport) error {
	transport := cmp.Or(s.opts.Transport, TransportStdio)
	cl, err := s.authenticate(ctx, token, transport)
	if err != nil {
		return err
	}
	if !cl.RevokedAt.IsZero() {
		return clients.ErrBadToken
	}
	sess, err := s.open(cl, transport)
	if err != nil {
		return err
	}
	defer s.drop(sess)
	ss, err := sess.srv.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("starting the MCP session: %w", err)
	}
	s.bind(sess, ss)
	waited := make(chan error, 1)
	go func() { waited <- ss.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		ss.Close()
		<-waited
		return ctx.Err()
	case <-sess.ctx.Done():
		// endAfter closes the session once the answer that found it
		// ended is out (answerGrace); close it here only if that did not.
		select {
		case err = <-waited:
		case <-time.After(answerGrace + time.Second):
			ss.Close()
			err = <-waited
		}
	}
	sess.mu.Lock()
	why := sess.why
	sess.mu.Unlock()
	if why != "" {
		return fmt.Errorf("%w: %s", ErrDisconnected, why)
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

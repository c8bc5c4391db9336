package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clientconfig"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Clients returns the registry of connected apps (external MCP clients):
// their tokens, grants, allowed tools and audit.
func (s *Services) Clients() *clients.Registry { return s.clients }

// NewClientServer returns an MCP server for connected apps over these
// services' store, registry and chat engine (`switchboard mcp serve` runs
// one; the window's HTTP endpoint is another). Close it.
func (s *Services) NewClientServer(transport string) *mcpserve.Server {
	return mcpserve.New(&mcpserve.Options{Registry: s.clients, Store: s.store, Chat: s.Chat, Transport: transport,
		Emitter: s.emitter, Logger: s.log.With("component", "mcpserve")})
}

// An EndpointStatus is the state of the connected apps' HTTP endpoint.
type EndpointStatus struct {
	On   bool   `json:"on"`
	Port int    `json:"port"`
	URL  string `json:"url"`
	// Error says why the endpoint is off although it should be on.
	Error string `json:"error,omitempty"`
}

// endpointSetting is the endpoint's stored setting.
type endpointSetting struct {
	On   bool `json:"on"`
	Port int  `json:"port"`
}

const endpointKey = "clients.endpoint"

// An endpoint is the HTTP server of the connected apps' MCP endpoint.
type endpoint struct {
	mu     sync.Mutex
	srv    *http.Server
	mcp    *mcpserve.Server
	status EndpointStatus
}

// ClientEndpoint reports the connected apps' HTTP endpoint.
func (s *Services) ClientEndpoint() EndpointStatus {
	s.endpoint.mu.Lock()
	defer s.endpoint.mu.Unlock()
	return s.endpoint.status
}

// SetClientEndpoint turns the connected apps' HTTP endpoint on 127.0.0.1
// on or off and saves the choice; the window starts it again when it
// opens (Start). port 0 picks a free port, which is then saved, so the
// configs written for clients stay valid.
func (s *Services) SetClientEndpoint(ctx context.Context, on bool, port int) (EndpointStatus, error) {
	if port != 0 && (port < 1024 || port > 65535) {
		return s.ClientEndpoint(), fmt.Errorf("port %d: choose one between 1024 and 65535, or 0 for any free one", port)
	}
	s.stopEndpoint()
	if !on {
		if err := s.store.SetSetting(ctx, endpointKey, endpointSetting{On: false, Port: port}); err != nil {
			return s.ClientEndpoint(), fmt.Errorf("saving the endpoint setting: %w", err)
		}
		return s.ClientEndpoint(), nil
	}
	st, err := s.startEndpoint(port)
	if err != nil {
		return st, err
	}
	if err := s.store.SetSetting(ctx, endpointKey, endpointSetting{On: true, Port: st.Port}); err != nil {
		return st, fmt.Errorf("saving the endpoint setting (it runs until Switchboard quits): %w", err)
	}
	return st, nil
}

// startClientEndpoint starts the endpoint when its setting is on (the
// window's Start).
func (s *Services) startClientEndpoint(ctx context.Context, log *slog.Logger) {
	var set endpointSetting
	if err := s.store.Setting(ctx, endpointKey, &set); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			log.Warn("reading the connected apps' endpoint setting", "err", err)
		}
		return
	}
	if !set.On {
		return
	}
	if _, err := s.startEndpoint(set.Port); err != nil {
		log.Error("starting the connected apps' endpoint", "err", err)
	}
}

func (s *Services) startEndpoint(port int) (EndpointStatus, error) {
	e := &s.endpoint
	e.mu.Lock()
	defer e.mu.Unlock()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		e.status = EndpointStatus{Port: port, Error: fmt.Sprintf("cannot listen on 127.0.0.1:%d (%v); choose another port, or 0 for any free one", port, err)}
		return e.status, errors.New(e.status.Error)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	e.mcp = s.NewClientServer(mcpserve.TransportHTTP)
	e.srv = &http.Server{Handler: e.mcp.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}
	e.status = EndpointStatus{On: true, Port: port, URL: fmt.Sprintf("http://127.0.0.1:%d%s", port, mcpserve.Path)}
	srv := e.srv
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("connected apps' endpoint stopped", "err", err)
			e.mu.Lock()
			if e.srv == srv {
				e.status.On, e.status.Error = false, err.Error()
			}
			e.mu.Unlock()
		}
	}()
	s.log.Info("connected apps' endpoint listening", "url", e.status.URL)
	return e.status, nil
}

// stopEndpoint ends the endpoint's sessions and closes it.
func (s *Services) stopEndpoint() {
	e := &s.endpoint
	e.mu.Lock()
	srv, m := e.srv, e.mcp
	e.srv, e.mcp = nil, nil
	e.status = EndpointStatus{}
	e.mu.Unlock()
	if m != nil {
		m.Close()
	}
	if srv != nil {
		srv.Close()
	}
}

// endpointServer is the running endpoint's MCP server, or nil.
func (s *Services) endpointServer() *mcpserve.Server {
	s.endpoint.mu.Lock()
	defer s.endpoint.mu.Unlock()
	return s.endpoint.mcp
}

// RevokeClient refuses the client's token from now on and ends its open
// sessions here at once (other processes' within their poll).
func (s *Services) RevokeClient(ctx context.Context, nameOrID string) error {
	cl, err := s.clients.Get(ctx, nameOrID)
	if err != nil {
		return err
	}
	if err := s.clients.Revoke(ctx, cl.ID); err != nil {
		return err
	}
	if m := s.endpointServer(); m != nil {
		m.Disconnect(cl.ID)
	}
	return nil
}

// RotateClient gives the client a new token, returned once: the old one
// stops at once, and the sessions opened with it end (here at once, in
// other processes within their poll).
func (s *Services) RotateClient(ctx context.Context, nameOrID string) (string, error) {
	cl, err := s.clients.Get(ctx, nameOrID)
	if err != nil {
		return "", err
	}
	token, err := s.clients.Rotate(ctx, cl.ID)
	if err != nil {
		return "", err
	}
	if m := s.endpointServer(); m != nil {
		m.TokenReplaced(cl.ID)
	}
	return token, nil
}

// ClientConfigOptions point a config entry written for another app at
// this program and, when it does not use the default data directory, at
// this one (so that the app's `switchboard mcp serve` opens the same
// database).
func (c *Core) ClientConfigOptions() *clientconfig.Options {
	o := &clientconfig.Options{}
	if base, err := os.UserConfigDir(); err != nil || filepath.Join(base, "Switchboard") != c.Paths.Dir {
		o.DataDir = c.Paths.Dir
	}
	return o
}

// AppConnection is an app connected in one step: its client (added, or
// given a new token when it existed), the token (shown this once), and the
// entry for its config file.
type AppConnection struct {
	Client  clients.Client       `json:"client"`
	Token   string               `json:"token"`
	Preview clientconfig.Preview `json:"preview"`
	// Rotated says the client existed: its old token stopped working.
	Rotated bool `json:"rotated"`
}

// ConnectApp registers app (Claude Desktop, VS Code, Cursor) as a
// connected app under its name (canStart: it may start conversations), or
// gives the one of that name a new token, and returns the entry for the
// app's config file with the token. It writes no file
// (clientconfig.Write does, once the user agreed).
func (s *Services) ConnectApp(ctx context.Context, app clientconfig.App, canStart bool, opts *clientconfig.Options) (AppConnection, error) {
	var conn AppConnection
	c, err := s.clients.Get(ctx, app.Label())
	switch {
	case err == nil:
		if conn.Token, err = s.RotateClient(ctx, c.ID); err != nil {
			return AppConnection{}, err
		}
		conn.Rotated = true
	case errors.Is(err, clients.ErrNoClient):
		if c, conn.Token, err = s.clients.Add(ctx, app.Label(), canStart); err != nil {
			return AppConnection{}, err
		}
	default:
		return AppConnection{}, err
	}
	if conn.Client, err = s.clients.Get(ctx, c.ID); err != nil {
		return AppConnection{}, err
	}
	conn.Preview, err = clientconfig.Entry(app, conn.Token, opts)
	return conn, err
}

// RemoveClient deletes the client, its grants and allowed tools (its
// audit stays) and ends its open sessions.
func (s *Services) RemoveClient(ctx context.Context, nameOrID string) error {
	cl, err := s.clients.Get(ctx, nameOrID)
	if err != nil {
		return err
	}
	if err := s.clients.Remove(ctx, cl.ID); err != nil {
		return err
	}
	if m := s.endpointServer(); m != nil {
		m.Disconnect(cl.ID)
	}
	return nil
}

// GrantClient shares a conversation with the client (access read or
// write, until expires; zero: never) and tells its open sessions.
func (s *Services) GrantClient(ctx context.Context, nameOrID, convID string, access clients.Access, expires time.Time) error {
	cl, err := s.clients.Get(ctx, nameOrID)
	if err != nil {
		return err
	}
	if err := s.clients.Grant(ctx, cl.ID, convID, access, expires); err != nil {
		return err
	}
	if m := s.endpointServer(); m != nil {
		m.Changed(cl.ID)
	}
	return nil
}

// UngrantClient stops sharing a conversation with the client, at once
// for its open sessions.
func (s *Services) UngrantClient(ctx context.Context, nameOrID, convID string) error {
	cl, err := s.clients.Get(ctx, nameOrID)
	if err != nil {
		return err
	}
	if err := s.clients.Ungrant(ctx, cl.ID, convID); err != nil {
		return err
	}
	if m := s.endpointServer(); m != nil {
		m.Changed(cl.ID)
	}
	return nil
}

// clientApprover decides the tool calls of a connected app's turns
// (chat.ClientOf) before the Broker does: a tool the user allowed for
// that app runs; otherwise, with a window to ask in, the Broker asks (yolo
// not applying to them, see approval.RequestedByClient); with none, the
// call is refused saying how to allow it. Every other call goes to the
// Broker as before.
type clientApprover struct {
	broker  *approval.Broker
	clients *clients.Registry
	visible func() bool
	log     *slog.Logger
}

func (a clientApprover) windowVisible() bool { return a.visible != nil && a.visible() }

// preAllowed reports whether the user allowed this tool for the app and
// no guard holds.
func (a clientApprover) preAllowed(ctx context.Context, cl chat.TurnClient, r approval.Request) bool {
	if r.Guard != nil {
		return false
	}
	ok, err := a.clients.ToolAllowed(ctx, cl.ID, r.ServerID, r.Tool)
	if err != nil {
		a.log.Warn("reading a connected app's allowed tools", "client", cl.Name, "err", err)
		return false
	}
	return ok
}

func (a clientApprover) Request(ctx context.Context, r approval.Request) (approval.Outcome, error) {
	cl, ok := chat.ClientOf(ctx)
	if !ok {
		return a.broker.Request(ctx, r)
	}
	r.RequestedBy, r.Client = approval.RequestedByClient, cl.Name
	if a.preAllowed(ctx, cl, r) {
		return approval.Outcome{Allowed: true, Decision: approval.AllowOnce, DecidedBy: approval.ByPolicy, Arguments: r.Arguments}, nil
	}
	if a.windowVisible() {
		return a.broker.Request(ctx, r)
	}
	reason := fmt.Sprintf("Nobody is at Switchboard's window to approve it, and the user has not allowed %s for %s. The user can allow it with: switchboard clients allow %q %s %s",
		r.Tool, cl.Name, cl.Name, r.ServerID, r.Tool)
	if r.Guard != nil {
		reason = "It could send out private data this conversation read (the lethal-trifecta guard), and nobody is at Switchboard's window to approve it."
	}
	by := approval.BySystem
	if r.Guard != nil {
		by = approval.ByGuard
	}
	return approval.Outcome{Decision: approval.Deny, DecidedBy: by, Reason: reason}, nil
}

func (a clientApprover) Decided(ctx context.Context, r approval.Request) (approval.Outcome, bool) {
	cl, ok := chat.ClientOf(ctx)
	if !ok {
		return a.broker.Decided(ctx, r)
	}
	r.RequestedBy, r.Client = approval.RequestedByClient, cl.Name
	if a.preAllowed(ctx, cl, r) {
		return approval.Outcome{Allowed: true, Decision: approval.AllowOnce, DecidedBy: approval.ByPolicy, Arguments: r.Arguments}, true
	}
	if a.windowVisible() { // "always" grants and read-only settings apply; yolo does not
		return a.broker.Decided(ctx, r)
	}
	return approval.Outcome{}, false
}

// StartServing starts what a `switchboard mcp serve` process needs for
// the turns its app runs: the approval policy and the enabled servers, in
// the background. Unlike Start it leaves the window's work alone: replies
// and tool calls still running are the window's, not interrupted ones, and
// tasks are followed by the window (a call a server runs as a task fails
// in such a process, saying so).
func (s *Services) StartServing(ctx context.Context, log *slog.Logger) error {
	if err := s.Broker.Load(ctx); err != nil {
		log.Error("loading approval policy", "err", err)
	}
	if err := s.Servers.Start(ctx); err != nil {
		return err
	}
	return s.Manager.Start(ctx)
}

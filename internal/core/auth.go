package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// authorizer builds OAuth handlers for remote servers. A handler built at
// start never opens a browser (a server that needs a sign-in shows "needs
// authorization"); only while the user's Authorize is in progress for a
// server is its handler interactive.
type authorizer struct {
	store *oauth.Store
	open  oauth.Opener
	log   *slog.Logger

	mu          sync.Mutex
	interactive map[string]*signIn // server ID -> the user's Authorize in progress
}

// A signIn is one Authorize: the interaction every request of its
// connection shares (so a refusal is not asked again), and the error that
// ended the sign-in, if any.
type signIn struct {
	ctx context.Context // carries oauth.WithInteractive
	mu  sync.Mutex
	err error
}

func newAuthorizer(s secrets.Store, open oauth.Opener, log *slog.Logger) *authorizer {
	return &authorizer{
		log:         log,
		store:       oauth.NewStore(s, func(err error) bool { return errors.Is(err, secrets.ErrNotFound) }),
		open:        open,
		interactive: map[string]*signIn{},
	}
}

func (a *authorizer) handler(cfg serverconf.Config) auth.OAuthHandler {
	h, err := oauth.NewHandler(cfg.ID, cfg.Auth, oauth.Options{Store: a.store, Open: a.open, Logger: a.log, ServerURL: cfg.URL})
	if err != nil {
		// Without a handler the server reports needs-auth on a 401.
		a.log.Error("building the OAuth handler", "server", cfg.ID, "err", err)
		return nil
	}
	return &gatedHandler{OAuthHandler: h, a: a, id: cfg.ID}
}

// A gatedHandler may open the browser only while the user's Authorize for
// its server is in progress, whenever its session started.
type gatedHandler struct {
	auth.OAuthHandler
	a  *authorizer
	id string
}

func (h *gatedHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.a.mu.Lock()
	in := h.a.interactive[h.id]
	h.a.mu.Unlock()
	if in == nil {
		return h.OAuthHandler.Authorize(ctx, req, resp)
	}
	err := h.OAuthHandler.Authorize(valuesFrom{ctx, in.ctx}, req, resp)
	if err != nil {
		in.mu.Lock()
		in.err = err
		in.mu.Unlock()
	}
	return err
}

// valuesFrom is ctx with the values of values.
type valuesFrom struct {
	context.Context
	values context.Context
}

func (c valuesFrom) Value(key any) any {
	if v := c.values.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// Authorize signs in to a remote server through the system browser and
// connects it. It returns when the server is connected, or with why not.
func (s *Services) Authorize(ctx context.Context, serverID string) error {
	a := s.auth
	in := &signIn{ctx: oauth.WithInteractive(context.Background())}
	a.mu.Lock()
	a.interactive[serverID] = in
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.interactive, serverID)
		a.mu.Unlock()
	}()
	if err := s.Manager.Restart(serverID); err != nil {
		return err
	}
	// Wait for the sign-in and connection (the callback server gives up
	// after its own timeout; the user can cancel with CancelAuthorize).
	deadline := time.Now().Add(oauth.DefaultCallbackTimeout + 30*time.Second)
	time.Sleep(100 * time.Millisecond)
	for time.Now().Before(deadline) {
		st, err := s.Manager.Status(serverID)
		if err != nil {
			return err
		}
		switch st.State {
		case mcpconn.StateConnected:
			return nil
		case mcpconn.StateNeedsAuth, mcpconn.StateFailed, mcpconn.StateDisconnected:
			in.mu.Lock()
			err := in.err
			in.mu.Unlock()
			if err != nil {
				return fmt.Errorf("authorizing %s: %w", serverID, err)
			}
			return fmt.Errorf("authorizing %s: %s", serverID, st.Reason)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("authorizing %s: timed out", serverID)
}

// CancelAuthorize abandons a sign-in in progress.
func (s *Services) CancelAuthorize(serverID string) error {
	return s.Manager.Disconnect(serverID)
}

// SignOut forgets a server's tokens and registered client and reconnects
// it (it then needs authorization again).
func (s *Services) SignOut(serverID string) error {
	// The session stops first: closing it may refresh the token, which
	// would save it again.
	if err := s.Manager.Disconnect(serverID); err != nil {
		return err
	}
	if err := s.auth.store.SignOut(serverID); err != nil {
		return err
	}
	return s.Manager.Connect(serverID)
}

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

	mu sync.Mutex
	// interactive maps a server ID to the user's Authorize in progress:
	// the oauth.Interaction every request of its connection shares, which
	// remembers how the sign-in ended (so a refusal is not asked again).
	interactive map[string]*oauth.Interaction
}

func newAuthorizer(s secrets.Store, open oauth.Opener, log *slog.Logger) *authorizer {
	return &authorizer{
		log:         log,
		store:       oauth.NewStore(s, func(err error) bool { return errors.Is(err, secrets.ErrNotFound) }),
		open:        open,
		interactive: map[string]*oauth.Interaction{},
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

// Transport forwards oauth.Transport: the DPoP RoundTripper of the
// server's MCP requests.
func (h *gatedHandler) Transport(base http.RoundTripper) http.RoundTripper {
	return oauth.Transport(h.OAuthHandler, base)
}

func (h *gatedHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.a.mu.Lock()
	in := h.a.interactive[h.id]
	h.a.mu.Unlock()
	if in == nil {
		return h.OAuthHandler.Authorize(ctx, req, resp)
	}
	return h.OAuthHandler.Authorize(in.Context(ctx), req, resp)
}

// Authorize signs in to a remote server through the system browser and
// connects it. It returns when the server is connected, or with why not.
func (s *Services) Authorize(ctx context.Context, serverID string) error {
	a := s.auth
	in := new(oauth.Interaction)
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
	// Restart shows the server connecting before it returns, so the state
	// waited for is this attempt's.
	wctx, cancel := context.WithTimeout(ctx, oauth.DefaultCallbackTimeout+30*time.Second)
	defer cancel()
	st, err := s.Manager.Wait(wctx, serverID, func(st mcpconn.Status) bool {
		switch st.State {
		case mcpconn.StateConnected, mcpconn.StateNeedsAuth, mcpconn.StateFailed, mcpconn.StateDisconnected:
			return true
		}
		return false
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() != nil:
		return fmt.Errorf("authorizing %s: timed out", serverID)
	default:
		return err
	}
	if st.State == mcpconn.StateConnected {
		return nil
	}
	if err := in.Err(); err != nil {
		return fmt.Errorf("authorizing %s: %w", serverID, err)
	}
	return fmt.Errorf("authorizing %s: %s", serverID, st.Reason)
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

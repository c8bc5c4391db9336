package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	interactive map[string]bool
}

func newAuthorizer(s secrets.Store, open oauth.Opener, log *slog.Logger) *authorizer {
	return &authorizer{
		log:         log,
		store:       oauth.NewStore(s, func(err error) bool { return errors.Is(err, secrets.ErrNotFound) }),
		open:        open,
		interactive: map[string]bool{},
	}
}

func (a *authorizer) handler(cfg serverconf.Config) auth.OAuthHandler {
	a.mu.Lock()
	interactive := a.interactive[cfg.ID]
	a.mu.Unlock()
	h, err := oauth.NewHandler(cfg.ID, cfg.Auth, oauth.Options{Store: a.store, Interactive: interactive, Open: a.open, Logger: a.log})
	if err != nil {
		// Without a handler the server reports needs-auth on a 401.
		a.log.Error("building the OAuth handler", "server", cfg.ID, "err", err)
		return nil
	}
	return h
}

// Authorize signs in to a remote server through the system browser and
// connects it. It returns when the server is connected, or with why not.
func (s *Services) Authorize(ctx context.Context, serverID string) error {
	a := s.auth
	a.mu.Lock()
	a.interactive[serverID] = true
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
	if err := s.auth.store.SignOut(serverID); err != nil {
		return err
	}
	return s.Manager.Restart(serverID)
}

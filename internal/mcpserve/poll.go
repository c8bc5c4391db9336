package mcpserve

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/store"
)

// poll re-reads, every Poll while sessions are open, what another process
// (the window, the CLI, another `mcp serve`) may have changed: a client
// revoked or removed (its sessions end), its grants (Changed), and the
// conversations sessions follow (resources/updated). It looks only when
// the database changed since the last tick or a grant expired, so an
// idle tick costs one query. It runs until Close.
func (s *Server) poll() {
	defer close(s.pollDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.opts.Store.Watch(ctx)
	if err != nil {
		s.log.Warn("watching the database; looking at every tick instead", "err", err)
		w = nil
	}
	defer w.Close()
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	signatures := map[string]string{} // client ID -> its live grants, as last seen
	var expiry time.Time              // the next grant to expire; zero: none
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.flushFloods(ctx)
		now := s.opts.Now()
		if w != nil && !w.Changed(ctx) && (expiry.IsZero() || now.Before(expiry)) {
			continue
		}
		expiry = s.look(ctx, signatures)
	}
}

// look does one poll's work and returns when the next grant expires.
func (s *Server) look(ctx context.Context, signatures map[string]string) time.Time {
	s.mu.Lock()
	byClient := map[string][]*session{}
	for sess := range s.sessions {
		byClient[sess.client.ID] = append(byClient[sess.client.ID], sess)
	}
	s.mu.Unlock()
	for id := range signatures {
		if byClient[id] == nil {
			delete(signatures, id)
		}
	}
	var expiry time.Time
	versions := map[string]string{} // conversation ID -> version, this tick
	for id, sessions := range byClient {
		cl, err := s.opts.Registry.Get(ctx, id)
		switch {
		case errors.Is(err, clients.ErrNoClient):
			s.disconnect(id, "this app was removed from Switchboard")
			continue
		case err != nil:
			s.log.Warn("checking a connected app", "clientId", id, "err", err)
			continue
		case !cl.RevokedAt.IsZero():
			s.disconnect(id, "this app's access was revoked in Switchboard")
			continue
		}
		current := sessions[:0:0]
		for _, sess := range sessions {
			if sess.client.TokenTag != cl.TokenTag {
				s.end(sess, tokenReplaced)
				continue
			}
			current = append(current, sess)
		}
		sessions = current
		live, err := s.opts.Registry.Live(ctx, id)
		if err != nil {
			s.log.Warn("reading a connected app's grants", "clientId", id, "err", err)
			continue
		}
		sig, next := signature(live)
		if next.After(time.Time{}) && (expiry.IsZero() || next.Before(expiry)) {
			expiry = next
		}
		if old, seen := signatures[id]; seen && old != sig {
			s.Changed(id)
		}
		signatures[id] = sig
		for _, sess := range sessions {
			s.notifyUpdates(ctx, sess, versions)
		}
	}
	return expiry
}

// signature is the live grants as a comparable string, and when the first
// of them expires (zero: none does).
func signature(live []clients.Grant) (string, time.Time) {
	keys := make([]string, 0, len(live))
	var first time.Time
	for _, g := range live {
		keys = append(keys, g.ConversationID+":"+string(g.Access)+":"+g.ExpiresAt.String())
		if !g.ExpiresAt.IsZero() && (first.IsZero() || g.ExpiresAt.Before(first)) {
			first = g.ExpiresAt
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, ","), first
}

// notifyUpdates sends resources/updated for each conversation sess follows
// that changed since it last looked (versions caches this tick's reads).
func (s *Server) notifyUpdates(ctx context.Context, sess *session, versions map[string]string) {
	sess.mu.Lock()
	subs := make(map[string]string, len(sess.subs))
	for id, v := range sess.subs {
		subs[id] = v
	}
	sess.mu.Unlock()
	for id, old := range subs {
		v, ok := versions[id]
		if !ok {
			var err error
			v, err = s.opts.Store.ConversationVersion(ctx, id)
			switch {
			case errors.Is(err, store.ErrNotFound):
				v = "" // gone: told once, then no longer followed
			case err != nil:
				continue
			}
			versions[id] = v
		}
		if v == old {
			continue
		}
		sess.mu.Lock()
		if _, still := sess.subs[id]; still {
			if v == "" {
				delete(sess.subs, id)
			} else {
				sess.subs[id] = v
			}
		}
		sess.mu.Unlock()
		if err := sess.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: ConversationURI(id)}); err != nil {
			s.log.Warn("telling a connected app a conversation changed", "client", sess.client.Name, "err", err)
		}
	}
}

package core

import (
	"context"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// SetPrivate marks tool (the server's own name for it) of server id as
// reading private data (on), or removes the mark: its results then count
// as the private leg of the lethal trifecta whatever the server says
// about it. The mark is tied to what the server runs now (its
// fingerprint) and follows it through later changes.
func (s *Services) SetPrivate(ctx context.Context, id, tool string, on bool) error {
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return err
	}
	for _, c := range cfgs {
		if c.ID == id {
			return s.Broker.SetPrivate(ctx, id, serverconf.Fingerprint(&c), tool, on)
		}
	}
	return fmt.Errorf("no server %q: %w", id, store.ErrNotFound)
}

// trifectaGuardOn reports the user's lethal-trifecta guard setting, read
// from the store each time (another process, the CLI, may change it).
// When the settings cannot be read the guard is on.
func (s *Services) trifectaGuardOn(ctx context.Context) bool {
	set, err := LoadSettings(ctx, s.store)
	return err != nil || set.TrifectaGuard
}

// grantStore is an approval.PrivateStore too.

func (g grantStore) PrivateTools(ctx context.Context) ([]approval.PrivateTool, error) {
	recs, err := g.s.PrivateTools(ctx)
	out := make([]approval.PrivateTool, len(recs))
	for i, r := range recs {
		out[i] = approval.PrivateTool(r)
	}
	return out, err
}

func (g grantStore) PutPrivateTool(ctx context.Context, p approval.PrivateTool) error {
	return g.s.PutPrivateTool(ctx, store.PrivateTool(p))
}

func (g grantStore) DeletePrivateTool(ctx context.Context, fingerprint, tool string) error {
	return g.s.DeletePrivateTool(ctx, fingerprint, tool)
}

var _ approval.PrivateStore = grantStore{}

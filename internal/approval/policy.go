package approval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// Load reads the remembered policy from the store and emits EventPolicy. It
// runs once: later calls, and the implicit load by the first Request or
// policy method, do nothing after a success. Call it at startup to surface a
// broken store early.
func (b *Broker) Load(ctx context.Context) error {
	if b.isLoaded() {
		return nil
	}
	b.writeMu.Lock()
	err := b.load(ctx)
	b.writeMu.Unlock()
	b.flush()
	return err
}

// isLoaded reports whether the policy has been read from the store.
func (b *Broker) isLoaded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loaded
}

// load reads the policy from the store unless it has been read already.
// b.writeMu must be held, so no change races the read.
func (b *Broker) load(ctx context.Context) error {
	if b.isLoaded() {
		return nil
	}
	grants, err := b.store.Grants(ctx)
	if err != nil {
		return fmt.Errorf("loading tool approval grants: %w", err)
	}
	yolo, err := b.store.Yolo(ctx)
	if err != nil {
		return fmt.Errorf("loading the approve-all setting: %w", err)
	}
	var readOnly []ReadOnlyServer
	if rs, ok := b.store.(ReadOnlyStore); ok {
		if readOnly, err = rs.ReadOnlyServers(ctx); err != nil {
			return fmt.Errorf("loading the servers whose read-only tools run unasked: %w", err)
		}
	}
	var private []PrivateTool
	if ps, ok := b.store.(PrivateStore); ok {
		if private, err = ps.PrivateTools(ctx); err != nil {
			return fmt.Errorf("loading the tools marked private: %w", err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, g := range grants {
		b.grants[grantKey{g.ServerID, g.Tool}] = g
	}
	for _, r := range readOnly {
		b.readOnly[r.ServerID] = r
	}
	for _, p := range private {
		b.private[privateKey{p.Fingerprint, p.Tool}] = p
	}
	b.yolo = yolo
	b.loaded = true
	b.enqueueLocked(EventPolicy, b.policyLocked())
	return nil
}

// Grants returns the remembered grants sorted by server ID, then tool.
func (b *Broker) Grants(ctx context.Context) ([]Grant, error) {
	if err := b.Load(ctx); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.policyLocked().Grants, nil
}

// Yolo reports whether every call runs without asking. It is false until the
// policy has been loaded.
func (b *Broker) Yolo() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.yolo
}

// SetYolo turns "approve all" on or off and emits EventPolicy. Turning it on
// releases every waiting call (allow_all, by policy). If the store fails,
// turning on does not happen and turning off still happens in memory (until
// restart); either way the error is returned.
func (b *Broker) SetYolo(ctx context.Context, on bool) error {
	return b.setYolo(ctx, on, nil)
}

// setYolo is SetYolo; decided, when not nil, is the waiting call whose
// "approve all" this is: it is settled by the user before the others are
// released, whether or not the store took the change. Calls with a Guard
// are not released.
func (b *Broker) setYolo(ctx context.Context, on bool, decided *call) error {
	return b.change(ctx, func() error {
		if err := b.store.SetYolo(ctx, on); err != nil {
			return fmt.Errorf("saving the approve-all setting: %w", err)
		}
		return nil
	}, func(err error) {
		if decided != nil {
			b.settleDecidedLocked(decided, AllowAll)
		}
		if on && err != nil {
			return
		}
		b.yolo = on
		if on {
			b.releaseLocked(func(c *call) bool { return c.req.Guard == nil && c.req.RequestedBy != RequestedByClient }, AllowAll, ByPolicy)
		}
	})
}

// Revoke forgets the grant for serverID and tool (doing nothing if there is
// none) and emits EventPolicy. If the store fails, the grant is still
// forgotten in memory, so it stops allowing calls now, and the error says
// it may return after a restart.
func (b *Broker) Revoke(ctx context.Context, serverID, tool string) error {
	return b.change(ctx, func() error {
		if err := b.store.DeleteGrant(ctx, serverID, tool); err != nil {
			return fmt.Errorf("revoking %s of server %s: %w; it is revoked until Switchboard restarts, try again", tool, serverID, err)
		}
		return nil
	}, func(error) {
		delete(b.grants, grantKey{serverID, tool})
	})
}

// ServerChanged tells the Broker that server serverID now has fingerprint:
// its waiting calls made for another fingerprint are cancelled (Reason says
// why), since the user would approve a program that no longer runs; its
// grants and read-only setting made for another fingerprint are forgotten,
// in memory even if the store fails (the error is returned); its private
// marks are carried over to fingerprint (a restriction does not lapse);
// and EventPolicy is emitted.
func (b *Broker) ServerChanged(ctx context.Context, serverID, fingerprint string) error {
	b.mu.Lock()
	for _, c := range b.pendingLocked(func(c *call) bool {
		return c.req.ServerID == serverID && c.req.Fingerprint != fingerprint
	}) {
		_, _ = b.settleWhyLocked(c, Cancelled, BySystem, ReasonServerChanged) // cannot fail: c is pending
	}
	b.mu.Unlock()
	b.flush()
	stale := func(g Grant) bool { return g.ServerID == serverID && g.Fingerprint != fingerprint }
	return b.change(ctx, func() error {
		b.mu.Lock()
		drop := b.grantsLocked(stale)
		b.mu.Unlock()
		var errs []error
		for _, g := range drop {
			if err := b.store.DeleteGrant(ctx, g.ServerID, g.Tool); err != nil {
				errs = append(errs, fmt.Errorf("revoking %s of changed server %s: %w", g.Tool, g.ServerID, err))
			}
		}
		b.mu.Lock()
		ro, trusted := b.readOnly[serverID]
		b.mu.Unlock()
		if rs, ok := b.store.(ReadOnlyStore); ok && trusted && ro.Fingerprint != fingerprint {
			if err := rs.DeleteReadOnlyServer(ctx, serverID); err != nil {
				errs = append(errs, fmt.Errorf("turning off the read-only setting of changed server %s: %w", serverID, err))
			}
		}
		errs = append(errs, b.savePrivateMove(ctx, serverID, fingerprint)...)
		return errors.Join(errs...)
	}, func(error) {
		for _, g := range b.grantsLocked(stale) {
			delete(b.grants, grantKey{g.ServerID, g.Tool})
		}
		if ro, ok := b.readOnly[serverID]; ok && ro.Fingerprint != fingerprint {
			delete(b.readOnly, serverID)
		}
		b.movePrivateLocked(serverID, fingerprint)
	})
}

// putGrant saves g and then remembers it, releasing the waiting calls it
// allows (allow_always, by policy). If the store fails, nothing changes.
// decided, when not nil, is the call the user allowed always: it is settled
// by the user first, whether or not the store took the grant.
func (b *Broker) putGrant(ctx context.Context, g Grant, decided *call) error {
	return b.change(ctx, func() error {
		if err := b.store.PutGrant(ctx, g); err != nil {
			return fmt.Errorf("saving the grant for %s of server %s: %w", g.Tool, g.ServerID, err)
		}
		return nil
	}, func(err error) {
		if decided != nil {
			b.settleDecidedLocked(decided, AllowAlways)
		}
		if err != nil {
			return
		}
		b.grants[grantKey{g.ServerID, g.Tool}] = g
		b.releaseLocked(func(c *call) bool {
			return c.req.Guard == nil && c.req.ServerID == g.ServerID && c.req.Tool == g.Tool && c.req.Fingerprint == g.Fingerprint &&
				c.req.DefinitionHash == g.DefinitionHash
		}, AllowAlways, ByPolicy)
	})
}

// change makes one policy change: write saves it to the store, then apply
// updates memory under b.mu given write's error, then EventPolicy carries the
// result. Changes are serialised by b.writeMu, so the store and memory apply
// them in the same order; b.mu is not held during write.
func (b *Broker) change(ctx context.Context, write func() error, apply func(writeErr error)) error {
	b.writeMu.Lock()
	if err := b.load(ctx); err != nil {
		b.writeMu.Unlock()
		b.flush()
		return err
	}
	err := write()
	b.mu.Lock()
	apply(err)
	b.enqueueLocked(EventPolicy, b.policyLocked())
	b.mu.Unlock()
	b.writeMu.Unlock()
	b.flush()
	return err
}

// grantsLocked returns the grants that keep selects, sorted.
func (b *Broker) grantsLocked(keep func(Grant) bool) []Grant {
	return sortedGrants(b.grants, keep)
}

// sortedGrants returns the grants in m that keep selects, sorted by server
// ID, then tool; never nil.
func sortedGrants(m map[grantKey]Grant, keep func(Grant) bool) []Grant {
	gs := make([]Grant, 0, len(m))
	for _, g := range m {
		if keep(g) {
			gs = append(gs, g)
		}
	}
	slices.SortFunc(gs, func(x, y Grant) int {
		return cmp.Or(cmp.Compare(x.ServerID, y.ServerID), cmp.Compare(x.Tool, y.Tool))
	})
	return gs
}

func (b *Broker) policyLocked() Policy {
	return Policy{Yolo: b.yolo, Grants: b.grantsLocked(func(Grant) bool { return true }), ReadOnly: b.readOnlyLocked(), Private: b.privateLocked()}
}

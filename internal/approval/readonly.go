package approval

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// ToolHints are what a server says about one of its tools (the MCP tool
// annotations readOnlyHint, destructiveHint, idempotentHint and
// openWorldHint): claims, which the server may get wrong or lie about.
// Nil means the server did not say; the spec's defaults then are not
// read-only, destructive, not idempotent, open world.
type ToolHints struct {
	ReadOnly    *bool `json:"readOnly,omitempty"`
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  *bool `json:"idempotent,omitempty"`
	OpenWorld   *bool `json:"openWorld,omitempty"`
}

// ClaimsReadOnly reports whether the server says the tool changes nothing:
// readOnlyHint true, and not also destructiveHint true (a contradiction
// that is read as destructive).
func (h *ToolHints) ClaimsReadOnly() bool {
	return h != nil && h.ReadOnly != nil && *h.ReadOnly && (h.Destructive == nil || !*h.Destructive)
}

// A ReadOnlyServer remembers that the user lets the tools a server claims
// are read-only (ToolHints.ClaimsReadOnly) run without asking, while the
// server's fingerprint is the one the user saw. It trusts the server's
// word: a server that calls a tool read-only when it is not gets it run
// unasked, so it is per server and off until the user turns it on.
type ReadOnlyServer struct {
	ServerID    string    `json:"serverId"`
	Fingerprint string    `json:"fingerprint"`
	CreatedAt   time.Time `json:"createdAt" ts_type:"string"`
}

// A ReadOnlyStore persists the servers whose read-only tools run unasked.
// A PolicyStore that is one too keeps them; with one that is not, the
// Broker keeps them in memory only (until restart).
type ReadOnlyStore interface {
	// ReadOnlyServers returns every stored ReadOnlyServer.
	ReadOnlyServers(ctx context.Context) ([]ReadOnlyServer, error)
	// PutReadOnlyServer stores r, replacing any for the same server.
	PutReadOnlyServer(ctx context.Context, r ReadOnlyServer) error
	// DeleteReadOnlyServer removes server serverID's; removing one that
	// does not exist is not an error.
	DeleteReadOnlyServer(ctx context.Context, serverID string) error
}

// ReadOnlyServers returns the servers whose read-only tools run unasked,
// sorted by server ID.
func (b *Broker) ReadOnlyServers(ctx context.Context) ([]ReadOnlyServer, error) {
	if err := b.Load(ctx); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.readOnlyLocked(), nil
}

// Policy returns the whole remembered policy, as EventPolicy carries it.
func (b *Broker) Policy(ctx context.Context) (Policy, error) {
	if err := b.Load(ctx); err != nil {
		return Policy{Grants: []Grant{}}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.policyLocked(), nil
}

// SetReadOnly lets the tools server serverID claims are read-only run
// without asking (on), while its fingerprint is fingerprint, or stops
// that (off); it emits EventPolicy. Turning it on releases the waiting
// calls it covers (allow_read_only, by policy) but those with a Guard. As
// with grants, a store failure never leaves more trusted than asked: on
// does not happen, off still happens in memory; either way the error is
// returned.
func (b *Broker) SetReadOnly(ctx context.Context, serverID, fingerprint string, on bool) error {
	if serverID == "" || on && fingerprint == "" {
		return fmt.Errorf("%w: a read-only setting needs a server and its fingerprint", ErrInvalidRequest)
	}
	r := ReadOnlyServer{ServerID: serverID, Fingerprint: fingerprint, CreatedAt: b.now()}
	return b.change(ctx, func() error {
		rs, ok := b.store.(ReadOnlyStore)
		switch {
		case !ok:
			return nil
		case on:
			if err := rs.PutReadOnlyServer(ctx, r); err != nil {
				return fmt.Errorf("saving the read-only setting of server %s: %w", serverID, err)
			}
		default:
			if err := rs.DeleteReadOnlyServer(ctx, serverID); err != nil {
				return fmt.Errorf("saving the read-only setting of server %s: %w; it is off until Switchboard restarts, try again", serverID, err)
			}
		}
		return nil
	}, func(err error) {
		if !on {
			delete(b.readOnly, serverID)
			return
		}
		if err != nil {
			return
		}
		b.readOnly[serverID] = r
		b.releaseLocked(func(c *call) bool { return c.req.Guard == nil && b.readOnlyAllowsLocked(c.req) }, AllowReadOnly, ByPolicy)
	})
}

// readOnlyAllowsLocked reports whether the user lets r's server's
// read-only tools run unasked and r's tool claims to be one.
func (b *Broker) readOnlyAllowsLocked(r Request) bool {
	ro, ok := b.readOnly[r.ServerID]
	return ok && ro.Fingerprint == r.Fingerprint && r.Hints.ClaimsReadOnly()
}

// readOnlyLocked returns the ReadOnlyServers sorted by server ID; nil when
// there are none.
func (b *Broker) readOnlyLocked() []ReadOnlyServer {
	var out []ReadOnlyServer
	for _, r := range b.readOnly {
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y ReadOnlyServer) int { return cmp.Compare(x.ServerID, y.ServerID) })
	return out
}

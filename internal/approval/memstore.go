package approval

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// A MemoryPolicyStore is a PolicyStore that keeps the policy in memory, for
// tests and for a Broker without a database. The zero value is an empty store
// with yolo off. It is safe for concurrent use, and its methods return
// ctx.Err() when ctx is done.
type MemoryPolicyStore struct {
	mu       sync.Mutex
	grants   map[grantKey]Grant
	yolo     bool
	readOnly map[string]ReadOnlyServer
	private  map[privateKey]PrivateTool
}

// Grants returns the stored grants sorted by server ID, then tool.
func (s *MemoryPolicyStore) Grants(ctx context.Context) ([]Grant, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedGrants(s.grants, func(Grant) bool { return true }), nil
}

// PutGrant stores g, replacing any grant for the same server and tool.
func (s *MemoryPolicyStore) PutGrant(ctx context.Context, g Grant) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grants == nil {
		s.grants = make(map[grantKey]Grant)
	}
	s.grants[grantKey{g.ServerID, g.Tool}] = g
	return nil
}

// DeleteGrant removes the grant for serverID and tool, if any.
func (s *MemoryPolicyStore) DeleteGrant(ctx context.Context, serverID, tool string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.grants, grantKey{serverID, tool})
	return nil
}

// Yolo reports the stored yolo switch.
func (s *MemoryPolicyStore) Yolo(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yolo, nil
}

// SetYolo stores the yolo switch.
func (s *MemoryPolicyStore) SetYolo(ctx context.Context, on bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.yolo = on
	return nil
}

// ReadOnlyServers returns the stored ReadOnlyServers sorted by server ID.
func (s *MemoryPolicyStore) ReadOnlyServers(ctx context.Context) ([]ReadOnlyServer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ReadOnlyServer, 0, len(s.readOnly))
	for _, r := range s.readOnly {
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y ReadOnlyServer) int { return strings.Compare(x.ServerID, y.ServerID) })
	return out, nil
}

// PutReadOnlyServer stores r, replacing any for the same server.
func (s *MemoryPolicyStore) PutReadOnlyServer(ctx context.Context, r ReadOnlyServer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readOnly == nil {
		s.readOnly = make(map[string]ReadOnlyServer)
	}
	s.readOnly[r.ServerID] = r
	return nil
}

// DeleteReadOnlyServer removes server serverID's ReadOnlyServer, if any.
func (s *MemoryPolicyStore) DeleteReadOnlyServer(ctx context.Context, serverID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.readOnly, serverID)
	return nil
}

// PrivateTools returns the stored marks sorted by fingerprint, then tool.
func (s *MemoryPolicyStore) PrivateTools(ctx context.Context) ([]PrivateTool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PrivateTool, 0, len(s.private))
	for _, p := range s.private {
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y PrivateTool) int {
		if c := strings.Compare(x.Fingerprint, y.Fingerprint); c != 0 {
			return c
		}
		return strings.Compare(x.Tool, y.Tool)
	})
	return out, nil
}

// PutPrivateTool stores p, replacing any for the same fingerprint and tool.
func (s *MemoryPolicyStore) PutPrivateTool(ctx context.Context, p PrivateTool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.private == nil {
		s.private = make(map[privateKey]PrivateTool)
	}
	s.private[privateKey{p.Fingerprint, p.Tool}] = p
	return nil
}

// DeletePrivateTool removes the mark of fingerprint and tool, if any.
func (s *MemoryPolicyStore) DeletePrivateTool(ctx context.Context, fingerprint, tool string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.private, privateKey{fingerprint, tool})
	return nil
}

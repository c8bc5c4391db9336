package mcpconn

import (
	"context"
	"fmt"
)

// Wait returns server id's status as soon as cond(status) is true: at once
// if the current status satisfies it, else at the first change that makes
// it so. cond is called with no lock held, once per change (changes made
// in quick succession may be seen as one, the latest).
//
// It returns an error wrapping ErrUnknownServer when the server is not
// configured or is removed while waiting, ErrClosed when the Manager is
// closed, and one wrapping ctx.Err() when ctx ends first; with an error,
// the status is the last one seen (zero if the server was never found).
func (m *Manager) Wait(ctx context.Context, id string, cond func(Status) bool) (Status, error) {
	m.mu.Lock()
	s, ok := m.servers[id]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return Status{}, ErrClosed
	case !ok:
		return Status{}, fmt.Errorf("%w: %s", ErrUnknownServer, id)
	}
	for {
		// The channel is taken with the status it follows, so no change
		// after this read goes unnoticed.
		s.mu.Lock()
		st, gone, changed := s.published.clone(), s.gone, s.changedLocked()
		s.mu.Unlock()
		if gone != nil {
			return st, gone
		}
		if cond(st) {
			return st, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return st, fmt.Errorf("waiting for server %s (%s): %w", id, st.State, ctx.Err())
		}
	}
}

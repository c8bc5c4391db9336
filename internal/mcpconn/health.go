package mcpconn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// serve watches a live session until ctx is done (nil) or the session is
// lost (the reason). The end of the process or the stream is noticed at
// once; a hung server by pings that time out: the first failure marks it
// degraded, PingFailures in a row end the session.
func (s *server) serve(ctx context.Context, sess *session) error {
	o := &s.m.opts
	var tick <-chan time.Time
	if o.PingInterval > 0 {
		t := time.NewTicker(o.PingInterval)
		defer t.Stop()
		tick = t.C
	}
	failures := 0
	// A server may send tools/list_changed in a storm: the re-lists run one
	// at a time (here, in the loop) and start relistInterval apart at
	// least, the notifications in between coalesced into the next one.
	lastList := time.Now() // the listing at connect
	relistTimer := time.NewTimer(relistInterval)
	relistTimer.Stop()
	defer relistTimer.Stop()
	var relist <-chan time.Time // relistTimer.C while a re-list is due
	// A listing the server said may be kept for a while (ttlMs, SEP-2549)
	// is read again when that time is up, so a server that cannot send
	// tools/list_changed still gets its changes seen.
	expireTimer := time.NewTimer(time.Hour)
	expireTimer.Stop()
	defer expireTimer.Stop()
	var expired <-chan time.Time // expireTimer.C while the listing has a lifetime
	keep := func(ttl time.Duration) {
		expired = nil
		if ttl > 0 {
			expireTimer.Reset(min(max(ttl, s.m.minListTTL), maxListTTL))
			expired = expireTimer.C
		}
	}
	keep(sess.listing.ttl)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sess.done:
			return sess.endErr
		case <-sess.toolsChanged:
			if relist != nil {
				break // a re-list is already due
			}
			if wait := relistInterval - time.Since(lastList); wait > 0 {
				relistTimer.Reset(wait)
				relist = relistTimer.C
				break
			}
			keep(s.refreshTools(sess))
			lastList = time.Now()
		case <-relist:
			relist = nil
			keep(s.refreshTools(sess))
			lastList = time.Now()
		case <-expired:
			keep(s.refreshTools(sess))
			lastList = time.Now()
		case <-tick:
			err := sess.ping(ctx, o.PingTimeout)
			switch {
			case ctx.Err() != nil:
				return nil
			case sess.ended():
				return sess.endErr
			case sess.rec != nil && sess.rec.needsAuth() != 0:
				// The SDK turns a refused authorization into a JSON-RPC
				// error, which ping takes for an answer.
				return ErrNeedsAuth
			case err != nil:
				failures++
				if failures >= o.PingFailures {
					return fmt.Errorf("the server stopped answering (%d pings failed: %v)", failures, err)
				}
				s.setStatus(func(st *Status) {
					st.State, st.Reason = StateDegraded, fmt.Sprintf("ping failed: %v", err)
				})
			case failures > 0:
				failures = 0
				s.setStatus(func(st *Status) { st.State, st.Reason = StateConnected, "" })
			}
		}
	}
}

// relistInterval is the least time between two re-lists of a server's
// tools after tools/list_changed.
const relistInterval = 500 * time.Millisecond

// Bounds on how often a listing's lifetime (ttlMs) has it read again.
const (
	defaultMinListTTL = 30 * time.Second
	maxListTTL        = 24 * time.Hour
)

// refreshTools re-lists the tools after tools/list_changed, or when the
// last listing's lifetime is up; it returns the new listing's lifetime
// (zero for none; on failure, the old one, so it is tried again).
func (s *server) refreshTools(sess *session) time.Duration {
	ctx, cancel := context.WithTimeout(sess.ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	listing, err := sess.listTools(ctx, s.m.opts.MaxTools)
	if err != nil {
		s.m.log.Warn("listing changed tools", "server", s.id, "error", err)
		return sess.listing.ttl
	}
	tools := listing.tools
	s.mu.Lock()
	if s.sess != sess {
		s.mu.Unlock()
		return 0
	}
	s.tools = tools
	s.mu.Unlock()
	s.m.ui.drop(s.id) // a changed tool may name a changed view
	s.noteListing(listing)
	s.m.rebuildRegistry()
	s.emitTools()
	s.setStatus(func(st *Status) { st.ToolCount = len(tools) })
	return listing.ttl
}

// backoffDelay is the wait before reconnect attempt n (from 1): base doubled
// per attempt, capped at max, with "equal jitter" (between half and all of
// it) so servers that died together do not reconnect in lockstep.
func backoffDelay(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

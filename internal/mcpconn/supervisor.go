package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A server is one configured server and its supervisor state.
type server struct {
	m      *Manager
	id     string
	stderr *logbuf.Ring

	// emitMu is held while computing and emitting this server's events, so
	// they reach the UI in the order the changes happened. It guards no
	// data and nothing blocking happens under it.
	emitMu sync.Mutex

	mu     sync.Mutex
	cfg    serverconf.Config
	status Status
	sess   *session   // live session, nil when none
	tools  []toolInfo // tools of the live session
	run    *run       // current supervisor, nil when disconnected
	// notes are the last listing's notes (see toolListing.notes), so a
	// server re-listing the same tools does not repeat them in its log.
	notes []string
}

// A run is one supervisor goroutine: it connects, watches and reconnects
// the server until cancelled or it gives up.
type run struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (s *server) config() serverconf.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

func (s *server) statusSnapshot() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status.clone()
}

// runningLocked reports whether a supervisor is active; s.mu is held.
func (s *server) runningLocked() bool {
	if s.run == nil {
		return false
	}
	select {
	case <-s.run.done:
		return false
	default:
		return true
	}
}

// startRun starts a supervisor unless one is active.
func (s *server) startRun(base context.Context) {
	s.mu.Lock()
	if s.runningLocked() {
		s.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(base)
	r := &run{cancel: cancel, done: make(chan struct{})}
	s.run = r
	s.mu.Unlock()
	// Shown at once, so a caller that just asked to connect sees it.
	s.setStatus(func(st *Status) { *st = Status{State: StateConnecting} })
	go func() {
		defer close(r.done)
		defer cancel()
		s.supervise(ctx)
	}()
}

// stopRun cancels the supervisor and waits until it has closed its session.
func (s *server) stopRun() {
	s.mu.Lock()
	r := s.run
	s.run = nil
	s.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
}

// setStatus changes the status and emits it if it changed.
func (s *server) setStatus(f func(*Status)) { s.updateStatus(f, true) }

// setStatusQuiet changes the status without an event.
func (s *server) setStatusQuiet(f func(*Status)) { s.updateStatus(f, false) }

func (s *server) updateStatus(f func(*Status), emit bool) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	old := s.status.clone()
	f(&s.status)
	s.status.ServerID = s.id
	st := s.status.clone()
	s.mu.Unlock()
	if !emit || reflect.DeepEqual(old, st) {
		return
	}
	if st.State != old.State {
		s.m.log.Info("server state changed", "server", s.id, "from", old.State, "to", st.State, "reason", st.Reason)
	}
	s.m.emit(EventServerStatus, st)
}

// supervise connects the server and keeps it connected until ctx is done:
// a lost session is re-established with backoff, up to MaxReconnects times
// in a row, and so is a remote server that cannot be reached at first; a
// stdio server whose first start fails is not retried (its configuration
// is most likely wrong, and Connect retries).
func (s *server) supervise(ctx context.Context) {
	o := &s.m.opts
	attempt := 0
	connected := false
	for {
		seq := s.stderr.LastSeq()
		if attempt == 0 {
			s.setStatus(func(st *Status) { *st = Status{State: StateConnecting} })
		}
		sess, err := s.m.openSession(ctx, s.config(), s.stderr)
		if ctx.Err() != nil {
			if sess != nil {
				sess.stop(nil)
			}
			return
		}
		if err != nil {
			var de *dialError
			errors.As(err, &de)
			switch {
			case de != nil && de.needsAuth:
				s.setStatus(func(st *Status) { *st = Status{State: StateNeedsAuth, Reason: err.Error()} })
				return
			case de != nil && de.permanent,
				// A local command that fails at once is most likely
				// configured wrong; a remote server may just not be
				// reachable yet (the network comes up after the app).
				!connected && s.config().Transport == serverconf.TransportStdio:
				s.fail(err, seq)
				return
			}
			if !s.backoff(ctx, &attempt, err, seq) {
				return
			}
			continue
		}

		connected = true
		s.attach(sess)
		endErr := s.serve(ctx, sess)
		s.detachSession(endErr)
		if ctx.Err() != nil {
			return
		}
		if sess.rec != nil && sess.rec.needsAuth() != 0 {
			s.setStatus(func(st *Status) {
				*st = Status{State: StateNeedsAuth, Reason: fmt.Sprintf("%v (HTTP %d); sign in from the server's settings", ErrNeedsAuth, sess.rec.needsAuth())}
			})
			return
		}
		if time.Since(sess.connectedAt) >= o.StableAfter {
			attempt = 0
		}
		if !s.backoff(ctx, &attempt, endErr, seq) {
			return
		}
	}
}

// backoff waits before the next reconnect attempt, showing the server as
// degraded, or marks it failed when the attempts are used up. It reports
// whether to try again.
func (s *server) backoff(ctx context.Context, attempt *int, cause error, seq uint64) bool {
	o := &s.m.opts
	if o.MaxReconnects < 0 || *attempt >= o.MaxReconnects {
		if *attempt > 0 {
			cause = fmt.Errorf("%w (gave up after %d reconnect attempts)", cause, *attempt)
		}
		s.fail(cause, seq)
		return false
	}
	*attempt++
	d := backoffDelay(*attempt, o.BackoffBase, o.BackoffMax)
	n := *attempt
	s.setStatus(func(st *Status) {
		*st = Status{State: StateDegraded, Attempt: n,
			Reason: fmt.Sprintf("%v; reconnecting in %s (attempt %d of %d)", cause, d.Round(10*time.Millisecond), n, o.MaxReconnects)}
	})
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// fail marks the server failed with err and its stderr since seq.
func (s *server) fail(err error, seq uint64) {
	lines := lastStderr(s.stderr, seq, 20)
	reason := err.Error()
	if h := stderrHint(lines); h != "" {
		if len(h) > 300 {
			h = h[:300] + "…"
		}
		reason += ": " + h
	}
	s.setStatus(func(st *Status) { *st = Status{State: StateFailed, Reason: reason, LastStderr: lines} })
}

// attach makes sess the live session: its tools join the registry and the
// server shows as connected.
func (s *server) attach(sess *session) {
	tools := sess.listing.tools
	s.mu.Lock()
	s.sess, s.tools = sess, tools
	s.mu.Unlock()
	s.noteListing(sess.listing)
	s.m.rebuildRegistry()
	s.emitTools()
	s.setStatus(func(st *Status) {
		*st = Status{State: StateConnected, ToolCount: len(tools), ConnectedAt: sess.connectedAt, ProtocolVersion: sess.protocol}
	})
}

// noteListing writes what Switchboard left out of or changed in a listing
// into the server's log (and the app's), unless the last listing said the
// same.
func (s *server) noteListing(l *toolListing) {
	s.mu.Lock()
	notes := l.notes(s.cfg.DisplayName())
	same := slices.Equal(notes, s.notes)
	s.notes = notes
	s.mu.Unlock()
	if same {
		return
	}
	for _, n := range notes {
		s.m.log.Warn("tool listing bounded", "server", s.id, "note", n)
		s.stderr.AppendLevel(logbuf.LevelWarn, markerPrefix+n)
	}
}

// detachSession stops the live session, if any, for reason (nil: a plain
// disconnect) and takes its tools out of the registry.
func (s *server) detachSession(reason error) {
	s.mu.Lock()
	sess := s.sess
	s.sess, s.tools = nil, nil
	s.mu.Unlock()
	if sess == nil {
		return
	}
	sess.stop(reason)
	s.m.rebuildRegistry()
	s.emitTools()
}

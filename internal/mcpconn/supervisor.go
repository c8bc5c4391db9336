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
	// warning is Status.Warning, kept here so that every status of this
	// run carries it; empty until the run notices something.
	warning string
	// changed is closed (and forgotten) whenever sess, status or run
	// changes, so that a call can wait for a reconnect under way; nil
	// until someone waits (see changedLocked).
	changed chan struct{}
	// lastTools are the registry's tools of the last session, kept after
	// it ended (until the next one is attached) so that a call of one of
	// them can wait for the reconnect, or say truly why it cannot.
	lastTools []Tool
	// gone is why this server's status will not change any more (it was
	// removed, or the Manager closed), for Manager.Wait; nil while it is
	// configured.
	gone error
	// published is the status as last sent (EventServerStatus); Wait
	// reads it.
	published Status
}

// changedLocked returns the channel closed at the next change; s.mu is held.
func (s *server) changedLocked() <-chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// signalLocked wakes the waiters of changedLocked; s.mu is held.
func (s *server) signalLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// markGone records why the server's status will not change any more, and
// wakes its waiters.
func (s *server) markGone(err error) {
	s.mu.Lock()
	if s.gone == nil {
		s.gone = err
	}
	s.signalLocked()
	s.mu.Unlock()
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
	s.warning = ""
	s.mu.Unlock()
	// Shown at once, so a caller that just asked to connect sees it.
	s.setStatus(func(st *Status) { *st = Status{State: StateConnecting} })
	go func() {
		defer func() {
			close(r.done)
			s.mu.Lock()
			s.signalLocked()
			s.mu.Unlock()
		}()
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
	s.status.Warning = s.warning
	st := s.status.clone()
	s.mu.Unlock()
	if emit && !reflect.DeepEqual(old, st) {
		if st.State != old.State {
			s.m.log.Info("server state changed", "server", s.id, "from", old.State, "to", st.State, "reason", st.Reason)
		}
		s.m.emit(EventServerStatus, st)
	}
	// Waiters see a status only once its event is out, so a caller that
	// waited for a state also finds its event.
	s.mu.Lock()
	s.published = st
	s.signalLocked()
	s.mu.Unlock()
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
	s.sess, s.tools, s.lastTools = sess, tools, nil
	level, roots := s.cfg.LogLevel, s.cfg.Roots
	s.mu.Unlock()
	// Changed while the session connected:
	if want, _ := sess.logLevel.Load().(serverconf.LogLevel); want != level {
		s.applyLogLevel(level)
	}
	if want, _ := sess.rootsWant.Load().([]string); !slices.Equal(want, roots) {
		s.applyRoots(roots)
	}
	s.noteListing(sess.listing)
	s.m.rebuildRegistry()
	s.emitTools()
	s.setStatus(func(st *Status) {
		*st = Status{State: StateConnected, ToolCount: len(tools), ConnectedAt: sess.connectedAt, ProtocolVersion: sess.protocol,
			Logging: sess.declaresLogging(), Offers: sess.offers()}
	})
	go s.m.resubscribe(s.id, sess) // the resources followed, on the new session
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

// stdoutWarning is Status.Warning of a server that writes lines other
// than JSON-RPC on stdout.
const stdoutWarning = "the server writes log lines to stdout, which is for JSON-RPC only; Switchboard skips them (they are in the server's log as warnings), but the server should write them to stderr"

// noteStdoutNoise keeps a line that server id wrote on stdout and that is
// not JSON-RPC in its log, as a warning, and says so once in its status.
func (m *Manager) noteStdoutNoise(id string, ring *logbuf.Ring, line string) {
	ring.AppendLevel(logbuf.LevelWarn, markerPrefix+"skipped a line on stdout that is not JSON-RPC: "+line)
	m.mu.Lock()
	s := m.servers[id]
	m.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	first := s.warning == ""
	s.warning = stdoutWarning
	s.mu.Unlock()
	if first {
		m.log.Warn("server writes lines other than JSON-RPC to stdout", "server", id, "line", line)
		s.setStatus(func(*Status) {})
	}
}

// detachSession stops the live session, if any, for reason (nil: a plain
// disconnect) and takes its tools out of the registry; when the session
// was lost (reason not nil), they stay in lastTools.
func (s *server) detachSession(reason error) {
	s.m.mu.Lock()
	last := s.m.regTools[s.id]
	s.m.mu.Unlock()
	s.mu.Lock()
	sess := s.sess
	s.sess, s.tools = nil, nil
	if sess != nil && reason != nil { // lost, not disconnected on purpose
		s.lastTools = last
	}
	s.signalLocked()
	s.mu.Unlock()
	if sess == nil {
		return
	}
	sess.stop(reason)
	s.m.rebuildRegistry()
	s.emitTools()
}

// Package asks holds what servers ask of the user — a form to fill in, a
// page to open, a completion to allow — until the user answers, the request
// expires, or its server stops waiting.
//
// A server may ask only while the user can see the window: a request that
// arrives with no window (a CLI run) or with the window hidden is refused at
// once rather than left waiting on nobody. Whatever a server sends is
// bounded: how many of its requests wait at once, how often it may ask (a
// token bucket), and how long a request waits (then it expires).
//
// One Broker serves one kind of request (elicitation, sampling); the kind's
// request and answer types are its type parameters, so each kind's events
// carry its own payload.
package asks

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Defaults of Options' zero fields.
const (
	DefaultTimeout             = 10 * time.Minute
	DefaultMaxPendingPerServer = 3
	DefaultMaxPending          = 32
)

// The errors of Ask. Each says what happened in words a user can act on.
var (
	ErrNoWindow    = errors.New("no Switchboard window is open and visible to show it in")
	ErrBusy        = errors.New("too many of this server's requests are already waiting for the user")
	ErrRateLimited = errors.New("the server asks too often; it was refused without asking the user")
	ErrExpired     = errors.New("nobody answered in time")
	ErrClosed      = errors.New("Switchboard is closing")
	// ErrUnknown is Answer's error for a request that is not waiting (it
	// was answered, expired or withdrawn meanwhile).
	ErrUnknown = errors.New("this request is no longer waiting for an answer")
)

// An Outcome is how a request ended.
type Outcome string

// The outcomes of a request.
const (
	// Answered: the user answered (the kind's answer says how).
	Answered Outcome = "answered"
	// Expired: nobody answered within the timeout.
	Expired Outcome = "expired"
	// Cancelled: the server stopped waiting, or Switchboard closed.
	Cancelled Outcome = "cancelled"
	// Refused: never shown, because no window could show it or the server
	// asked too much; Ended.Reason says which.
	Refused Outcome = "refused"
)

// Outcomes lists every Outcome, for the generated contract.
var Outcomes = []Outcome{Answered, Expired, Cancelled, Refused}

// Meta is what every waiting request carries. A kind's request type embeds
// it, which gives that type's pointer the Item method the Broker needs.
type Meta struct {
	// ID names the request in Answer and in events.
	ID         string `json:"id"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	// RequestedAt and ExpiresAt bound the wait; the window counts down.
	RequestedAt time.Time `json:"requestedAt" ts_type:"string"`
	ExpiresAt   time.Time `json:"expiresAt" ts_type:"string"`
}

// AskMeta returns m itself, so that the Broker can stamp it.
func (m *Meta) AskMeta() *Meta { return m }

// An Item is a kind's request: a pointer to a struct that embeds Meta.
type Item interface{ AskMeta() *Meta }

// Ended is the payload of a Broker's ended event: how one request ended.
type Ended struct {
	ID         string  `json:"id"`
	ServerID   string  `json:"serverId"`
	ServerName string  `json:"serverName"`
	Outcome    Outcome `json:"outcome" ts_type:"asks.Outcome"`
	// Reason says why a request ended other than answered, for the user.
	Reason string `json:"reason,omitempty"`
	// Summary is what the server asked, short (the CLI prints it).
	Summary string `json:"summary"`
}

// An Emitter sends events to the UI.
type Emitter interface {
	Emit(name string, payload any)
}

// Options configure a Broker; zero fields mean their defaults.
type Options struct {
	// EventRequested and EventEnded name the events: the request (Q) when
	// it starts waiting, Ended when it stops. Empty names send nothing.
	EventRequested, EventEnded string
	// Emitter receives the events; nil drops them.
	Emitter Emitter
	// Visible reports whether the user can see the window now. Nil means
	// there is no window: every request is refused with ErrNoWindow.
	Visible func() bool
	// Timeout is how long a request waits for the user; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxPendingPerServer bounds the requests of one server that wait at
	// once; zero means DefaultMaxPendingPerServer. MaxPending bounds them
	// over all servers; zero means DefaultMaxPending.
	MaxPendingPerServer, MaxPending int
	// Burst and Every rate-limit each server: Burst requests at once, then
	// one more each Every. Burst zero means no rate limit.
	Burst int
	Every time.Duration
}

// A Broker holds one kind's requests while they wait for the user. Its
// methods are safe for concurrent use; it starts no goroutine (Ask waits in
// its caller's).
type Broker[Q Item, A any] struct {
	opts Options

	mu      sync.Mutex
	closed  bool
	seq     uint64
	pending map[string]*waiter[Q, A]
	buckets map[string]*bucket // by server ID
}

type waiter[Q Item, A any] struct {
	q    Q
	seq  uint64
	done chan A // buffer 1, written once by Answer
	// gone is closed by Close.
	gone chan struct{}
}

type bucket struct {
	tokens float64
	at     time.Time
}

// New returns a Broker configured by opts (nil means defaults).
func New[Q Item, A any](opts *Options) *Broker[Q, A] {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPendingPerServer <= 0 {
		o.MaxPendingPerServer = DefaultMaxPendingPerServer
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	return &Broker[Q, A]{opts: o, pending: map[string]*waiter[Q, A]{}, buckets: map[string]*bucket{}}
}

// Ask shows q to the user and waits for the answer. It fills in q's Meta
// (ID, times; ServerID and ServerName as given), emits EventRequested with
// q, and returns the answer Answer gives, or an error: ErrNoWindow,
// ErrBusy or ErrRateLimited when q was refused without being shown,
// ErrExpired when nobody answered within the timeout, ErrClosed, or ctx's
// error when the server stopped waiting. Every request, refused ones too,
// ends with one EventEnded that carries summary, what q asks in a line.
// q must not be changed once Ask has it.
func (b *Broker[Q, A]) Ask(ctx context.Context, serverID, serverName string, q Q, summary string) (A, error) {
	return b.ask(ctx, serverID, serverName, q, summary, true)
}

// Follow is Ask for a request that continues one the user has just
// answered (the wait after they opened a page): it takes no token of the
// server's rate limit, so a step the user started is not refused half
// way. The bounds on waiting requests hold as for Ask.
func (b *Broker[Q, A]) Follow(ctx context.Context, serverID, serverName string, q Q, summary string) (A, error) {
	return b.ask(ctx, serverID, serverName, q, summary, false)
}

func (b *Broker[Q, A]) ask(ctx context.Context, serverID, serverName string, q Q, summary string, rated bool) (A, error) {
	var zero A
	now := time.Now()
	m := q.AskMeta()
	*m = Meta{ID: newID(), ServerID: serverID, ServerName: serverName, RequestedAt: now, ExpiresAt: now.Add(b.opts.Timeout)}
	end := Ended{ID: m.ID, ServerID: serverID, ServerName: serverName, Summary: summary}

	if err := ctx.Err(); err != nil {
		return zero, err
	}
	b.mu.Lock()
	err := b.admitLocked(serverID, now, rated)
	if err != nil {
		b.mu.Unlock()
		end.Outcome, end.Reason = Refused, err.Error()
		b.emit(b.opts.EventEnded, end)
		return zero, err
	}
	b.seq++
	w := &waiter[Q, A]{q: q, seq: b.seq, done: make(chan A, 1), gone: make(chan struct{})}
	b.pending[m.ID] = w // registered before anyone hears of it
	b.mu.Unlock()
	b.emit(b.opts.EventRequested, q)

	timer := time.NewTimer(b.opts.Timeout)
	defer timer.Stop()
	var a A
	select {
	case a = <-w.done:
		end.Outcome = Answered
	case <-timer.C:
		err = ErrExpired
		end.Outcome, end.Reason = Expired, fmt.Sprintf("nobody answered within %s", b.opts.Timeout.Round(time.Second))
	case <-ctx.Done():
		err = ctx.Err()
		end.Outcome, end.Reason = Cancelled, "the server stopped waiting"
	case <-w.gone:
		err = ErrClosed
		end.Outcome, end.Reason = Cancelled, ErrClosed.Error()
	}
	b.mu.Lock()
	delete(b.pending, m.ID)
	b.mu.Unlock()
	if end.Outcome != Answered {
		// An answer that arrived just as the wait ended still counts.
		select {
		case a = <-w.done:
			err, end.Outcome, end.Reason = nil, Answered, ""
		default:
		}
	}
	b.emit(b.opts.EventEnded, end)
	return a, err
}

// admitLocked says whether a request of serverID may wait now, and, when
// rated, takes its token.
func (b *Broker[Q, A]) admitLocked(serverID string, now time.Time, rated bool) error {
	switch {
	case b.closed:
		return ErrClosed
	case b.opts.Visible == nil || !b.opts.Visible():
		return ErrNoWindow
	case len(b.pending) >= b.opts.MaxPending:
		return ErrBusy
	}
	n := 0
	for _, w := range b.pending {
		if w.q.AskMeta().ServerID == serverID {
			n++
		}
	}
	if n >= b.opts.MaxPendingPerServer {
		return ErrBusy
	}
	if b.opts.Burst <= 0 || !rated {
		return nil
	}
	bk := b.buckets[serverID]
	if bk == nil {
		bk = &bucket{tokens: float64(b.opts.Burst), at: now}
		b.buckets[serverID] = bk
	}
	if b.opts.Every > 0 {
		bk.tokens = min(float64(b.opts.Burst), bk.tokens+float64(now.Sub(bk.at))/float64(b.opts.Every))
	}
	bk.at = now
	if bk.tokens < 1 {
		return ErrRateLimited
	}
	bk.tokens--
	return nil
}

// Answer gives the user's answer a to the waiting request id; ErrUnknown
// when it is not waiting. The caller checks a against the request first
// (Get returns it).
func (b *Broker[Q, A]) Answer(id string, a A) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.pending[id]
	if !ok {
		return ErrUnknown
	}
	delete(b.pending, id) // answered once; Ask no longer lists it
	w.done <- a
	return nil
}

// Get returns the waiting request id.
func (b *Broker[Q, A]) Get(id string) (Q, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.pending[id]
	if !ok {
		var zero Q
		return zero, false
	}
	return w.q, true
}

// Pending returns the waiting requests, oldest first, for a window that
// opens (or reloads) while they wait.
func (b *Broker[Q, A]) Pending() []Q {
	b.mu.Lock()
	ws := make([]*waiter[Q, A], 0, len(b.pending))
	for _, w := range b.pending {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	slices.SortFunc(ws, func(x, y *waiter[Q, A]) int { return cmp.Compare(x.seq, y.seq) })
	out := make([]Q, len(ws))
	for i, w := range ws {
		out[i] = w.q
	}
	return out
}

// Close ends every waiting request (their Ask returns ErrClosed) and
// refuses new ones. It is safe to call twice.
func (b *Broker[Q, A]) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for _, w := range b.pending {
		close(w.gone)
	}
	return nil
}

func (b *Broker[Q, A]) emit(name string, payload any) {
	if name != "" && b.opts.Emitter != nil {
		b.opts.Emitter.Emit(name, payload)
	}
}

// newID returns a random request ID.
func newID() string { return rand.Text() }

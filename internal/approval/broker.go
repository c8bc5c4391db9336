package approval

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Options configures a Broker. A nil *Options and zero fields mean defaults.
type Options struct {
	// Store persists grants and yolo; nil means a new, empty MemoryPolicyStore.
	Store PolicyStore
	// Emitter receives the Broker's events; nil drops them.
	Emitter Emitter
	// Now stamps new grants; nil means time.Now.
	Now func() time.Time
}

// A Broker decides whether tool calls may run: by the remembered policy when
// it allows the call, otherwise by waiting for the user's Decide. It starts no
// goroutine; Request blocks its caller's goroutine until the call is resolved.
type Broker struct {
	store   PolicyStore
	emitter Emitter
	now     func() time.Time

	// writeMu serialises policy changes, store write first and memory second,
	// so the store and memory see them in the same order. Only policy changes
	// and the first load wait on it. Lock order: writeMu, then mu.
	writeMu sync.Mutex

	// mu guards everything below. It is never held during store I/O or Emit.
	mu       sync.Mutex
	loaded   bool
	yolo     bool
	grants   map[grantKey]Grant
	readOnly map[string]ReadOnlyServer // by server ID
	private  map[privateKey]PrivateTool
	pending  map[string]*call
	seq      uint64 // arrival counter for pending calls
	closed   bool
	outbox   []event // events not yet emitted, in the order the state changed
	flushing bool    // a goroutine is emitting the outbox
}

type grantKey struct{ serverID, tool string }

// A call is one pending Request and its state machine.
type call struct {
	req   Request // private copy, arguments included
	seq   uint64
	state state
	done  chan Outcome // buffer 1; written once, by the move out of statePending
	// deciding is set while the user's "always" or "approve all" is being
	// saved: the call is settled once the policy that covers it is in place.
	// Meanwhile it counts as decided: it is not listed, cancelled or
	// decided again.
	deciding bool
}

type event struct {
	name    string
	payload any
}

// NewBroker returns a Broker configured by opts; see Options for defaults.
// The policy is read from the store on first use (or by Load).
func NewBroker(opts *Options) *Broker {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Store == nil {
		o.Store = new(MemoryPolicyStore)
	}
	if o.Emitter == nil {
		o.Emitter = nopEmitter{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Broker{
		store:    o.Store,
		emitter:  o.Emitter,
		now:      o.Now,
		grants:   make(map[grantKey]Grant),
		readOnly: make(map[string]ReadOnlyServer),
		private:  make(map[privateKey]PrivateTool),
		pending:  make(map[string]*call),
	}
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

// Request returns whether the call r may run. Unless r carries a Guard
// (then it always asks), if yolo is on, a grant for r's server and tool
// has r's fingerprint and definition hash, or the user lets r's server's
// read-only tools run unasked and r's tool claims to be one, it returns at
// once (decided by policy, no event). Otherwise it registers the call (marked
// Changed, with the allowed definition, when a grant for the same server
// config covers an earlier definition of the tool), emits EventRequested and
// waits until Decide, a policy change, ctx, CancelConversation or Close
// resolves it. Cancellation is an Outcome (cancelled, by system), not an
// error. An error means r was invalid or the policy could not be loaded; the
// call must not run. Run an allowed call with Outcome.Arguments.
func (b *Broker) Request(ctx context.Context, r Request) (Outcome, error) {
	if err := r.validate(); err != nil {
		return Outcome{}, err
	}
	if ctx.Err() != nil || b.isClosed() {
		return outcomeFor(r, Cancelled, BySystem), nil
	}
	if err := b.Load(ctx); err != nil {
		if ctx.Err() != nil {
			return outcomeFor(r, Cancelled, BySystem), nil
		}
		return Outcome{}, err
	}
	r = cloneRequest(r)
	r.Changed, r.PreviousDescription, r.PreviousInputSchema = false, "", nil // the Broker's to set

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return outcomeFor(r, Cancelled, BySystem), nil
	}
	if _, dup := b.pending[r.ID]; dup {
		b.mu.Unlock()
		return Outcome{}, fmt.Errorf("%w: a call with id %q is already waiting", ErrInvalidRequest, r.ID)
	}
	if d, ok := b.policyAllowsLocked(r); ok && r.Guard == nil {
		b.mu.Unlock()
		return outcomeFor(r, d, ByPolicy), nil
	}
	if g, ok := b.grants[grantKey{r.ServerID, r.Tool}]; ok && g.Fingerprint == r.Fingerprint && g.DefinitionHash != "" &&
		g.DefinitionHash != r.DefinitionHash { // equal, the grant covers r unless r has a Guard
		r.Changed = true
		r.PreviousDescription, r.PreviousInputSchema = g.Description, bytes.Clone(g.InputSchema)
	}
	b.seq++
	c := &call{req: r, seq: b.seq, state: statePending, done: make(chan Outcome, 1)}
	b.pending[r.ID] = c // registered before the event below is queued
	b.enqueueLocked(EventRequested, cloneRequest(r))
	b.mu.Unlock()
	b.flush()

	select {
	case o := <-c.done:
		return o, nil
	case <-ctx.Done():
		b.mu.Lock()
		// Fails harmlessly if a decision got there first; c.done then holds
		// it. A call being decided is decided: its outcome comes once the
		// policy is saved.
		if !c.deciding {
			_, _ = b.settleLocked(c, Cancelled, BySystem)
		}
		b.mu.Unlock()
		b.flush()
		return <-c.done, nil
	}
}

// Decided returns the outcome a standing policy (yolo, an "always" grant
// for the call's server, tool, fingerprint and definition, or the server's
// read-only setting for a tool that claims read-only) gives r, without
// registering or announcing anything; ok is false when Request would have
// to ask, as it always is for a Request with a Guard. Callers use it to
// record a pre-approved call in one write.
func (b *Broker) Decided(ctx context.Context, r Request) (Outcome, bool) {
	if r.Guard != nil || r.validate() != nil || ctx.Err() != nil || b.Load(ctx) != nil {
		return Outcome{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return Outcome{}, false
	}
	if _, dup := b.pending[r.ID]; dup {
		return Outcome{}, false
	}
	d, ok := b.policyAllowsLocked(r)
	if !ok {
		return Outcome{}, false
	}
	r.Arguments = bytes.Clone(r.Arguments)
	return outcomeFor(r, d, ByPolicy), true
}

// Decide applies the user's decision d to the pending call id. It returns
// ErrInvalidDecision for anything but AllowOnce, AllowAlways, AllowAll and
// Deny (cancelling is the system's), and ErrUnknownRequest when id is not
// pending. AllowAlways also saves a grant for the call's server, tool,
// fingerprint and definition and releases the other waiting calls that match
// it; AllowAll
// also turns yolo on and releases every waiting call. If saving fails, the
// call is still allowed, nothing is released or remembered, and Decide
// returns an error wrapping ErrNotRemembered. A call with a Guard is
// decided by the guard (ByGuard), and neither "always" nor "all"
// releases another call with a Guard.
func (b *Broker) Decide(ctx context.Context, id string, d Decision) error {
	if _, ok := outcomes[d]; !ok || d == Cancelled || d == AllowReadOnly {
		return fmt.Errorf("%w: %q is not a user decision", ErrInvalidDecision, d)
	}
	b.mu.Lock()
	c, ok := b.pending[id]
	if !ok || c.deciding {
		b.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownRequest, id)
	}
	if d == AllowAll && c.req.RequestedBy == RequestedByClient {
		b.mu.Unlock()
		return fmt.Errorf("%w: \"allow all\" does not apply to a connected app's calls; allow this one once or always", ErrInvalidDecision)
	}
	if d != AllowAlways && d != AllowAll {
		_, _ = b.settleLocked(c, d, c.byUser()) // cannot fail: c is pending, d is valid
		b.mu.Unlock()
		b.flush()
		return nil
	}
	// The call waits until the policy it asked for is saved, so whatever
	// runs after it (the next call of the same tool) finds the policy.
	c.deciding = true
	b.mu.Unlock()
	var err error
	if d == AllowAlways {
		err = b.putGrant(ctx, Grant{ServerID: c.req.ServerID, Tool: c.req.Tool, Fingerprint: c.req.Fingerprint,
			DefinitionHash: c.req.DefinitionHash, Description: c.req.Description,
			InputSchema: bytes.Clone(c.req.InputSchema), CreatedAt: b.now()}, c)
	} else {
		err = b.setYolo(ctx, true, c)
	}
	b.mu.Lock()
	b.settleDecidedLocked(c, d) // when the policy could not even be loaded
	b.mu.Unlock()
	b.flush()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotRemembered, err)
	}
	return nil
}

// settleDecidedLocked settles c as the user decided d, unless something
// (a cancel, shutdown) settled it first.
func (b *Broker) settleDecidedLocked(c *call, d Decision) {
	if b.pending[c.req.ID] == c {
		_, _ = b.settleLocked(c, d, c.byUser()) // cannot fail: c is pending, d is valid
	}
}

// byUser is who decides c when the user answers: the guard when it made
// c ask.
func (c *call) byUser() DecidedBy {
	if c.req.Guard != nil {
		return ByGuard
	}
	return ByUser
}

// Refuse denies the pending call id because nobody can be asked (the CLI
// without a terminal): the outcome is deny, by the guard when the call
// carries a Guard and by system otherwise, with reason as its Reason. It
// returns ErrUnknownRequest when id is not pending.
func (b *Broker) Refuse(id, reason string) error {
	b.mu.Lock()
	c, ok := b.pending[id]
	if !ok || c.deciding {
		b.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownRequest, id)
	}
	by := BySystem
	if c.req.Guard != nil {
		by = ByGuard
	}
	_, _ = b.settleWhyLocked(c, Deny, by, reason) // cannot fail: c is pending
	b.mu.Unlock()
	b.flush()
	return nil
}

// Pending returns copies of the waiting calls in arrival order, so a reloaded
// frontend can show them again; never nil.
func (b *Broker) Pending() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	calls := b.pendingLocked(func(*call) bool { return true })
	out := make([]Request, len(calls))
	for i, c := range calls {
		out[i] = cloneRequest(c.req)
	}
	return out
}

// CancelConversation resolves the waiting calls of conversation convID as
// cancelled; an empty convID cancels nothing.
func (b *Broker) CancelConversation(convID string) {
	if convID == "" {
		return
	}
	b.mu.Lock()
	b.releaseLocked(func(c *call) bool { return c.req.ConversationID == convID }, Cancelled, BySystem)
	b.mu.Unlock()
	b.flush()
}

// Close resolves every waiting call as cancelled and makes later Requests
// return cancelled at once. It is safe to call more than once; it always
// returns nil. The policy methods keep working after Close.
func (b *Broker) Close() error {
	b.mu.Lock()
	b.closed = true
	b.releaseLocked(func(*call) bool { return true }, Cancelled, BySystem)
	b.mu.Unlock()
	b.flush()
	return nil
}

func (b *Broker) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// policyAllowsLocked reports whether the remembered policy allows r, and by
// which decision.
func (b *Broker) policyAllowsLocked(r Request) (Decision, bool) {
	if b.yolo && r.RequestedBy != RequestedByClient { // a connected app's turn never runs on yolo
		return AllowAll, true
	}
	g, ok := b.grants[grantKey{r.ServerID, r.Tool}]
	if ok && g.Fingerprint == r.Fingerprint && g.DefinitionHash == r.DefinitionHash {
		return AllowAlways, true
	}
	if b.readOnlyAllowsLocked(r) {
		return AllowReadOnly, true
	}
	return "", false
}

// settleLocked moves c out of statePending by decision d, hands the outcome
// to its waiter and queues EventResolved. It fails if c is already resolved.
func (b *Broker) settleLocked(c *call, d Decision, by DecidedBy) (Outcome, error) {
	return b.settleWhyLocked(c, d, by, "")
}

// settleWhyLocked is settleLocked with the outcome's Reason.
func (b *Broker) settleWhyLocked(c *call, d Decision, by DecidedBy, reason string) (Outcome, error) {
	to, err := c.state.next(d)
	if err != nil {
		return Outcome{}, err
	}
	c.state = to
	delete(b.pending, c.req.ID)
	o := outcomeFor(c.req, d, by)
	o.Reason = reason
	c.done <- o
	ev := o
	ev.Arguments = bytes.Clone(o.Arguments)
	b.enqueueLocked(EventResolved, Resolution{ID: c.req.ID, Outcome: ev})
	return o, nil
}

// releaseLocked settles every waiting call that match selects, in arrival order.
func (b *Broker) releaseLocked(match func(*call) bool, d Decision, by DecidedBy) {
	for _, c := range b.pendingLocked(match) {
		_, _ = b.settleLocked(c, d, by) // cannot fail: c is pending
	}
}

// pendingLocked returns the waiting calls that match selects, in arrival
// order; calls being decided are not waiting.
func (b *Broker) pendingLocked(match func(*call) bool) []*call {
	var calls []*call
	for _, c := range b.pending {
		if !c.deciding && match(c) {
			calls = append(calls, c)
		}
	}
	slices.SortFunc(calls, func(x, y *call) int { return cmp.Compare(x.seq, y.seq) })
	return calls
}

func (b *Broker) enqueueLocked(name string, payload any) {
	b.outbox = append(b.outbox, event{name: name, payload: payload})
}

// flush emits queued events. One goroutine flushes at a time, so events reach
// the Emitter in the order the state changed; a goroutine that finds another
// flushing leaves its events to it. An Emit that calls back into the Broker
// therefore never deadlocks, and its events follow the current one.
func (b *Broker) flush() {
	b.mu.Lock()
	if b.flushing {
		b.mu.Unlock()
		return
	}
	b.flushing = true
	done := false
	defer func() {
		if !done { // Emit panicked, with mu unlocked: let the next call flush.
			b.mu.Lock()
			b.flushing = false
			b.mu.Unlock()
		}
	}()
	for len(b.outbox) > 0 {
		ev := b.outbox[0]
		b.outbox[0] = event{}
		b.outbox = b.outbox[1:]
		b.mu.Unlock()
		b.emitter.Emit(ev.name, ev.payload)
		b.mu.Lock()
	}
	b.outbox = nil
	b.flushing = false
	done = true
	b.mu.Unlock()
}

func outcomeFor(r Request, d Decision, by DecidedBy) Outcome {
	o := Outcome{Allowed: d.Allows(), Decision: d, DecidedBy: by}
	if o.Allowed {
		o.Arguments = bytes.Clone(r.Arguments)
	}
	return o
}

func cloneRequest(r Request) Request {
	if r.Hints != nil {
		h := *r.Hints
		r.Hints = &h
	}
	if r.Guard != nil {
		g := *r.Guard
		g.PrivateFrom, g.UntrustedFrom = slices.Clone(g.PrivateFrom), slices.Clone(g.UntrustedFrom)
		r.Guard = &g
	}
	r.Arguments = bytes.Clone(r.Arguments)
	r.InputSchema = bytes.Clone(r.InputSchema)
	r.PreviousInputSchema = bytes.Clone(r.PreviousInputSchema)
	return r
}

func (r *Request) validate() error {
	var problem string
	switch {
	case r.ID == "":
		problem = "missing id"
	case r.ServerID == "":
		problem = "missing server id"
	case r.Tool == "":
		problem = "missing tool name"
	case len(r.Arguments) > 0 && !json.Valid(r.Arguments):
		problem = "arguments are not valid JSON"
	case len(r.InputSchema) > 0 && !json.Valid(r.InputSchema):
		problem = "input schema is not valid JSON"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvalidRequest, problem)
}

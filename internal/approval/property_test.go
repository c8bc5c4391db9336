package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// The property tests drive a Broker with a sequence of operations decoded
// from bytes (4 per operation) and check it, after every operation, against
// a model kept by hand: which calls resolved and how, what a fake tool server
// really ran and with which arguments, what is pending, the policy in memory
// and in the store, and the events.

func TestBrokerModel(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			ops := make([]byte, 4*250)
			for i := range ops {
				ops[i] = byte(rng.Uint32())
			}
			runModel(t, ops)
		})
	}
}

func FuzzBroker(f *testing.F) {
	f.Add([]byte{})
	// request, decide always, request same tool (auto-allowed), revoke, request.
	f.Add([]byte{0, 0, 0, 0, 5, 0, 1, 0, 1, 0, 0, 0, 10, 0, 0, 0, 2, 0, 0, 0})
	// two requests, yolo on, request, yolo off, request, close.
	f.Add([]byte{0, 1, 1, 1, 1, 2, 2, 2, 11, 0, 0, 0, 3, 0, 0, 0, 11, 1, 0, 0, 4, 0, 0, 0, 15, 0, 0, 0})
	// request, store fails, decide always, request same tool (asks again).
	f.Add([]byte{0, 0, 0, 0, 13, 0, 0, 0, 6, 0, 1, 0, 1, 0, 0, 0})
	// grant, server changes, request with the new fingerprint, cancel its ctx.
	f.Add([]byte{0, 0, 0, 0, 5, 0, 1, 0, 12, 0, 1, 0, 1, 0, 0, 0, 8, 1, 0, 0})
	// three requests in two conversations, cancel one conversation, duplicate id, deny.
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 1, 2, 0, 2, 2, 9, 0, 0, 0, 14, 0, 0, 0, 7, 0, 3, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 4*400 {
			ops = ops[:4*400]
		}
		runModel(t, ops)
	})
}

// A toolServer is the fake MCP server: it records every call it really got.
type toolServer struct {
	mu  sync.Mutex
	ran map[string]string // call ID → arguments it ran with
}

func (s *toolServer) call(id string, args json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.ran[id]; dup {
		panic("call " + id + " ran twice")
	}
	s.ran[id] = string(args)
}

func (s *toolServer) calls() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.ran)
}

// An inflight is one Request made by the model test.
type inflight struct {
	r       Request // as requested, with its own copy of the arguments
	cancel  context.CancelFunc
	ch      <-chan result
	got     *result
	checked bool // got was compared with the model's outcome
}

type harness struct {
	t     *testing.T
	b     *Broker
	rec   *recorder
	store *flakyStore
	srv   *toolServer

	calls    map[string]*inflight
	n        int
	failNext bool

	// The model.
	yolo, storedYolo bool
	grants, stored   map[grantKey]Grant
	pending          []Request
	closed           bool
	fingerprint      map[string]string // current fingerprint per server
	want             map[string]Outcome
	wantRan          map[string]string
	wantEvents       []recorded
}

func runModel(t *testing.T, ops []byte) {
	synctest.Test(t, func(t *testing.T) {
		h := &harness{
			t: t, rec: &recorder{}, store: &flakyStore{}, srv: &toolServer{ran: map[string]string{}},
			calls: map[string]*inflight{}, grants: map[grantKey]Grant{}, stored: map[grantKey]Grant{},
			fingerprint: map[string]string{}, want: map[string]Outcome{}, wantRan: map[string]string{},
		}
		h.b = NewBroker(&Options{Store: h.store, Emitter: h.rec, Now: fixedNow})
		if err := h.b.Load(t.Context()); err != nil {
			t.Fatalf("Load: %v", err)
		}
		h.rec.take()
		for i := 0; i+4 <= len(ops); i += 4 {
			h.step(ops[i : i+4])
			synctest.Wait()
			h.check(fmt.Sprintf("op %d %v", i/4, ops[i:i+4]))
			if t.Failed() {
				return
			}
		}
		h.close()
		synctest.Wait()
		h.check("final Close")
		h.checkRan()
	})
}

func (h *harness) step(op []byte) {
	failing := h.failNext
	h.failNext = false
	h.store.failWrites.Store(failing)
	defer h.store.failWrites.Store(false)

	x, y, z := op[1], op[2], op[3]
	switch op[0] % 16 {
	case 0, 1, 2, 3, 4:
		h.request(x, y, z)
	case 5, 6, 7:
		h.decide(x, y, failing)
	case 8:
		h.cancelCtx(x)
	case 9:
		h.cancelConversation(x)
	case 10:
		h.revoke(x, y, failing)
	case 11:
		h.setYolo(x%4 == 0, failing)
	case 12:
		h.serverChanged(x, y, failing)
	case 13:
		h.failNext = true
	case 14:
		h.duplicate(x)
	case 15:
		if x == 0 && y%8 == 0 { // rare, or little would happen after it
			h.close()
		} else {
			h.request(x, y, z)
		}
	}
}

func (h *harness) request(x, y, z byte) {
	h.n++
	server := fmt.Sprint("s", y%3)
	fp := h.currentFingerprint(server)
	if x&0x80 != 0 { // a caller that computed another fingerprint
		fp = fmt.Sprint("v", (x>>4)%3)
	}
	args := fmt.Sprintf(`{"n":%d,"path":"/tmp/%d"}`, h.n, x)
	buf := []byte(args)
	r := Request{
		ID: fmt.Sprint("c", h.n), ConversationID: fmt.Sprint("conv", x%3), ServerID: server,
		ServerName: "Server " + server, Tool: fmt.Sprint("t", z%3), Fingerprint: fp, Arguments: buf,
		// The server may have changed the tool's definition.
		DefinitionHash: fmt.Sprint("d", (z>>4)&1), Description: fmt.Sprint("definition ", (z>>4)&1),
	}
	ctx, cancel := context.WithCancel(h.t.Context())
	ch := make(chan result, 1)
	go func() {
		o, err := h.b.Request(ctx, r)
		if err == nil && o.Allowed {
			h.srv.call(r.ID, o.Arguments) // a caller runs exactly the approved arguments
		}
		ch <- result{o, err}
	}()
	synctest.Wait()
	for i := range buf {
		buf[i] = 'x' // the caller reuses its buffer
	}

	r.Arguments = json.RawMessage(args)
	h.calls[r.ID] = &inflight{r: r, cancel: cancel, ch: ch}
	switch {
	case h.closed:
		h.resolve(r, Cancelled, BySystem, false)
	case h.yolo:
		h.resolve(r, AllowAll, ByPolicy, false)
	case h.granted(r):
		h.resolve(r, AllowAlways, ByPolicy, false)
	default:
		if g, ok := h.grants[grantKey{r.ServerID, r.Tool}]; ok && g.Fingerprint == r.Fingerprint {
			r.Changed, r.PreviousDescription = true, g.Description // allowed before, in another definition
		}
		h.pending = append(h.pending, r)
		h.wantEvents = append(h.wantEvents, requested(r))
	}
}

func (h *harness) decide(x, y byte, failing bool) {
	decisions := []Decision{AllowOnce, AllowAlways, AllowAlways, AllowAll, Deny, AllowOnce, Deny, Deny, Cancelled, "maybe"}
	d := decisions[int(y)%len(decisions)]
	var id string
	if len(h.pending) == 0 || x%8 == 7 {
		id = fmt.Sprint("c", int(x)%(h.n+1)+1) // resolved, pending or never made
	} else {
		id = h.pending[int(x)%len(h.pending)].ID
	}
	err := h.b.Decide(h.t.Context(), id, d)

	var wantErr error
	i := slices.IndexFunc(h.pending, func(r Request) bool { return r.ID == id })
	switch {
	case d == Cancelled || d == "maybe":
		wantErr = ErrInvalidDecision
	case i < 0:
		wantErr = ErrUnknownRequest
	default:
		r := h.pending[i]
		h.resolve(r, d, ByUser, true)
		switch {
		case d == AllowAlways && failing:
			wantErr = ErrNotRemembered
			h.policyEvent()
		case d == AllowAlways:
			g := Grant{ServerID: r.ServerID, Tool: r.Tool, Fingerprint: r.Fingerprint,
				DefinitionHash: r.DefinitionHash, Description: r.Description, CreatedAt: epoch}
			h.grants[grantKey{r.ServerID, r.Tool}] = g
			h.stored[grantKey{r.ServerID, r.Tool}] = g
			h.release(func(p Request) bool { return h.granted(p) }, AllowAlways)
			h.policyEvent()
		case d == AllowAll && failing:
			wantErr = ErrNotRemembered
			h.policyEvent()
		case d == AllowAll:
			h.yolo, h.storedYolo = true, true
			h.release(func(Request) bool { return true }, AllowAll)
			h.policyEvent()
		}
	}
	h.checkErr(fmt.Sprintf("Decide(%s, %s)", id, d), err, wantErr)
}

func (h *harness) cancelCtx(x byte) {
	if h.n == 0 {
		return
	}
	id := fmt.Sprint("c", int(x)%h.n+1)
	h.calls[id].cancel()
	if i := slices.IndexFunc(h.pending, func(r Request) bool { return r.ID == id }); i >= 0 {
		h.resolve(h.pending[i], Cancelled, BySystem, true)
	}
}

func (h *harness) cancelConversation(x byte) {
	conv := fmt.Sprint("conv", x%4) // conv3 never has calls
	h.b.CancelConversation(conv)
	h.release(func(r Request) bool { return r.ConversationID == conv }, Cancelled)
}

func (h *harness) revoke(x, y byte, failing bool) {
	server, tool := fmt.Sprint("s", x%3), fmt.Sprint("t", y%3)
	err := h.b.Revoke(h.t.Context(), server, tool)
	delete(h.grants, grantKey{server, tool})
	var wantErr error
	if failing {
		wantErr = errStoreDown
	} else {
		delete(h.stored, grantKey{server, tool})
	}
	h.policyEvent()
	h.checkErr(fmt.Sprintf("Revoke(%s, %s)", server, tool), err, wantErr)
}

func (h *harness) setYolo(on, failing bool) {
	err := h.b.SetYolo(h.t.Context(), on)
	var wantErr error
	switch {
	case failing:
		wantErr = errStoreDown
		if !on {
			h.yolo = false
		}
	default:
		h.yolo, h.storedYolo = on, on
		if on {
			h.release(func(Request) bool { return true }, AllowAll)
		}
	}
	h.policyEvent()
	h.checkErr(fmt.Sprintf("SetYolo(%v)", on), err, wantErr)
}

func (h *harness) serverChanged(x, y byte, failing bool) {
	server, fp := fmt.Sprint("s", x%3), fmt.Sprint("v", y%3)
	h.fingerprint[server] = fp
	err := h.b.ServerChanged(h.t.Context(), server, fp)
	// Calls waiting for a decision about the old program are cancelled.
	for _, r := range slices.Clone(h.pending) {
		if r.ServerID == server && r.Fingerprint != fp {
			h.resolveWhy(r, Cancelled, BySystem, true, ReasonServerChanged)
		}
	}
	var wantErr error
	for k, g := range h.grants {
		if k.serverID != server || g.Fingerprint == fp {
			continue
		}
		delete(h.grants, k)
		if failing {
			wantErr = errStoreDown
		} else {
			delete(h.stored, k)
		}
	}
	h.policyEvent()
	h.checkErr(fmt.Sprintf("ServerChanged(%s, %s)", server, fp), err, wantErr)
}

// duplicate requests with the ID of a waiting call, which must be refused.
func (h *harness) duplicate(x byte) {
	if len(h.pending) == 0 {
		return
	}
	r := h.pending[int(x)%len(h.pending)]
	r.Arguments = json.RawMessage(`{"evil":true}`)
	o, err := h.b.Request(h.t.Context(), r)
	h.checkErr("duplicate Request "+r.ID, err, ErrInvalidRequest)
	if o.Allowed {
		h.t.Errorf("duplicate Request %s allowed: %+v", r.ID, o)
	}
}

func (h *harness) close() {
	if err := h.b.Close(); err != nil {
		h.t.Errorf("Close: %v", err)
	}
	h.closed = true
	h.release(func(Request) bool { return true }, Cancelled)
}

func (h *harness) currentFingerprint(server string) string {
	if fp, ok := h.fingerprint[server]; ok {
		return fp
	}
	return "v0"
}

func (h *harness) granted(r Request) bool {
	g, ok := h.grants[grantKey{r.ServerID, r.Tool}]
	return ok && g.Fingerprint == r.Fingerprint && g.DefinitionHash == r.DefinitionHash
}

// resolve records the outcome r must get, and the event if r was waiting.
func (h *harness) resolve(r Request, d Decision, by DecidedBy, waiting bool) {
	h.resolveWhy(r, d, by, waiting, "")
}

// resolveWhy is resolve with the outcome's Reason.
func (h *harness) resolveWhy(r Request, d Decision, by DecidedBy, waiting bool, reason string) {
	o := refused(d, by)
	o.Reason = reason
	if d.Allows() {
		o = allowed(r, d, by)
		h.wantRan[r.ID] = string(r.Arguments)
	}
	h.want[r.ID] = o
	if waiting {
		h.pending = slices.DeleteFunc(h.pending, func(p Request) bool { return p.ID == r.ID })
		h.wantEvents = append(h.wantEvents, resolved(r.ID, o))
	}
}

// release resolves, in arrival order, the waiting calls that match selects.
func (h *harness) release(match func(Request) bool, d Decision) {
	by := ByPolicy
	if d == Cancelled {
		by = BySystem
	}
	for _, r := range slices.Clone(h.pending) {
		if match(r) {
			h.resolve(r, d, by, true)
		}
	}
}

func (h *harness) policyEvent() {
	h.wantEvents = append(h.wantEvents, policyEvent(Policy{Yolo: h.yolo, Grants: sortedGrants(h.grants, func(Grant) bool { return true })}))
}

func (h *harness) checkErr(what string, err, want error) {
	h.t.Helper()
	if !errors.Is(err, want) || (want == nil && err != nil) {
		h.t.Errorf("%s error = %v, want %v", what, err, want)
	}
}

// check compares the broker with the model after one operation.
func (h *harness) check(after string) {
	t := h.t
	t.Helper()
	for id, c := range h.calls {
		if c.checked {
			continue
		}
		if res, done := poll(c.ch); done {
			c.got = &res
		}
		want, resolved := h.want[id]
		switch {
		case !resolved && c.got != nil:
			t.Errorf("after %s: call %s resolved with %+v, want it waiting", after, id, *c.got)
		case resolved && c.got == nil:
			t.Errorf("after %s: call %s still waiting, want %+v", after, id, want)
		case resolved:
			c.checked = true
			if diff := quickDiff(result{Outcome: want}, *c.got); diff != "" {
				t.Errorf("after %s: call %s result mismatch (-want +got):\n%s", after, id, diff)
			}
		}
	}
	if diff := quickDiff(h.wantRan, h.srv.calls()); diff != "" {
		t.Errorf("after %s: calls the tool server ran mismatch (-want +got):\n%s", after, diff)
	}
	wantPending := append([]Request{}, h.pending...)
	if diff := quickDiff(wantPending, h.b.Pending()); diff != "" {
		t.Errorf("after %s: Pending() mismatch (-want +got):\n%s", after, diff)
	}
	all := func(Grant) bool { return true }
	grants, err := h.b.Grants(t.Context())
	if err != nil {
		t.Fatalf("after %s: Grants: %v", after, err)
	}
	if diff := quickDiff(Policy{Yolo: h.yolo, Grants: sortedGrants(h.grants, all)}, Policy{Yolo: h.b.Yolo(), Grants: grants}); diff != "" {
		t.Errorf("after %s: policy mismatch (-want +got):\n%s", after, diff)
	}
	stored, _ := h.store.MemoryPolicyStore.Grants(t.Context())
	storedYolo, _ := h.store.MemoryPolicyStore.Yolo(t.Context())
	if diff := quickDiff(Policy{Yolo: h.storedYolo, Grants: sortedGrants(h.stored, all)}, Policy{Yolo: storedYolo, Grants: stored}); diff != "" {
		t.Errorf("after %s: stored policy mismatch (-want +got):\n%s", after, diff)
	}
	gotEvents := h.rec.take()
	if diff := quickDiff(h.wantEvents, gotEvents); diff != "" {
		t.Errorf("after %s: events mismatch (-want +got):\n%s", after, diff)
	}
	h.wantEvents = nil
}

// checkRan states the safety property on its own: every call the tool
// server ran had an allowing outcome, and ran with exactly the arguments
// requested.
func (h *harness) checkRan() {
	for id, args := range h.srv.calls() {
		c := h.calls[id]
		switch {
		case c.got == nil:
			h.t.Errorf("call %s ran but its Request never returned", id)
		case !c.got.Outcome.Allowed || !c.got.Outcome.Decision.Allows():
			h.t.Errorf("call %s ran with outcome %+v", id, c.got.Outcome)
		case args != string(c.r.Arguments):
			h.t.Errorf("call %s ran with %s, requested %s", id, args, c.r.Arguments)
		}
	}
}

// quickDiff is cmp.Diff, skipped when reflect.DeepEqual already says equal:
// the model checks thousands of states, and cmp is slow under -race.
func quickDiff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

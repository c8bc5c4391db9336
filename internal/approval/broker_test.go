package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestDecideFromPending(t *testing.T) {
	a := req("a", "conv1", "s1", "t1", "fp1")
	tests := []struct {
		decision   Decision
		wantErr    error
		want       *Outcome // nil: the call still waits
		wantEvents []recorded
		wantPolicy Policy
	}{
		{
			decision:   AllowOnce,
			want:       new(allowed(a, AllowOnce, ByUser)),
			wantEvents: []recorded{requested(a), resolved("a", allowed(a, AllowOnce, ByUser))},
			wantPolicy: policy(false),
		},
		{
			decision: AllowAlways,
			want:     new(allowed(a, AllowAlways, ByUser)),
			wantEvents: []recorded{
				requested(a), resolved("a", allowed(a, AllowAlways, ByUser)),
				policyEvent(policy(false, grant("s1", "t1", "fp1"))),
			},
			wantPolicy: policy(false, grant("s1", "t1", "fp1")),
		},
		{
			decision: AllowAll,
			want:     new(allowed(a, AllowAll, ByUser)),
			wantEvents: []recorded{
				requested(a), resolved("a", allowed(a, AllowAll, ByUser)), policyEvent(policy(true)),
			},
			wantPolicy: policy(true),
		},
		{
			decision:   Deny,
			want:       new(refused(Deny, ByUser)),
			wantEvents: []recorded{requested(a), resolved("a", refused(Deny, ByUser))},
			wantPolicy: policy(false),
		},
		{decision: Cancelled, wantErr: ErrInvalidDecision, wantEvents: []recorded{requested(a)}, wantPolicy: policy(false)},
		{decision: "bogus", wantErr: ErrInvalidDecision, wantEvents: []recorded{requested(a)}, wantPolicy: policy(false)},
		{decision: "", wantErr: ErrInvalidDecision, wantEvents: []recorded{requested(a)}, wantPolicy: policy(false)},
	}
	for _, tt := range tests {
		t.Run(string(tt.decision), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, rec := newTestBroker(t, nil)
				defer b.Close()
				ch := startWaiting(t, b, a)

				err := b.Decide(t.Context(), "a", tt.decision)
				synctest.Wait()
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("Decide(%q) error = %v, want %v", tt.decision, err, tt.wantErr)
				}
				res, done := poll(ch)
				switch {
				case tt.want == nil && done:
					t.Fatalf("call resolved with %+v, want it still waiting", res)
				case tt.want == nil:
					if diff := cmp.Diff([]Request{a}, b.Pending()); diff != "" {
						t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
					}
				case !done:
					t.Fatal("call still waiting, want it resolved")
				default:
					if diff := cmp.Diff(result{Outcome: *tt.want}, res); diff != "" {
						t.Errorf("Request result mismatch (-want +got):\n%s", diff)
					}
					if got := b.Pending(); len(got) != 0 {
						t.Errorf("Pending() = %v, want none", got)
					}
				}
				if diff := cmp.Diff(tt.wantEvents, rec.take()); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
				assertPolicy(t, b, tt.wantPolicy)
			})
		})
	}
}

// resolvers resolve the waiting call a (conversation conv1) in every way there is.
var resolvers = []struct {
	name    string
	resolve func(ctx context.Context, b *Broker, cancel context.CancelFunc) error
	want    func(r Request) Outcome
}{
	{"allow_once", decider(AllowOnce), func(r Request) Outcome { return allowed(r, AllowOnce, ByUser) }},
	{"allow_always", decider(AllowAlways), func(r Request) Outcome { return allowed(r, AllowAlways, ByUser) }},
	{"allow_all", decider(AllowAll), func(r Request) Outcome { return allowed(r, AllowAll, ByUser) }},
	{"deny", decider(Deny), func(Request) Outcome { return refused(Deny, ByUser) }},
	{"ctx", func(_ context.Context, _ *Broker, cancel context.CancelFunc) error {
		cancel()
		return nil
	}, func(Request) Outcome { return refused(Cancelled, BySystem) }},
	{"conversation", func(_ context.Context, b *Broker, _ context.CancelFunc) error {
		b.CancelConversation("conv1")
		return nil
	}, func(Request) Outcome { return refused(Cancelled, BySystem) }},
	{"close", func(_ context.Context, b *Broker, _ context.CancelFunc) error {
		return b.Close()
	}, func(Request) Outcome { return refused(Cancelled, BySystem) }},
}

func decider(d Decision) func(context.Context, *Broker, context.CancelFunc) error {
	return func(ctx context.Context, b *Broker, _ context.CancelFunc) error {
		return b.Decide(ctx, "a", d)
	}
}

// A resolved call is final: a second decision of any kind fails and changes
// nothing.
func TestDecideAfterResolved(t *testing.T) {
	a := req("a", "conv1", "s1", "t1", "fp1")
	for _, first := range resolvers {
		for _, second := range append(allDecisions, "bogus") {
			t.Run(fmt.Sprintf("%s/then/%s", first.name, second), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					b, rec := newTestBroker(t, nil)
					defer b.Close()
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					ch := start(ctx, b, a)
					synctest.Wait()
					if err := first.resolve(t.Context(), b, cancel); err != nil {
						t.Fatalf("resolving %s: %v", first.name, err)
					}
					synctest.Wait()
					res, done := poll(ch)
					if !done {
						t.Fatal("call still waiting after the first decision")
					}
					if diff := cmp.Diff(result{Outcome: first.want(a)}, res); diff != "" {
						t.Errorf("first result mismatch (-want +got):\n%s", diff)
					}
					rec.take()
					grants, _ := b.Grants(t.Context())
					before := Policy{Yolo: b.Yolo(), Grants: grants}

					err := b.Decide(t.Context(), "a", second)
					wantErr := ErrUnknownRequest
					if !second.Allows() && second != Deny {
						wantErr = ErrInvalidDecision
					}
					if !errors.Is(err, wantErr) {
						t.Errorf("second Decide(%q) error = %v, want %v", second, err, wantErr)
					}
					synctest.Wait()
					if evs := rec.take(); len(evs) != 0 {
						t.Errorf("second Decide emitted %v, want nothing", evs)
					}
					assertPolicy(t, b, before)
				})
			})
		}
	}
}

func TestRequestPolicy(t *testing.T) {
	r := req("a", "conv1", "s1", "t1", "fp1")
	tests := []struct {
		name   string
		grants []Grant
		yolo   bool
		r      Request
		want   *Outcome // nil: the call waits for the user
	}{
		{name: "no policy asks", r: r},
		{name: "yolo allows", yolo: true, r: r, want: new(allowed(r, AllowAll, ByPolicy))},
		{
			name: "yolo ignores fingerprints", yolo: true, grants: []Grant{grant("s1", "t1", "old")},
			r: r, want: new(allowed(r, AllowAll, ByPolicy)),
		},
		{name: "grant allows", grants: []Grant{grant("s1", "t1", "fp1")}, r: r, want: new(allowed(r, AllowAlways, ByPolicy))},
		{name: "grant of same tool on another server asks", grants: []Grant{grant("s2", "t1", "fp1")}, r: r},
		{name: "grant of another tool asks", grants: []Grant{grant("s1", "t2", "fp1")}, r: r},
		{name: "grant for another fingerprint asks", grants: []Grant{grant("s1", "t1", "fp0")}, r: r},
		{
			name: "empty fingerprints match", grants: []Grant{grant("s1", "t1", "")},
			r: req("a", "conv1", "s1", "t1", ""), want: new(allowed(req("a", "conv1", "s1", "t1", ""), AllowAlways, ByPolicy)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := new(MemoryPolicyStore)
				for _, g := range tt.grants {
					if err := store.PutGrant(t.Context(), g); err != nil {
						t.Fatal(err)
					}
				}
				if err := store.SetYolo(t.Context(), tt.yolo); err != nil {
					t.Fatal(err)
				}
				b, rec := newTestBroker(t, store)
				defer b.Close()

				// Decided gives the policy's answer without asking or
				// announcing anything.
				out, ok := b.Decided(t.Context(), tt.r)
				if ok != (tt.want != nil) {
					t.Errorf("Decided ok = %v, want %v", ok, tt.want != nil)
				} else if ok {
					if diff := cmp.Diff(*tt.want, out); diff != "" {
						t.Errorf("Decided mismatch (-want +got):\n%s", diff)
					}
				}
				if evs := rec.take(); len(evs) != 0 {
					t.Errorf("Decided emitted %+v", evs)
				}

				ch := startWaiting(t, b, tt.r)

				res, done := poll(ch)
				var wantEvents []recorded
				if tt.want == nil {
					if done {
						t.Fatalf("call resolved with %+v, want it waiting", res)
					}
					wantEvents = []recorded{requested(tt.r)}
				} else if diff := cmp.Diff(result{Outcome: *tt.want}, res); diff != "" {
					t.Errorf("Request result mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantEvents, rec.take()); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// An "always" answer releases the waiting calls of the same server, tool and
// fingerprint, and no other; an "all" answer releases every waiting call.
func TestPolicyDecisionReleasesWaiters(t *testing.T) {
	calls := []Request{
		req("a", "conv1", "s1", "t1", "fp1"), // decided by the user
		req("b", "conv2", "s1", "t1", "fp1"), // same server and tool
		req("c", "conv1", "s2", "t1", "fp1"), // same tool, other server
		req("d", "conv1", "s1", "t2", "fp1"), // same server, other tool
		req("e", "conv1", "s1", "t1", "fp2"), // same tool, other fingerprint
	}
	tests := []struct {
		decision Decision
		want     map[string]Outcome // by call ID; absent: still waiting
	}{
		{AllowAlways, map[string]Outcome{
			"a": allowed(calls[0], AllowAlways, ByUser),
			"b": allowed(calls[1], AllowAlways, ByPolicy),
		}},
		{AllowAll, map[string]Outcome{
			"a": allowed(calls[0], AllowAll, ByUser),
			"b": allowed(calls[1], AllowAll, ByPolicy),
			"c": allowed(calls[2], AllowAll, ByPolicy),
			"d": allowed(calls[3], AllowAll, ByPolicy),
			"e": allowed(calls[4], AllowAll, ByPolicy),
		}},
		{AllowOnce, map[string]Outcome{"a": allowed(calls[0], AllowOnce, ByUser)}},
		{Deny, map[string]Outcome{"a": refused(Deny, ByUser)}},
	}
	for _, tt := range tests {
		t.Run(string(tt.decision), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, rec := newTestBroker(t, nil)
				defer b.Close()
				chs := make(map[string]<-chan result)
				for _, r := range calls {
					chs[r.ID] = startWaiting(t, b, r)
				}
				rec.take()
				if err := b.Decide(t.Context(), "a", tt.decision); err != nil {
					t.Fatalf("Decide: %v", err)
				}
				synctest.Wait()

				got := make(map[string]Outcome)
				for id, ch := range chs {
					if res, done := poll(ch); done {
						got[id] = res.Outcome
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("resolved calls mismatch (-want +got):\n%s", diff)
				}
				wantPending := []Request{}
				var wantResolved []recorded
				for _, r := range calls { // events follow arrival order
					if o, ok := tt.want[r.ID]; ok {
						wantResolved = append(wantResolved, resolved(r.ID, o))
					} else {
						wantPending = append(wantPending, r)
					}
				}
				if diff := cmp.Diff(wantPending, b.Pending()); diff != "" {
					t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
				}
				var gotResolved []recorded
				for _, ev := range rec.take() {
					if ev.Name == EventResolved {
						gotResolved = append(gotResolved, ev)
					}
				}
				if diff := cmp.Diff(wantResolved, gotResolved); diff != "" {
					t.Errorf("resolved events mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// The arguments that run are the ones requested, whatever the caller, the
// frontend or another holder does to their copies.
func TestArgumentsAreExactCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		original := `{"path":"/tmp/a"}`
		buf := []byte(original)
		r := req("a", "conv1", "s1", "t1", "fp1")
		r.Arguments = buf
		ch := startWaiting(t, b, r)

		copy(buf, `{"path":"/etc/x"}`) // the caller reuses its buffer
		for _, ev := range rec.take() {
			if pr, ok := ev.Payload.(Request); ok {
				copy(pr.Arguments, "XXXX") // the frontend scribbles on the event
			}
		}
		for _, p := range b.Pending() {
			copy(p.Arguments, "YYYY")
		}
		if err := b.Decide(t.Context(), "a", AllowOnce); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		synctest.Wait()
		res, _ := poll(ch)
		if diff := cmp.Diff(json.RawMessage(original), res.Outcome.Arguments); diff != "" {
			t.Errorf("approved arguments mismatch (-want +got):\n%s", diff)
		}
		ev := rec.take()[0].Payload.(Resolution)
		copy(ev.Outcome.Arguments, "ZZZZ")
		if diff := cmp.Diff(json.RawMessage(original), res.Outcome.Arguments); diff != "" {
			t.Errorf("approved arguments changed through the event (-want +got):\n%s", diff)
		}
	})
}

func TestRequestInvalid(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Request)
	}{
		{"no id", func(r *Request) { r.ID = "" }},
		{"no server", func(r *Request) { r.ServerID = "" }},
		{"no tool", func(r *Request) { r.Tool = "" }},
		{"arguments not JSON", func(r *Request) { r.Arguments = json.RawMessage(`{"a":`) }},
		{"id already waiting", func(r *Request) { r.ID = "dup" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, rec := newTestBroker(t, nil)
				defer b.Close()
				startWaiting(t, b, req("dup", "conv1", "s9", "t9", "fp9"))
				rec.take()

				r := req("a", "conv1", "s1", "t1", "fp1")
				tt.edit(&r)
				o, err := b.Request(t.Context(), r)
				if !errors.Is(err, ErrInvalidRequest) {
					t.Errorf("Request error = %v, want ErrInvalidRequest", err)
				}
				if o.Allowed {
					t.Errorf("Request allowed an invalid call: %+v", o)
				}
				if evs := rec.take(); len(evs) != 0 {
					t.Errorf("events = %v, want none", evs)
				}
			})
		})
	}
}

func TestRequestWithoutArguments(t *testing.T) {
	b, _ := newTestBroker(t, nil)
	defer b.Close()
	if err := b.SetYolo(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	r := req("a", "conv1", "s1", "t1", "fp1")
	r.Arguments = nil
	o, err := b.Request(t.Context(), r)
	want := Outcome{Allowed: true, Decision: AllowAll, DecidedBy: ByPolicy}
	if diff := cmp.Diff(result{Outcome: want}, result{o, err}); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
}

func TestPendingArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := newTestBroker(t, nil)
		defer b.Close()
		var want []Request
		for _, id := range []string{"z", "b", "y", "a", "m"} {
			r := req(id, "conv1", "s1", "t-"+id, "fp1")
			want = append(want, r)
			startWaiting(t, b, r)
		}
		if diff := cmp.Diff(want, b.Pending()); diff != "" {
			t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
		}
		if err := b.Decide(t.Context(), "y", Deny); err != nil {
			t.Fatal(err)
		}
		want = append(want[:2], want[3:]...)
		if diff := cmp.Diff(want, b.Pending()); diff != "" {
			t.Errorf("Pending() after a decision mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestNewBrokerDefaults(t *testing.T) {
	b := NewBroker(nil)
	defer b.Close()
	if b.Yolo() {
		t.Error("Yolo() = true for a new broker")
	}
	if err := b.SetYolo(t.Context(), true); err != nil {
		t.Fatalf("SetYolo: %v", err)
	}
	o, err := b.Request(t.Context(), req("a", "conv1", "s1", "t1", "fp1"))
	if err != nil || !o.Allowed {
		t.Errorf("Request = %+v, %v; want allowed", o, err)
	}
}

// assertPolicy checks the broker's policy and that the store agrees.
func assertPolicy(t *testing.T, b *Broker, want Policy) {
	t.Helper()
	grants, err := b.Grants(t.Context())
	if err != nil {
		t.Fatalf("Grants: %v", err)
	}
	if diff := cmp.Diff(want, Policy{Yolo: b.Yolo(), Grants: grants}); diff != "" {
		t.Errorf("policy mismatch (-want +got):\n%s", diff)
	}
	stored, err := b.store.Grants(t.Context())
	if err != nil {
		t.Fatalf("store Grants: %v", err)
	}
	yolo, err := b.store.Yolo(t.Context())
	if err != nil {
		t.Fatalf("store Yolo: %v", err)
	}
	if diff := cmp.Diff(want, Policy{Yolo: yolo, Grants: stored}); diff != "" {
		t.Errorf("stored policy mismatch (-want +got):\n%s", diff)
	}
}

// Decided never answers for a closed broker, a cancelled context or an
// invalid request: Request has the last word on those.
func TestDecidedRefusesToGuess(t *testing.T) {
	store := new(MemoryPolicyStore)
	if err := store.SetYolo(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	b, _ := newTestBroker(t, store)
	r := req("a", "conv1", "s1", "t1", "fp1")
	if _, ok := b.Decided(t.Context(), Request{}); ok {
		t.Error("an invalid request was decided")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, ok := b.Decided(ctx, r); ok {
		t.Error("decided under a cancelled context")
	}
	if _, ok := b.Decided(t.Context(), r); !ok {
		t.Error("yolo did not decide")
	}
	b.Close()
	if _, ok := b.Decided(t.Context(), r); ok {
		t.Error("a closed broker decided")
	}
}

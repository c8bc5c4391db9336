package approval

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The waiter is registered before approval:requested goes out: a frontend that
// answers inside Emit must still resolve the call, and nothing deadlocks.
func TestWaiterRegisteredBeforeEmit(t *testing.T) {
	a := req("a", "conv1", "s1", "t1", "fp1")
	tests := []struct {
		name  string
		react func(ctx context.Context, b *Broker) error
		want  Outcome
	}{
		{"allow_once", func(ctx context.Context, b *Broker) error { return b.Decide(ctx, "a", AllowOnce) }, allowed(a, AllowOnce, ByUser)},
		{"allow_always", func(ctx context.Context, b *Broker) error { return b.Decide(ctx, "a", AllowAlways) }, allowed(a, AllowAlways, ByUser)},
		{"allow_all", func(ctx context.Context, b *Broker) error { return b.Decide(ctx, "a", AllowAll) }, allowed(a, AllowAll, ByUser)},
		{"deny", func(ctx context.Context, b *Broker) error { return b.Decide(ctx, "a", Deny) }, refused(Deny, ByUser)},
		{"yolo", func(ctx context.Context, b *Broker) error { return b.SetYolo(ctx, true) }, allowed(a, AllowAll, ByPolicy)},
		{"conversation", func(_ context.Context, b *Broker) error { b.CancelConversation("conv1"); return nil }, refused(Cancelled, BySystem)},
		{"close", func(_ context.Context, b *Broker) error { return b.Close() }, refused(Cancelled, BySystem)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, rec := newTestBroker(t, nil)
			defer b.Close()
			var reactErr error
			rec.OnEmit = func(name string, payload any) {
				if name == EventRequested && payload.(Request).ID == "a" {
					reactErr = tt.react(t.Context(), b)
				}
			}
			o, err := b.Request(t.Context(), a) // would block forever if the waiter came late
			if reactErr != nil {
				t.Fatalf("reacting inside Emit: %v", reactErr)
			}
			if diff := cmp.Diff(result{Outcome: tt.want}, result{o, err}); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			evs := rec.take()
			if len(evs) < 2 || evs[0].Name != EventRequested || evs[1].Name != EventResolved {
				t.Errorf("events = %v, want approval:requested, then approval:resolved", evs)
			}
		})
	}
}

// panicOnce panics on its first Emit, then records.
type panicOnce struct {
	recorder
	panicked bool
}

func (p *panicOnce) Emit(name string, payload any) {
	if !p.panicked {
		p.panicked = true
		panic("emitter broke")
	}
	p.recorder.Emit(name, payload)
}

// A panicking Emitter does not stop later events.
func TestEmitPanicDoesNotStopEvents(t *testing.T) {
	em := &panicOnce{}
	b := NewBroker(&Options{Emitter: em})
	defer b.Close()
	func() {
		defer func() { _ = recover() }()
		_ = b.Load(t.Context())
	}()
	if err := b.SetYolo(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	want := []recorded{policyEvent(policy(true))}
	if diff := cmp.Diff(want, em.take()); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

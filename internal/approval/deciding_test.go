package approval

import (
	"context"
	"testing"
)

// A gatedStore holds PutGrant until release is closed, and says when one
// has started.
type gatedStore struct {
	MemoryPolicyStore
	entered chan struct{}
	release chan struct{}
}

func (s *gatedStore) PutGrant(ctx context.Context, g Grant) error {
	s.entered <- struct{}{}
	<-s.release
	return s.MemoryPolicyStore.PutGrant(ctx, g)
}

// "Always allow" releases its call only once the grant is saved, so the
// tool's next call, made as soon as the first returns, is allowed by the
// grant instead of asking again; a cancel that arrives while the grant is
// being saved does not undo the user's decision.
func TestAllowAlwaysSettlesAfterTheGrantIsSaved(t *testing.T) {
	for _, cancelMeanwhile := range []bool{false, true} {
		store := &gatedStore{entered: make(chan struct{}, 1), release: make(chan struct{})}
		rec := &recorder{}
		b := NewBroker(&Options{Store: store, Emitter: rec, Now: fixedNow})
		r := req("c1", "conv", "s", "record", "v1")
		requested := make(chan struct{})
		rec.OnEmit = func(name string, _ any) {
			if name == EventRequested {
				close(requested)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		outcome := make(chan Outcome, 1)
		go func() {
			o, err := b.Request(ctx, r)
			if err != nil {
				t.Error(err)
			}
			outcome <- o
		}()
		<-requested
		decided := make(chan error, 1)
		go func() { decided <- b.Decide(t.Context(), r.ID, AllowAlways) }()
		<-store.entered

		for _, ev := range rec.take() {
			if _, ok := ev.Payload.(Resolution); ok {
				t.Fatalf("the call was resolved before its grant was saved: %+v", ev)
			}
		}
		if p := b.Pending(); len(p) != 0 {
			t.Errorf("Pending() = %+v while the decision is saved; want the call no longer waiting", p)
		}
		if cancelMeanwhile {
			cancel()
			b.CancelConversation("conv")
		}
		close(store.release)
		if err := <-decided; err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if o := <-outcome; !(o.Allowed && o.Decision == AllowAlways && o.DecidedBy == ByUser) {
			t.Fatalf("outcome %+v; want allowed always by the user", o)
		}
		next := req("c2", "conv", "s", "record", "v1")
		if o, ok := b.Decided(t.Context(), next); !ok || o.DecidedBy != ByPolicy {
			t.Errorf("the next call: %+v, %v; want allowed by the saved grant", o, ok)
		}
		cancel()
	}
}

package approval

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests use real goroutines (no synctest bubble) so the race detector
// and the scheduler get to interleave decisions with cancellation.

// waitRequested returns a recorder whose channel gets each requested call's ID.
func waitRequested() (*recorder, <-chan string) {
	ids := make(chan string, 64)
	rec := &recorder{}
	rec.OnEmit = func(name string, payload any) {
		if name == EventRequested {
			ids <- payload.(Request).ID
		}
	}
	return rec, ids
}

// untilClosed calls step again and again, yielding to the scheduler
// before each call, until stop is closed.
func untilClosed(stop <-chan struct{}, step func()) {
	for {
		select {
		case <-stop:
			return
		default:
			runtime.Gosched()
		}
		step()
	}
}

// A user decision racing a cancellation: exactly one wins, the loser learns
// it lost, the outcome and the one resolved event match the winner, and the
// policy changes only if the decision won.
func TestDecisionRacesCancellation(t *testing.T) {
	cancellers := []struct {
		name   string
		cancel func(b *Broker, cancelCtx context.CancelFunc)
	}{
		{"ctx", func(_ *Broker, cancel context.CancelFunc) { cancel() }},
		{"conversation", func(b *Broker, _ context.CancelFunc) { b.CancelConversation("conv1") }},
		{"close", func(b *Broker, _ context.CancelFunc) { _ = b.Close() }},
	}
	a := req("a", "conv1", "s1", "t1", "fp1")
	for _, c := range cancellers {
		for _, d := range []Decision{AllowOnce, AllowAlways, AllowAll, Deny} {
			t.Run(fmt.Sprintf("%s/%s", d, c.name), func(t *testing.T) {
				wins := 0
				for range 60 {
					rec, ids := waitRequested()
					b := NewBroker(&Options{Emitter: rec, Now: fixedNow})
					ctx, cancel := context.WithCancel(t.Context())
					ch := start(ctx, b, a)
					<-ids

					var decideErr error
					var wg sync.WaitGroup
					wg.Go(func() { decideErr = b.Decide(t.Context(), "a", d) })
					wg.Go(func() { c.cancel(b, cancel) })
					wg.Wait()
					res := <-ch
					cancel()
					_ = b.Close()

					want := refused(Cancelled, BySystem)
					switch {
					case decideErr == nil:
						wins++
						want = refused(d, ByUser)
						if d.Allows() {
							want = allowed(a, d, ByUser)
						}
					case !errors.Is(decideErr, ErrUnknownRequest):
						t.Fatalf("Decide error = %v, want nil or ErrUnknownRequest", decideErr)
					}
					if diff := cmp.Diff(result{Outcome: want}, res); diff != "" {
						t.Fatalf("result mismatch (-want +got):\n%s", diff)
					}
					var got []Resolution
					for _, ev := range rec.take() {
						if ev.Name == EventResolved {
							got = append(got, ev.Payload.(Resolution))
						}
					}
					if diff := cmp.Diff([]Resolution{{ID: "a", Outcome: want}}, got); diff != "" {
						t.Fatalf("resolved events mismatch (-want +got):\n%s", diff)
					}
					wantPolicy := policy(false)
					if decideErr == nil && d == AllowAlways {
						wantPolicy = policy(false, grant("s1", "t1", "fp1"))
					}
					if decideErr == nil && d == AllowAll {
						wantPolicy = policy(true)
					}
					assertPolicy(t, b, wantPolicy)
				}
				t.Logf("the decision won %d of 60 races", wins)
			})
		}
	}
}

// Concurrent decisions on one call: exactly one succeeds.
func TestConcurrentDecisionsOneWins(t *testing.T) {
	a := req("a", "conv1", "s1", "t1", "fp1")
	decisions := []Decision{AllowOnce, AllowAlways, AllowAll, Deny, Deny}
	for range 100 {
		rec, ids := waitRequested()
		b := NewBroker(&Options{Emitter: rec, Now: fixedNow})
		ch := start(t.Context(), b, a)
		<-ids
		errs := make([]error, len(decisions))
		var wg sync.WaitGroup
		for i, d := range decisions {
			wg.Go(func() { errs[i] = b.Decide(t.Context(), "a", d) })
		}
		wg.Wait()
		res := <-ch
		_ = b.Close()

		var winners []Decision
		for i, err := range errs {
			switch {
			case err == nil:
				winners = append(winners, decisions[i])
			case !errors.Is(err, ErrUnknownRequest):
				t.Fatalf("Decide(%s) error = %v", decisions[i], err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("winning decisions = %v, want exactly one", winners)
		}
		if res.Outcome.Decision != winners[0] || res.Outcome.DecidedBy != ByUser {
			t.Fatalf("outcome %+v, want decision %s by user", res.Outcome, winners[0])
		}
	}
}

// TestBrokerConcurrentInvariants runs requests, decisions, cancellations and
// policy changes at once against a fake tool server, then checks what must
// hold under any interleaving: a call ran only if its outcome allowed it and
// with exactly its arguments; a user outcome matches the one Decide that
// succeeded for it; each waiting call was announced once and resolved once,
// in that order, with the outcome its caller got.
func TestBrokerConcurrentInvariants(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runChaos(t, seed)
		})
	}
}

func runChaos(t *testing.T, seed uint64) {
	rec := &recorder{}
	b := NewBroker(&Options{Emitter: rec, Now: fixedNow})
	srv := &toolServer{ran: map[string]string{}}

	const requesters, perRequester = 4, 50
	var (
		mu       sync.Mutex
		outcomes = map[string]Outcome{}
		args     = map[string]string{}
		decided  = map[string][]Decision{} // successful Decide calls per ID
	)
	var reqWG sync.WaitGroup
	for w := range requesters {
		reqWG.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := range perRequester {
				id := fmt.Sprintf("w%d-%d", w, i)
				r := req(id, fmt.Sprint("conv", rng.IntN(3)), fmt.Sprint("s", rng.IntN(2)), fmt.Sprint("t", rng.IntN(2)), fmt.Sprint("v", rng.IntN(2)))
				mu.Lock()
				args[id] = string(r.Arguments)
				mu.Unlock()
				ctx, cancel := context.WithCancel(t.Context())
				if rng.IntN(4) == 0 {
					go cancel() // Stop, at some point
				}
				o, err := b.Request(ctx, r)
				cancel()
				if err != nil {
					t.Errorf("Request %s: %v", id, err)
					return
				}
				if o.Allowed {
					srv.call(id, o.Arguments)
				}
				mu.Lock()
				outcomes[id] = o
				mu.Unlock()
			}
		})
	}

	stop := make(chan struct{})
	var bgWG sync.WaitGroup
	bgWG.Go(func() { // the user
		rng := rand.New(rand.NewPCG(seed, 100))
		decisions := []Decision{AllowOnce, AllowOnce, AllowOnce, Deny, Deny, Deny, AllowAlways, AllowAlways}
		untilClosed(stop, func() {
			for _, p := range b.Pending() {
				d := decisions[rng.IntN(len(decisions))]
				if rng.IntN(150) == 0 {
					d = AllowAll // rare: yolo lets everything through until it goes off
				}
				switch err := b.Decide(t.Context(), p.ID, d); {
				case err == nil:
					mu.Lock()
					decided[p.ID] = append(decided[p.ID], d)
					mu.Unlock()
				case !errors.Is(err, ErrUnknownRequest):
					t.Errorf("Decide(%s, %s): %v", p.ID, d, err)
				}
			}
		})
	})
	bgWG.Go(func() { // settings page and conversation list
		rng := rand.New(rand.NewPCG(seed, 200))
		untilClosed(stop, func() {
			var err error
			if b.Yolo() {
				err = b.SetYolo(t.Context(), false)
			}
			switch rng.IntN(4) {
			case 0:
				err = errors.Join(err, b.Revoke(t.Context(), "s0", "t0"))
			case 1:
				err = errors.Join(err, b.Revoke(t.Context(), fmt.Sprint("s", rng.IntN(2)), fmt.Sprint("t", rng.IntN(2))))
			case 2:
				err = errors.Join(err, b.ServerChanged(t.Context(), fmt.Sprint("s", rng.IntN(2)), fmt.Sprint("v", rng.IntN(2))))
			case 3:
				b.CancelConversation(fmt.Sprint("conv", rng.IntN(3)))
			}
			if err != nil {
				t.Errorf("policy change: %v", err)
			}
		})
	})
	reqWG.Wait()
	close(stop)
	bgWG.Wait()
	_ = b.Close()

	for id, ran := range srv.calls() {
		o := outcomes[id]
		if !o.Allowed || !o.Decision.Allows() {
			t.Errorf("call %s ran with outcome %+v", id, o)
		}
		if ran != args[id] {
			t.Errorf("call %s ran with %s, requested %s", id, ran, args[id])
		}
	}
	events := rec.take()
	announced, resolvedAt := map[string]int{}, map[string]int{}
	for i, ev := range events {
		switch p := ev.Payload.(type) {
		case Request:
			if _, dup := announced[p.ID]; dup {
				t.Errorf("call %s announced twice", p.ID)
			}
			announced[p.ID] = i
		case Resolution:
			if _, dup := resolvedAt[p.ID]; dup {
				t.Errorf("call %s resolved twice", p.ID)
			}
			resolvedAt[p.ID] = i
			if diff := cmp.Diff(outcomes[p.ID], p.Outcome); diff != "" {
				t.Errorf("call %s: resolved event differs from the caller's outcome (-caller +event):\n%s", p.ID, diff)
			}
		}
	}
	for id, o := range outcomes {
		wins := decided[id]
		switch {
		case len(wins) > 1:
			t.Errorf("call %s: %d decisions succeeded: %v", id, len(wins), wins)
		case len(wins) == 1 && (o.DecidedBy != ByUser || o.Decision != wins[0]):
			t.Errorf("call %s: user decided %s, outcome %+v", id, wins[0], o)
		case len(wins) == 0 && o.DecidedBy == ByUser:
			t.Errorf("call %s: outcome %+v by user, but no Decide succeeded", id, o)
		}
		if o.DecidedBy == ByPolicy && o.Decision != AllowAlways && o.Decision != AllowAll {
			t.Errorf("call %s: policy outcome %+v", id, o)
		}
		if (o.Decision == Cancelled) != (o.DecidedBy == BySystem) {
			t.Errorf("call %s: outcome %+v", id, o)
		}
		at, wasAnnounced := announced[id]
		end, wasResolved := resolvedAt[id]
		switch {
		case wasAnnounced != wasResolved:
			t.Errorf("call %s: announced=%v resolved=%v", id, wasAnnounced, wasResolved)
		case wasAnnounced && end < at:
			t.Errorf("call %s resolved (event %d) before it was announced (event %d)", id, end, at)
		}
	}
	if got := b.Pending(); len(got) != 0 {
		t.Errorf("Pending() after Close = %v", got)
	}
}

package approval

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestRevokeThenRequestAsksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		first := req("a", "conv1", "s1", "t1", "fp1")
		ch := startWaiting(t, b, first)
		if err := b.Decide(t.Context(), "a", AllowAlways); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		synctest.Wait()
		poll(ch)

		second := req("b", "conv1", "s1", "t1", "fp1")
		o, err := b.Request(t.Context(), second)
		if diff := cmp.Diff(result{Outcome: allowed(second, AllowAlways, ByPolicy)}, result{o, err}); diff != "" {
			t.Errorf("Request before Revoke mismatch (-want +got):\n%s", diff)
		}
		rec.take()

		if err := b.Revoke(t.Context(), "s1", "t1"); err != nil {
			t.Fatalf("Revoke: %v", err)
		}
		if err := b.Revoke(t.Context(), "s1", "never-granted"); err != nil {
			t.Fatalf("Revoke of a missing grant: %v", err)
		}
		if diff := cmp.Diff([]recorded{policyEvent(policy(false)), policyEvent(policy(false))}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		assertPolicy(t, b, policy(false))

		third := req("c", "conv1", "s1", "t1", "fp1")
		ch = startWaiting(t, b, third)
		if res, done := poll(ch); done {
			t.Fatalf("call after Revoke resolved with %+v, want it waiting", res)
		}
	})
}

func TestYoloOnOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		a, c := req("a", "conv1", "s1", "t1", "fp1"), req("c", "conv2", "s2", "t2", "fp2")
		chA := startWaiting(t, b, a)
		chC := startWaiting(t, b, c)
		rec.take()

		if err := b.SetYolo(t.Context(), true); err != nil {
			t.Fatalf("SetYolo(true): %v", err)
		}
		synctest.Wait()
		for _, w := range []struct {
			r  Request
			ch <-chan result
		}{{a, chA}, {c, chC}} {
			res, done := poll(w.ch)
			if diff := cmp.Diff(result{Outcome: allowed(w.r, AllowAll, ByPolicy)}, res); !done || diff != "" {
				t.Errorf("call %s: done=%v, result mismatch (-want +got):\n%s", w.r.ID, done, diff)
			}
		}
		want := []recorded{
			resolved("a", allowed(a, AllowAll, ByPolicy)),
			resolved("c", allowed(c, AllowAll, ByPolicy)),
			policyEvent(policy(true)),
		}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		assertPolicy(t, b, policy(true))

		d := req("d", "conv1", "s3", "t3", "fp3")
		o, err := b.Request(t.Context(), d)
		if diff := cmp.Diff(result{Outcome: allowed(d, AllowAll, ByPolicy)}, result{o, err}); diff != "" {
			t.Errorf("Request with yolo on mismatch (-want +got):\n%s", diff)
		}

		if err := b.SetYolo(t.Context(), false); err != nil {
			t.Fatalf("SetYolo(false): %v", err)
		}
		assertPolicy(t, b, policy(false))
		ch := startWaiting(t, b, req("e", "conv1", "s3", "t3", "fp3"))
		if res, done := poll(ch); done {
			t.Fatalf("call with yolo off resolved with %+v, want it waiting", res)
		}
	})
}

func TestServerChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryPolicyStore)
		for _, g := range []Grant{
			grant("s1", "t1", "fp1"),
			grant("s1", "t2", "fp1"),
			grant("s1", "t3", "fp2"),
			grant("s2", "t1", "fp1"),
		} {
			if err := store.PutGrant(t.Context(), g); err != nil {
				t.Fatal(err)
			}
		}
		b, rec := newTestBroker(t, store)
		defer b.Close()

		if err := b.ServerChanged(t.Context(), "s1", "fp2"); err != nil {
			t.Fatalf("ServerChanged: %v", err)
		}
		kept := policy(false, grant("s1", "t3", "fp2"), grant("s2", "t1", "fp1"))
		if diff := cmp.Diff([]recorded{policyEvent(kept)}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		assertPolicy(t, b, kept)

		tests := []struct {
			r       Request
			allowed bool
		}{
			{req("a", "conv1", "s1", "t1", "fp2"), false}, // its grant was dropped
			{req("b", "conv1", "s1", "t1", "fp1"), false}, // the old fingerprint no longer counts
			{req("c", "conv1", "s1", "t3", "fp2"), true},  // granted for the new fingerprint
			{req("d", "conv1", "s2", "t1", "fp1"), true},  // another server
		}
		for _, tt := range tests {
			ch := startWaiting(t, b, tt.r)
			res, done := poll(ch)
			if done != tt.allowed || (done && !res.Outcome.Allowed) {
				t.Errorf("call %s: done=%v %+v, want allowed=%v", tt.r.ID, done, res, tt.allowed)
			}
		}
	})
}

func TestLoadFromStore(t *testing.T) {
	store := new(MemoryPolicyStore)
	if err := store.PutGrant(t.Context(), grant("s1", "t1", "fp1")); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	b := NewBroker(&Options{Store: store, Emitter: rec})
	defer b.Close()
	r := req("a", "conv1", "s1", "t1", "fp1")
	o, err := b.Request(t.Context(), r) // loads on first use
	if diff := cmp.Diff(result{Outcome: allowed(r, AllowAlways, ByPolicy)}, result{o, err}); diff != "" {
		t.Errorf("Request mismatch (-want +got):\n%s", diff)
	}
	if err := b.Load(t.Context()); err != nil {
		t.Fatalf("second Load: %v", err)
	}
	want := []recorded{policyEvent(policy(false, grant("s1", "t1", "fp1")))}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadFailure(t *testing.T) {
	store := &flakyStore{}
	store.failReads.Store(true)
	b := NewBroker(&Options{Store: store})
	defer b.Close()
	if err := b.Load(t.Context()); !errors.Is(err, errStoreDown) {
		t.Errorf("Load error = %v, want errStoreDown", err)
	}
	if _, err := b.Request(t.Context(), req("a", "conv1", "s1", "t1", "fp1")); !errors.Is(err, errStoreDown) {
		t.Errorf("Request error = %v, want errStoreDown", err)
	}
	if _, err := b.Grants(t.Context()); !errors.Is(err, errStoreDown) {
		t.Errorf("Grants error = %v, want errStoreDown", err)
	}
	if err := b.SetYolo(t.Context(), true); !errors.Is(err, errStoreDown) {
		t.Errorf("SetYolo error = %v, want errStoreDown", err)
	}
	if b.Yolo() {
		t.Error("Yolo() = true after a failed load and a failed SetYolo")
	}
	if got := b.Pending(); len(got) != 0 {
		t.Errorf("Pending() = %v, want none", got)
	}

	store.failReads.Store(false)
	if err := b.SetYolo(t.Context(), true); err != nil {
		t.Fatalf("SetYolo once the store is back: %v", err)
	}
	o, err := b.Request(t.Context(), req("a", "conv1", "s1", "t1", "fp1"))
	if err != nil || !o.Allowed {
		t.Errorf("Request once the store is back = %+v, %v; want allowed", o, err)
	}
}

// A store that cannot save never leaves more trusted than the user asked
// for: additions do not happen, removals happen in memory, and both report
// the error.
func TestStoreWriteFailure(t *testing.T) {
	for _, tc := range []struct {
		decision Decision
		other    Request // waits for the same grant as a, or not
	}{
		{AllowAlways, req("b", "conv1", "s1", "t1", "fp1")},
		{AllowAll, req("b", "conv1", "s2", "t2", "fp1")},
	} {
		t.Run(string(tc.decision), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &flakyStore{}
				b, _ := newTestBroker(t, store)
				defer b.Close()
				a := req("a", "conv1", "s1", "t1", "fp1")
				chA := startWaiting(t, b, a)
				chB := startWaiting(t, b, tc.other)

				store.failWrites.Store(true)
				err := b.Decide(t.Context(), "a", tc.decision)
				if !errors.Is(err, ErrNotRemembered) || !errors.Is(err, errStoreDown) {
					t.Errorf("Decide error = %v, want ErrNotRemembered wrapping errStoreDown", err)
				}
				synctest.Wait()
				res, done := poll(chA)
				if diff := cmp.Diff(result{Outcome: allowed(a, tc.decision, ByUser)}, res); !done || diff != "" {
					t.Errorf("decided call: done=%v, mismatch (-want +got):\n%s", done, diff)
				}
				if res, done := poll(chB); done {
					t.Errorf("other call resolved with %+v, want it still waiting", res)
				}
				store.failWrites.Store(false)
				assertPolicy(t, b, policy(false))
			})
		})
	}

	tests := []struct {
		name       string
		stored     Policy // in the store before
		change     func(ctx context.Context, b *Broker) error
		wantMemory Policy
		wantStored Policy // after
	}{
		{
			name:   "yolo on",
			stored: policy(false),
			change: func(ctx context.Context, b *Broker) error { return b.SetYolo(ctx, true) },
			// Not turned on.
			wantMemory: policy(false), wantStored: policy(false),
		},
		{
			name:   "yolo off",
			stored: policy(true),
			change: func(ctx context.Context, b *Broker) error { return b.SetYolo(ctx, false) },
			// Off now; may come back on after a restart.
			wantMemory: policy(false), wantStored: policy(true),
		},
		{
			name:       "revoke",
			stored:     policy(false, grant("s1", "t1", "fp1")),
			change:     func(ctx context.Context, b *Broker) error { return b.Revoke(ctx, "s1", "t1") },
			wantMemory: policy(false), wantStored: policy(false, grant("s1", "t1", "fp1")),
		},
		{
			name:       "server changed",
			stored:     policy(false, grant("s1", "t1", "fp1"), grant("s1", "t2", "fp2")),
			change:     func(ctx context.Context, b *Broker) error { return b.ServerChanged(ctx, "s1", "fp2") },
			wantMemory: policy(false, grant("s1", "t2", "fp2")),
			wantStored: policy(false, grant("s1", "t1", "fp1"), grant("s1", "t2", "fp2")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &flakyStore{}
			for _, g := range tt.stored.Grants {
				if err := store.PutGrant(t.Context(), g); err != nil {
					t.Fatal(err)
				}
			}
			if err := store.SetYolo(t.Context(), tt.stored.Yolo); err != nil {
				t.Fatal(err)
			}
			b, rec := newTestBroker(t, store)
			defer b.Close()

			store.failWrites.Store(true)
			if err := tt.change(t.Context(), b); !errors.Is(err, errStoreDown) {
				t.Errorf("error = %v, want errStoreDown", err)
			}
			grants, err := b.Grants(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantMemory, Policy{Yolo: b.Yolo(), Grants: grants}); diff != "" {
				t.Errorf("policy in memory mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]recorded{policyEvent(tt.wantMemory)}, rec.take()); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			stored, _ := store.MemoryPolicyStore.Grants(t.Context())
			yolo, _ := store.MemoryPolicyStore.Yolo(t.Context())
			if diff := cmp.Diff(tt.wantStored, Policy{Yolo: yolo, Grants: stored}); diff != "" {
				t.Errorf("stored policy mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryPolicyStore(t *testing.T) {
	var s MemoryPolicyStore // the zero value is ready
	ctx := t.Context()
	for _, g := range []Grant{grant("s2", "t1", "a"), grant("s1", "t2", "b"), grant("s1", "t1", "c"), grant("s1", "t1", "d")} {
		if err := s.PutGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteGrant(ctx, "s2", "t1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteGrant(ctx, "s9", "t9"); err != nil {
		t.Fatalf("DeleteGrant of a missing grant: %v", err)
	}
	if err := s.SetYolo(ctx, true); err != nil {
		t.Fatal(err)
	}
	grants, err := s.Grants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	yolo, err := s.Yolo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := policy(true, grant("s1", "t1", "d"), grant("s1", "t2", "b"))
	if diff := cmp.Diff(want, Policy{Yolo: yolo, Grants: grants}); diff != "" {
		t.Errorf("store mismatch (-want +got):\n%s", diff)
	}
}

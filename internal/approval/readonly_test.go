package approval

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func hints(readOnly, destructive *bool) *ToolHints {
	return &ToolHints{ReadOnly: readOnly, Destructive: destructive}
}

var yes, no = new(true), new(false)

// roReq is req with the server's claim about the tool.
func roReq(id, server, tool, fp string, h *ToolHints) Request {
	r := req(id, "conv1", server, tool, fp)
	r.Hints = h
	return r
}

func TestClaimsReadOnly(t *testing.T) {
	tests := []struct {
		name string
		h    *ToolHints
		want bool
	}{
		{"no hints", nil, false},
		{"none said", &ToolHints{}, false},
		{"read-only", hints(yes, nil), true},
		{"read-only, not destructive", hints(yes, no), true},
		{"read-only and destructive", hints(yes, yes), false},
		{"not read-only", hints(no, no), false},
		{"only not destructive", hints(nil, no), false},
	}
	for _, tt := range tests {
		if got := tt.h.ClaimsReadOnly(); got != tt.want {
			t.Errorf("%s: ClaimsReadOnly = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The read-only setting is off by default; on, it releases the waiting
// call it covers and lets later ones run at once; it never covers a tool
// that does not claim read-only, one that also claims destructive,
// another server's, or the server run as another program; off, calls ask
// again.
func TestReadOnlyServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &flakyStore{}
		b, rec := newTestBroker(t, store)
		defer b.Close()
		ro := roReq("a", "s1", "read", "fp1", hints(yes, no))
		chA := startWaiting(t, b, ro)
		if res, done := poll(chA); done {
			t.Fatalf("read-only tool ran unasked by default: %+v", res)
		}
		rec.take()

		if err := b.SetReadOnly(t.Context(), "s1", "fp1", true); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		res, done := poll(chA)
		if diff := cmp.Diff(result{Outcome: allowed(ro, AllowReadOnly, ByPolicy)}, res); !done || diff != "" {
			t.Fatalf("waiting read-only call: done %v (-want +got):\n%s", done, diff)
		}
		trust := ReadOnlyServer{ServerID: "s1", Fingerprint: "fp1", CreatedAt: epoch}
		want := []recorded{
			resolved("a", allowed(ro, AllowReadOnly, ByPolicy)),
			policyEvent(Policy{Grants: []Grant{}, ReadOnly: []ReadOnlyServer{trust}}),
		}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}

		again := roReq("b", "s1", "list", "fp1", hints(yes, nil))
		if o, err := b.Request(t.Context(), again); err != nil || o.Decision != AllowReadOnly || o.DecidedBy != ByPolicy {
			t.Errorf("read-only call after the setting: %+v, %v", o, err)
		}
		if o, ok := b.Decided(t.Context(), roReq("b2", "s1", "list", "fp1", hints(yes, nil))); !ok || o.Decision != AllowReadOnly {
			t.Errorf("Decided: %+v, %v", o, ok)
		}
		for _, r := range []Request{
			roReq("c", "s1", "rm", "fp1", hints(yes, yes)),     // read-only and destructive
			roReq("d", "s1", "write", "fp1", hints(no, no)),    // says it writes
			roReq("e", "s1", "unsaid", "fp1", nil),             // says nothing
			roReq("f", "s2", "read", "fp2", hints(yes, no)),    // another server
			roReq("g", "s1", "read", "fp-new", hints(yes, no)), // another program
		} {
			ch := startWaiting(t, b, r)
			if res, done := poll(ch); done {
				t.Errorf("call %s (%+v) ran unasked: %+v", r.ID, r.Hints, res)
			}
		}
		if err := b.Decide(t.Context(), "c", AllowReadOnly); !errors.Is(err, ErrInvalidDecision) {
			t.Errorf("a user deciding allow_read_only: %v, want ErrInvalidDecision", err)
		}

		// Persisted: a new Broker over the same store has it.
		b2 := NewBroker(&Options{Store: store})
		defer b2.Close()
		if got, err := b2.ReadOnlyServers(t.Context()); err != nil || !cmp.Equal(got, []ReadOnlyServer{trust}) {
			t.Errorf("reloaded: %+v, %v", got, err)
		}

		if err := b.SetReadOnly(t.Context(), "s1", "", false); err != nil {
			t.Fatal(err)
		}
		ch := startWaiting(t, b, roReq("h", "s1", "read", "fp1", hints(yes, no)))
		if res, done := poll(ch); done {
			t.Errorf("read-only call after turning it off ran unasked: %+v", res)
		}
		if stored, _ := store.ReadOnlyServers(t.Context()); len(stored) != 0 {
			t.Errorf("stored after off: %+v", stored)
		}
	})
}

// A server that becomes another program (another fingerprint) loses the
// setting, in the store too; one that stays the same keeps it.
func TestReadOnlyServerChanged(t *testing.T) {
	store := &flakyStore{}
	b, _ := newTestBroker(t, store)
	defer b.Close()
	ctx := t.Context()
	b.SetReadOnly(ctx, "s1", "fp1", true)
	b.SetReadOnly(ctx, "s2", "fp2", true)
	if err := b.ServerChanged(ctx, "s1", "fp1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.ReadOnlyServers(ctx); len(got) != 2 {
		t.Fatalf("an unchanged server lost the setting: %+v", got)
	}
	if err := b.ServerChanged(ctx, "s1", "fp-new"); err != nil {
		t.Fatal(err)
	}
	got, _ := b.ReadOnlyServers(ctx)
	stored, _ := store.ReadOnlyServers(ctx)
	for _, l := range [][]ReadOnlyServer{got, stored} {
		if len(l) != 1 || l[0].ServerID != "s2" {
			t.Errorf("after s1 changed: %+v", l)
		}
	}
}

// A store failure never leaves more trusted than asked: on does not
// happen, off still happens in memory.
func TestReadOnlyStoreFailure(t *testing.T) {
	store := &flakyStore{}
	b, _ := newTestBroker(t, store)
	defer b.Close()
	ctx := t.Context()
	store.failWrites.Store(true)
	if err := b.SetReadOnly(ctx, "s1", "fp1", true); !errors.Is(err, errStoreDown) {
		t.Errorf("on with the store down: %v", err)
	}
	if got, _ := b.ReadOnlyServers(ctx); len(got) != 0 {
		t.Errorf("on happened though unsaved: %+v", got)
	}
	store.failWrites.Store(false)
	b.SetReadOnly(ctx, "s1", "fp1", true)
	store.failWrites.Store(true)
	if err := b.SetReadOnly(ctx, "s1", "", false); !errors.Is(err, errStoreDown) {
		t.Errorf("off with the store down: %v", err)
	}
	if got, _ := b.ReadOnlyServers(ctx); len(got) != 0 {
		t.Errorf("off did not happen in memory: %+v", got)
	}
	if err := b.SetReadOnly(ctx, "", "fp", true); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("no server: %v", err)
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (&MemoryPolicyStore{}).ReadOnlyServers(ctx2); err == nil {
		t.Error("MemoryPolicyStore ignores a done context")
	}
}

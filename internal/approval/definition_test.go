package approval

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// defReq is req for a tool whose definition is def (its hash, description
// and schema all say def).
func defReq(id, tool, def string) Request {
	r := req(id, "conv1", "s1", tool, "fp1")
	r.DefinitionHash = "hash-" + def
	r.Description = "description " + def
	r.InputSchema = json.RawMessage(`{"type":"object","title":"` + def + `"}`)
	return r
}

// An "always" grant covers the definition the user saw: when the server
// changes the tool, the call is asked about again, and the request shows
// what the user allowed before.
func TestGrantPinsTheToolDefinition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()

		first := defReq("a", "t1", "v1")
		ch := startWaiting(t, b, first)
		if err := b.Decide(t.Context(), "a", AllowAlways); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if res, done := poll(ch); !done || !res.Outcome.Allowed {
			t.Fatalf("first call: %+v, done %v", res, done)
		}
		wantGrant := Grant{ServerID: "s1", Tool: "t1", Fingerprint: "fp1", DefinitionHash: "hash-v1",
			Description: "description v1", InputSchema: first.InputSchema, CreatedAt: epoch}
		assertPolicy(t, b, policy(false, wantGrant))
		rec.take()

		// The same definition runs unasked.
		same := defReq("b", "t1", "v1")
		if o, err := b.Request(t.Context(), same); err != nil || o.Decision != AllowAlways || o.DecidedBy != ByPolicy {
			t.Fatalf("same definition: %+v, %v; want allowed by the grant", o, err)
		}

		// A changed definition waits for the user, and says what changed.
		changed := defReq("c", "t1", "v2")
		if _, ok := b.Decided(t.Context(), changed); ok {
			t.Fatal("Decided allowed a changed definition")
		}
		ch = startWaiting(t, b, changed)
		if res, done := poll(ch); done {
			t.Fatalf("changed definition resolved at once: %+v", res)
		}
		shown := changed
		shown.Changed = true
		shown.PreviousDescription = "description v1"
		shown.PreviousInputSchema = first.InputSchema
		if diff := cmp.Diff([]recorded{requested(shown)}, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Request{shown}, b.Pending()); diff != "" {
			t.Errorf("Pending (-want +got):\n%s", diff)
		}

		// Allowing the new definition always moves the grant to it; a call
		// that still carries the old one is then asked about.
		if err := b.Decide(t.Context(), "c", AllowAlways); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		wantGrant.DefinitionHash, wantGrant.Description, wantGrant.InputSchema = "hash-v2", "description v2", changed.InputSchema
		assertPolicy(t, b, policy(false, wantGrant))
		old := startWaiting(t, b, defReq("d", "t1", "v1"))
		if res, done := poll(old); done {
			t.Fatalf("the old definition ran on the new grant: %+v", res)
		}
	})
}

// A request cannot claim to be a changed tool, or carry a fake "before".
func TestRequestCannotSetChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		r := defReq("a", "t1", "v1")
		r.Changed, r.PreviousDescription = true, "harmless"
		startWaiting(t, b, r)
		want := defReq("a", "t1", "v1")
		if diff := cmp.Diff([]recorded{requested(want)}, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// A grant made before definitions were pinned allows no call that carries
// a definition: the user is asked once more, without a "changed" warning.
func TestGrantWithoutDefinitionAsksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryPolicyStore)
		if err := store.PutGrant(t.Context(), grant("s1", "t1", "fp1")); err != nil {
			t.Fatal(err)
		}
		b, rec := newTestBroker(t, store)
		defer b.Close()
		r := defReq("a", "t1", "v1")
		ch := startWaiting(t, b, r)
		if res, done := poll(ch); done {
			t.Fatalf("an old grant allowed a pinned definition: %+v", res)
		}
		if diff := cmp.Diff([]recorded{requested(r)}, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// When a server's config changes, its calls waiting for approval are
// cancelled with a reason: the user would be approving a program that no
// longer runs. Calls made for the new config, and other servers' calls,
// keep waiting.
func TestServerChangedCancelsWaitingCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		calls := map[string]<-chan result{}
		for _, r := range []Request{
			req("old1", "conv1", "s1", "t1", "fp1"),
			req("old2", "conv2", "s1", "t2", "fp1"),
			req("new", "conv1", "s1", "t1", "fp2"),
			req("other", "conv1", "s2", "t1", "fp1"),
		} {
			calls[r.ID] = startWaiting(t, b, r) // in this order
		}
		rec.take()

		if err := b.ServerChanged(t.Context(), "s1", "fp2"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		cancelled := Outcome{Decision: Cancelled, DecidedBy: BySystem, Reason: ReasonServerChanged}
		for _, id := range []string{"old1", "old2"} {
			res, done := poll(calls[id])
			if !done {
				t.Fatalf("%s still waits after its server changed", id)
			}
			if diff := cmp.Diff(result{Outcome: cancelled}, res); diff != "" {
				t.Errorf("%s (-want +got):\n%s", id, diff)
			}
		}
		for _, id := range []string{"new", "other"} {
			if res, done := poll(calls[id]); done {
				t.Errorf("%s resolved: %+v; want it still waiting", id, res)
			}
		}
		want := []recorded{resolved("old1", cancelled), resolved("old2", cancelled), policyEvent(policy(false))}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

package approval

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestToolLegs(t *testing.T) {
	openWorld := func(ow *bool) *ToolHints { return &ToolHints{OpenWorld: ow} }
	roClosed := &ToolHints{ReadOnly: yes, OpenWorld: no}
	tests := []struct {
		name          string
		h             *ToolHints
		local, marked bool
		want          Legs
	}{
		// The spec's defaults: not read-only, open world.
		{"remote, says nothing", nil, false, false, Legs{Untrusted: true, Outbound: true}},
		{"local, says nothing", nil, true, false, Legs{Private: true, Untrusted: true, Outbound: true}},
		{"local, empty hints", &ToolHints{}, true, false, Legs{Private: true, Untrusted: true, Outbound: true}},
		{"remote, closed world: its arguments still leave the machine", openWorld(no), false, false, Legs{Outbound: true}},
		{"remote, open world said", openWorld(yes), false, false, Legs{Untrusted: true, Outbound: true}},
		{"local, read-only, closed world", roClosed, true, false, Legs{}},
		{"local, read-only, open world (a fetch)", &ToolHints{ReadOnly: yes}, true, false, Legs{Untrusted: true, Outbound: true}},
		{"local, not read-only, closed world", &ToolHints{ReadOnly: no, OpenWorld: no}, true, false, Legs{Private: true}},
		{"local, read-only but destructive", &ToolHints{ReadOnly: yes, Destructive: yes, OpenWorld: no}, true, false, Legs{Private: true}},
		{"remote, not read-only, closed world", &ToolHints{ReadOnly: no, OpenWorld: no}, false, false, Legs{Outbound: true}},
		{"marked private, remote, closed world", roClosed, false, true, Legs{Private: true, Outbound: true}},
		{"marked private, local read-only", roClosed, true, true, Legs{Private: true}},
		{"marked private, open world", nil, false, true, Legs{Private: true, Untrusted: true, Outbound: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ToolLegs(tt.h, tt.local, tt.marked)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestNewGuard(t *testing.T) {
	tests := []struct {
		name                   string
		private, untrusted     []string
		morePriv, moreUntruste bool
		want                   string
	}{
		{"one each", []string{"filesystem__read_file"}, []string{"fetch__fetch"}, false, false,
			"This conversation has read private data (filesystem__read_file) and taken in outside content (fetch__fetch); fetch__fetch can send data out."},
		{"several, cut", []string{"a", "b", "c", "d"}, []string{"w"}, false, true,
			"This conversation has read private data (a, b, c and others) and taken in outside content (w and others); fetch__fetch can send data out."},
		{"none named", nil, nil, false, false,
			"This conversation has read private data (an earlier tool) and taken in outside content (an earlier tool); fetch__fetch can send data out."},
	}
	for _, tt := range tests {
		g := NewGuard("fetch__fetch", tt.private, tt.untrusted, tt.morePriv, tt.moreUntruste)
		if g.Reason != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, g.Reason, tt.want)
		}
		if len(g.PrivateFrom) > MaxGuardNames || len(g.UntrustedFrom) > MaxGuardNames {
			t.Errorf("%s: names not cut: %+v", tt.name, g)
		}
	}
	long := strings.Repeat("x", 500)
	if g := NewGuard(long, []string{long}, []string{long}, false, false); len(g.Reason) > 400 {
		t.Errorf("a long name makes a reason of %d bytes", len(g.Reason))
	}
}

// guarded is req with a Guard.
func guarded(id, server, tool, fp string) Request {
	r := req(id, "conv1", server, tool, fp)
	r.Guard = NewGuard(tool, []string{"files__read"}, []string{"web__fetch"}, false, false)
	return r
}

// Under every standing policy (yolo, an "always" grant, the read-only
// setting) a call with a Guard asks; the user's answer is recorded as the
// guard's; an "always" answer saves the grant but does not silence the
// guard for the next call, nor release another guarded call that waits;
// Decided never pre-approves a guarded call.
func TestGuardAsksUnderStandingPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		if err := b.SetYolo(ctx, true); err != nil {
			t.Fatal(err)
		}
		if err := b.SetReadOnly(ctx, "web", "fp1", true); err != nil {
			t.Fatal(err)
		}
		rec.take()

		plain := req("p", "conv1", "web", "post", "fp1")
		if o, err := b.Request(ctx, plain); err != nil || o.Decision != AllowAll || o.DecidedBy != ByPolicy {
			t.Fatalf("unguarded call under yolo: %+v, %v", o, err)
		}
		g1 := guarded("g1", "web", "post", "fp1")
		g1.Hints = &ToolHints{ReadOnly: yes}
		g1.DefinitionHash = "def1"
		if _, ok := b.Decided(ctx, g1); ok {
			t.Error("Decided pre-approved a guarded call")
		}
		ch1 := start(ctx, b, g1)
		synctest.Wait()
		if res, done := poll(ch1); done {
			t.Fatalf("guarded call ran unasked under yolo and read-only: %+v", res)
		}
		if diff := cmp.Diff([]recorded{requested(g1)}, rec.take()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		// A second guarded call of the same tool waits too; "always" for
		// the first does not release it.
		g2 := guarded("g2", "web", "post", "fp1")
		ch2 := start(ctx, b, g2)
		synctest.Wait()
		if err := b.Decide(ctx, "g1", AllowAlways); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if res := <-ch1; res.Err != nil || res.Outcome.Decision != AllowAlways || res.Outcome.DecidedBy != ByGuard {
			t.Errorf("g1: %+v", res)
		}
		if res, done := poll(ch2); done {
			t.Fatalf("an always answer released another guarded call: %+v", res)
		}
		// Yolo turned on again (approve all) does not release it either.
		if err := b.SetYolo(ctx, true); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if res, done := poll(ch2); done {
			t.Fatalf("yolo released a guarded call: %+v", res)
		}
		if err := b.Decide(ctx, "g2", Deny); err != nil {
			t.Fatal(err)
		}
		if res := <-ch2; res.Outcome.Allowed || res.Outcome.Decision != Deny || res.Outcome.DecidedBy != ByGuard {
			t.Errorf("g2: %+v", res)
		}
		// The grant was saved and allows the unguarded call.
		if err := b.SetYolo(ctx, false); err != nil {
			t.Fatal(err)
		}
		p2 := req("p2", "conv1", "web", "post", "fp1")
		p2.DefinitionHash = "def1"
		if o, err := b.Request(ctx, p2); err != nil || o.Decision != AllowAlways || o.DecidedBy != ByPolicy {
			t.Errorf("unguarded call after always: %+v, %v", o, err)
		}
		g3 := guarded("g3", "web", "post", "fp1")
		g3.DefinitionHash = "def1"
		ch3 := start(ctx, b, g3)
		synctest.Wait()
		if res, done := poll(ch3); done {
			t.Fatalf("the grant silenced the guard: %+v", res)
		}
		// The grant matches the tool's definition: nothing changed.
		if p := b.Pending(); len(p) != 1 || p[0].Changed {
			t.Errorf("pending %+v", p)
		}
		if err := b.Decide(ctx, "g3", AllowAll); err != nil {
			t.Fatal(err)
		}
		if res := <-ch3; !res.Outcome.Allowed || res.Outcome.DecidedBy != ByGuard {
			t.Errorf("g3: %+v", res)
		}
	})
}

// Refuse denies a waiting call with a reason, by the guard for a guarded
// call and by system for another; it is an error for an unknown call.
func TestRefuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		b, _ := newTestBroker(t, nil)
		defer b.Close()
		chG := start(ctx, b, guarded("g", "web", "post", "fp1"))
		chP := start(ctx, b, req("p", "conv1", "web", "post", "fp1"))
		synctest.Wait()
		if err := b.Refuse("g", "nobody to ask"); err != nil {
			t.Fatal(err)
		}
		if err := b.Refuse("p", "nobody to ask"); err != nil {
			t.Fatal(err)
		}
		want := Outcome{Decision: Deny, DecidedBy: ByGuard, Reason: "nobody to ask"}
		if diff := cmp.Diff(want, (<-chG).Outcome); diff != "" {
			t.Errorf("guarded (-want +got):\n%s", diff)
		}
		want.DecidedBy = BySystem
		if diff := cmp.Diff(want, (<-chP).Outcome); diff != "" {
			t.Errorf("unguarded (-want +got):\n%s", diff)
		}
		if err := b.Refuse("g", "again"); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("Refuse of a decided call: %v", err)
		}
	})
}

// Private marks: set and removed, listed in the policy, kept by the store
// and loaded again; a store failure leaves a mark in place (on still
// marks, off does not unmark); a server's marks follow it to its new
// fingerprint; their number is bounded.
func TestPrivateMarks(t *testing.T) {
	ctx := t.Context()
	store := &flakyStore{}
	b, rec := newTestBroker(t, store)
	defer b.Close()
	if err := b.SetPrivate(ctx, "fs", "fp1", "read_file", true); err != nil {
		t.Fatal(err)
	}
	if !b.IsPrivate("fp1", "read_file") || b.IsPrivate("fp2", "read_file") || b.IsPrivate("fp1", "write_file") {
		t.Error("IsPrivate does not match the mark's fingerprint and tool only")
	}
	mark := PrivateTool{Fingerprint: "fp1", Tool: "read_file", ServerID: "fs", CreatedAt: epoch}
	want := []recorded{policyEvent(Policy{Grants: []Grant{}, Private: []PrivateTool{mark}})}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// Kept by the store: a new Broker loads it.
	b2, _ := newTestBroker(t, store)
	if !b2.IsPrivate("fp1", "read_file") {
		t.Error("the mark was not loaded from the store")
	}
	b2.Close()

	store.failWrites.Store(true)
	if err := b.SetPrivate(ctx, "fs", "fp1", "read_file", false); err == nil {
		t.Error("unmarking with a failing store: no error")
	}
	if !b.IsPrivate("fp1", "read_file") {
		t.Error("a failed unmark removed the mark")
	}
	if err := b.SetPrivate(ctx, "fs", "fp1", "list", true); err == nil {
		t.Error("marking with a failing store: no error")
	}
	if !b.IsPrivate("fp1", "list") {
		t.Error("a failed save did not mark the tool in memory")
	}
	store.failWrites.Store(false)

	// The server changes: its marks follow it, another server's stay.
	if err := b.SetPrivate(ctx, "mail", "fpm", "inbox", true); err != nil {
		t.Fatal(err)
	}
	if err := b.ServerChanged(ctx, "fs", "fp2"); err != nil {
		t.Fatal(err)
	}
	if !b.IsPrivate("fp2", "read_file") || !b.IsPrivate("fp2", "list") || b.IsPrivate("fp1", "read_file") || !b.IsPrivate("fpm", "inbox") {
		t.Errorf("after the change: %+v", b.policyLockedForTest())
	}
	b3, _ := newTestBroker(t, store)
	if !b3.IsPrivate("fp2", "read_file") || b3.IsPrivate("fp1", "read_file") {
		t.Errorf("the store after the change: %+v", b3.policyLockedForTest())
	}
	b3.Close()

	if err := b.SetPrivate(ctx, "fs", "fp2", "read_file", false); err != nil {
		t.Fatal(err)
	}
	if b.IsPrivate("fp2", "read_file") {
		t.Error("unmarked tool still private")
	}
	for _, bad := range [][2]string{{"", "t"}, {"fp", ""}, {"fp", strings.Repeat("t", 257)}} {
		if err := b.SetPrivate(ctx, "fs", bad[0], bad[1], true); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("SetPrivate(%q, %d bytes): %v", bad[0], len(bad[1]), err)
		}
	}
}

func TestPrivateMarksBounded(t *testing.T) {
	ctx := t.Context()
	b, _ := newTestBroker(t, nil)
	defer b.Close()
	b.mu.Lock()
	for i := range MaxPrivateTools {
		b.private[privateKey{"fp", string(rune('a'+i%26)) + strings.Repeat("x", i/26)}] = PrivateTool{}
	}
	b.mu.Unlock()
	if err := b.SetPrivate(ctx, "s", "fp", "one-more", true); err == nil {
		t.Error("a mark past MaxPrivateTools was taken")
	}
	// Unmarking, and marking one already marked, still work.
	if err := b.SetPrivate(ctx, "s", "fp", "a", true); err != nil {
		t.Error(err)
	}
	if err := b.SetPrivate(ctx, "s", "fp", "a", false); err != nil {
		t.Error(err)
	}
}

func (b *Broker) policyLockedForTest() Policy {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.policyLocked()
}

package approval

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// clientReq is req made in a connected app's turn.
func clientReq(id, conv, server, tool, fp string) Request {
	r := req(id, conv, server, tool, fp)
	r.RequestedBy, r.Client = RequestedByClient, "Claude Desktop"
	return r
}

// A connected app's call asks even with yolo on, is not released when
// yolo is turned on while it waits, cannot be answered "allow all", and
// runs on an "always" grant like any call.
func TestClientCallsIgnoreYolo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		if err := b.SetYolo(t.Context(), true); err != nil {
			t.Fatal(err)
		}
		model := req("m", "conv1", "s1", "t1", "fp1")
		if o, err := b.Request(t.Context(), model); err != nil || o.Decision != AllowAll {
			t.Fatalf("a model's call with yolo on: %+v %v, want allow_all", o, err)
		}
		a := clientReq("a", "conv1", "s1", "t1", "fp1")
		if _, ok := b.Decided(t.Context(), a); ok {
			t.Fatal("Decided allowed a connected app's call by yolo")
		}
		ch := startWaiting(t, b, a)
		if _, done := poll(ch); done {
			t.Fatal("a connected app's call ran on yolo")
		}
		if err := b.SetYolo(t.Context(), true); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, done := poll(ch); done {
			t.Fatal("turning yolo on released a connected app's call")
		}
		if err := b.Decide(t.Context(), "a", AllowAll); !errors.Is(err, ErrInvalidDecision) {
			t.Fatalf("allow all on a connected app's call: %v, want ErrInvalidDecision", err)
		}
		if diff := cmp.Diff([]Request{a}, b.Pending()); diff != "" {
			t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
		}
		rec.take()
		if err := b.Decide(t.Context(), "a", AllowAlways); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		res, done := poll(ch)
		if !done || !res.Outcome.Allowed || res.Outcome.Decision != AllowAlways {
			t.Fatalf("after allow always: %+v done=%v", res, done)
		}
		// The grant now covers the app's next call of the same tool.
		o, ok := b.Decided(t.Context(), clientReq("b", "conv1", "s1", "t1", "fp1"))
		if !ok || o.Decision != AllowAlways {
			t.Errorf("the grant does not cover the app's next call: %+v %v", o, ok)
		}
	})
}

package approval

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestCancelConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		calls := []Request{
			req("a", "conv1", "s1", "t1", "fp1"),
			req("b", "conv2", "s1", "t1", "fp1"),
			req("c", "conv1", "s2", "t2", "fp1"),
			req("d", "", "s1", "t1", "fp1"),
		}
		chs := make(map[string]<-chan result)
		for _, r := range calls {
			chs[r.ID] = startWaiting(t, b, r)
		}
		rec.take()

		b.CancelConversation("conv1")
		b.CancelConversation("")
		b.CancelConversation("no-such-conversation")
		synctest.Wait()

		got := make(map[string]Outcome)
		for id, ch := range chs {
			if res, done := poll(ch); done {
				got[id] = res.Outcome
			}
		}
		cancelled := refused(Cancelled, BySystem)
		if diff := cmp.Diff(map[string]Outcome{"a": cancelled, "c": cancelled}, got); diff != "" {
			t.Errorf("resolved calls mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Request{calls[1], calls[3]}, b.Pending()); diff != "" {
			t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]recorded{resolved("a", cancelled), resolved("c", cancelled)}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		a, c := req("a", "conv1", "s1", "t1", "fp1"), req("c", "conv2", "s2", "t2", "fp2")
		chA := startWaiting(t, b, a)
		chC := startWaiting(t, b, c)
		rec.take()

		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := b.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		synctest.Wait()
		cancelled := refused(Cancelled, BySystem)
		for id, ch := range map[string]<-chan result{"a": chA, "c": chC} {
			res, done := poll(ch)
			if diff := cmp.Diff(result{Outcome: cancelled}, res); !done || diff != "" {
				t.Errorf("call %s: done=%v, result mismatch (-want +got):\n%s", id, done, diff)
			}
		}
		if diff := cmp.Diff([]recorded{resolved("a", cancelled), resolved("c", cancelled)}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}

		// After Close nothing runs, even with yolo on, and nothing waits.
		if err := b.SetYolo(t.Context(), true); err != nil {
			t.Fatalf("SetYolo after Close: %v", err)
		}
		rec.take()
		o, err := b.Request(t.Context(), req("d", "conv1", "s1", "t1", "fp1"))
		if diff := cmp.Diff(result{Outcome: cancelled}, result{o, err}); diff != "" {
			t.Errorf("Request after Close mismatch (-want +got):\n%s", diff)
		}
		if err := b.Decide(t.Context(), "a", AllowOnce); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("Decide after Close error = %v, want ErrUnknownRequest", err)
		}
		if got := b.Pending(); len(got) != 0 {
			t.Errorf("Pending() after Close = %v, want none", got)
		}
		if evs := rec.take(); len(evs) != 0 {
			t.Errorf("events after Close = %v, want none", evs)
		}
	})
}

func TestContextCancel(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b, rec := newTestBroker(t, nil)
			defer b.Close()
			a := req("a", "conv1", "s1", "t1", "fp1")
			ctx, cancel := context.WithCancel(t.Context())
			ch := start(ctx, b, a)
			synctest.Wait()
			cancel()
			synctest.Wait()

			res, done := poll(ch)
			if diff := cmp.Diff(result{Outcome: refused(Cancelled, BySystem)}, res); !done || diff != "" {
				t.Errorf("done=%v, result mismatch (-want +got):\n%s", done, diff)
			}
			if got := b.Pending(); len(got) != 0 {
				t.Errorf("Pending() = %v, want none", got)
			}
			want := []recorded{requested(a), resolved("a", refused(Cancelled, BySystem))}
			if diff := cmp.Diff(want, rec.take()); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if err := b.Decide(t.Context(), "a", AllowOnce); !errors.Is(err, ErrUnknownRequest) {
				t.Errorf("Decide after cancel error = %v, want ErrUnknownRequest", err)
			}
		})
	})
	t.Run("before the request", func(t *testing.T) {
		b, rec := newTestBroker(t, nil)
		defer b.Close()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		o, err := b.Request(ctx, req("a", "conv1", "s1", "t1", "fp1"))
		if diff := cmp.Diff(result{Outcome: refused(Cancelled, BySystem)}, result{o, err}); diff != "" {
			t.Errorf("result mismatch (-want +got):\n%s", diff)
		}
		if evs := rec.take(); len(evs) != 0 {
			t.Errorf("events = %v, want none", evs)
		}
	})
}

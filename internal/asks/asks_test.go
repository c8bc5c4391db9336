package asks

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
)

type question struct {
	Meta
	Text string
}

const (
	evRequested = "test:requested"
	evEnded     = "test:ended"
)

func newBroker(rec *eventtest.Recorder, visible bool, o Options) *Broker[*question, string] {
	o.EventRequested, o.EventEnded, o.Emitter = evRequested, evEnded, rec
	if visible {
		o.Visible = func() bool { return true }
	}
	return New[*question, string](&o)
}

// ask runs Ask in a goroutine and returns where its result lands.
type result struct {
	answer string
	err    error
}

func ask(b *Broker[*question, string], ctx context.Context, server, text string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		a, err := b.Ask(ctx, server, "Server "+server, &question{Text: text}, text)
		ch <- result{a, err}
	}()
	return ch
}

func endedOf(rec *eventtest.Recorder) []Ended {
	var out []Ended
	for _, e := range rec.Events() {
		if e.Name == evEnded {
			out = append(out, e.Payload.(Ended))
		}
	}
	return out
}

func TestAnsweredRequestIsListedThenEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{})
		got := ask(b, t.Context(), "s1", "name?")
		synctest.Wait()
		p := b.Pending()
		if len(p) != 1 || p[0].Text != "name?" || p[0].ServerID != "s1" || p[0].ServerName != "Server s1" {
			t.Fatalf("pending = %+v", p)
		}
		if want := p[0].RequestedAt.Add(DefaultTimeout); !p[0].ExpiresAt.Equal(want) {
			t.Errorf("expires at %v; want %v", p[0].ExpiresAt, want)
		}
		if q, ok := b.Get(p[0].ID); !ok || q != p[0] {
			t.Errorf("Get = %v, %v", q, ok)
		}
		if err := b.Answer(p[0].ID, "Ada"); err != nil {
			t.Fatal(err)
		}
		if r := <-got; r.err != nil || r.answer != "Ada" {
			t.Fatalf("Ask = %+v", r)
		}
		if err := b.Answer(p[0].ID, "again"); !errors.Is(err, ErrUnknown) {
			t.Errorf("second answer: %v; want ErrUnknown", err)
		}
		if len(b.Pending()) != 0 {
			t.Errorf("still pending: %+v", b.Pending())
		}
		evs := rec.Events()
		if len(evs) != 2 || evs[0].Name != evRequested || evs[1].Name != evEnded {
			t.Fatalf("events = %+v", evs)
		}
		want := Ended{ID: p[0].ID, ServerID: "s1", ServerName: "Server s1", Outcome: Answered, Summary: "name?"}
		if diff := cmp.Diff(want, evs[1].Payload); diff != "" {
			t.Errorf("ended (-want +got):\n%s", diff)
		}
	})
}

func TestUnansweredRequestExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{Timeout: time.Minute})
		start := time.Now()
		r := <-ask(b, t.Context(), "s1", "name?")
		if !errors.Is(r.err, ErrExpired) {
			t.Fatalf("err = %v; want ErrExpired", r.err)
		}
		if took := time.Since(start); took != time.Minute {
			t.Errorf("expired after %s; want 1m", took)
		}
		ends := endedOf(rec)
		if len(ends) != 1 || ends[0].Outcome != Expired || ends[0].Reason != "nobody answered within 1m0s" {
			t.Errorf("ended = %+v", ends)
		}
		if len(b.Pending()) != 0 {
			t.Error("an expired request is still pending")
		}
	})
}

func TestServerThatStopsWaitingCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{})
		ctx, cancel := context.WithCancel(t.Context())
		got := ask(b, ctx, "s1", "name?")
		synctest.Wait()
		cancel()
		if r := <-got; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("err = %v", r.err)
		}
		if ends := endedOf(rec); len(ends) != 1 || ends[0].Outcome != Cancelled || ends[0].Reason != "the server stopped waiting" {
			t.Errorf("ended = %+v", ends)
		}
	})
}

func TestNoVisibleWindowRefusesAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name    string
		visible func() bool
	}{
		{"no window", nil},
		{"window hidden", func() bool { return false }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &eventtest.Recorder{}
			b := New[*question, string](&Options{EventRequested: evRequested, EventEnded: evEnded, Emitter: rec, Visible: tt.visible})
			_, err := b.Ask(t.Context(), "s1", "S", &question{Text: "name?"}, "name?")
			if !errors.Is(err, ErrNoWindow) {
				t.Fatalf("err = %v; want ErrNoWindow", err)
			}
			evs := rec.Events()
			if len(evs) != 1 || evs[0].Name != evEnded {
				t.Fatalf("events = %+v; want only the end", evs)
			}
			if e := evs[0].Payload.(Ended); e.Outcome != Refused || e.Reason != ErrNoWindow.Error() || e.Summary != "name?" {
				t.Errorf("ended = %+v", e)
			}
		})
	}
}

func TestPendingIsBoundedPerServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{MaxPendingPerServer: 1, MaxPending: 2})
		first := ask(b, t.Context(), "s1", "one")
		synctest.Wait()
		if r := <-ask(b, t.Context(), "s1", "two"); !errors.Is(r.err, ErrBusy) {
			t.Fatalf("second of s1: %v; want ErrBusy", r.err)
		}
		other := ask(b, t.Context(), "s2", "other") // another server may still ask
		synctest.Wait()
		if r := <-ask(b, t.Context(), "s3", "third"); !errors.Is(r.err, ErrBusy) {
			t.Fatalf("past MaxPending: %v; want ErrBusy", r.err)
		}
		p := b.Pending()
		if len(p) != 2 || p[0].Text != "one" || p[1].Text != "other" {
			t.Fatalf("pending = %+v", p)
		}
		for _, q := range p {
			b.Answer(q.ID, "ok")
		}
		<-first
		<-other
		if r := ask(b, t.Context(), "s1", "later"); true {
			synctest.Wait()
			if len(b.Pending()) != 1 {
				t.Fatal("s1 may ask again once its request ended")
			}
			b.Answer(b.Pending()[0].ID, "ok")
			<-r
		}
	})
}

func TestStormIsRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{Burst: 2, Every: 10 * time.Second})
		rec.OnEmit = func(name string, payload any) { // a user who answers at once
			if q, ok := payload.(*question); ok && name == evRequested {
				go b.Answer(q.ID, "ok")
			}
		}
		var errs []error
		for range 4 {
			errs = append(errs, (<-ask(b, t.Context(), "s1", "q")).err)
		}
		want := []error{nil, nil, ErrRateLimited, ErrRateLimited}
		if diff := cmp.Diff(want, errs, cmp.Comparer(func(x, y error) bool { return errors.Is(x, y) })); diff != "" {
			t.Fatalf("errors (-want +got):\n%s", diff)
		}
		if r := <-ask(b, t.Context(), "s2", "q"); r.err != nil {
			t.Errorf("another server is limited too: %v", r.err)
		}
		time.Sleep(10 * time.Second) // one token back
		if r := <-ask(b, t.Context(), "s1", "q"); r.err != nil {
			t.Errorf("after 10 s: %v", r.err)
		}
		if r := <-ask(b, t.Context(), "s1", "q"); !errors.Is(r.err, ErrRateLimited) {
			t.Errorf("second after 10 s: %v; want ErrRateLimited", r.err)
		}
		refused := 0
		for _, e := range endedOf(rec) {
			if e.Outcome == Refused {
				refused++
			}
		}
		if refused != 3 {
			t.Errorf("%d refused ends; want 3", refused)
		}
	})
}

// TestFollowTakesNoToken: the wait after a step the user started is not
// refused for the server's rate, but is bounded like any request.
func TestFollowTakesNoToken(t *testing.T) {
	rec := &eventtest.Recorder{}
	b := newBroker(rec, true, Options{Burst: 1, Every: time.Hour, MaxPendingPerServer: 1})
	holding := make(chan struct{})
	rec.OnEmit = func(name string, payload any) {
		if q, ok := payload.(*question); ok && name == evRequested {
			if q.Text == "hold" {
				close(holding)
			} else {
				go b.Answer(q.ID, "ok")
			}
		}
	}
	if r := <-ask(b, t.Context(), "s1", "open the page"); r.err != nil {
		t.Fatal(r.err)
	}
	if r := <-ask(b, t.Context(), "s1", "again"); !errors.Is(r.err, ErrRateLimited) {
		t.Fatalf("second Ask: %v; want ErrRateLimited", r.err)
	}
	for range 2 {
		if a, err := b.Follow(t.Context(), "s1", "Server s1", &question{Text: "done?"}, "done?"); err != nil || a != "ok" {
			t.Fatalf("Follow = %q, %v", a, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := b.Follow(ctx, "s1", "Server s1", &question{Text: "hold"}, "hold")
		held <- err
	}()
	<-holding
	if _, err := b.Follow(t.Context(), "s1", "Server s1", &question{Text: "more"}, "more"); !errors.Is(err, ErrBusy) {
		t.Errorf("Follow past the pending bound: %v; want ErrBusy", err)
	}
	cancel()
	<-held
}

func TestCloseEndsWaitingRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		b := newBroker(rec, true, Options{})
		got := ask(b, t.Context(), "s1", "q")
		synctest.Wait()
		b.Close()
		b.Close()
		if r := <-got; !errors.Is(r.err, ErrClosed) {
			t.Fatalf("err = %v; want ErrClosed", r.err)
		}
		if r := <-ask(b, t.Context(), "s1", "q"); !errors.Is(r.err, ErrClosed) {
			t.Fatalf("after Close: %v; want ErrClosed", r.err)
		}
	})
}

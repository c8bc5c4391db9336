package eventtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type status struct {
	ID    string
	State string
}

func TestRecorderKeepsEventsInOrder(t *testing.T) {
	var r Recorder
	var hooked []string
	r.OnEmit = func(name string, _ any) { hooked = append(hooked, name) }
	r.Emit("server:status", status{"a", "connecting"})
	r.Emit("log:append", "line")
	r.Emit("server:status", status{"a", "connected"})

	want := []Event{{Name: "server:status", Payload: status{"a", "connecting"}}, {Name: "log:append", Payload: "line"}, {Name: "server:status", Payload: status{"a", "connected"}}}
	if diff := cmp.Diff(want, r.Events(), cmpopts.IgnoreFields(Event{}, "At")); diff != "" {
		t.Errorf("Events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:2], r.Named("log:append"), cmpopts.IgnoreFields(Event{}, "At")); diff != "" {
		t.Errorf("Named (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]status{{"a", "connecting"}, {"a", "connected"}}, Payloads[status](&r, "server:status")); diff != "" {
		t.Errorf("Payloads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"server:status", "log:append", "server:status"}, hooked); diff != "" {
		t.Errorf("OnEmit saw (-want +got):\n%s", diff)
	}

	if got := len(r.Take()); got != 3 {
		t.Errorf("Take returned %d events, want 3", got)
	}
	if got := len(r.Events()); got != 0 {
		t.Errorf("%d events after Take", got)
	}
	if got := r.Len(); got != 3 {
		t.Errorf("Len = %d after Take, want 3 (it counts taken events)", got)
	}
}

func TestWaitFindsPastAndFutureEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r Recorder
		connected := Is("server:status", func(s status) bool { return s.State == "connected" })
		r.Emit("server:status", status{"a", "connected"})

		// Already recorded: returned at once.
		if e, err := r.Wait(t.Context(), 0, connected); err != nil || e.Payload.(status).ID != "a" {
			t.Fatalf("Wait = %+v, %v", e, err)
		}

		// From now on: the earlier event does not count, the next one does.
		from := r.Len()
		got := make(chan Event, 1)
		go func() {
			e, err := r.Wait(t.Context(), from, connected)
			if err != nil {
				t.Error(err)
			}
			got <- e
		}()
		synctest.Wait()
		select {
		case e := <-got:
			t.Fatalf("Wait returned %+v before a new event", e)
		default:
		}
		r.Emit("server:status", status{"b", "connecting"})
		r.Emit("log:append", status{"b", "connected"}) // another name
		r.Emit("server:status", status{"b", "connected"})
		if e := <-got; e.Payload.(status).ID != "b" {
			t.Errorf("Wait returned %+v, want b connected", e)
		}
	})
}

func TestWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r Recorder
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := r.Wait(ctx, 0, Is[status]("server:status", nil))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
	})
}

func TestConcurrentEmitAndWait(t *testing.T) {
	var r Recorder
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				r.Emit("tick", i*100+j)
			}
		})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for i := range 8 {
		if _, err := r.Wait(ctx, 0, Is("tick", func(n int) bool { return n == i*100+99 })); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if n := len(r.Events()); n != 800 {
		t.Errorf("%d events, want 800", n)
	}
}

// Package eventtest has the Recorder that tests put where the app emits
// events to the window: the one-method Emitter (Emit(name, payload)) of
// approval, mcpconn, chat and core.
//
// It imports no other internal package, so the tests of every package may
// use it, approval's included (approval must not depend on mcpconn, whose
// test kit, mcpconn/mcptest, brings the MCP SDK along).
package eventtest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// An Event is one call of Emit.
type Event struct {
	Name    string
	Payload any
	At      time.Time // when it was recorded (the bubble's clock under synctest)
}

// A Recorder is an Emitter that keeps every event, safe for concurrent use.
// Its zero value is ready to use.
type Recorder struct {
	// OnEmit, when set, runs in Emit after the event is recorded, with no
	// lock held, as a window that answers at once would. Set it before the
	// events it should see.
	OnEmit func(name string, payload any)

	mu      sync.Mutex
	events  []Event
	taken   int           // events removed by Take
	changed chan struct{} // closed at the next Emit; nil while no one waits
}

// Emit records the event, wakes those waiting, then runs OnEmit.
func (r *Recorder) Emit(name string, payload any) {
	r.mu.Lock()
	r.events = append(r.events, Event{Name: name, Payload: payload, At: time.Now()})
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
	hook := r.OnEmit
	r.mu.Unlock()
	if hook != nil {
		hook(name, payload)
	}
}

// Events returns a copy of the events recorded (since the last Take), in
// order.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Named returns the events of that name, in order.
func (r *Recorder) Named(name string) []Event {
	var out []Event
	for _, e := range r.Events() {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// Take returns the events recorded since the last Take and forgets them.
func (r *Recorder) Take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := r.events
	r.events = nil
	r.taken += len(evs)
	return evs
}

// Len is the number of events recorded so far, taken ones included: pass
// it to Wait to wait for an event that comes after now.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.taken + len(r.events)
}

// Wait returns the first event, past the first from events ever recorded,
// that match accepts: one already recorded, or else the next one that
// comes. It returns ctx.Err() if ctx ends first. Events taken by Take are
// not seen. match runs with no lock held.
func (r *Recorder) Wait(ctx context.Context, from int, match func(Event) bool) (Event, error) {
	for {
		r.mu.Lock()
		from = max(from, r.taken)
		evs := slices.Clone(r.events[from-r.taken:])
		from += len(evs)
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		for _, e := range evs {
			if match(e) {
				return e, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Is returns a match for Wait: an event named name whose payload is a T
// that match accepts (any T, when match is nil).
func Is[T any](name string, match func(T) bool) func(Event) bool {
	return func(e Event) bool {
		p, ok := e.Payload.(T)
		return ok && e.Name == name && (match == nil || match(p))
	}
}

// Payloads returns the payloads of the events named name that are a T, in
// order.
func Payloads[T any](r *Recorder, name string) []T {
	var out []T
	for _, e := range r.Events() {
		if p, ok := e.Payload.(T); ok && e.Name == name {
			out = append(out, p)
		}
	}
	return out
}

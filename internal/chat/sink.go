package chat

import (
	"strings"
	"sync"
	"time"
)

// A sink collects a streaming reply's text and passes it on through two
// throttles: deltas to the UI (at most one per DeltaInterval) and saves to
// the database (at most one per FlushInterval). Both fire on the trailing
// edge too, so the last piece never waits for another delta.
type sink struct {
	emitDelta func(content, reasoning string) // the text appended since the last call
	save      func(content, reasoning string) // the whole text so far

	mu            sync.Mutex
	content       strings.Builder
	reasoning     strings.Builder
	sentContent   int // bytes of content already passed to emitDelta
	sentReasoning int

	ui, db *throttle
}

func newSink(deltaEvery, saveEvery time.Duration, emitDelta, save func(content, reasoning string)) *sink {
	s := &sink{emitDelta: emitDelta, save: save}
	s.ui = &throttle{interval: deltaEvery, fn: s.flushDelta}
	s.db = &throttle{interval: saveEvery, fn: s.flushSave}
	return s
}

// add appends text; it never blocks on the UI or the database.
func (s *sink) add(content, reasoning string) {
	if content == "" && reasoning == "" {
		return
	}
	s.mu.Lock()
	s.content.WriteString(content)
	s.reasoning.WriteString(reasoning)
	s.mu.Unlock()
	s.ui.poke()
	s.db.poke()
}

// flushDelta emits what was appended since the last delta. Calls are
// serialised by the throttle (or come after it stopped), so deltas leave in
// order.
func (s *sink) flushDelta() {
	s.mu.Lock()
	c := s.content.String()[s.sentContent:]
	r := s.reasoning.String()[s.sentReasoning:]
	s.sentContent += len(c)
	s.sentReasoning += len(r)
	s.mu.Unlock()
	if c != "" || r != "" {
		s.emitDelta(c, r)
	}
}

func (s *sink) flushSave() {
	s.mu.Lock()
	c, r := s.content.String(), s.reasoning.String()
	s.mu.Unlock()
	s.save(c, r)
}

// close stops both throttles, waiting for a save or a delta in flight, and
// emits the last delta. After it returns nothing more is emitted or saved,
// so the caller's final write and event come last.
func (s *sink) close() {
	s.db.stop()
	s.ui.stop()
	s.flushDelta()
}

// A throttle runs fn at most once per interval after pokes, the first at
// once, and always once after the last poke. Runs of fn never overlap.
type throttle struct {
	interval time.Duration
	fn       func()

	mu      sync.Mutex
	last    time.Time // when fn last started
	timer   *time.Timer
	stopped bool

	running sync.Mutex // held while fn runs
}

func (t *throttle) poke() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || t.timer != nil {
		return // a run is already due; it will see this poke's data
	}
	wait := max(t.interval-time.Since(t.last), 0)
	t.timer = time.AfterFunc(wait, t.fire)
}

func (t *throttle) fire() {
	t.running.Lock()
	defer t.running.Unlock()
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return
	}
	t.timer = nil
	t.last = time.Now()
	t.mu.Unlock()
	t.fn()
}

// stop cancels a pending run and waits for one in progress.
func (t *throttle) stop() {
	t.mu.Lock()
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	t.mu.Unlock()
	t.running.Lock()
	t.running.Unlock() //nolint:staticcheck // an empty critical section: waits for fire
}

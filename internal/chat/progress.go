package chat

import (
	"slices"
	"sync"
	"time"
)

// ProgressInterval is the shortest time between two progress events
// (chat:toolcall with Progress set) of the whole engine: at most 20 a
// second whatever the servers send, which leaves room for the UI's other
// events under 60 a second. Running calls take turns, and each call's
// newest report is the one sent.
const ProgressInterval = 50 * time.Millisecond

// A progressPacer sends running calls' progress reports to the UI at most
// once per ProgressInterval in all. A report waits until its call's turn
// and is replaced by a newer one of the same call meanwhile; when a call
// ends, its waiting report is sent before the end (one more event per call,
// which the calls' own cap bounds), so the UI always sees a call's last
// progress, and never a report after the call ended.
//
// It starts no goroutine of its own: a timer (time.AfterFunc) runs only
// while reports wait.
type progressPacer struct {
	emit Emitter

	// sendMu is held while an event is emitted, so end waits for a report
	// being sent and the call's end event follows it.
	sendMu sync.Mutex

	mu      sync.Mutex
	waiting map[*toolCall]ToolCallEvent // newest report per call
	order   []*toolCall                 // calls with a waiting report, in turn
	last    time.Time                   // when a report was last sent
	timer   *time.Timer                 // set while a send is scheduled
}

func newProgressPacer(emit Emitter) *progressPacer {
	return &progressPacer{emit: emit, waiting: map[*toolCall]ToolCallEvent{}}
}

// add queues ev, tc's newest report, replacing any that waits. It never
// emits on the caller's goroutine.
func (p *progressPacer) add(tc *toolCall, ev ToolCallEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.waiting[tc]; !ok {
		p.order = append(p.order, tc)
	}
	p.waiting[tc] = ev
	if p.timer == nil {
		p.timer = time.AfterFunc(max(0, ProgressInterval-time.Since(p.last)), p.send)
	}
}

// send emits the report of the call whose turn it is, and schedules the
// next one if more wait.
func (p *progressPacer) send() {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.mu.Lock()
	p.timer = nil
	if len(p.order) == 0 {
		p.mu.Unlock()
		return
	}
	tc := p.order[0]
	p.order = p.order[1:]
	ev := p.waiting[tc]
	delete(p.waiting, tc)
	p.last = time.Now()
	if len(p.order) > 0 {
		p.timer = time.AfterFunc(ProgressInterval, p.send)
	}
	p.mu.Unlock()
	p.emit.Emit(EventToolCall, ev)
}

// end sends tc's waiting report, if any, at once; when it returns, no
// report of tc is being sent or will be. The caller must have stopped
// adding reports of tc.
func (p *progressPacer) end(tc *toolCall) {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.mu.Lock()
	ev, ok := p.waiting[tc]
	if ok {
		delete(p.waiting, tc)
		p.order = slices.DeleteFunc(p.order, func(x *toolCall) bool { return x == tc })
	}
	p.mu.Unlock()
	if ok {
		p.emit.Emit(EventToolCall, ev)
	}
}

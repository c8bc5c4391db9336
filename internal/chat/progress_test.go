package chat

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A server that floods a call with progress reports gets the UI at most
// one progress event per ProgressInterval, and the last report is shown.
func TestProgressFloodIsPaced(t *testing.T) {
	const reports = 10_000
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("done"),
	}, nil)
	lastShown := func() float64 {
		var p float64
		for _, ev := range h.rec.toolEvents() {
			if ev.Progress != nil {
				p = ev.Progress.Progress
			}
		}
		return p
	}
	var start time.Time
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": func(ctx context.Context, _ json.RawMessage, progress func(Progress)) (ToolResult, error) {
			start = time.Now()
			for i := 1; i <= reports; i++ {
				progress(Progress{Progress: float64(i), Total: reports, Message: "working"})
			}
			// The call goes on: its last report must still reach the UI.
			deadline := time.Now().Add(5 * time.Second)
			for lastShown() != reports {
				if time.Now().After(deadline) {
					return ToolResult{}, errors.New("the last progress report never reached the UI")
				}
				time.Sleep(time.Millisecond)
			}
			return ToolResult{Text: "read"}, nil
		},
	}
	if res := h.send("go"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	if a := h.audit(); len(a) != 1 || a[0].Status != store.CallDone {
		t.Fatalf("audit %+v", a)
	}
	var progress []event
	for _, ev := range h.rec.all(EventToolCall) {
		if ev.Payload.(ToolCallEvent).Progress != nil {
			progress = append(progress, ev)
		}
	}
	span := last(progress).At.Sub(start)
	if limit := 1 + int(span/ProgressInterval); len(progress) > limit {
		t.Errorf("%d progress events in %v; want at most %d", len(progress), span, limit)
	}
	for i := 1; i < len(progress); i++ {
		if gap := progress[i].At.Sub(progress[i-1].At); gap < ProgressInterval-5*time.Millisecond {
			t.Errorf("progress events %d and %d only %v apart", i-1, i, gap)
		}
	}
}

// The pacer shares its budget between calls, sends each call's newest
// report, sends a call's waiting report as it ends and nothing of it after.
func TestProgressPacer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		p := newProgressPacer(rec)
		a := &toolCall{call: llmCall("a")}
		b := &toolCall{call: llmCall("b")}
		report := func(tc *toolCall, n float64) {
			p.add(tc, ToolCallEvent{CallID: tc.call.ID, Status: ToolRunning, Progress: &Progress{Progress: n}})
		}
		// Both calls report every millisecond for a second.
		begin := time.Now()
		for i := 1; i <= 1000; i++ {
			report(a, float64(i))
			report(b, float64(i))
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()
		evs := rec.all(EventToolCall)
		if limit := 1 + int(time.Since(begin)/ProgressInterval); len(evs) > limit || len(evs) < limit-2 {
			t.Errorf("%d events in %v; want about %d", len(evs), time.Since(begin), limit)
		}
		perCall := map[string]int{}
		for i, ev := range evs {
			perCall[ev.Payload.(ToolCallEvent).CallID]++
			if i > 0 && ev.At.Sub(evs[i-1].At) < ProgressInterval {
				t.Errorf("events %d and %d are %v apart", i-1, i, ev.At.Sub(evs[i-1].At))
			}
		}
		if perCall["a"] < len(evs)/2 || perCall["b"] < len(evs)/2 {
			t.Errorf("calls did not take turns: %v", perCall)
		}

		// a ends with a report waiting: it goes out at once, and nothing
		// of a follows.
		rec.Take()
		report(a, 5000)
		report(b, 5000)
		p.end(a)
		evs = rec.Take()
		if len(evs) != 1 || evs[0].Payload.(ToolCallEvent).CallID != "a" || evs[0].Payload.(ToolCallEvent).Progress.Progress != 5000 {
			t.Fatalf("at a's end: %+v", evs)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		evs = rec.Take()
		if len(evs) != 1 || evs[0].Payload.(ToolCallEvent).CallID != "b" || evs[0].Payload.(ToolCallEvent).Progress.Progress != 5000 {
			t.Errorf("after a's end: %+v; want b's last report only", evs)
		}
		p.end(b)
		if evs := rec.Take(); len(evs) != 0 {
			t.Errorf("b's end sent %+v; its report was already out", evs)
		}
	})
}

func llmCall(id string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "t"} }

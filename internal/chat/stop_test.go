package chat

import (
	"context"
	"encoding/json"
	"github.com/switchboard-app/switchboard/internal/approval"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// TestStopMidStreamKeepsPartial also shows crash safety: while the stream
// stalls, the text that arrived is already in the database.
func TestStopMidStreamKeepsPartial(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{{
		Content: []string{"The ", "answer ", "is ", "42"},
		Fault:   &llmtest.Fault{Kind: llmtest.FaultStall, After: 3},
	}}, nil)
	if _, err := h.e.Send(context.Background(), h.conv.ID, "question"); err != nil {
		t.Fatal(err)
	}
	var mid store.Message
	timetest.WaitFor(t, 10*time.Second, "the partial reply in the database", func() bool {
		ms := h.messages()
		if len(ms) < 2 {
			return false
		}
		mid = ms[1]
		return mid.Content == "The answer is "
	})
	if mid.Status != store.StatusStreaming {
		t.Errorf("mid-stream status %q", mid.Status)
	}
	if !h.e.Running(h.conv.ID) {
		t.Fatal("run ended during a stalled stream")
	}
	stopped := time.Now()
	if !h.e.Stop(h.conv.ID) {
		t.Fatal("Stop found no run")
	}
	res := h.wait()
	if took := time.Since(stopped); took > 2*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if res.Status != store.StatusStopped {
		t.Errorf("run %+v", res)
	}
	m := h.messages()[1]
	if m.Status != store.StatusStopped || m.Content != "The answer is " || m.Error != "" {
		t.Errorf("stopped message %+v", m)
	}
	if d := h.rec.all(EventDone); len(d) != 1 || d[0].Payload.(DoneEvent).Status != store.StatusStopped {
		t.Errorf("done %+v", d)
	}
	if h.e.Stop(h.conv.ID) {
		t.Error("Stop after the end found a run")
	}
}

func TestStopCancelsRunningToolCall(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{}`}}),
	}, nil)
	ctxErr := make(chan error, 1)
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": func(ctx context.Context, _ json.RawMessage, _ func(Progress)) (ToolResult, error) {
			<-ctx.Done()
			ctxErr <- ctx.Err()
			return ToolResult{}, ctx.Err()
		},
	}
	if _, err := h.e.Send(context.Background(), h.conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	timetest.WaitFor(t, 10*time.Second, "the tool to run", func() bool {
		for _, ev := range h.rec.toolEvents() {
			if ev.Status == ToolRunning {
				return true
			}
		}
		return false
	})
	h.e.Stop(h.conv.ID)
	select {
	case err := <-ctxErr:
		if err != context.Canceled {
			t.Errorf("tool ctx error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the running tool's context was not cancelled")
	}
	if res := h.wait(); res.Status != store.StatusStopped {
		t.Errorf("run %+v", res)
	}
	ms := h.messages()
	if diff := cmp.Diff([]string{"user", "assistant(stopped)", "tool"}, roles(ms)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if !strings.Contains(ms[2].Content, "cancelled") {
		t.Errorf("tool message %q", ms[2].Content)
	}
	if a := h.audit(); len(a) != 1 || a[0].Status != store.CallCancelled {
		t.Errorf("audit %+v", a)
	}
	if ev := last(h.rec.toolEvents()); ev.Status != ToolCancelled {
		t.Errorf("last tool event %+v", ev)
	}
	if n := len(h.srv.ChatRequests()); n != 1 {
		t.Errorf("model asked again after Stop: %d requests", n)
	}
}

func TestStopWhileWaitingForApproval(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{}`}}),
	}, nil)
	waiting := make(chan struct{})
	h.approver.decide = nil
	blocking := &blockingApprover{waiting: waiting}
	h.e.opts.Approver = blocking
	if _, err := h.e.Send(context.Background(), h.conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	<-waiting
	h.e.Stop(h.conv.ID)
	if res := h.wait(); res.Status != store.StatusStopped {
		t.Errorf("run %+v", res)
	}
	if n := len(h.tools.called()); n != 0 {
		t.Errorf("tool ran %d times", n)
	}
	if a := h.audit(); len(a) != 1 || a[0].Status != store.CallCancelled || a[0].Decision != string(approval.Cancelled) {
		t.Errorf("audit %+v", a)
	}
}

// blockingApprover waits for ctx, as the broker does, and answers
// cancelled.
type blockingApprover struct{ waiting chan struct{} }

func (b *blockingApprover) Request(ctx context.Context, r approval.Request) (approval.Outcome, error) {
	close(b.waiting)
	<-ctx.Done()
	return approval.Outcome{Decision: approval.Cancelled, DecidedBy: "system"}, nil
}

func TestBusyAndClose(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{{Content: []string{"a"}, Fault: &llmtest.Fault{Kind: llmtest.FaultStall, After: 1}}}, nil)
	if _, err := h.e.Send(context.Background(), h.conv.ID, "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Send(context.Background(), h.conv.ID, "two"); err != ErrBusy {
		t.Errorf("second Send: %v; want ErrBusy", err)
	}
	if _, err := h.e.Send(context.Background(), h.conv.ID, "  "); err != ErrBusy {
		t.Errorf("Send while busy: %v", err)
	}
	h.e.Close()
	h.e.Close()
	if res := h.wait(); res.Status != store.StatusStopped {
		t.Errorf("run after Close %+v", res)
	}
	if _, err := h.e.Send(context.Background(), h.conv.ID, "three"); err != ErrClosed {
		t.Errorf("Send after Close: %v", err)
	}
	if n := len(h.messages()); n != 2 {
		t.Errorf("%d messages; the refused sends must store nothing", n)
	}
}

package chat

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// fakeTasks is a Tasks whose tasks the test ends: end lands the result
// through the engine, as the tracker does, then releases Wait.
type fakeTasks struct {
	e       func() *Engine
	started chan TaskStart

	mu   sync.Mutex
	done map[string]chan struct{}
}

func newFakeTasks() *fakeTasks {
	return &fakeTasks{started: make(chan TaskStart, 4), done: map[string]chan struct{}{}}
}

func (f *fakeTasks) Follow(_ context.Context, s TaskStart) (string, error) {
	f.mu.Lock()
	f.done[s.Handle.TaskID] = make(chan struct{})
	f.mu.Unlock()
	f.started <- s
	return s.Handle.TaskID, nil
}

func (f *fakeTasks) Wait(ctx context.Context, id string) error {
	f.mu.Lock()
	ch := f.done[id]
	f.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeTasks) end(t *testing.T, s TaskStart, end TaskEnd) {
	t.Helper()
	end.ToolCallID = s.ToolCallID
	if err := f.e().LandTask(context.Background(), end); err != nil {
		t.Fatalf("LandTask: %v", err)
	}
	f.mu.Lock()
	close(f.done[s.Handle.TaskID])
	f.mu.Unlock()
}

func taskHarness(t *testing.T, replies []llmtest.Reply) (*harness, *fakeTasks) {
	ft := newFakeTasks()
	h := newHarness(t, replies, func(o *Options) { o.Tasks = ft })
	ft.e = func() *Engine { return h.e }
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
			return ToolResult{Task: &TaskHandle{ServerID: "fs", TaskID: "t-1", Status: "working"}}, nil
		},
	}
	return h, ft
}

// A call the server runs as a task holds the reply until the task ends;
// its result then reaches the model like any other.
func TestTaskResultReachesTheModel(t *testing.T) {
	h, ft := taskHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("the answer is 42"),
	})
	if _, err := h.e.Send(context.Background(), h.conv.ID, "q"); err != nil {
		t.Fatal(err)
	}
	s := <-ft.started
	if s.ConversationID != h.conv.ID || s.Tool != "fs__read" || s.ServerName != "fs server" || s.ToolCallID == "" {
		t.Errorf("task start %+v", s)
	}
	// While the task runs, the conversation already answers the call.
	timetest.WaitFor(t, 10*time.Second, "the placeholder", func() bool {
		ms := h.messages()
		return len(ms) == 3 && strings.Contains(ms[2].Content, "runs this call as a task (t-1)")
	})
	ft.end(t, s, TaskEnd{Status: store.CallDone, Text: "42", Full: json.RawMessage(`{"content":[{"type":"text","text":"42"}]}`)})
	if res := h.wait(); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	want := []string{"user: q", "assistant: ", "tool: 42", "assistant: the answer is 42"}
	if diff := cmp.Diff(want, contents(h.messages())); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	reqs := h.srv.ChatRequests()
	if got := last(reqs[len(reqs)-1].Messages).Content; got != "42" {
		t.Errorf("the model got %q as the tool result", got)
	}
	a := h.audit()
	if len(a) != 1 || a[0].Status != store.CallDone || string(a[0].Result) == "" {
		t.Errorf("audit %+v", a)
	}
	if ev := last(h.rec.toolEvents()); ev.Status != ToolDone || ev.ResultText != "42" || ev.ID != a[0].ID {
		t.Errorf("last tool event %+v", ev)
	}
}

// A reply stopped while its task runs leaves the task running; when it
// ends, its result replaces the placeholder in place, where the next
// request finds it.
func TestTaskLandsAfterStop(t *testing.T) {
	h, ft := taskHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
	})
	if _, err := h.e.Send(context.Background(), h.conv.ID, "q"); err != nil {
		t.Fatal(err)
	}
	s := <-ft.started
	h.e.Stop(h.conv.ID)
	h.wait()
	if a := h.audit(); a[0].Status != store.CallRunning {
		t.Errorf("after Stop the call is %s, want running (the task goes on)", a[0].Status)
	}
	ft.end(t, s, TaskEnd{Status: store.CallFailed, IsError: true, Error: "disk full", Text: "Error: the task of fs__read failed: disk full"})
	ms := h.messages()
	if got := ms[2].Content; got != "Error: the task of fs__read failed: disk full" || ms[2].Role != store.RoleTool {
		t.Errorf("tool message %q", got)
	}
	if a := h.audit(); a[0].Status != store.CallFailed || a[0].Error != "disk full" {
		t.Errorf("audit %+v", a[0])
	}
	// Landing twice is refused: the first end is the one kept.
	if err := h.e.LandTask(context.Background(), TaskEnd{ToolCallID: s.ToolCallID, Status: store.CallDone, Text: "late"}); err == nil {
		t.Error("a second LandTask succeeded")
	}
}

// Without a tasks follower, a task call ends with an error both the model
// and the user can read.
func TestTaskWithoutFollower(t *testing.T) {
	h, _ := taskHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("ok"),
	})
	h.e.opts.Tasks = nil
	h.send("q")
	ms := h.messages()
	if !strings.Contains(ms[2].Content, "cannot follow tasks") {
		t.Errorf("tool message %q", ms[2].Content)
	}
	if a := h.audit(); a[0].Status != store.CallFailed {
		t.Errorf("audit %+v", a[0])
	}
}

package chat

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/switchboard-app/switchboard/internal/approval"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestTurnWithTwoParallelToolCalls is the whole loop: a reply with two
// tool calls, both run at once (each blocks until both started), results
// back to the model with matching IDs, and a final answer, all persisted,
// audited and searchable.
func TestTurnWithTwoParallelToolCalls(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		{Content: []string{"Let me ", "look."}, Interleave: true, ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "fs__read", Arguments: []string{`{"path":`, `"/pics"}`}},
			{ID: "call_b", Name: "web__get", Arguments: []string{`{"url":"https://`, `example.com"}`}},
		}},
		llmtest.Text("The ", "quokka ", "is in ", "/pics."),
	}, nil)

	started := map[string]chan struct{}{"fs__read": make(chan struct{}), "web__get": make(chan struct{})}
	both := func(name string) func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
		return func(ctx context.Context, args json.RawMessage, progress func(Progress)) (ToolResult, error) {
			close(started[name])
			for _, ch := range started {
				select {
				case <-ch:
				case <-time.After(5 * time.Second):
					return ToolResult{}, errors.New("the other call never started: calls are not concurrent")
				}
			}
			progress(Progress{Progress: 1, Total: 2, Message: "half way"})
			return ToolResult{Text: name + " result", Full: json.RawMessage(`{"content":[{"type":"text","text":"` + name + ` result"}]}`)}, nil
		}
	}
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": both("fs__read"), "web__get": both("web__get"),
	}

	res := h.send("where is the quokka picture?")
	if res.Status != store.StatusDone {
		t.Fatalf("run = %+v", res)
	}
	ms := h.messages()
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "tool", "assistant"}, roles(ms)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	if ms[1].Content != "Let me look." || !strings.Contains(string(ms[1].ToolCalls), `"call_a"`) {
		t.Errorf("assistant with calls: %+v", ms[1])
	}
	// Each result is stored as its call ends, so in either order.
	stored := []string{ms[2].ToolCallID + "=" + ms[2].Content, ms[3].ToolCallID + "=" + ms[3].Content}
	slices.Sort(stored)
	if diff := cmp.Diff([]string{"call_a=fs__read result", "call_b=web__get result"}, stored); diff != "" {
		t.Errorf("tool messages stored (-want +got):\n%s", diff)
	}
	if ms[4].Content != "The quokka is in /pics." {
		t.Errorf("final answer %q", ms[4].Content)
	}
	var meta ReplyMeta
	if err := json.Unmarshal(ms[4].Meta, &meta); err != nil || meta.Model != "fake-model" || meta.Usage == nil || meta.Round != 2 {
		t.Errorf("meta %s (%v)", ms[4].Meta, err)
	}

	// The provider got the results with the IDs of the calls, in the calls'
	// order.
	reqs := h.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var toolMsgs []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			toolMsgs = append(toolMsgs, m.ToolCallID+"="+m.Content)
		}
		if m.Role == "assistant" && len(m.ToolCalls) != 2 {
			t.Errorf("assistant message sent back with %d calls", len(m.ToolCalls))
		}
	}
	if diff := cmp.Diff([]string{"call_a=fs__read result", "call_b=web__get result"}, toolMsgs); diff != "" {
		t.Errorf("tool messages sent (-want +got):\n%s", diff)
	}
	if len(reqs[0].Tools) != 2 {
		t.Errorf("%d tools offered", len(reqs[0].Tools))
	}

	// Approval was asked with the original names, the record's ID, and the
	// fingerprint; both ran with exactly the approved arguments.
	asked := h.approver.asked()
	if len(asked) != 2 {
		t.Fatalf("approver asked %d times", len(asked))
	}
	for _, a := range asked {
		if a.ConversationID != h.conv.ID || a.ID == "" || (a.Tool != "read" && a.Tool != "get") || !strings.HasPrefix(a.Fingerprint, "fp-") {
			t.Errorf("approval request %+v", a)
		}
	}
	audit := h.audit()
	if len(audit) != 2 {
		t.Fatalf("%d audit records", len(audit))
	}
	for _, a := range audit {
		if a.Status != store.CallDone || a.Decision != "allow_once" || a.DecidedBy != "user" || a.MessageID != ms[1].ID ||
			a.StartedAt.IsZero() || !strings.Contains(string(a.Result), "result") || a.ServerName == "" {
			t.Errorf("audit %+v", a)
		}
	}

	// Events: each call went waiting_approval → running (→ progress) → done.
	perCall := map[string][]string{}
	for _, ev := range h.rec.toolEvents() {
		s := ev.Status
		if ev.Progress != nil {
			s = "progress " + ev.Progress.Message
		}
		perCall[ev.CallID] = append(perCall[ev.CallID], s)
	}
	for _, id := range []string{"call_a", "call_b"} {
		want := []string{"pending", "waiting_approval", "running", "progress half way", "done"}
		if diff := cmp.Diff(want, perCall[id]); diff != "" {
			t.Errorf("%s events (-want +got):\n%s", id, diff)
		}
	}
	if got, _ := h.rec.deltas(ms[4].ID); got != ms[4].Content {
		t.Errorf("deltas %q != content %q", got, ms[4].Content)
	}
	done := h.rec.all(EventDone)
	if len(done) != 1 || done[0].Payload.(DoneEvent).Status != store.StatusDone {
		t.Errorf("done events %+v", done)
	}
	if st := last(h.rec.statuses()); st.State != StateIdle {
		t.Errorf("last status %+v", st)
	}

	// Title from the first message, and the answer is searchable.
	conv, _ := h.st.Conversation(context.Background(), h.conv.ID)
	if conv.Title != "where is the quokka picture?" {
		t.Errorf("title %q", conv.Title)
	}
	hits, err := h.st.Search(context.Background(), "quokka pics", 10)
	if err != nil || len(hits) != 1 || hits[0].MessageID != ms[4].ID || hits[0].ConversationTitle != conv.Title {
		t.Errorf("search: %+v, %v", hits, err)
	}
}

// TestBadToolCallsGetErrorResults: calls that fail a check never reach the
// approver or the tool; the model gets an error result and goes on.
func TestBadToolCallsGetErrorResults(t *testing.T) {
	tests := []struct {
		name string
		call llmtest.ToolCall
		sel  *ToolSelection
		want string
	}{
		{"unknown tool", llmtest.ToolCall{Name: "nope__x", Arguments: []string{"{}"}}, nil, `no tool named "nope__x"`},
		{"invalid JSON", llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{"path": "/a`}}, nil, "not valid JSON"},
		{"not an object", llmtest.ToolCall{Name: "fs__read", Arguments: []string{`["/a"]`}}, nil, "must be a JSON object"},
		{"disabled tool", llmtest.ToolCall{Name: "web__off", Arguments: []string{"{}"}}, nil, "switched off by the user"},
		{"not selected", llmtest.ToolCall{Name: "web__get", Arguments: []string{"{}"}}, &ToolSelection{Off: []string{"web__get"}}, "switched off for this conversation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []llmtest.Reply{llmtest.Calls(tt.call), llmtest.Text("ok")}, nil)
			off := tool("web", "off")
			off.Enabled = false
			h.tools.tools = append(h.tools.tools, off)
			if tt.sel != nil {
				if err := h.e.SetTools(context.Background(), h.conv.ID, tt.sel); err != nil {
					t.Fatal(err)
				}
			}
			if res := h.send("go"); res.Status != store.StatusDone {
				t.Fatalf("run %+v", res)
			}
			ms := h.messages()
			if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant"}, roles(ms)); diff != "" {
				t.Fatalf("messages (-want +got):\n%s", diff)
			}
			if !strings.Contains(ms[2].Content, tt.want) || !strings.HasPrefix(ms[2].Content, "Error:") {
				t.Errorf("tool result %q; want it to say %q", ms[2].Content, tt.want)
			}
			sent := h.srv.ChatRequests()[1].Messages
			if m := last(sent); m.Role != "tool" || m.Content != ms[2].Content || m.ToolCallID != "call_0" {
				t.Errorf("model got %+v", m)
			}
			if n := len(h.approver.asked()); n != 0 {
				t.Errorf("approver asked %d times", n)
			}
			if n := len(h.tools.called()); n != 0 {
				t.Errorf("tool ran %d times", n)
			}
			if a := h.audit(); len(a) != 1 || a[0].Status != store.CallFailed || a[0].Error == "" {
				t.Errorf("audit %+v", a)
			}
			if ev := last(h.rec.toolEvents()); ev.Status != ToolFailed {
				t.Errorf("last tool event %+v", ev)
			}
		})
	}
}

func TestDeniedCallLetsModelContinue(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{"path":"/etc"}`}}),
		llmtest.Text("Alright, I won't."),
	}, nil)
	h.approver.decide = func(approval.Request) approval.Outcome {
		return approval.Outcome{Decision: "deny", DecidedBy: "user"}
	}
	if res := h.send("read /etc"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	ms := h.messages()
	if !strings.Contains(ms[2].Content, "declined") || ms[3].Content != "Alright, I won't." {
		t.Errorf("messages %q / %q", ms[2].Content, ms[3].Content)
	}
	if n := len(h.tools.called()); n != 0 {
		t.Errorf("denied tool ran %d times", n)
	}
	if a := h.audit(); len(a) != 1 || a[0].Status != store.CallDenied || a[0].Decision != "deny" || a[0].DecidedBy != "user" {
		t.Errorf("audit %+v", a)
	}
	if ev := last(h.rec.toolEvents()); ev.Status != ToolDenied {
		t.Errorf("last tool event %+v", ev)
	}
}

// TestApprovedArgumentsAreRun: the tool runs with the outcome's arguments
// (what the user saw), not the model's text.
func TestApprovedArgumentsAreRun(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{` {"path":"/a"} `}}),
		llmtest.Text("done"),
	}, nil)
	h.approver.decide = func(r approval.Request) approval.Outcome {
		if string(r.Arguments) != `{"path":"/a"}` {
			t.Errorf("approver saw %s", r.Arguments)
		}
		return approval.Outcome{Allowed: true, Decision: "allow_always", DecidedBy: "policy", Arguments: json.RawMessage(`{"path":"/approved"}`)}
	}
	h.send("go")
	if calls := h.tools.called(); len(calls) != 1 || calls[0].args != `{"path":"/approved"}` {
		t.Errorf("tool calls %+v", calls)
	}
}

func TestResultIsCutForTheModelButKeptWhole(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{}`}}),
		llmtest.Text("ok"),
	}, func(o *Options) { o.ResultLimit = 100 })
	long := strings.Repeat("é", 500)
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
			return ToolResult{Text: long}, nil
		},
	}
	h.send("go")
	got := h.messages()[2].Content
	if !strings.HasPrefix(got, strings.Repeat("é", 100)+"\n\n[Result truncated: 500 characters, only the first 100") {
		t.Errorf("tool message %q", got)
	}
	var whole string
	if err := json.Unmarshal(h.audit()[0].Result, &whole); err != nil || whole != long {
		t.Errorf("audit result is not whole: %v", err)
	}
}

func TestMaxToolRoundsTellsTheUser(t *testing.T) {
	call := llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{}`}})
	h := newHarness(t, []llmtest.Reply{call, call}, func(o *Options) { o.MaxToolRounds = 2 })
	res := h.send("loop")
	if res.Status != store.StatusError || !strings.Contains(res.Error, "2 rounds of tool calls") {
		t.Fatalf("run %+v", res)
	}
	if n := len(h.srv.ChatRequests()); n != 2 {
		t.Errorf("%d requests; want 2", n)
	}
	ms := h.messages()
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant", "tool", "assistant(error)"}, roles(ms)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	var meta ReplyMeta
	json.Unmarshal(last(ms).Meta, &meta)
	if meta.Note != NoteToolRoundsLimit || !strings.Contains(last(ms).Error, "Retry") {
		t.Errorf("note %+v", last(ms))
	}

	// Retry lets the model go on from the tool results, without re-running them.
	h.srv.Enqueue(llmtest.Text("finally"))
	if _, err := h.e.Retry(context.Background(), h.conv.ID); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(); res.Status != store.StatusDone {
		t.Fatalf("retry %+v", res)
	}
	ms = h.messages()
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant", "tool", "assistant"}, roles(ms)); diff != "" {
		t.Errorf("after retry (-want +got):\n%s", diff)
	}
	if last(ms).Content != "finally" || len(h.tools.called()) != 2 {
		t.Errorf("last %q, tool ran %d times", last(ms).Content, len(h.tools.called()))
	}
}

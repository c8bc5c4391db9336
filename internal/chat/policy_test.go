package chat

import (
	"context"
	"encoding/json"
	"github.com/switchboard-app/switchboard/internal/approval"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// policyApprover is a fakeApprover whose standing policy allows the tools
// in always without asking.
type policyApprover struct {
	*fakeApprover
	always map[string]bool // original tool names
}

func (a policyApprover) Decided(_ context.Context, r approval.Request) (approval.Outcome, bool) {
	if !a.always[r.Tool] {
		return approval.Outcome{}, false
	}
	return approval.Outcome{Allowed: true, Decision: "allow_always", DecidedBy: "policy", Arguments: r.Arguments}, true
}

// A call a standing policy allows runs without asking and is recorded as
// decided by the policy; one the policy does not cover is still asked.
func TestPolicyDecidedCallsSkipTheQuestion(t *testing.T) {
	var pa policyApprover
	h := newHarness(t, []llmtest.Reply{
		{ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "fs__read", Arguments: []string{`{"path":"/a"}`}},
			{ID: "call_b", Name: "web__get", Arguments: []string{`{"url":"x"}`}},
		}},
		llmtest.Text("done"),
	}, func(o *Options) {
		pa = policyApprover{fakeApprover: o.Approver.(*fakeApprover), always: map[string]bool{"read": true}}
		o.Approver = pa
	})
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"fs__read": func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
			return ToolResult{Text: "A"}, nil
		},
		"web__get": func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
			return ToolResult{Text: "B"}, nil
		},
	}
	if res := h.send("go"); res.Status != store.StatusDone {
		t.Fatalf("run = %+v", res)
	}

	asked := h.approver.asked()
	if len(asked) != 1 || asked[0].Tool != "get" {
		t.Fatalf("asked %+v, want only the call the policy does not cover", asked)
	}
	byCall := map[string]store.ToolCall{}
	for _, a := range h.audit() {
		byCall[a.CallID] = a
	}
	if a := byCall["call_a"]; a.Status != store.CallDone || a.Decision != "allow_always" || a.DecidedBy != "policy" || a.StartedAt.IsZero() {
		t.Errorf("policy call's audit %+v", a)
	}
	if b := byCall["call_b"]; b.Status != store.CallDone || b.Decision != "allow_once" || b.DecidedBy != "user" {
		t.Errorf("asked call's audit %+v", b)
	}

	// The UI saw the policy call go straight to running, never waiting.
	var seen []string
	for _, ev := range h.rec.toolEvents() {
		if ev.CallID == "call_a" {
			seen = append(seen, ev.Status)
		}
	}
	if diff := cmp.Diff([]string{ToolRunning, ToolDone}, seen); diff != "" {
		t.Errorf("events of the policy call (-want +got):\n%s", diff)
	}

	// Both results reached the model, in the calls' order.
	reqs := h.srv.ChatRequests()
	var toolMsgs []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			toolMsgs = append(toolMsgs, m.ToolCallID+"="+m.Content)
		}
	}
	if diff := cmp.Diff([]string{"call_a=A", "call_b=B"}, toolMsgs); diff != "" {
		t.Errorf("tool messages sent (-want +got):\n%s", diff)
	}
}

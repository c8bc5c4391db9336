package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// trifectaTools are a private source, an open-world fetch (untrusted and
// outbound) and a sender (outbound only).
func trifectaTools() []Tool {
	read, get, send := tool("fs", "read"), tool("web", "get"), tool("mail", "send")
	read.Legs = approval.Legs{Private: true}
	get.Legs = approval.Legs{Untrusted: true, Outbound: true}
	send.Legs = approval.Legs{Outbound: true}
	return []Tool{read, get, send}
}

// The guard sets Request.Guard on an outbound call once earlier replies'
// results brought private data and outside content, naming the tools;
// calls of the same reply do not count (the model had not seen their
// results), a call that is not outbound is never guarded, and with the
// setting off nothing is. Each call's legs are in its audit record.
func TestTrifectaGuard(t *testing.T) {
	replies := []llmtest.Reply{
		// One reply reads and sends: the send is not guarded (nor would
		// it be with outside content: the read's result came after).
		llmtest.Calls(llmtest.ToolCall{ID: "r", Name: "fs__read", Arguments: []string{`{}`}},
			llmtest.ToolCall{ID: "s1", Name: "mail__send", Arguments: []string{`{"n":1}`}}),
		// Private data only: the send is not guarded; the fetch brings
		// outside content.
		llmtest.Calls(llmtest.ToolCall{ID: "s2", Name: "mail__send", Arguments: []string{`{"n":2}`}},
			llmtest.ToolCall{ID: "g", Name: "web__get", Arguments: []string{`{}`}}),
		// Both legs: the send is guarded, the read (not outbound) not.
		llmtest.Calls(llmtest.ToolCall{ID: "s3", Name: "mail__send", Arguments: []string{`{"n":3}`}},
			llmtest.ToolCall{ID: "r2", Name: "fs__read", Arguments: []string{`{}`}}),
		llmtest.Text("done"),
	}
	for _, on := range []bool{true, false} {
		h := newHarness(t, replies, func(o *Options) {
			o.TrifectaGuard = func(context.Context) bool { return on }
		})
		h.tools.setTools(trifectaTools())
		if res := h.send("go"); res.Status != store.StatusDone {
			t.Fatalf("run = %+v", res)
		}
		guards := map[string]*approval.Guard{}
		if n := len(h.approver.asked()); n != 6 {
			t.Errorf("guard on %v: %d calls asked, want 6", on, n)
		}
		for _, r := range h.approver.asked() {
			guards[r.Tool+string(r.Arguments)] = r.Guard
		}
		var want *approval.Guard
		if on {
			want = approval.NewGuard("mail__send", []string{"fs__read"}, []string{"web__get"}, false, false)
		}
		if diff := cmp.Diff(want, guards[`send{"n":3}`]); diff != "" {
			t.Errorf("guard on %v: the third send's guard (-want +got):\n%s", on, diff)
		}
		for k, g := range guards {
			if k != `send{"n":3}` && g != nil {
				t.Errorf("guard on %v: %s was guarded: %+v", on, k, g)
			}
		}
		legs := map[string]int{}
		for _, a := range h.audit() {
			legs[a.Tool] = a.Legs
		}
		wantLegs := map[string]int{"fs__read": store.LegPrivate, "web__get": store.LegUntrusted | store.LegOutbound, "mail__send": store.LegOutbound}
		if diff := cmp.Diff(wantLegs, legs); diff != "" {
			t.Errorf("audit legs (-want +got):\n%s", diff)
		}
	}
}

// A call refused with a reason (nobody could be asked) tells the model
// the reason; one the user denied says the user declined.
func TestRefusedCallTellsTheModelWhy(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "a", Name: "web__get", Arguments: []string{`{}`}}),
		llmtest.Text("ok"),
	}, nil)
	h.approver.decide = func(r approval.Request) approval.Outcome {
		return approval.Outcome{Decision: approval.Deny, DecidedBy: approval.ByGuard, Reason: "The guard says no."}
	}
	if res := h.send("go"); res.Status != store.StatusDone {
		t.Fatalf("run = %+v", res)
	}
	var text string
	for _, m := range h.messages() {
		if m.Role == store.RoleTool {
			text = m.Content
		}
	}
	if !strings.Contains(text, "was refused and did not run. The guard says no.") || strings.Contains(text, "user declined") {
		t.Errorf("tool message %q", text)
	}
	if a := h.audit(); len(a) != 1 || a[0].Status != store.CallDenied || a[0].DecidedBy != "guard" || a[0].Error != "The guard says no." {
		t.Errorf("audit %+v", a)
	}
}

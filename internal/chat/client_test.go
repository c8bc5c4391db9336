package chat

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A turn run for a connected app puts its tool calls to the Approver as
// that app's (RequestedBy client, with its name), and their audit records
// say who asked while the conversation's history still lists them; the
// user's own turn asks as before.
func TestClientTurnSaysWhoAsks(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("done"),
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("done again"),
	}, nil)
	ctx := WithClient(context.Background(), "c1", "Claude Desktop")
	if cl, ok := ClientOf(ctx); !ok || cl.Name != "Claude Desktop" {
		t.Fatalf("ClientOf = %+v %v", cl, ok)
	}
	res, err := h.e.Run(ctx, h.conv.ID, "read it")
	if err != nil || res.Status != store.StatusDone {
		t.Fatalf("Run: %+v %v", res, err)
	}
	if res := h.send("read it again"); res.Status != store.StatusDone {
		t.Fatalf("the user's turn: %+v", res)
	}
	var got [][2]string
	for _, r := range h.approver.asked() {
		got = append(got, [2]string{r.RequestedBy, r.Client})
	}
	want := [][2]string{{approval.RequestedByClient, "Claude Desktop"}, {"", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("approval requests (-want +got):\n%s", diff)
	}
	var by []string
	for _, c := range h.audit() {
		by = append(by, c.RequestedBy)
	}
	if diff := cmp.Diff([]string{"client:Claude Desktop", ""}, by); diff != "" {
		t.Errorf("audit records' RequestedBy (-want +got):\n%s", diff)
	}
}

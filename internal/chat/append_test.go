package chat

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Append adds messages as they are, without a reply, and each is sent as
// an event; it refuses while a reply is being written, and messages it
// cannot take.
func TestAppend(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{{Content: []string{"a"}, Fault: &llmtest.Fault{Kind: llmtest.FaultStall, After: 1}}}, nil)
	ctx := context.Background()
	msgs, err := h.e.Append(ctx, h.conv.ID, []store.Message{
		{Role: store.RoleUser, Content: "Review my code."},
		{Role: store.RoleAssistant, Content: "Paste it."},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range h.messages() {
		got = append(got, m.Role+"/"+m.Status+": "+m.Content)
	}
	if diff := cmp.Diff([]string{"user/done: Review my code.", "assistant/done: Paste it."}, got); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	if n := len(h.rec.Named(EventMessage)); n != 2 || len(msgs) != 2 {
		t.Errorf("%d events, %d messages returned", n, len(msgs))
	}
	if c, _ := h.st.Conversation(ctx, h.conv.ID); c.Title == "" {
		t.Error("no title")
	}

	for _, bad := range [][]store.Message{
		nil,
		{{Role: store.RoleTool, Content: "x"}},
		{{Role: store.RoleUser}},
		{{Role: store.RoleAssistant, Content: "x", Attachments: []store.Attachment{{ID: "a"}}}},
		make([]store.Message, MaxAppended+1),
	} {
		if _, err := h.e.Append(ctx, h.conv.ID, bad); err == nil {
			t.Errorf("Append(%+v) took it", bad)
		}
	}

	if _, err := h.e.Send(ctx, h.conv.ID, "and now?"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Append(ctx, h.conv.ID, []store.Message{{Role: store.RoleUser, Content: "x"}}); !errors.Is(err, ErrBusy) {
		t.Errorf("Append while a reply is written: %v, want ErrBusy", err)
	}
	h.e.Stop(h.conv.ID)
	h.wait()
}

package store

import (
	"context"
	"testing"
	"time"
)

// The calls a server's view makes (MCP Apps) are audited with who asked,
// belong to no message, and stay out of the model's records: ToolCalls
// (the cards, the export) leaves them out, ViewCalls lists them.
func TestViewCalls(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	m := mustAppend(t, s, c.ID, RoleAssistant, "")
	model, err := s.InsertToolCall(ctx, ToolCall{CallID: "call_0", ConversationID: c.ID, MessageID: m.ID, ServerID: "mon", Tool: "mon__get-system-info"})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now()
	var views []string
	for i := range 3 {
		rec, err := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, ServerID: "mon", Tool: "mon__poll-system-stats",
			Arguments: "{}", RequestedBy: RequestedByView, RequestedAt: base.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, rec.ID)
	}
	list, err := s.ToolCalls(ctx, c.ID, 0)
	if err != nil || len(list) != 1 || list[0].ID != model.ID || list[0].RequestedBy != "" {
		t.Errorf("ToolCalls = %+v, %v; want the model's call only", list, err)
	}
	got, err := s.ViewCalls(ctx, c.ID, 2)
	if err != nil || len(got) != 2 || got[0].ID != views[1] || got[1].ID != views[2] {
		t.Fatalf("ViewCalls(2) = %+v, %v; want the last two, oldest first", got, err)
	}
	if got[0].RequestedBy != RequestedByView || got[0].MessageID != 0 {
		t.Errorf("view call record %+v", got[0])
	}
	if all, err := s.ViewCalls(ctx, c.ID, 0); err != nil || len(all) != 3 {
		t.Errorf("ViewCalls(0) = %d records, %v; want 3", len(all), err)
	}
	rec, err := s.ToolCallRecord(ctx, views[0])
	if err != nil || rec.RequestedBy != RequestedByView {
		t.Errorf("ToolCallRecord = %+v, %v", rec, err)
	}
}

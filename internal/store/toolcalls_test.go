package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestToolCallAuditLifecycle(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	m := mustAppend(t, s, c.ID, RoleAssistant, "")

	// Models repeat call IDs across rounds; records are keyed by their own.
	var ids []string
	for range 2 {
		rec, err := s.InsertToolCall(ctx, ToolCall{CallID: "call_0", ConversationID: c.ID, MessageID: m.ID,
			ServerID: "fs", ServerName: "Files", Tool: "read_file", Arguments: `{"path":"/tmp"}`})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != CallPending || rec.RequestedAt.IsZero() {
			t.Errorf("inserted %+v", rec)
		}
		ids = append(ids, rec.ID)
	}
	start := time.Now()
	if err := s.StartToolCall(ctx, ids[0], start, "allow_once", "user"); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishToolCall(ctx, ids[0], ToolCallEnd{Status: CallDone, Result: json.RawMessage(`{"content":[]}`),
		IsError: true, Error: "", Duration: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := s.DecideToolCall(ctx, ids[1], CallDenied, "deny", "user"); err != nil {
		t.Fatal(err)
	}

	got, err := s.ToolCallRecord(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if got.CallID != "call_0" || got.Status != CallDone || got.Decision != "allow_once" || got.DecidedBy != "user" ||
		string(got.Result) != `{"content":[]}` || !got.IsError || got.DurationMs != 1500 ||
		got.StartedAt.UnixMilli() != start.UnixMilli() || got.ServerName != "Files" || got.Arguments != `{"path":"/tmp"}` {
		t.Errorf("record %+v", got)
	}
	list, err := s.ToolCalls(ctx, c.ID, m.ID)
	if err != nil || len(list) != 2 || list[0].ID != ids[0] || list[1].Status != CallDenied || !list[1].StartedAt.IsZero() {
		t.Errorf("ToolCalls = %+v, %v", list, err)
	}
	if err := s.StartToolCall(ctx, "nope", start, "allow_once", "user"); !errors.Is(err, ErrNotFound) {
		t.Errorf("start missing: %v", err)
	}

	// Deleting the message (regenerate) keeps the audit, detached.
	if _, err := s.DeleteMessagesAfter(ctx, c.ID, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ToolCallRecord(ctx, ids[0]); got.MessageID != 0 {
		t.Errorf("record still points at a deleted message: %+v", got)
	}
	if list, _ := s.ToolCalls(ctx, c.ID, 0); len(list) != 2 {
		t.Errorf("audit lost with the message: %d records", len(list))
	}
}

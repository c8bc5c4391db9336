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

// A call decided by policy is recorded in one insert; its end and the tool
// message that carries its result are one transaction: both or neither.
func TestFinishToolCallWithReply(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	m := mustAppend(t, s, c.ID, RoleAssistant, "")
	at := time.Now()
	rec, err := s.InsertToolCall(ctx, ToolCall{CallID: "call_1", ConversationID: c.ID, MessageID: m.ID, ServerID: "e",
		Tool: "echo", Arguments: `{}`, Status: CallRunning, Decision: "allow_always", DecidedBy: "policy", RequestedAt: at, StartedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.FinishToolCallWithReply(ctx, rec.ID, ToolCallEnd{Status: CallDone, Result: json.RawMessage(`{"content":[]}`), Duration: time.Second},
		Message{ConversationID: c.ID, Role: RoleTool, Content: "Echo: hi", ToolCallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.ID == 0 || reply.Seq != m.Seq+1 || reply.Status != StatusDone || reply.ToolCallID != "call_1" {
		t.Errorf("reply %+v", reply)
	}
	got, _ := s.ToolCallRecord(ctx, rec.ID)
	if got.Status != CallDone || got.Decision != "allow_always" || got.DecidedBy != "policy" || got.DurationMs != 1000 ||
		got.StartedAt.UnixMilli() != at.UnixMilli() || string(got.Result) != `{"content":[]}` {
		t.Errorf("record %+v", got)
	}

	// An unknown record: no message is added.
	if _, err := s.FinishToolCallWithReply(ctx, "nope", ToolCallEnd{Status: CallDone},
		Message{ConversationID: c.ID, Role: RoleTool, Content: "lost?", ToolCallID: "call_2"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown record: %v", err)
	}
	// A deleted conversation: the record keeps its state.
	rec2, _ := s.InsertToolCall(ctx, ToolCall{CallID: "call_3", ConversationID: c.ID, MessageID: m.ID, Tool: "echo"})
	if _, err := s.FinishToolCallWithReply(ctx, rec2.ID, ToolCallEnd{Status: CallDone},
		Message{ConversationID: "gone", Role: RoleTool, Content: "x", ToolCallID: "call_3"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing conversation: %v", err)
	}
	if got, _ := s.ToolCallRecord(ctx, rec2.ID); got.Status != CallPending {
		t.Errorf("the record's end was kept without its reply: %+v", got)
	}
	msgs, err := s.Messages(ctx, c.ID, MessagePage{})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages %+v, %v", msgs, err)
	}
}

// Prepared statements are reused across calls and transactions, and a
// closed store fails cleanly.
func TestStatementCache(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	for i := range 20 {
		if _, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleUser, Content: "m"}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	s.mu.Lock()
	n := len(s.stmts)
	s.mu.Unlock()
	if n != 2 {
		t.Errorf("%d statements cached after 20 appends, want 2", n)
	}
	s.Close()
	if _, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleUser, Content: "m"}); err == nil {
		t.Error("append on a closed store succeeded")
	}
}

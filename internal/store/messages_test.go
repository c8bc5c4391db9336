package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seqs(ms []Message) []int64 {
	out := []int64{}
	for _, m := range ms {
		out = append(out, m.Seq)
	}
	return out
}

func TestAppendMessageNumbersInOrder(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	other := mustConversation(t, s, "y")
	mustAppend(t, s, other.ID, RoleUser, "elsewhere")

	// Concurrent appends still get distinct, gapless seqs.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleUser, Content: fmt.Sprint(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	all, err := s.Messages(ctx, c.ID, MessagePage{})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{}
	for i := range 20 {
		want = append(want, int64(i+1))
	}
	if diff := cmp.Diff(want, seqs(all)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	if all[0].Status != StatusDone {
		t.Errorf("default status %q", all[0].Status)
	}
	if _, err := s.AppendMessage(ctx, Message{ConversationID: "nope", Role: RoleUser}); !errors.Is(err, ErrNotFound) {
		t.Errorf("append to missing conversation: %v", err)
	}
}

func TestMessagesPaging(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	for i := range 10 {
		mustAppend(t, s, c.ID, RoleUser, fmt.Sprint(i))
	}
	last, _ := s.Messages(ctx, c.ID, MessagePage{Limit: 3})
	if diff := cmp.Diff([]int64{8, 9, 10}, seqs(last)); diff != "" {
		t.Errorf("last page (-want +got):\n%s", diff)
	}
	prev, _ := s.Messages(ctx, c.ID, MessagePage{BeforeSeq: 8, Limit: 3})
	if diff := cmp.Diff([]int64{5, 6, 7}, seqs(prev)); diff != "" {
		t.Errorf("previous page (-want +got):\n%s", diff)
	}
	first, _ := s.Messages(ctx, c.ID, MessagePage{BeforeSeq: 3, Limit: 5})
	if diff := cmp.Diff([]int64{1, 2}, seqs(first)); diff != "" {
		t.Errorf("first page (-want +got):\n%s", diff)
	}
}

func TestStreamingUpdateAndFinish(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	m, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleAssistant, Status: StatusStreaming})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateStreaming(ctx, m.ID, "Hel", "thinking"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Message(ctx, m.ID)
	if got.Content != "Hel" || got.Reasoning != "thinking" || got.Status != StatusStreaming {
		t.Errorf("mid-stream: %+v", got)
	}
	m.Content, m.Status = "Hello", StatusDone
	m.ToolCalls = json.RawMessage(`[{"id":"c1","name":"t","arguments":"{}"}]`)
	m.Meta = json.RawMessage(`{"model":"m"}`)
	done, err := s.UpdateMessage(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if done.Content != "Hello" || done.Reasoning != "" || string(done.ToolCalls) != string(m.ToolCalls) || string(done.Meta) != `{"model":"m"}` {
		t.Errorf("finished: %+v", done)
	}
	if _, err := s.UpdateMessage(ctx, Message{ID: 9999}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
	at, err := s.MessageAt(ctx, c.ID, 1)
	if err != nil || at.ID != m.ID {
		t.Errorf("MessageAt: %+v, %v", at, err)
	}
}

func TestDeleteAfterAndEdit(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	for i := range 5 {
		mustAppend(t, s, c.ID, RoleUser, fmt.Sprint("m", i))
	}
	n, err := s.DeleteMessagesAfter(ctx, c.ID, 3)
	if err != nil || n != 2 {
		t.Fatalf("deleted %d, %v", n, err)
	}
	m, err := s.EditMessage(ctx, c.ID, 2, "edited")
	if err != nil || m.Content != "edited" || m.Seq != 2 {
		t.Fatalf("EditMessage: %+v, %v", m, err)
	}
	all, _ := s.Messages(ctx, c.ID, MessagePage{})
	if diff := cmp.Diff([]int64{1, 2}, seqs(all)); diff != "" {
		t.Errorf("after edit (-want +got):\n%s", diff)
	}
	// The next append continues after the edit point.
	if next := mustAppend(t, s, c.ID, RoleAssistant, "again"); next.Seq != 3 {
		t.Errorf("next seq %d; want 3", next.Seq)
	}
	if _, err := s.EditMessage(ctx, c.ID, 42, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("edit missing: %v", err)
	}
}

func TestMarkInterrupted(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	m, _ := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleAssistant, Status: StatusStreaming})
	s.UpdateStreaming(ctx, m.ID, "half a rep", "")
	done := mustAppend(t, s, c.ID, RoleAssistant, "fine")
	rec, _ := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, Tool: "t"})
	fin, _ := s.InsertToolCall(ctx, ToolCall{ConversationID: c.ID, Tool: "t", Status: CallDone})

	n, err := s.MarkInterrupted(ctx)
	if err != nil || n != 1 {
		t.Fatalf("MarkInterrupted = %d, %v", n, err)
	}
	got, _ := s.Message(ctx, m.ID)
	if got.Status != StatusError || got.Error != InterruptedError || got.Content != "half a rep" {
		t.Errorf("interrupted reply %+v", got)
	}
	if got, _ := s.Message(ctx, done.ID); got.Status != StatusDone {
		t.Errorf("finished reply changed: %+v", got)
	}
	if got, _ := s.ToolCallRecord(ctx, rec.ID); got.Status != CallCancelled {
		t.Errorf("pending call %+v", got)
	}
	if got, _ := s.ToolCallRecord(ctx, fin.ID); got.Status != CallDone {
		t.Errorf("finished call changed: %+v", got)
	}
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ConversationLegs names the tools whose results brought each leg: only
// calls that returned a result (a reported error counts), of messages
// still in the conversation other than the one being decided, of this
// conversation; each tool once, earliest first, at most limit of them;
// and the legs survive reopening the file.
func TestConversationLegs(t *testing.T) {
	s, path := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	other := mustConversation(t, s, "y")
	m1 := mustAppend(t, s, c.ID, RoleAssistant, "")
	m2 := mustAppend(t, s, c.ID, RoleAssistant, "")
	now := time.Now()
	n := 0
	call := func(conv string, msg int64, tool string, legs int, result string, isError bool) {
		t.Helper()
		n++
		rec, err := s.InsertToolCall(ctx, ToolCall{ConversationID: conv, MessageID: msg, ServerID: "s", Tool: tool,
			Legs: legs, RequestedAt: now.Add(time.Duration(n) * time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		if result == "" {
			return
		}
		if err := s.FinishToolCall(ctx, rec.ID, ToolCallEnd{Status: CallDone, Result: json.RawMessage(result), IsError: isError}); err != nil {
			t.Fatal(err)
		}
	}
	call(c.ID, m1.ID, "fs__read", LegPrivate, `{"content":[]}`, false)
	call(c.ID, m1.ID, "fs__read", LegPrivate, `{"content":[]}`, false) // the same tool again: named once
	call(c.ID, m1.ID, "fs__denied", LegPrivate, "", false)             // never returned
	call(c.ID, m1.ID, "web__fetch", LegUntrusted|LegOutbound, `{"content":[]}`, true)
	call(c.ID, m1.ID, "echo", 0, `{"content":[]}`, false)
	call(c.ID, m2.ID, "mail__inbox", LegPrivate|LegUntrusted, `{"content":[]}`, false) // this reply's own
	call(other.ID, 0, "other__secret", LegPrivate, `{"content":[]}`, false)

	got, err := s.ConversationLegs(ctx, c.ID, m2.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := LegSources{Private: []string{"fs__read"}, Untrusted: []string{"web__fetch"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("except m2 (-want +got):\n%s", diff)
	}
	got, _ = s.ConversationLegs(ctx, c.ID, 0, 1)
	want = LegSources{Private: []string{"fs__read"}, MorePrivate: true, Untrusted: []string{"web__fetch"}, MoreUntrusted: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limit 1 (-want +got):\n%s", diff)
	}

	// Reopened, the same.
	s.Close()
	s2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, _ = s2.ConversationLegs(ctx, c.ID, m2.ID, 3)
	if diff := cmp.Diff(LegSources{Private: []string{"fs__read"}, Untrusted: []string{"web__fetch"}}, got); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
	// A deleted message's results no longer count (regenerate took them
	// out of the conversation).
	if _, err := s2.DeleteMessagesAfter(ctx, c.ID, 0); err != nil {
		t.Fatal(err)
	}
	got, _ = s2.ConversationLegs(ctx, c.ID, 0, 3)
	if len(got.Private)+len(got.Untrusted) != 0 {
		t.Errorf("after the messages were deleted: %+v", got)
	}
}

func TestPrivateTools(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	if list, err := s.PrivateTools(ctx); err != nil || list != nil {
		t.Fatalf("none stored: %v, %v", list, err)
	}
	at := time.UnixMilli(1700000000000).UTC()
	for i, tool := range []string{"b", "a", "b"} {
		if err := s.PutPrivateTool(ctx, PrivateTool{Fingerprint: "fp", Tool: tool, ServerID: fmt.Sprint("s", i), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutPrivateTool(ctx, PrivateTool{Fingerprint: "fo", Tool: "z", ServerID: "s9", CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePrivateTool(ctx, "fp", "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePrivateTool(ctx, "fp", "nope"); err != nil {
		t.Fatal(err)
	}
	got, err := s.PrivateTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []PrivateTool{{Fingerprint: "fo", Tool: "z", ServerID: "s9", CreatedAt: at}, {Fingerprint: "fp", Tool: "b", ServerID: "s2", CreatedAt: at}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

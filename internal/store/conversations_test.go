package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConversationLifecycle(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	a := mustConversation(t, s, "first")
	b := mustConversation(t, s, "second")
	if a.ID == "" || a.ID == b.ID || a.CreatedAt.IsZero() {
		t.Fatalf("created %+v and %+v", a, b)
	}

	got, err := s.Conversation(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if _, err := s.Conversation(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing conversation: %v; want ErrNotFound", err)
	}

	prompt := "Answer in French."
	sel := json.RawMessage(`{"off":["fs__delete"]}`)
	for _, err := range []error{
		s.RenameConversation(ctx, a.ID, "renamed"),
		s.SetConversationModel(ctx, a.ID, "p1", "llama-4"),
		s.SetSystemPrompt(ctx, a.ID, &prompt),
		s.SetConversationTools(ctx, a.ID, sel),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ = s.Conversation(ctx, a.ID)
	if got.Title != "renamed" || got.ProviderID != "p1" || got.Model != "llama-4" ||
		got.SystemPrompt == nil || *got.SystemPrompt != prompt || string(got.Tools) != string(sel) {
		t.Errorf("after updates: %+v", got)
	}
	empty := ""
	if err := s.SetSystemPrompt(ctx, a.ID, &empty); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Conversation(ctx, a.ID); got.SystemPrompt == nil || *got.SystemPrompt != "" {
		t.Errorf("empty override must stay distinct from the default: %+v", got.SystemPrompt)
	}
	if err := s.SetSystemPrompt(ctx, a.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetConversationTools(ctx, a.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Conversation(ctx, a.ID); got.SystemPrompt != nil || got.Tools != nil {
		t.Errorf("defaults not restored: %+v", got)
	}
	if err := s.SetConversationTools(ctx, a.ID, json.RawMessage(`{nope`)); err == nil {
		t.Error("invalid tools JSON accepted")
	}
	if err := s.RenameConversation(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename missing: %v", err)
	}

	if err := s.DeleteConversation(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conversation(ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted conversation still there: %v", err)
	}
}

func TestListConversationsByUpdatedWithPaging(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	var ids []string
	for _, title := range []string{"a", "b", "c", "d"} {
		c := mustConversation(t, s, title)
		ids = append(ids, c.ID)
		// Distinct timestamps: updated_at has millisecond resolution.
		if _, err := s.db.Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`, len(ids)*1000, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	// A new message moves "a" to the top.
	mustAppend(t, s, ids[0], RoleUser, "hi")

	titles := func(cs []Conversation) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Title)
		}
		return out
	}
	all, err := s.ListConversations(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "d", "c", "b"}, titles(all)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	page, _ := s.ListConversations(ctx, 2, 1)
	if diff := cmp.Diff([]string{"d", "c"}, titles(page)); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
}

func TestPinAndArchiveShelves(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	ids := map[string]string{}
	for i, title := range []string{"a", "b", "c", "d"} {
		c := mustConversation(t, s, title)
		ids[title] = c.ID
		if _, err := s.db.Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`, (i+1)*1000, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range []error{
		s.PinConversation(ctx, ids["a"], true),
		s.PinConversation(ctx, ids["b"], true),
		s.PinConversation(ctx, ids["b"], false),
		s.ArchiveConversation(ctx, ids["c"], true),
		// Archived and pinned: the pin waits for it to come back.
		s.PinConversation(ctx, ids["d"], true),
		s.ArchiveConversation(ctx, ids["d"], true),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	titles := func(shelf Shelf) []string {
		t.Helper()
		cs, err := s.ListShelf(ctx, shelf, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s pinned=%v archived=%v", c.Title, c.Pinned, c.Archived))
		}
		return out
	}
	if diff := cmp.Diff([]string{"a pinned=true archived=false", "b pinned=false archived=false"}, titles(ShelfActive)); diff != "" {
		t.Errorf("active shelf, pinned first (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d pinned=true archived=true", "c pinned=false archived=true"}, titles(ShelfArchived)); diff != "" {
		t.Errorf("archived shelf (-want +got):\n%s", diff)
	}
	// Pinning is not a change to the chat: it keeps its place in time.
	if got, _ := s.Conversation(ctx, ids["a"]); got.UpdatedAt.UnixMilli() != 1000 {
		t.Errorf("pinning moved updatedAt to %v", got.UpdatedAt)
	}
	if err := s.ArchiveConversation(ctx, ids["d"], false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d pinned=true archived=false", "a pinned=true archived=false", "b pinned=false archived=false"}, titles(ShelfActive)); diff != "" {
		t.Errorf("unarchived d comes back pinned (-want +got):\n%s", diff)
	}
	if all, _ := s.ListConversations(ctx, 0, 0); len(all) != 4 {
		t.Errorf("ListConversations holds archived ones too: got %d, want 4", len(all))
	}
	if err := s.PinConversation(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("pinning a missing conversation: %v; want ErrNotFound", err)
	}
	if err := s.ArchiveConversation(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("archiving a missing conversation: %v; want ErrNotFound", err)
	}
}

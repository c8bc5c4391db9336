package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBlobsAreContentAddressed(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	data := []byte("\x89PNG\r\n\x1a\nnot really")
	id, err := s.PutBlob(ctx, data, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of the bytes, so the same bytes get the same ID and one row.
	if id != BlobID(data) || len(id) != 64 {
		t.Fatalf("id %q, want the sha256 hex %q", id, BlobID(data))
	}
	again, err := s.PutBlob(ctx, append([]byte(nil), data...), "image/png")
	if err != nil || again != id {
		t.Fatalf("PutBlob again = %q, %v; want %q", again, err, id)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM blobs`).Scan(&n)
	if n != 1 {
		t.Errorf("%d blob rows, want 1", n)
	}
	got, mime, err := s.Blob(ctx, id)
	if err != nil || string(got) != string(data) || mime != "image/png" {
		t.Errorf("Blob = %q, %q, %v", got, mime, err)
	}
	if m, size, err := s.BlobInfo(ctx, id); err != nil || m != "image/png" || size != int64(len(data)) {
		t.Errorf("BlobInfo = %q, %d, %v", m, size, err)
	}
	if _, _, err := s.Blob(ctx, BlobID([]byte("other"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing blob: %v, want ErrNotFound", err)
	}
	if id, err := s.PutBlob(ctx, nil, "text/plain"); err != nil || id != BlobID(nil) {
		t.Errorf("empty blob: %q, %v", id, err)
	}
}

func TestMessageAttachmentsRoundTrip(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	img, _ := s.PutBlob(ctx, []byte("img"), "image/png")
	txt, _ := s.PutBlob(ctx, []byte("hello"), "text/plain")
	atts := []Attachment{
		{ID: img, Name: "cat.png", MIME: "image/png", Size: 3, Kind: AttachmentImage},
		{ID: txt, Name: "notes.md", MIME: "text/markdown", Size: 5, Kind: AttachmentText, Truncated: true},
		{ID: txt, Name: "readme", MIME: "text/plain", Size: 5, Kind: AttachmentText, ServerID: "fs", URI: "file:///readme"},
	}
	m, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleUser, Content: "look", Attachments: atts})
	if err != nil {
		t.Fatal(err)
	}
	plain := mustAppend(t, s, c.ID, RoleAssistant, "a cat")
	got, err := s.Messages(ctx, c.ID, MessagePage{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(atts, got[0].Attachments); diff != "" {
		t.Errorf("attachments (-want +got):\n%s", diff)
	}
	if got[1].Attachments != nil {
		t.Errorf("a message without attachments reads %v", got[1].Attachments)
	}
	// Editing keeps them; replacing sets them.
	edited, err := s.EditMessage(ctx, c.ID, m.Seq, "look again")
	if err != nil || len(edited.Attachments) != 3 {
		t.Fatalf("EditMessage = %+v, %v", edited.Attachments, err)
	}
	if _, err := s.Message(ctx, plain.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the reply after the edited message: %v, want deleted", err)
	}
	replaced, err := s.ReplaceMessage(ctx, c.ID, m.Seq, "only the cat", atts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(atts[:1], replaced.Attachments); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	none, err := s.ReplaceMessage(ctx, c.ID, m.Seq, "no files", nil)
	if err != nil || none.Attachments != nil {
		t.Errorf("replaced with none: %+v, %v", none.Attachments, err)
	}
}

func TestPruneBlobsKeepsReferencedAndRecent(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	used, _ := s.PutBlob(ctx, []byte("used"), "text/plain")
	orphan, _ := s.PutBlob(ctx, []byte("orphan"), "text/plain")
	fresh, _ := s.PutBlob(ctx, []byte("fresh"), "text/plain")
	if _, err := s.AppendMessage(ctx, Message{ConversationID: c.ID, Role: RoleUser, Content: "x",
		Attachments: []Attachment{{ID: used, Name: "u.txt", Kind: AttachmentText}}}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour).UnixMilli()
	if _, err := s.db.Exec(`UPDATE blobs SET created_at = ? WHERE id IN (?, ?)`, old, used, orphan); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneBlobs(ctx, 24*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("PruneBlobs = %d, %v; want 1", n, err)
	}
	for id, want := range map[string]bool{used: true, orphan: false, fresh: true} {
		_, _, err := s.Blob(ctx, id)
		if (err == nil) != want {
			t.Errorf("blob %s kept = %v, want %v", id[:8], err == nil, want)
		}
	}
	// Deleting the conversation leaves its blob unreferenced: pruned next.
	if err := s.DeleteConversation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneBlobs(ctx, 24*time.Hour); err != nil || n != 1 {
		t.Errorf("PruneBlobs after deleting the conversation = %d, %v; want 1", n, err)
	}
}

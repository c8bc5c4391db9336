package core

import (
	"log/slog"
	"testing"

	"github.com/switchboard-app/switchboard/internal/instance"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestStartLeavesTheWindowsRepliesAlone: a command's Start marks a reply
// left streaming as interrupted only when no window holds the data
// directory; while one does, the reply is the window's, still arriving.
func TestStartLeavesTheWindowsRepliesAlone(t *testing.T) {
	p := paths.In(t.TempDir())
	streaming := func(t *testing.T) (*store.Store, store.Message) {
		c, err := Open(t.Context(), &Options{Paths: &p, Secrets: &secrets.Memory{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conv, err := c.Store.CreateConversation(t.Context(), store.Conversation{Title: "t", ProviderID: "p", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.Store.AppendMessage(t.Context(), store.Message{ConversationID: conv.ID, Role: store.RoleAssistant, Status: store.StatusStreaming})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := c.Services(nil) // a command: it does not own the instance
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		if err := svc.Start(t.Context(), slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		return c.Store, m
	}
	status := func(t *testing.T, st *store.Store, m store.Message) string {
		got, err := st.Message(t.Context(), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}

	t.Run("window open", func(t *testing.T) {
		lock, err := instance.Acquire(p.Lock)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		st, m := streaming(t)
		if got := status(t, st, m); got != store.StatusStreaming {
			t.Errorf("the window's reply became %q", got)
		}
	})
	t.Run("no window", func(t *testing.T) {
		st, m := streaming(t)
		if got := status(t, st, m); got != store.StatusError {
			t.Errorf("a reply left streaming by a crash is %q, want %q", got, store.StatusError)
		}
	})
}

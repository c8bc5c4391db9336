package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A request another process records (an app's own `mcp serve`, here a
// second connection to the same file) reaches the window as
// clients:activity; nothing is sent while nothing changes.
func TestFollowActivityAcrossProcesses(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	window, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer window.Close()
	other, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	serve := clients.New(other)
	if err := serve.Record(ctx, clients.AuditEntry{Operation: "auth", Transport: "stdio", Reason: "before the view opened"}); err != nil {
		t.Fatal(err)
	}

	w, err := window.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan clients.AuditEntry, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		followActivity(ctx, w, clients.New(window), 10*time.Millisecond, func(name string, p any) {
			if name != mcpserve.EventActivity {
				t.Errorf("event %q; want %q", name, mcpserve.EventActivity)
			}
			got <- p.(clients.AuditEntry)
		})
	}()
	select {
	case e := <-got:
		t.Fatalf("sent %+v with nothing new", e)
	case <-time.After(100 * time.Millisecond):
	}
	if err := serve.Record(ctx, clients.AuditEntry{Operation: "initialize", Transport: "stdio", Allowed: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-got:
		if e.Operation != "initialize" || !e.Allowed {
			t.Errorf("sent %+v; want the initialize just recorded", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no clients:activity within 10 s of another process's request")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("followActivity did not end with its context")
	}
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGrants(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	at := time.UnixMilli(1700000000000)
	for _, g := range []Grant{
		{ServerID: "fs", Tool: "read_file", Fingerprint: "f1", CreatedAt: at},
		{ServerID: "fs", Tool: "read_file", Fingerprint: "f2", CreatedAt: at}, // replaces
		{ServerID: "mem", Tool: "read_file", Fingerprint: "m1", CreatedAt: at},
	} {
		if err := s.PutGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteGrant(ctx, "nope", "x"); err != nil {
		t.Fatalf("deleting a missing grant: %v", err)
	}
	got, err := s.Grants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Grant{
		{ServerID: "fs", Tool: "read_file", Fingerprint: "f2", CreatedAt: at},
		{ServerID: "mem", Tool: "read_file", Fingerprint: "m1", CreatedAt: at},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}

	// A grant keeps the definition the user allowed; replacing it replaces
	// the definition too.
	pinned := Grant{ServerID: "fs", Tool: "read_file", Fingerprint: "f2", DefinitionHash: "sha256:1",
		Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object"}`), CreatedAt: at}
	for _, g := range []Grant{pinned, {ServerID: "fs", Tool: "write_file", Fingerprint: "f2", DefinitionHash: "sha256:2", CreatedAt: at}} {
		if err := s.PutGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	got, err = s.Grants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = []Grant{pinned, {ServerID: "fs", Tool: "write_file", Fingerprint: "f2", DefinitionHash: "sha256:2", CreatedAt: at}, want[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grants with definitions (-want +got):\n%s", diff)
	}
	pinned.DefinitionHash, pinned.Description, pinned.InputSchema = "sha256:3", "", nil
	if err := s.PutGrant(ctx, pinned); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Grants(ctx); len(got) != 3 || !cmp.Equal(pinned, got[0]) {
		t.Errorf("replaced grant = %+v; want %+v", got, pinned)
	}
	if on, err := s.Yolo(ctx); err != nil || on {
		t.Fatalf("Yolo before set = %v, %v", on, err)
	}
	if err := s.SetYolo(ctx, true); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.Yolo(ctx); !on {
		t.Error("Yolo not remembered")
	}
}

func TestServersAllOrNothing(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	if err := s.PutServers(ctx, Server{ID: "a", Name: "A", Transport: "stdio", Enabled: true, Config: "{}"}); err != nil {
		t.Fatal(err)
	}
	err := s.PutServers(ctx,
		Server{ID: "b", Name: "B", Transport: "stdio", Config: "{}"},
		Server{ID: "c", Name: "C", Transport: "carrier-pigeon", Config: "{}"}, // violates the CHECK
	)
	if err == nil {
		t.Fatal("a bad server was stored")
	}
	got, err := s.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "a" || !got[0].Enabled {
		t.Fatalf("servers after a failed batch = %+v; want only a", got)
	}
	s.PutGrant(ctx, Grant{ServerID: "a", Tool: "t", Fingerprint: "f"})
	if err := s.DeleteServer(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.Grants(ctx); len(g) != 0 {
		t.Errorf("grants of a deleted server kept: %+v", g)
	}
	if err := s.DeleteServer(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete = %v; want ErrNotFound", err)
	}
}

func TestProviders(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	p := Provider{ID: "cerebras", Name: "Cerebras", Preset: "cerebras", BaseURL: "https://api.cerebras.ai/v1", DefaultModel: "llama-4", KeyRef: "provider/cerebras"}
	if err := s.PutProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.Provider(ctx, "cerebras")
	if err != nil || got != p {
		t.Fatalf("Provider = %+v, %v", got, err)
	}
	if _, err := s.Provider(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing provider: %v", err)
	}
	if err := s.DeleteProvider(ctx, "cerebras"); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.Providers(ctx); len(all) != 0 {
		t.Errorf("providers after delete: %+v", all)
	}
}

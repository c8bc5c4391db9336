package providers

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

func newService(t *testing.T, env map[string]string) (*Service, *secrets.Memory) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mem := &secrets.Memory{}
	return &Service{Store: st, Secrets: mem, Getenv: func(k string) string { return env[k] }}, mem
}

func TestSaveKeepsKeyInKeyringOnly(t *testing.T) {
	s, mem := newService(t, nil)
	ctx := context.Background()
	v, err := s.Save(ctx, Input{Preset: "cerebras", APIKey: " csk-secret-123 ", DefaultModel: "llama-4"})
	if err != nil {
		t.Fatal(err)
	}
	if v.ID != "cerebras" || !v.HasKey || v.BaseURL != "https://api.cerebras.ai/v1" {
		t.Fatalf("view = %+v", v)
	}
	if got, _ := mem.Get(keyRef("cerebras")); got != "csk-secret-123" {
		t.Errorf("keyring holds %q", got)
	}
	var n int
	s.Store.DB().QueryRow("SELECT count(*) FROM providers WHERE key_ref LIKE '%csk-secret%' OR base_url LIKE '%csk-secret%' OR default_model LIKE '%csk-secret%'").Scan(&n)
	if n != 0 {
		t.Error("the key reached the database")
	}
	// Saving again with an empty key keeps it; ClearKey removes it.
	if v, _ = s.Save(ctx, Input{Preset: "cerebras", DefaultModel: "other"}); !v.HasKey {
		t.Error("empty APIKey dropped the stored key")
	}
	if v, _ = s.Save(ctx, Input{Preset: "cerebras", ClearKey: true}); v.HasKey {
		t.Error("ClearKey kept the key")
	}
	if err := s.Delete(ctx, "cerebras"); err != nil {
		t.Fatal(err)
	}
}

func TestKeyFromEnvironment(t *testing.T) {
	s, _ := newService(t, map[string]string{"CEREBRAS_API_KEY": "csk-env"})
	v, err := s.Save(context.Background(), Input{Preset: "cerebras"})
	if err != nil {
		t.Fatal(err)
	}
	if !v.HasKey || v.KeyFromEnv != "CEREBRAS_API_KEY" {
		t.Fatalf("view = %+v; want key from CEREBRAS_API_KEY", v)
	}
}

func TestSaveValidates(t *testing.T) {
	s, _ := newService(t, nil)
	ctx := context.Background()
	for _, in := range []Input{
		{Preset: "nope"},
		{Preset: "custom"},
		{Preset: "custom", ID: "mine", BaseURL: "ftp://x"},
		{Preset: "openai", ID: "Bad ID"},
	} {
		if _, err := s.Save(ctx, in); err == nil {
			t.Errorf("Save(%+v) succeeded", in)
		}
	}
}

func TestTestConnectionSaysWhatIsWrong(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{APIKey: "right-key"})
	s, _ := newService(t, nil)
	ctx := context.Background()
	if r := s.Test(ctx, ""); r.OK || !strings.Contains(r.Message, "no model provider") {
		t.Errorf("no provider: %+v", r)
	}
	s.Save(ctx, Input{ID: "local", Preset: "custom", BaseURL: srv.URL, APIKey: "wrong-key"})
	if r := s.Test(ctx, "local"); r.OK || !strings.Contains(strings.ToLower(r.Message), "key") {
		t.Errorf("wrong key: %+v", r)
	}
	s.Save(ctx, Input{ID: "local", Preset: "custom", BaseURL: srv.URL, APIKey: "right-key"})
	r := s.Test(ctx, "local")
	if !r.OK || len(r.Models) == 0 {
		t.Errorf("right key: %+v", r)
	}
}

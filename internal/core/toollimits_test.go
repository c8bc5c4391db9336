package core

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

// keyReads is a keyring that counts reads of provider API keys.
type keyReads struct {
	secrets.Memory
	n atomic.Int32
}

func (k *keyReads) Get(key string) (string, error) {
	if strings.HasPrefix(key, "provider/") {
		k.n.Add(1)
	}
	return k.Memory.Get(key)
}

// The tool picker asks for a conversation's tools whenever it opens or
// changes; learning the provider's tool limits must not read its key from
// the keyring each time.
func TestToolsForReadsNoProviderKey(t *testing.T) {
	ctx := context.Background()
	p := paths.In(t.TempDir())
	keyring := &keyReads{}
	c, err := Open(ctx, &Options{Paths: &p, Secrets: keyring})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	svc, err := c.Services(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Providers.Save(ctx, providers.Input{ID: "oa", Name: "OpenAI", Preset: "openai", APIKey: "sk-test"}); err != nil {
		t.Fatal(err)
	}
	conv, err := c.Store.CreateConversation(ctx, store.Conversation{Title: "t", ProviderID: "oa"})
	if err != nil {
		t.Fatal(err)
	}
	keyring.n.Store(0)
	for range 3 {
		if _, err := svc.Chat.ToolsFor(ctx, conv.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := keyring.n.Load(); n != 0 {
		t.Errorf("ToolsFor read a provider key %d times, want 0", n)
	}
}

package drills

import (
	"bytes"
	"context"
	"crypto/rand"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestDrillKeyringUnavailable runs the app with no keyring (no session
// bus): it starts, says secrets are kept in memory only and what to
// install, works with the secrets it is given (a provider key, a server's
// secret header and env value) for the session, and writes none of them to
// disk — the data directory (database, WAL, logs) is searched for each.
// secrets' TestOpenWithoutSessionBusFallsBackToMemory covers the fallback
// alone.
func TestDrillKeyringUnavailable(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	apiKey := "sk-drill-" + rand.Text()
	bearer := "drill-bearer-" + rand.Text()
	token := "ghp_drill" + rand.Text()
	a := newApp(t, appOptions{osKeyring: true})
	ctx := context.Background()

	if a.c.Keyring.Backend != "memory" || a.c.Keyring.Persistent {
		t.Fatalf("keyring status %+v; want the in-memory fallback", a.c.Keyring)
	}
	var told string
	for _, p := range a.c.Problems {
		if p.Kind == "keyring" && !p.Fatal {
			told = p.Message + " " + p.Advice
		}
	}
	t.Logf("the user is told: %s", told)
	if !strings.Contains(told, "kept in memory") || !strings.Contains(told, "gnome-keyring") {
		t.Errorf("the keyring problem shown to the user is %q", told)
	}

	// A provider that needs its key, a remote server with a secret header
	// and a local one with a secret env value, saved as the UI saves them.
	keyed := llmtest.NewServer(t, &llmtest.Options{Models: []string{"m"}, APIKey: apiKey})
	if _, err := a.svc.Providers.Save(ctx, providers.Input{ID: "keyed", Name: "Keyed", Preset: "custom", BaseURL: keyed.URL, DefaultModel: "m", APIKey: apiKey}); err != nil {
		t.Fatal(err)
	}
	remote := serverconf.Config{ID: "remote", Name: "Remote", Transport: serverconf.TransportHTTP, URL: "http://127.0.0.1:9/mcp",
		Headers: map[string]serverconf.Value{"Authorization": {Plain: "Bearer " + bearer}}}
	local := serverconf.Config{ID: "local", Name: "Local", Transport: serverconf.TransportStdio, Command: "/bin/true",
		Env: map[string]serverconf.Value{"GITHUB_TOKEN": {Plain: token}}}
	for _, cfg := range []serverconf.Config{remote, local} {
		saved, err := a.svc.Servers.Save(ctx, cfg)
		if err != nil {
			t.Fatalf("saving %s: %v", cfg.ID, err)
		}
		for name, v := range saved.Headers {
			if v.Plain != "" {
				t.Errorf("%s: header %s kept as plain text", cfg.ID, name)
			}
		}
		for name, v := range saved.Env {
			if v.Plain != "" {
				t.Errorf("%s: env %s kept as plain text", cfg.ID, name)
			}
		}
	}

	// The key works for this session.
	conv, err := a.c.Store.CreateConversation(ctx, store.Conversation{ProviderID: "keyed", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if res := a.turn(conv.ID, "Does the key work?"); res.Status != store.StatusDone {
		t.Errorf("a turn with the in-memory key: %s (%s)", res.Status, res.Error)
	}
	// Something logs the key's value: the redactor must catch it.
	a.c.Log.Info("drill: a careless log line", "value", apiKey)

	secretsOnDisk := func(when string) {
		t.Helper()
		filepath.WalkDir(a.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for name, s := range map[string]string{"the provider key": apiKey, "the bearer token": bearer, "the env token": token} {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("%s: %s is in %s", when, name, p)
				}
			}
			return nil
		})
	}
	secretsOnDisk("while the app runs")
	a.c.Close()
	secretsOnDisk("after the app closed")

	t.Run("doctor says so", func(t *testing.T) {
		bin := binary(t)
		out, errOut, _ := run(t, bin, dataEnv(filepath.Join(a.dir, "data")), "doctor")
		all := out + errOut
		t.Logf("switchboard doctor:\n%s", strings.TrimSpace(all))
		if !strings.Contains(all, "keyring") || !strings.Contains(all, "memory") {
			t.Errorf("doctor does not report the keyring problem")
		}
		// After a restart the in-memory secrets are gone, and it says what to do.
		if !strings.Contains(all, "set it again in the server's settings") {
			t.Errorf("doctor does not say the servers' secrets must be set again")
		}
	})
}

package servers

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// fakeManager records what the service asks of the connection manager.
type fakeManager struct {
	mu      sync.Mutex
	configs map[string]serverconf.Config
	calls   []string
}

func (m *fakeManager) SetServers(cfgs []serverconf.Config) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.configs = map[string]serverconf.Config{}
	for _, c := range cfgs {
		m.configs[c.ID] = c
	}
	m.calls = append(m.calls, "set")
	return nil
}
func (m *fakeManager) Add(cfg serverconf.Config) error    { return m.put("add "+cfg.ID, cfg) }
func (m *fakeManager) Update(cfg serverconf.Config) error { return m.put("update "+cfg.ID, cfg) }
func (m *fakeManager) put(call string, cfg serverconf.Config) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.configs == nil {
		m.configs = map[string]serverconf.Config{}
	}
	m.configs[cfg.ID] = cfg
	m.calls = append(m.calls, call)
	return nil
}
func (m *fakeManager) Remove(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.configs, id)
	m.calls = append(m.calls, "remove "+id)
	return nil
}
func (m *fakeManager) Statuses() []mcpconn.Status { return nil }
func (m *fakeManager) Tools() []mcpconn.Tool      { return nil }

type fakeTrust struct{ changed []string }

func (f *fakeTrust) ServerChanged(ctx context.Context, id, fp string) error {
	f.changed = append(f.changed, id)
	return nil
}

// failingSecrets fails every Set after the first n.
type failingSecrets struct {
	secrets.Memory
	n int
}

func (f *failingSecrets) Set(k, v string) error {
	if f.n == 0 {
		return errors.New("keyring locked")
	}
	f.n--
	return f.Memory.Set(k, v)
}

func newService(t *testing.T, sec Secrets) (*Service, *fakeManager, *fakeTrust) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if sec == nil {
		sec = &secrets.Memory{}
	}
	m, tr := &fakeManager{}, &fakeTrust{}
	return &Service{Store: st, Secrets: sec, Manager: m, Trust: tr, Log: slog.New(slog.DiscardHandler)}, m, tr
}

const claude = `{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
  "search": {"command": "search-mcp", "env": {"SEARCH_API_KEY": "sk-search-123456"}}
}}`

func TestImportSavesAllAndKeepsSecretsInKeyring(t *testing.T) {
	mem := &secrets.Memory{}
	s, m, _ := newService(t, mem)
	ctx := context.Background()
	rep, err := s.Import(ctx, []byte(claude))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 2 {
		t.Fatalf("added %d; want 2: %+v", len(rep.Added), rep)
	}
	cfgs, _ := s.Configs(ctx)
	if len(cfgs) != 2 {
		t.Fatalf("stored %d configs", len(cfgs))
	}
	var raw string
	s.Store.DB().QueryRow("SELECT group_concat(config) FROM servers").Scan(&raw)
	if strings.Contains(raw, "sk-search-123456") {
		t.Fatal("a secret env value reached the database")
	}
	if got, err := mem.Get(serverconf.EnvSecretRef("search", "SEARCH_API_KEY")); err != nil || got != "sk-search-123456" {
		t.Errorf("keyring value = %q, %v", got, err)
	}
	if !slices.Contains(m.calls, "add files") || !slices.Contains(m.calls, "add search") {
		t.Errorf("manager calls = %v", m.calls)
	}
	// Importing again skips both as duplicates and adds nothing.
	rep, err = s.Import(ctx, []byte(claude))
	if err != nil || len(rep.Added) != 0 || len(rep.Skipped) != 2 {
		t.Fatalf("second import: %+v, %v", rep, err)
	}
}

func TestImportIsAllOrNothingWhenTheKeyringFails(t *testing.T) {
	sec := &failingSecrets{n: 0}
	s, _, _ := newService(t, sec)
	ctx := context.Background()
	if _, err := s.Import(ctx, []byte(claude)); err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("Import = %v; want an all-or-nothing error", err)
	}
	if cfgs, _ := s.Configs(ctx); len(cfgs) != 0 {
		t.Fatalf("half imported: %+v", cfgs)
	}
}

func TestImportNotJSON(t *testing.T) {
	s, _, _ := newService(t, nil)
	if _, err := s.Import(context.Background(), []byte("mcpServers: yes")); err == nil {
		t.Fatal("imported a file that is not JSON")
	}
}

func TestSaveDropsGrantsWhenIdentityChanges(t *testing.T) {
	s, m, tr := newService(t, nil)
	ctx := context.Background()
	cfg := serverconf.Config{Name: "My Files", Transport: serverconf.TransportStdio, Command: "mcp-files", Args: []string{"/home"}, Enabled: true}
	saved, err := s.Save(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if saved.ID != "my-files" {
		t.Errorf("ID = %q; want one made from the name", saved.ID)
	}
	saved.Name = "Files"
	if _, err := s.Save(ctx, saved); err != nil {
		t.Fatal(err)
	}
	if len(tr.changed) != 0 {
		t.Errorf("renaming dropped grants: %v", tr.changed)
	}
	saved.Args = []string{"/"}
	if _, err := s.Save(ctx, saved); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.changed, []string{"my-files"}) {
		t.Errorf("changing args: trust told %v; want [my-files]", tr.changed)
	}
	if !slices.Contains(m.calls, "update my-files") {
		t.Errorf("manager not updated: %v", m.calls)
	}
}

func TestSaveRejectsInvalid(t *testing.T) {
	s, _, _ := newService(t, nil)
	_, err := s.Save(context.Background(), serverconf.Config{ID: "x", Transport: serverconf.TransportHTTP, URL: "not a url"})
	var ve *serverconf.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Save = %v; want a ValidationError", err)
	}
	if fe := Validate(serverconf.Config{ID: "x", Transport: serverconf.TransportHTTP, URL: "not a url"}); len(fe) == 0 {
		t.Error("Validate found nothing wrong")
	}
}

func TestSetToolEnabledAndDelete(t *testing.T) {
	mem := &secrets.Memory{}
	s, m, _ := newService(t, mem)
	ctx := context.Background()
	if _, err := s.Import(ctx, []byte(claude)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetToolEnabled(ctx, "files", "write_file", false); err != nil {
		t.Fatal(err)
	}
	if got := m.configs["files"].DisabledTools; !slices.Equal(got, []string{"write_file"}) {
		t.Errorf("disabled tools = %v", got)
	}
	if err := s.SetToolEnabled(ctx, "files", "write_file", true); err != nil {
		t.Fatal(err)
	}
	if got := m.configs["files"].DisabledTools; len(got) != 0 {
		t.Errorf("disabled tools after enabling = %v", got)
	}
	if err := s.Delete(ctx, "search"); err != nil {
		t.Fatal(err)
	}
	if mem.Len() != 0 {
		t.Errorf("secrets of a deleted server kept: %d", mem.Len())
	}
	if err := s.Delete(ctx, "search"); err == nil {
		t.Error("deleting twice succeeded")
	}
}

// TestURLChangeAndDeleteSignOut: a server's OAuth tokens, registered
// client and pinned issuer are forgotten when its URL changes or it is
// deleted, and kept when something else changes.
func TestURLChangeAndDeleteSignOut(t *testing.T) {
	mem := &secrets.Memory{}
	s, _, _ := newService(t, mem)
	ctx := context.Background()
	signIn := func(id string) {
		for _, k := range oauth.Keys(id) {
			mem.Set(k, `{"accessToken":"secret"}`)
		}
	}
	signedIn := func(id string) (n int) {
		for _, k := range oauth.Keys(id) {
			if _, err := mem.Get(k); err == nil {
				n++
			}
		}
		return n
	}
	cfg, err := s.Save(ctx, serverconf.Config{ID: "linear", Transport: serverconf.TransportHTTP, URL: "https://a.example/mcp", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	signIn("linear")

	cfg.Name = "Linear"
	cfg.URL = "HTTPS://a.example:443/mcp/" // the same server, written differently
	if _, err := s.Save(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if n, want := signedIn("linear"), len(oauth.Keys("linear")); n != want {
		t.Fatalf("renaming kept %d of %d sign-in entries", n, want)
	}

	cfg.URL = "https://b.example/mcp"
	if _, err := s.Save(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if n := signedIn("linear"); n != 0 {
		t.Fatalf("a URL change kept %d sign-in entries", n)
	}

	signIn("linear")
	if err := s.Delete(ctx, "linear"); err != nil {
		t.Fatal(err)
	}
	if n := signedIn("linear"); n != 0 {
		t.Fatalf("deleting kept %d sign-in entries", n)
	}
}

// TestImportRefusesAFileWithAnInvalidServer: one URL without a scheme
// among good servers fails the whole import, naming the server and field;
// nothing is stored and no secret reaches the keyring.
func TestImportRefusesAFileWithAnInvalidServer(t *testing.T) {
	mem := &secrets.Memory{}
	s, m, _ := newService(t, mem)
	ctx := context.Background()
	_, err := s.Import(ctx, []byte(`{"mcpServers": {
		"search": {"command": "search-mcp", "env": {"SEARCH_API_KEY": "sk-search-123456"}},
		"remote": {"url": "example.com/mcp"}
	}}`))
	if err == nil || !strings.Contains(err.Error(), `server "remote": url`) || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("Import = %v; want an error naming server remote's url", err)
	}
	if cfgs, _ := s.Configs(ctx); len(cfgs) != 0 {
		t.Errorf("stored despite the bad server: %+v", cfgs)
	}
	if mem.Len() != 0 || len(m.calls) != 0 {
		t.Errorf("keyring entries %d, manager calls %v; want none", mem.Len(), m.calls)
	}
}

// TestSetEnabledAndSetSecret: a server is switched off and on without
// validation, and a secret set by name lands in the keyring under the
// server's own entry, with the config referring to it.
func TestSetEnabledAndSetSecret(t *testing.T) {
	mem := &secrets.Memory{}
	s, m, _ := newService(t, mem)
	ctx := context.Background()
	if _, err := s.Import(ctx, []byte(claude+"\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, serverconf.Config{ID: "web", Transport: serverconf.TransportHTTP, URL: "https://example.com/mcp", Enabled: true,
		Headers: map[string]serverconf.Value{"authorization": {Plain: ""}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEnabled(ctx, "files", false); err != nil {
		t.Fatal(err)
	}
	stored := func(id string) serverconf.Config {
		cfgs, _ := s.Configs(ctx)
		for _, c := range cfgs {
			if c.ID == id {
				return c
			}
		}
		t.Fatalf("no stored server %s", id)
		return serverconf.Config{}
	}
	if c := stored("files"); c.Enabled || m.configs["files"].Enabled {
		t.Errorf("after disable: stored %+v, manager %+v", c, m.configs["files"])
	}
	if err := s.SetEnabled(ctx, "files", true); err != nil {
		t.Fatal(err)
	}
	if !stored("files").Enabled || !m.configs["files"].Enabled {
		t.Error("not enabled again")
	}
	if err := s.SetEnabled(ctx, "nope", false); err == nil {
		t.Error("disabled a server that does not exist")
	}

	if _, err := s.SetSecret(ctx, "search", "SEARCH_API_KEY", "sk-new"); err != nil {
		t.Fatal(err)
	}
	ref := serverconf.EnvSecretRef("search", "SEARCH_API_KEY")
	if got, _ := mem.Get(ref); got != "sk-new" {
		t.Errorf("keyring %s = %q", ref, got)
	}
	if _, err := s.SetSecret(ctx, "web", "Authorization", "Bearer t"); err != nil {
		t.Fatal(err)
	}
	href := serverconf.HeaderSecretRef("web", "Authorization")
	if got, _ := mem.Get(href); got != "Bearer t" {
		t.Errorf("keyring %s = %q", href, got)
	}
	if c := stored("search"); c.Env["SEARCH_API_KEY"].SecretRef != ref {
		t.Errorf("search env = %+v", c.Env)
	}
	if c := stored("web"); len(c.Headers) != 1 || c.Headers["Authorization"].SecretRef != href {
		t.Errorf("web headers = %+v", c.Headers)
	}
	if _, err := s.SetSecret(ctx, "nope", "X", "v"); err == nil {
		t.Error("set a secret of a server that does not exist")
	}
}

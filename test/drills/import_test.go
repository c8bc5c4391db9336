package drills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-app/switchboard/internal/secrets"
)

// TestDrillImportBadFiles feeds `switchboard servers import` the files a
// user gets wrong: not JSON, unknown fields, duplicate IDs, an entry that
// cannot be used. Each time the report says what happened to every entry,
// and what is stored is exactly what the report says was added.
// serverconf's TestImportFileErrors, TestImportDuplicates and
// TestImportBadEntries cover the parsing alone.
func TestDrillImportBadFiles(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	env := dataEnv(filepath.Join(dir, "data"))
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stored := func() []string {
		out, errOut, code := run(t, bin, env, "servers", "list")
		if code != 0 {
			t.Fatalf("servers list: exit %d: %s", code, errOut)
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			if f := strings.Fields(l); len(f) > 0 {
				ids = append(ids, f[0])
			}
		}
		return ids
	}

	tests := []struct {
		name, file string
		code       int
		says       []string
		added      []string // the IDs stored after this file
	}{
		{"not JSON", `this is { not json`, 1,
			[]string{"file is not valid JSON: line 1, column 1", "Nothing was imported."}, nil},
		{"unknown fields", `{"mcpServers": {"one": {"command": "node", "args": ["one.js"], "bogus": 1}}, "globalShortcut": "Ctrl+Space"}`, 0,
			[]string{`added    one (stdio)`, `warning  server "one": unknown field "bogus" ignored`, `warning  top-level field "globalShortcut" ignored`, "1 added, 0 skipped, 0 failed"},
			[]string{"one"}},
		{"duplicate IDs", `{"mcpServers": {"two": {"command": "node", "args": ["a.js"]}, "two": {"command": "node", "args": ["b.js"]}, "Two": {"command": "python", "args": ["c.py"]}, "one": {"command": "node", "args": ["other.js"]}}}`, 0,
			[]string{`added    two (stdio)`, `skipped  server "two": same ID "two" as entry "two" earlier in this file`, `skipped  server "Two": same ID "two"`, `skipped  server "one"`, "1 added, 3 skipped, 0 failed"},
			[]string{"one", "two"}},
		// An entry that cannot be used fails the whole import, as the
		// README promises: it is reported with what it lacks, the valid
		// ones are named as valid but not added, and nothing is stored.
		{"an unusable entry", `{"mcpServers": {"good": {"command": "node", "args": ["g.js"]}, "bad": {"args": ["no-command.js"]}}}`, 1,
			[]string{`valid    good (stdio)`, `failed   server "bad": needs a command (local server) or a url (remote server)`, "1 valid, 0 skipped, 1 failed", "Nothing was imported."},
			[]string{"one", "two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, bin, env, "servers", "import", write(strings.ReplaceAll(tt.name, " ", "-")+".json", tt.file))
			report := out + errOut
			t.Logf("exit %d; the user sees:\n%s", code, strings.TrimSpace(report))
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, s := range tt.says {
				if !strings.Contains(report, s) {
					t.Errorf("the report does not say %q", s)
				}
			}
			got := stored()
			slices.Sort(got)
			if !slices.Equal(got, tt.added) {
				t.Errorf("stored servers %v, want %v", got, tt.added)
			}
		})
	}
}

// TestDrillImportIsAllOrNothing makes the keyring fail in the middle of an
// import (the second of two servers' secrets): nothing is stored, the
// secret already written is taken back out, and the error says nothing
// was imported. servers.Service.Import promises this; no unit test breaks
// the keyring half-way through.
func TestDrillImportIsAllOrNothing(t *testing.T) {
	keyring := &flakyKeyring{failOn: 2}
	a := newApp(t, appOptions{secrets: keyring})
	file := `{"mcpServers": {
		"alpha": {"command": "node", "args": ["a.js"], "env": {"ALPHA_API_KEY": "sk-alpha-secret"}},
		"beta":  {"command": "node", "args": ["b.js"], "env": {"BETA_API_KEY": "sk-beta-secret"}}}}`
	_, err := a.svc.Servers.Import(context.Background(), []byte(file))
	t.Logf("the user sees: %v", err)
	if err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("err = %v, want one saying nothing was imported", err)
	}
	cfgs, err := a.svc.Servers.Configs(context.Background())
	if err != nil || len(cfgs) != 0 {
		t.Errorf("after the failed import %d servers are stored (%v)", len(cfgs), err)
	}
	if n := keyring.Len(); n != 0 {
		t.Errorf("%d secrets were left in the keyring", n)
	}
	// The same file imports once the keyring works.
	keyring.failOn = 0
	rep, err := a.svc.Servers.Import(context.Background(), []byte(file))
	if err != nil || len(rep.Added) != 2 {
		t.Fatalf("the import after the keyring recovered: %v", err)
	}
}

// A flakyKeyring fails its failOn-th Set (counting from 1); 0 never fails.
type flakyKeyring struct {
	secrets.Memory
	mu     sync.Mutex
	sets   int
	failOn int
}

func (k *flakyKeyring) Set(key, value string) error {
	k.mu.Lock()
	k.sets++
	fail := k.failOn > 0 && k.sets == k.failOn
	k.mu.Unlock()
	if fail {
		return errors.New("the keyring is locked")
	}
	return k.Memory.Set(key, value)
}

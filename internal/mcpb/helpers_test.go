package mcpb

import (
	"archive/zip"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An entry is one file of a test bundle.
type entry struct {
	name string
	body string
	// mode is the Unix mode recorded in the zip; 0 means 0644. A mode
	// with fs.ModeSymlink makes a link whose target is body.
	mode fs.FileMode
	// fat records no Unix mode at all, as zips made on Windows do.
	fat bool
}

// writeZip writes entries as a zip file in a new temporary directory.
func writeZip(t *testing.T, entries ...entry) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.mcpb")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if !e.fat {
			mode := e.mode
			if mode == 0 {
				mode = 0o644
			}
			h.SetMode(mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// manifestEntry is manifest.json holding m.
func manifestEntry(t *testing.T, m map[string]any) entry {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return entry{name: ManifestName, body: string(b)}
}

// nodeManifest is a valid node bundle's manifest, in the spec's 0.3 form.
func nodeManifest() map[string]any {
	return map[string]any{
		"manifest_version": "0.3",
		"name":             "hello",
		"display_name":     "Hello",
		"version":          "1.2.3",
		"description":      "Says hello.",
		"author":           map[string]any{"name": "Ada", "email": "ada@example.com"},
		"server": map[string]any{
			"type":        "node",
			"entry_point": "server/index.js",
			"mcp_config": map[string]any{
				"command": "node",
				"args":    []any{"${__dirname}/server/index.js", "--dirs", "${user_config.dirs}", "--max=${user_config.max}"},
				"env": map[string]any{
					"API_KEY":  "${user_config.api_key}",
					"VERBOSE":  "${user_config.verbose}",
					"AUTH":     "Bearer ${user_config.api_key}",
					"ROOTS":    "${user_config.dirs}",
					"CACHE":    "${__dirname}${/}cache",
					"DOCS_DIR": "${DOCUMENTS}",
				},
			},
		},
		"tools":         []any{map[string]any{"name": "greet", "description": "Greets."}},
		"compatibility": map[string]any{"platforms": []any{"darwin", "win32", "linux"}, "runtimes": map[string]any{"node": ">=18.0.0"}},
		"user_config": map[string]any{
			"api_key": map[string]any{"type": "string", "title": "API Key", "description": "Your key.", "sensitive": true, "required": true},
			"dirs":    map[string]any{"type": "directory", "title": "Folders", "description": "Folders to read.", "multiple": true, "default": []any{"${HOME}/Desktop", "${DOCUMENTS}"}},
			"max":     map[string]any{"type": "number", "title": "Max", "description": "Max results.", "default": 10, "min": 1, "max": 100},
			"verbose": map[string]any{"type": "boolean", "title": "Verbose", "description": "Log more."},
		},
	}
}

// nodeFiles are the files of the node bundle besides its manifest.
var nodeFiles = []entry{
	{name: "server/", mode: fs.ModeDir | 0o755},
	{name: "server/index.js", body: "console.log('hi')\n"},
	{name: "server/run.sh", body: "#!/bin/sh\n", mode: 0o755},
	{name: "node_modules/dep/package.json", body: `{"name":"dep"}`},
}

// nodeBundle writes the node bundle with m as its manifest.
func nodeBundle(t *testing.T, m map[string]any) string {
	t.Helper()
	return writeZip(t, append([]entry{manifestEntry(t, m)}, nodeFiles...)...)
}

// set sets a dotted path in a manifest map ("server.mcp_config.command"),
// deleting it when v is nil.
func set(m map[string]any, path string, v any) map[string]any {
	keys := strings.Split(path, ".")
	cur := m
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	if v == nil {
		delete(cur, keys[len(keys)-1])
	} else {
		cur[keys[len(keys)-1]] = v
	}
	return m
}

// fakeHome points HOME (and the XDG user folders) at a temporary
// directory, where Documents is named "Dokumente", and returns it.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".config")
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	dirs := "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOCUMENTS_DIR=\"$HOME/Dokumente\"\n"
	if err := os.WriteFile(filepath.Join(cfg, "user-dirs.dirs"), []byte(dirs), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// leftovers lists the entries of parent other than want.
func leftovers(t *testing.T, parent string, want ...string) []string {
	t.Helper()
	des, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		keep := false
		for _, w := range want {
			keep = keep || de.Name() == w
		}
		if !keep {
			out = append(out, de.Name())
		}
	}
	return out
}

func mustOpen(t *testing.T, p string) *Bundle {
	t.Helper()
	b, err := Open(p)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return b
}

func mustExtract(t *testing.T, b *Bundle) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "servers", "hello")
	if err := b.Extract(dir); err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return dir
}

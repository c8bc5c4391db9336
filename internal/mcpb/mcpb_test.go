package mcpb

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr(f float64) *float64 { return &f }

func TestOpenNodeBundle(t *testing.T) {
	b := mustOpen(t, nodeBundle(t, nodeManifest()))
	want := Manifest{
		ManifestVersion: "0.3",
		Name:            "hello",
		DisplayName:     "Hello",
		Version:         "1.2.3",
		Description:     "Says hello.",
		Author:          Author{Name: "Ada", Email: "ada@example.com"},
		Server: Server{Type: TypeNode, EntryPoint: "server/index.js", MCPConfig: &MCPConfig{
			Command: "node",
			Args:    []string{"${__dirname}/server/index.js", "--dirs", "${user_config.dirs}", "--max=${user_config.max}"},
			Env: map[string]string{"API_KEY": "${user_config.api_key}", "VERBOSE": "${user_config.verbose}", "AUTH": "Bearer ${user_config.api_key}",
				"ROOTS": "${user_config.dirs}", "CACHE": "${__dirname}${/}cache", "DOCS_DIR": "${DOCUMENTS}"},
		}},
		Tools:         []Tool{{Name: "greet", Description: "Greets."}},
		Compatibility: Compatibility{Platforms: []string{"darwin", "win32", "linux"}, Runtimes: Runtimes{Node: ">=18.0.0"}},
		// json.Marshal sorted the keys; parseUserConfig keeps that order.
		UserConfig: []UserConfigField{
			{Key: "api_key", Type: FieldString, Title: "API Key", Description: "Your key.", Required: true, Sensitive: true},
			{Key: "dirs", Type: FieldDirectory, Title: "Folders", Description: "Folders to read.", Multiple: true, Default: "${HOME}/Desktop\n${DOCUMENTS}"},
			{Key: "max", Type: FieldNumber, Title: "Max", Description: "Max results.", Default: "10", Min: ptr(1), Max: ptr(100)},
			{Key: "verbose", Type: FieldBoolean, Title: "Verbose", Description: "Log more."},
		},
	}
	if diff := cmp.Diff(want, b.Manifest); diff != "" {
		t.Errorf("Manifest (-want +got):\n%s", diff)
	}
	if got := b.Manifest.Title(); got != "Hello" {
		t.Errorf("Title = %q", got)
	}
}

// TestUserConfigOrder checks that user_config keeps the manifest's order,
// which json.Marshal would not (so the manifest is written by hand), and
// that UserConfig substitutes the user's folders in defaults.
func TestUserConfigOrder(t *testing.T) {
	home := fakeHome(t)
	manifest := `{
	  "manifest_version": "0.2", "name": "n", "version": "1", "description": "d", "author": {"name": "a"},
	  "server": {"type": "node", "entry_point": "i.js", "mcp_config": {"command": "node", "args": ["${__dirname}/i.js"]}},
	  "user_config": {
	    "zeta":  {"type": "string", "title": "Zeta", "description": "z", "default": "${HOME}/z"},
	    "alpha": {"type": "directory", "title": "Alpha", "description": "a", "multiple": true, "default": ["${DOCUMENTS}", "${DESKTOP}"]},
	    "mid":   {"type": "boolean", "description": "no title", "default": true}
	  }
	}`
	b := mustOpen(t, writeZip(t, entry{name: ManifestName, body: manifest}, entry{name: "i.js"}))
	want := []UserConfigField{
		{Key: "zeta", Type: FieldString, Title: "Zeta", Description: "z", Default: home + "/z"},
		{Key: "alpha", Type: FieldDirectory, Title: "Alpha", Description: "a", Multiple: true,
			Default: filepath.Join(home, "Dokumente") + "\n" + filepath.Join(home, "Desktop")},
		{Key: "mid", Type: FieldBoolean, Title: "mid", Description: "no title", Default: "true"},
	}
	if diff := cmp.Diff(want, b.UserConfig()); diff != "" {
		t.Errorf("UserConfig (-want +got):\n%s", diff)
	}
	// The manifest itself keeps the templates.
	if got := b.Manifest.UserConfig[0].Default; got != "${HOME}/z" {
		t.Errorf("Manifest default = %q, want the template", got)
	}
}

func TestOpenAcceptsVersions(t *testing.T) {
	tests := []struct {
		name string
		edit func(map[string]any)
	}{
		{"0.1", func(m map[string]any) { m["manifest_version"] = "0.1" }},
		{"0.4", func(m map[string]any) { m["manifest_version"] = "0.4" }},
		{"dxt_version", func(m map[string]any) { delete(m, "manifest_version"); m["dxt_version"] = "0.1" }},
		{"unknown fields", func(m map[string]any) {
			m["_meta"] = map[string]any{"com.example": map[string]any{"x": 1}}
			m["future_field"] = []any{1}
		}},
		{"override for another client's platform", func(m map[string]any) {
			set(m, "server.mcp_config.platform_overrides", map[string]any{"freebsd": map[string]any{"command": "x"}})
		}},
		{"uv without mcp_config", func(m map[string]any) {
			m["manifest_version"] = "0.4"
			m["server"] = map[string]any{"type": "uv", "entry_point": "server/index.js"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nodeManifest()
			tt.edit(m)
			b := mustOpen(t, nodeBundle(t, m))
			if b.Manifest.Name != "hello" {
				t.Errorf("Name = %q", b.Manifest.Name)
			}
		})
	}
}

// otherPlatform is a platform name that is not this one.
func otherPlatform() string {
	if Platform() == "darwin" {
		return "linux"
	}
	return "darwin"
}

func TestOpenRefuses(t *testing.T) {
	withManifest := func(edit func(map[string]any)) func(t *testing.T) string {
		return func(t *testing.T) string {
			m := nodeManifest()
			edit(m)
			return nodeBundle(t, m)
		}
	}
	withEntries := func(extra ...entry) func(t *testing.T) string {
		return func(t *testing.T) string {
			return writeZip(t, append(append([]entry{manifestEntry(t, nodeManifest())}, nodeFiles...), extra...)...)
		}
	}
	tests := []struct {
		name  string
		file  func(t *testing.T) string
		opts  *Options
		kind  error
		wants []string // substrings of the message
	}{
		{"not a zip", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "x.mcpb")
			os.WriteFile(p, []byte("<html>rate limited</html>"), 0o644)
			return p
		}, nil, ErrInvalid, []string{"x.mcpb: not a zip archive", "download finished"}},
		{"no manifest", func(t *testing.T) string { return writeZip(t, entry{name: "server/index.js"}) }, nil,
			ErrInvalid, []string{"no manifest.json at the top", "mcpb pack"}},
		{"manifest in a folder", func(t *testing.T) string {
			return writeZip(t, entry{name: "hello/manifest.json", body: "{}"}, entry{name: "hello/index.js"})
		}, nil, ErrInvalid, []string{"there is a hello/manifest.json", "not its parent"}},
		{"bad JSON", func(t *testing.T) string {
			return writeZip(t, entry{name: ManifestName, body: "{\n  \"name\": \"x\",\n  oops\n}"})
		}, nil, ErrInvalid, []string{"not valid JSON (line 3, column 3", "ask the bundle's author"}},
		{"keys differing in case", func(t *testing.T) string {
			m, _ := json.Marshal(nodeManifest())
			evil := strings.Replace(string(m), `"server":`, `"Server":{"type":"binary","entry_point":"x","mcp_config":{"command":"/bin/sh"}},"server":`, 1)
			return writeZip(t, append([]entry{{name: ManifestName, body: evil}}, nodeFiles...)...)
		}, nil, ErrInvalid, []string{`has the keys "Server" and "server"`}},
		{"env keys differing in case", withManifest(func(m map[string]any) {
			set(m, "server.mcp_config.env", map[string]any{"PATH": "/a", "Path": "/b"})
		}), nil, ErrInvalid, []string{`has the keys "PATH" and "Path"`}},
		{"wrong JSON type", withManifest(func(m map[string]any) { set(m, "server.mcp_config.args", "not a list") }),
			nil, ErrInvalid, []string{"server.mcp_config.args is a JSON string where the spec has a list of strings (line "}},
		{"newer manifest_version", withManifest(func(m map[string]any) { m["manifest_version"] = "0.9" }),
			nil, ErrUnsupported, []string{`manifest_version "0.9"`, "0.1 to 0.4", "update Switchboard"}},
		{"no manifest_version", withManifest(func(m map[string]any) { delete(m, "manifest_version") }),
			nil, ErrInvalid, []string{"manifest_version is missing"}},
		{"no name", withManifest(func(m map[string]any) { delete(m, "name") }), nil, ErrInvalid, []string{"name is missing"}},
		{"no server", withManifest(func(m map[string]any) { delete(m, "server") }), nil, ErrInvalid, []string{"server is missing"}},
		{"no entry_point", withManifest(func(m map[string]any) { set(m, "server.entry_point", nil) }),
			nil, ErrInvalid, []string{"server.entry_point is missing"}},
		{"entry_point escapes", withManifest(func(m map[string]any) { set(m, "server.entry_point", "../../etc/passwd") }),
			nil, ErrInvalid, []string{"not a path inside the bundle"}},
		{"entry_point not in zip", withManifest(func(m map[string]any) { set(m, "server.entry_point", "dist/main.js") }),
			nil, ErrInvalid, []string{`entry_point "dist/main.js" is not a file in the bundle`}},
		{"no mcp_config", withManifest(func(m map[string]any) { set(m, "server.mcp_config", nil) }),
			nil, ErrInvalid, []string{"mcp_config is missing", "cannot tell how to start"}},
		{"no command", withManifest(func(m map[string]any) { set(m, "server.mcp_config.command", nil) }),
			nil, ErrInvalid, []string{"mcp_config.command is missing"}},
		{"unknown server type", withManifest(func(m map[string]any) { set(m, "server.type", "deno") }),
			nil, ErrUnsupported, []string{`server.type "deno"`}},
		{"other platform", withManifest(func(m map[string]any) { set(m, "compatibility.platforms", []any{otherPlatform()}) }),
			nil, ErrUnsupported, []string{"runs only on " + otherPlatform(), "not on " + Platform()}},
		{"unknown platform", withManifest(func(m map[string]any) { set(m, "compatibility.platforms", []any{"amiga"}) }),
			nil, ErrInvalid, []string{`"amiga"`}},
		{"bad env key", withManifest(func(m map[string]any) { set(m, "server.mcp_config.env", map[string]any{"A=B": "x"}) }),
			nil, ErrInvalid, []string{`the key "A=B"`}},
		{"NUL in args", withManifest(func(m map[string]any) { set(m, "server.mcp_config.args", []any{"a\x00b"}) }),
			nil, ErrInvalid, []string{"NUL"}},
		{"control character in name", withManifest(func(m map[string]any) { m["display_name"] = "Hello\x1b[2J" }),
			nil, ErrInvalid, []string{"display_name has a control character"}},
		{"huge description", withManifest(func(m map[string]any) { m["description"] = strings.Repeat("x", maxText+1) }),
			nil, ErrInvalid, []string{"description is longer"}},
		{"too many args", withManifest(func(m map[string]any) {
			args := make([]any, maxArgs+1)
			for i := range args {
				args[i] = "a"
			}
			set(m, "server.mcp_config.args", args)
		}), nil, ErrInvalid, []string{"more than 1000 entries"}},
		{"field type", withManifest(func(m map[string]any) { set(m, "user_config.max.type", "integer") }),
			nil, ErrInvalid, []string{`user_config.max.type is "integer"`}},
		{"min above max", withManifest(func(m map[string]any) { set(m, "user_config.max.min", 200) }),
			nil, ErrInvalid, []string{"min 200 above max 100"}},
		{"default of the wrong type", withManifest(func(m map[string]any) { set(m, "user_config.verbose.default", []any{"x"}) }),
			nil, ErrInvalid, []string{"user_config.verbose.default"}},
		{"bad field key", withManifest(func(m map[string]any) { set(m, "user_config.a}b", map[string]any{"type": "string"}) }),
			nil, ErrInvalid, []string{`the key "a}b"`}},
		{"binary outside the bundle", withManifest(func(m map[string]any) {
			set(m, "server.type", "binary")
			set(m, "server.mcp_config.command", "/bin/sh")
		}), nil, ErrUnsupported, []string{`command "/bin/sh" is not a file inside the bundle`}},
		{"binary climbs out", withManifest(func(m map[string]any) {
			set(m, "server.type", "binary")
			set(m, "server.mcp_config.command", "${__dirname}/../../bin/sh")
		}), nil, ErrUnsupported, []string{"not a file inside the bundle"}},
		{"binary not in zip", withManifest(func(m map[string]any) {
			set(m, "server.type", "binary")
			set(m, "server.mcp_config.command", "${__dirname}/bin/server")
		}), nil, ErrInvalid, []string{`command "${__dirname}/bin/server" is not a file in the bundle`}},
		{"zip slip", withEntries(entry{name: "../../evil.sh", body: "x"}), nil, ErrInvalid, []string{`"../../evil.sh" is not a relative path`}},
		{"zip slip inside", withEntries(entry{name: "server/../../evil", body: "x"}), nil, ErrInvalid, []string{"not a relative path"}},
		{"absolute path", withEntries(entry{name: "/etc/cron.d/x", body: "x"}), nil, ErrInvalid, []string{`"/etc/cron.d/x" is not a relative path`}},
		{"backslash", withEntries(entry{name: `..\evil`, body: "x"}), nil, ErrInvalid, []string{"backslash"}},
		{"symlink", withEntries(entry{name: "server/link", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777}),
			nil, ErrInvalid, []string{`"server/link" is a symbolic link`}},
		{"named pipe", withEntries(entry{name: "server/fifo", mode: fs.ModeNamedPipe | 0o644}), nil, ErrInvalid, []string{"named pipe"}},
		{"duplicate entry", withEntries(entry{name: "server/index.js", body: "other"}), nil, ErrInvalid, []string{`"server/index.js" appears twice`}},
		{"manifest too large", withManifest(func(map[string]any) {}), &Options{Limits: Limits{MaxManifestBytes: 100}},
			ErrTooLarge, []string{"manifest.json is", "more than the 100 bytes"}},
		{"too many entries", withManifest(func(map[string]any) {}), &Options{Limits: Limits{MaxEntries: 3}},
			ErrTooLarge, []string{"5 entries, more than the 3"}},
		{"declared size too large", withEntries(entry{name: "big.bin", body: strings.Repeat("\x00", 1<<20)}), &Options{Limits: Limits{MaxTotalBytes: 512 << 10}},
			ErrTooLarge, []string{"unpacks to more than 512.0 KiB", "zip bomb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := OpenWith(tt.file(t), tt.opts)
			if err == nil {
				t.Fatalf("Open succeeded (%+v), want an error", b.Manifest)
			}
			t.Log(err)
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.mcpb"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
}

package clientconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const token = "sbc_abcDEF123-_xyz"

func TestPathPerOS(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	home := filepath.Join("/", "home", "ann")
	appdata := filepath.Join("/", "Users", "ann", "AppData", "Roaming")
	tests := []struct {
		goos string
		env  map[string]string
		want map[App]string
	}{
		{goos: "linux", want: map[App]string{
			ClaudeDesktop: filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"),
			VSCode:        filepath.Join(home, ".config", "Code", "User", "mcp.json"),
			Cursor:        filepath.Join(home, ".cursor", "mcp.json"),
		}},
		{goos: "linux", env: map[string]string{"XDG_CONFIG_HOME": "/xdg"}, want: map[App]string{
			ClaudeDesktop: filepath.Join("/xdg", "Claude", "claude_desktop_config.json"),
			VSCode:        filepath.Join("/xdg", "Code", "User", "mcp.json"),
			Cursor:        filepath.Join(home, ".cursor", "mcp.json"),
		}},
		{goos: "linux", env: map[string]string{"XDG_CONFIG_HOME": "relative"}, want: map[App]string{
			ClaudeDesktop: filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"),
		}},
		{goos: "darwin", want: map[App]string{
			ClaudeDesktop: filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
			VSCode:        filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json"),
			Cursor:        filepath.Join(home, ".cursor", "mcp.json"),
		}},
		{goos: "windows", env: map[string]string{"APPDATA": appdata}, want: map[App]string{
			ClaudeDesktop: filepath.Join(appdata, "Claude", "claude_desktop_config.json"),
			VSCode:        filepath.Join(appdata, "Code", "User", "mcp.json"),
			Cursor:        filepath.Join(home, ".cursor", "mcp.json"),
		}},
		{goos: "windows", want: map[App]string{
			ClaudeDesktop: filepath.Join(home, "AppData", "Roaming", "Claude", "claude_desktop_config.json"),
		}},
	}
	for _, tt := range tests {
		got := map[App]string{}
		for app := range tt.want {
			p, err := Path(app, &Options{GOOS: tt.goos, Home: home, Getenv: env(tt.env)})
			if err != nil {
				t.Fatal(err)
			}
			got[app] = p
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %v: paths (-want +got):\n%s", tt.goos, tt.env, diff)
		}
	}
	if _, err := Path("zed", &Options{Home: home}); err == nil {
		t.Error("Path of an unknown app: no error")
	}
}

// testOpts puts every file under a temporary home on Linux.
func testOpts(t *testing.T) (*Options, string) {
	t.Helper()
	home := t.TempDir()
	return &Options{
		Executable: "/opt/switchboard/switchboard",
		GOOS:       "linux",
		Home:       home,
		Getenv:     func(string) string { return "" },
		Now:        func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) },
	}, home
}

func TestEntry(t *testing.T) {
	o, home := testOpts(t)
	o.DataDir = "/data/sb"
	tests := []struct {
		app  App
		path string
		want string
	}{
		{ClaudeDesktop, filepath.Join(home, ".config/Claude/claude_desktop_config.json"), `{
  "mcpServers": {
    "switchboard": {
      "command": "/opt/switchboard/switchboard",
      "args": [
        "mcp",
        "serve"
      ],
      "env": {
        "SWITCHBOARD_CLIENT_TOKEN": "sbc_abcDEF123-_xyz",
        "SWITCHBOARD_DATA_DIR": "/data/sb"
      }
    }
  }
}
`},
		{VSCode, filepath.Join(home, ".config/Code/User/mcp.json"), `{
  "servers": {
    "switchboard": {
      "type": "stdio",
      "command": "/opt/switchboard/switchboard",
      "args": [
        "mcp",
        "serve"
      ],
      "env": {
        "SWITCHBOARD_CLIENT_TOKEN": "sbc_abcDEF123-_xyz",
        "SWITCHBOARD_DATA_DIR": "/data/sb"
      }
    }
  }
}
`},
	}
	for _, tt := range tests {
		p, err := Entry(tt.app, token, o)
		if err != nil {
			t.Fatal(err)
		}
		want := Preview{App: tt.app, Label: tt.app.Label(), Path: tt.path, Key: tt.app.serversKey(), Server: "switchboard", JSON: tt.want}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("Entry(%s) (-want +got):\n%s", tt.app, diff)
		}
	}
	for _, bad := range []string{"", "  ", "sbc_a b", "sbc_a\nb"} {
		if _, err := Entry(Cursor, bad, o); err == nil {
			t.Errorf("Entry with token %q: no error", bad)
		}
	}
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkPrivate(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600 (it holds a token)", path, st.Mode().Perm())
	}
}

func TestWriteNewFile(t *testing.T) {
	o, home := testOpts(t)
	c, err := Check(Cursor, o)
	if err != nil {
		t.Fatal(err)
	}
	want := Preview{App: Cursor, Label: "Cursor", Path: filepath.Join(home, ".cursor", "mcp.json"), Key: "mcpServers", Server: "switchboard"}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Check before the file exists (-want +got):\n%s", diff)
	}
	w, err := Write(Cursor, token, o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".cursor", "mcp.json")
	if diff := cmp.Diff(Written{Path: path}, w); diff != "" {
		t.Errorf("Written (-want +got):\n%s", diff)
	}
	p, _ := Entry(Cursor, token, o)
	if got := readFile(t, path); got != p.JSON {
		t.Errorf("new file:\n%s\nwant the entry as Entry shows it:\n%s", got, p.JSON)
	}
	checkPrivate(t, path)
	if p, _ = Entry(Cursor, token, o); !p.Exists || !p.Replaces || p.Problem != "" {
		t.Errorf("Entry after Write: exists %v replaces %v problem %q; want true true \"\"", p.Exists, p.Replaces, p.Problem)
	}
}

func TestWriteMerges(t *testing.T) {
	old := `{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/a&b"], "env": {"N": 1.50}},
        "switchboard": {"command": "/old/switchboard", "args": ["mcp", "serve"], "env": {"SWITCHBOARD_CLIENT_TOKEN": "sbc_old"}},
        "zeta": {"url": "http://localhost:9/mcp"}
    },
    "other": [1, 2, {"x": null}]
}`
	want := `{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "files": {
            "command": "npx",
            "args": [
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "/tmp/a&b"
            ],
            "env": {
                "N": 1.50
            }
        },
        "switchboard": {
            "command": "/opt/switchboard/switchboard",
            "args": [
                "mcp",
                "serve"
            ],
            "env": {
                "SWITCHBOARD_CLIENT_TOKEN": "sbc_abcDEF123-_xyz"
            }
        },
        "zeta": {
            "url": "http://localhost:9/mcp"
        }
    },
    "other": [
        1,
        2,
        {
            "x": null
        }
    ]
}
`
	o, home := testOpts(t)
	path := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	writeFile(t, path, old, 0o644)
	p, err := Entry(ClaudeDesktop, token, o)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Exists || !p.Replaces || p.Problem != "" {
		t.Errorf("Entry: exists %v replaces %v problem %q; want true true \"\"", p.Exists, p.Replaces, p.Problem)
	}
	w, err := Write(ClaudeDesktop, token, o)
	if err != nil {
		t.Fatal(err)
	}
	backup := path + ".20260304-050607.switchboard.bak"
	if diff := cmp.Diff(Written{Path: path, Backup: backup, Replaced: true}, w); diff != "" {
		t.Errorf("Written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf("merged file (-want +got):\n%s", diff)
	}
	if got := readFile(t, backup); got != old {
		t.Errorf("backup:\n%s\nwant the old file:\n%s", got, old)
	}
	checkPrivate(t, path)
	checkPrivate(t, backup)

	// Again in the same second: a second backup, the first kept.
	if w, err = Write(ClaudeDesktop, "sbc_new", o); err != nil {
		t.Fatal(err)
	}
	if w.Backup != backup+".2" || readFile(t, backup) != old {
		t.Errorf("second backup %q (first intact: %v)", w.Backup, readFile(t, backup) == old)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Env map[string]any
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &cfg); err != nil {
		t.Fatal(err)
	}
	if got := cfg.MCPServers["switchboard"].Env[EnvToken]; got != "sbc_new" || len(cfg.MCPServers) != 3 {
		t.Errorf("after the second write: token %q, %d servers; want sbc_new and 3", got, len(cfg.MCPServers))
	}
}

func TestWriteKeepsTabsAndAddsKey(t *testing.T) {
	o, home := testOpts(t)
	path := filepath.Join(home, ".config", "Code", "User", "mcp.json")
	writeFile(t, path, "{\n\t\"inputs\": []\n}\n", 0o600)
	w, err := Write(VSCode, token, o)
	if err != nil {
		t.Fatal(err)
	}
	if w.Replaced {
		t.Error("Replaced with no entry before")
	}
	want := "{\n\t\"inputs\": [],\n\t\"servers\": {\n\t\t\"switchboard\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/opt/switchboard/switchboard\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\",\n\t\t\t\t\"serve\"\n\t\t\t],\n\t\t\t\"env\": {\n\t\t\t\t\"SWITCHBOARD_CLIENT_TOKEN\": \"sbc_abcDEF123-_xyz\"\n\t\t\t}\n\t\t}\n\t}\n}\n"
	if diff := cmp.Diff(want, readFile(t, path)); diff != "" {
		t.Errorf("merged file (-want +got):\n%s", diff)
	}
}

func TestWriteEmptyAndNull(t *testing.T) {
	for _, old := range []string{"", "  \n", `{"mcpServers": null}`} {
		o, home := testOpts(t)
		path := filepath.Join(home, ".cursor", "mcp.json")
		writeFile(t, path, old, 0o600)
		if _, err := Write(Cursor, token, o); err != nil {
			t.Fatalf("%q: %v", old, err)
		}
		var cfg struct{ MCPServers map[string]json.RawMessage }
		if err := json.Unmarshal([]byte(readFile(t, path)), &cfg); err != nil || len(cfg.MCPServers) != 1 {
			t.Errorf("%q: merged into %s (%v)", old, readFile(t, path), err)
		}
	}
}

func TestWriteRefuses(t *testing.T) {
	tests := []struct {
		name, old, why string
	}{
		{"JSONC with comments", "{\n\t// my servers\n\t\"servers\": {}\n}", "comments or trailing commas"},
		{"trailing comma", `{"servers": {"a": {"command": "x"},},}`, "comments or trailing commas"},
		{"broken", "{\n\"servers\": {\n\"a\": }\n}", "not valid JSON (line 3, column 6"},
		{"array", `[1, 2]`, "does not hold a JSON object"},
		{"servers not an object", `{"servers": ["a"]}`, `its "servers" is not an object`},
		{"servers twice", `{"servers": {}, "servers": {}}`, `lists "servers" twice`},
		{"entry twice", `{"servers": {"switchboard": {}, "switchboard": {}}}`, `lists "switchboard" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, home := testOpts(t)
			path := filepath.Join(home, ".config", "Code", "User", "mcp.json")
			writeFile(t, path, tt.old, 0o644)
			p, err := Entry(VSCode, token, o)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Problem, tt.why) || !strings.Contains(p.Problem, "Copy the entry") {
				t.Errorf("Entry's problem %q; want it to say %q and to copy the entry", p.Problem, tt.why)
			}
			_, err = Write(VSCode, token, o)
			if !errors.Is(err, ErrNotJSON) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "copy the entry") {
				t.Errorf("Write: %v; want ErrNotJSON saying %q and to copy the entry", err, tt.why)
			}
			if got := readFile(t, path); got != tt.old {
				t.Errorf("the file changed:\n%s", got)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(left) != 1 {
				t.Errorf("files left beside it: %v", left)
			}
		})
	}
}

func TestWriteRefusesHugeFile(t *testing.T) {
	o, home := testOpts(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	writeFile(t, path, `{"x": "`+strings.Repeat("a", MaxFileSize)+`"}`, 0o600)
	if _, err := Write(Cursor, token, o); err == nil || !strings.Contains(err.Error(), "copy the entry instead") {
		t.Errorf("Write over a huge file: %v", err)
	}
	if p, _ := Entry(Cursor, token, o); p.Problem == "" {
		t.Error("Entry over a huge file: no problem reported")
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	o, home := testOpts(t)
	target := filepath.Join(home, "dotfiles", "cursor.json")
	writeFile(t, target, `{"mcpServers": {}}`, 0o600)
	link := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	w, err := Write(Cursor, token, o)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if w.Path != target || !strings.Contains(readFile(t, target), token) {
		t.Errorf("wrote %s; want the link's target %s with the token", w.Path, target)
	}
}

func TestReplaceFileRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	writeFile(t, path, `{"saved": "by the app"}`, 0o600)
	err := replaceFile(path, []byte(`{"ours": true}`), []byte(`{}`), true)
	if err == nil || !strings.Contains(err.Error(), "try again") {
		t.Errorf("replaceFile over a changed file: %v", err)
	}
	if got := readFile(t, path); got != `{"saved": "by the app"}` {
		t.Errorf("the file changed: %s", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("files left: %v", left)
	}
	// A file that appeared since it was read as missing is not replaced either.
	if err := replaceFile(path, []byte(`{}`), nil, false); err == nil {
		t.Error("replaceFile over a file that appeared: no error")
	}
}

func TestParseApp(t *testing.T) {
	for _, a := range Apps {
		got, err := ParseApp(string(a))
		if err != nil || got != a {
			t.Errorf("ParseApp(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := ParseApp("zed"); err == nil {
		t.Error("ParseApp(zed): no error")
	}
}

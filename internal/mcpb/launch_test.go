package mcpb

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLaunchNode(t *testing.T) {
	home := fakeHome(t)
	b := mustOpen(t, nodeBundle(t, nodeManifest()))
	dir := mustExtract(t, b)
	docs := filepath.Join(home, "Dokumente") // from user-dirs.dirs
	pls := string(os.PathListSeparator)

	tests := []struct {
		name   string
		values map[string]string
		want   LaunchSpec
	}{
		{
			name:   "defaults",
			values: map[string]string{"api_key": "sk-1"},
			want: LaunchSpec{
				Runtime: TypeNode, Command: "node", Dir: dir,
				// dirs' default (a list) expands to one argument per path.
				Args: []string{dir + "/server/index.js", "--dirs", filepath.Join(home, "Desktop"), docs, "--max=10"},
				Env: map[string]string{
					"API_KEY":  "sk-1",
					"AUTH":     "Bearer sk-1",
					"ROOTS":    filepath.Join(home, "Desktop") + pls + docs,
					"CACHE":    dir + string(os.PathSeparator) + "cache",
					"DOCS_DIR": docs,
					// VERBOSE is exactly an unset optional setting: left out.
				},
				SecretEnv: []string{"API_KEY", "AUTH"},
			},
		},
		{
			name: "values given",
			values: map[string]string{
				"api_key": "${__dirname}", // a value is never expanded again
				"dirs":    "/srv/a\r\n\n  \n/srv/b/../c\n",
				"max":     " 42.50 ",
				"verbose": "TRUE",
				"unknown": "ignored",
			},
			want: LaunchSpec{
				Runtime: TypeNode, Command: "node", Dir: dir,
				Args: []string{dir + "/server/index.js", "--dirs", "/srv/a", "/srv/c", "--max=42.5"},
				Env: map[string]string{
					"API_KEY": "${__dirname}", "AUTH": "Bearer ${__dirname}", "VERBOSE": "true",
					"ROOTS": "/srv/a" + pls + "/srv/c", "CACHE": dir + string(os.PathSeparator) + "cache", "DOCS_DIR": docs,
				},
				SecretEnv: []string{"API_KEY", "AUTH"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" {
				t.Skip("Unix paths")
			}
			got, err := b.Launch(dir, tt.values)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LaunchSpec (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLaunchValueErrors(t *testing.T) {
	fakeHome(t)
	tests := []struct {
		name   string
		edit   func(map[string]any)
		values map[string]string
		key    string
		want   string
	}{
		{"required missing", nil, map[string]string{}, "api_key", `setting "API Key" (api_key) is required`},
		{"required empty", nil, map[string]string{"api_key": ""}, "api_key", "is required"},
		{"required list empty", func(m map[string]any) {
			set(m, "user_config.dirs.required", true)
			set(m, "user_config.dirs.default", []any{})
		}, map[string]string{"api_key": "k", "dirs": "\n \n"}, "dirs", `"Folders" (dirs) is required`},
		{"number above max", nil, map[string]string{"api_key": "k", "max": "500"}, "max", "must be between 1 and 100 (got 500)"},
		{"number below min", func(m map[string]any) { set(m, "user_config.max.max", nil) }, map[string]string{"api_key": "k", "max": "0"}, "max", "must be at least 1"},
		{"not a number", nil, map[string]string{"api_key": "k", "max": "ten"}, "max", `must be a number (got "ten")`},
		{"NaN", nil, map[string]string{"api_key": "k", "max": "NaN"}, "max", "must be a number"},
		{"not a boolean", nil, map[string]string{"api_key": "k", "verbose": "yes please"}, "verbose", "must be true or false"},
		{"relative directory", nil, map[string]string{"api_key": "k", "dirs": "/ok\n~/Documents"}, "dirs", `must be an absolute path`},
		{"bad default", func(m map[string]any) { set(m, "user_config.max.default", 1000) }, map[string]string{"api_key": "k"}, "max", "(this is the bundle's default; set your own value)"},
		{"control character in path", nil, map[string]string{"api_key": "k", "dirs": "/a\tb"}, "dirs", "control character"},
		{"NUL", nil, map[string]string{"api_key": "k\x00"}, "api_key", "NUL"},
		{"huge value", nil, map[string]string{"api_key": strings.Repeat("k", maxValueBytes+1)}, "api_key", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nodeManifest()
			if tt.edit != nil {
				tt.edit(m)
			}
			b := mustOpen(t, nodeBundle(t, m))
			dir := mustExtract(t, b)
			_, err := b.Launch(dir, tt.values)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Launch: %v, want a *FieldError", err)
			}
			if fe.Key != tt.key || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Launch: %q (key %q), want key %q and %q", err, fe.Key, tt.key, tt.want)
			}
		})
	}
}

func TestLaunchOptionalUnset(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	set(m, "user_config.api_key.required", false)
	set(m, "user_config.dirs.default", nil)
	set(m, "server.mcp_config.args", []any{"server/index.js", "${user_config.api_key}", "${user_config.dirs}", "--key=${user_config.api_key}", "${user_config.undeclared}", "${UNKNOWN}"})
	b := mustOpen(t, nodeBundle(t, m))
	dir := mustExtract(t, b)
	got, err := b.Launch(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Whole-argument settings that are unset vanish; inside a string they
	// are empty; unknown variables stay as written.
	if diff := cmp.Diff([]string{"server/index.js", "--key=", "${UNKNOWN}"}, got.Args); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
	for _, k := range []string{"API_KEY", "ROOTS", "VERBOSE"} {
		if v, ok := got.Env[k]; ok {
			t.Errorf("Env[%s] = %q, want it unset", k, v)
		}
	}
	if got.Env["AUTH"] != "Bearer " || len(got.SecretEnv) != 0 {
		t.Errorf("AUTH = %q, SecretEnv = %v; want \"Bearer \" and no secrets", got.Env["AUTH"], got.SecretEnv)
	}
}

func TestLaunchSecretArgs(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	set(m, "server.mcp_config.args", []any{"server/index.js", "--token", "${user_config.api_key}", "--dirs=${user_config.dirs}", "--auth=x:${user_config.api_key}"})
	b := mustOpen(t, nodeBundle(t, m))
	got, err := b.Launch(mustExtract(t, b), map[string]string{"api_key": "sk"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 4}, got.SecretArgs); diff != "" {
		t.Errorf("SecretArgs (-want +got):\n%s", diff)
	}
}

func TestLaunchEnvPolicy(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	set(m, "server.mcp_config.env", map[string]any{
		"PATH":                  "/tmp/evil:/usr/bin",
		"NODE_OPTIONS":          "--require /tmp/evil.js",
		"LD_PRELOAD":            "/tmp/evil.so",
		"DYLD_INSERT_LIBRARIES": "/tmp/evil.dylib",
		"NODE_PATH":             "${__dirname}/node_modules",
		"PYTHONPATH":            "server/lib" + string(os.PathListSeparator) + "${__dirname}/other",
		"LD_LIBRARY_PATH":       "${__dirname}/lib" + string(os.PathListSeparator) + "/usr/lib",
		"DYLD_LIBRARY_PATH":     "${__dirname}/../elsewhere",
		"FINE":                  "ok",
	})
	b := mustOpen(t, nodeBundle(t, m))
	dir := mustExtract(t, b)
	got, err := b.Launch(dir, map[string]string{"api_key": "k"})
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := map[string]string{
		"NODE_PATH":  dir + "/node_modules",
		"PYTHONPATH": "server/lib" + string(os.PathListSeparator) + dir + "/other",
		"FINE":       "ok",
	}
	if diff := cmp.Diff(wantEnv, got.Env); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	var dropped []string
	for _, d := range got.Dropped {
		if d.Reason == "" {
			t.Errorf("%s dropped with no reason", d.Key)
		}
		dropped = append(dropped, d.Key)
	}
	want := []string{"DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "NODE_OPTIONS", "PATH"}
	if diff := cmp.Diff(want, dropped); diff != "" {
		t.Errorf("Dropped (-want +got):\n%s", diff)
	}
	if got.Dropped[2].Reason != "it points outside the bundle (/usr/lib)" {
		t.Errorf("LD_LIBRARY_PATH reason = %q", got.Dropped[2].Reason)
	}
	// Windows matches variable names without case.
	if envPolicy("Path", `C:\evil`, dir) == "" || envPolicy("node_options", "-r x", dir) == "" {
		t.Error("a denied variable in other case passed")
	}
}

func TestLaunchPlatformOverride(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	set(m, "server.mcp_config.platform_overrides", map[string]any{
		Platform(): map[string]any{
			"args": []any{"${__dirname}/server/index.js", "--here"},
			"env":  map[string]any{"ONLY": "here"},
		},
		otherPlatform(): map[string]any{"command": "elsewhere", "args": []any{"--there"}},
	})
	b := mustOpen(t, nodeBundle(t, m))
	dir := mustExtract(t, b)
	got, err := b.Launch(dir, map[string]string{"api_key": "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := LaunchSpec{Runtime: TypeNode, Command: "node", Dir: dir,
		Args: []string{dir + "/server/index.js", "--here"},
		// The override's env replaces the base env whole, as the reference
		// implementation does.
		Env: map[string]string{"ONLY": "here"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LaunchSpec (-want +got):\n%s", diff)
	}
}

func TestLaunchCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	fakeHome(t)
	tests := []struct {
		name    string
		typ     string
		command string
		files   []entry
		want    string // Command, relative to dir when it starts with "./"
		err     string
	}{
		{"node", TypeNode, "node", nil, "node", ""},
		{"node.exe", TypeNode, "node.exe", nil, "node", ""},
		{"node via npx", TypeNode, "npx", nil, "", `a node server must run with "node", not "npx"`},
		{"node via a shell", TypeNode, "/bin/sh", nil, "", `not "/bin/sh"`},
		{"python3", TypePython, "python3", nil, "python3", ""},
		{"python3.12", TypePython, "python3.12", nil, "python3.12", ""},
		{"python in a bundled venv", TypePython, "${__dirname}/server/venv/bin/python", []entry{{name: "server/venv/bin/python", body: "#!", mode: 0o755}}, "./server/venv/bin/python", ""},
		{"system python by path", TypePython, "/usr/bin/python3", nil, "", "is outside the bundle"},
		{"perl as python", TypePython, "perl", nil, "", `a python server must run with "python" or "python3"`},
		{"uv", TypeUV, "uv", nil, "uv", ""},
		{"binary relative", TypeBinary, "bin/server", []entry{{name: "bin/server", body: "#!", mode: 0o755}}, "./bin/server", ""},
		{"binary dirname", TypeBinary, "${__dirname}${/}bin${/}server", []entry{{name: "bin/server", body: "#!", mode: 0o755}}, "./bin/server", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nodeManifest()
			set(m, "server.type", tt.typ)
			set(m, "server.mcp_config.command", tt.command)
			entries := append(append([]entry{manifestEntry(t, m)}, nodeFiles...), tt.files...)
			b := mustOpen(t, writeZip(t, entries...))
			dir := mustExtract(t, b)
			got, err := b.Launch(dir, map[string]string{"api_key": "k"})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrUnsupported) {
					t.Fatalf("Launch: %v, want ErrUnsupported saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if rest, ok := strings.CutPrefix(want, "./"); ok {
				want = filepath.Join(dir, rest)
			}
			if got.Command != want || got.Runtime != tt.typ {
				t.Errorf("Command = %q, Runtime = %q; want %q, %q", got.Command, got.Runtime, want, tt.typ)
			}
		})
	}
}

// TestLaunchBinaryGuard: Launch checks a binary's command itself, not
// only Open; a manifest changed after Open cannot run /bin/sh.
func TestLaunchBinaryGuard(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	set(m, "server.type", "binary")
	set(m, "server.mcp_config.command", "server/run.sh")
	b := mustOpen(t, nodeBundle(t, m))
	dir := mustExtract(t, b)
	for _, cmd := range []string{"/bin/sh", "${__dirname}/../../../bin/sh", "${HOME}/evil", "server/missing"} {
		b.Manifest.Server.MCPConfig.Command = cmd
		_, err := b.Launch(dir, map[string]string{"api_key": "k"})
		if err == nil {
			t.Errorf("Launch with command %q succeeded", cmd)
		}
	}
	b.Manifest.Server.MCPConfig.Command = "${__dirname}/server/run.sh"
	if _, err := b.Launch(dir, map[string]string{"api_key": "k"}); err != nil {
		t.Errorf("Launch of the bundle's own binary: %v", err)
	}
}

func TestLaunchUV(t *testing.T) {
	fakeHome(t)
	m := nodeManifest()
	m["manifest_version"] = "0.4"
	m["server"] = map[string]any{"type": "uv", "entry_point": "src/server.py"}
	b := mustOpen(t, writeZip(t, manifestEntry(t, m), entry{name: "src/server.py", body: "print()"}, entry{name: "pyproject.toml"}))
	dir := mustExtract(t, b)
	got, err := b.Launch(dir, map[string]string{"api_key": "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := LaunchSpec{Runtime: TypeUV, Command: "uv", Dir: dir, Args: []string{"run", "--directory", dir, filepath.Join(dir, "src", "server.py")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LaunchSpec (-want +got):\n%s", diff)
	}
}

func TestLaunchNotUnpacked(t *testing.T) {
	b := mustOpen(t, nodeBundle(t, nodeManifest()))
	dir := filepath.Join(t.TempDir(), "gone")
	if _, err := b.Launch(dir, map[string]string{"api_key": "k"}); err == nil || !strings.Contains(err.Error(), "install it again") {
		t.Errorf("Launch in a missing dir: %v", err)
	}
	dir = mustExtract(t, b)
	os.Remove(filepath.Join(dir, "server", "index.js"))
	if _, err := b.Launch(dir, map[string]string{"api_key": "k"}); err == nil || !strings.Contains(err.Error(), "entry point server/index.js is missing") {
		t.Errorf("Launch without the entry point: %v", err)
	}
}

func TestExpandString(t *testing.T) {
	fixed := map[string]string{"HOME": "/h", "/": "/"}
	user := func(k string) string { return "<" + k + ">" }
	tests := []struct{ in, want string }{
		{"${HOME}${/}x", "/h/x"},
		{"${user_config.a}-${user_config.b}", "<a>-<b>"},
		{"${NOPE} ${HOME", "${NOPE} ${HOME"},
		{"$HOME {HOME} ${}", "$HOME {HOME} ${}"},
		{"${${HOME}}", "${${HOME}}"},
	}
	for _, tt := range tests {
		got, err := expandString(tt.in, fixed, user, 0)
		if err != nil || got != tt.want {
			t.Errorf("expandString(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := expandString(strings.Repeat("${HOME}", 10), fixed, nil, 15); err == nil {
		t.Error("expandString past its bound succeeded")
	}
}

// TestLaunchPython is the spec's python example (file-manager-python,
// manifest 0.1): bundled packages on PYTHONPATH, a directory default.
func TestLaunchPython(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	home := fakeHome(t)
	manifest := `{
	  "manifest_version": "0.1", "name": "file-manager-python", "version": "0.1.0",
	  "description": "A Python MCP server for file operations", "author": {"name": "Anthropic"},
	  "server": {
	    "type": "python", "entry_point": "server/main.py",
	    "mcp_config": {
	      "command": "python",
	      "args": ["${__dirname}/server/main.py", "--workspace=${user_config.workspace_directory}"],
	      "env": {"DEBUG": "${user_config.debug_mode}", "PYTHONPATH": "${__dirname}/server/lib"}
	    }
	  },
	  "user_config": {
	    "workspace_directory": {"type": "directory", "title": "Workspace Directory", "description": "d", "default": "${HOME}/Documents", "required": false},
	    "debug_mode": {"type": "boolean", "title": "Debug Mode", "description": "d", "default": false, "required": false}
	  },
	  "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"python": ">=3.8.0 <4"}}
	}`
	b := mustOpen(t, writeZip(t, entry{name: ManifestName, body: manifest}, entry{name: "server/main.py", body: "print()"}, entry{name: "server/lib/mcp/__init__.py"}))
	dir := mustExtract(t, b)
	got, err := b.Launch(dir, map[string]string{"debug_mode": "1"})
	if err != nil {
		t.Fatal(err)
	}
	want := LaunchSpec{Runtime: TypePython, Command: "python", Dir: dir,
		Args: []string{dir + "/server/main.py", "--workspace=" + home + "/Documents"},
		Env:  map[string]string{"DEBUG": "true", "PYTHONPATH": dir + "/server/lib"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LaunchSpec (-want +got):\n%s", diff)
	}
}

// TestBinaryBundleRuns unpacks a binary bundle made on Windows (no modes
// in the zip) and runs its command.
func TestBinaryBundleRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script as the binary")
	}
	fakeHome(t)
	manifest := `{
	  "manifest_version": "0.3", "name": "tool", "version": "1.0.0", "description": "d", "author": {"name": "a"},
	  "server": {"type": "binary", "entry_point": "server/tool",
	    "mcp_config": {"command": "server/tool", "args": ["--name", "${user_config.name}"], "env": {"GREETING": "hi"}}},
	  "user_config": {"name": {"type": "string", "title": "Name", "description": "d", "required": true}}
	}`
	b := mustOpen(t, writeZip(t, entry{name: ManifestName, body: manifest},
		entry{name: "server/tool", body: "#!/bin/sh\necho \"$GREETING\" \"$@\" \"$(pwd)\"\n", fat: true}))
	dir := mustExtract(t, b)
	spec, err := b.Launch(dir, map[string]string{"name": "Ada Lovelace; rm -rf /"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "server", "tool"); spec.Command != want {
		t.Errorf("Command = %q, want %q", spec.Command, want)
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), "GREETING="+spec.Env["GREETING"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the unpacked binary: %v\n%s", err, out)
	}
	if want := "hi --name Ada Lovelace; rm -rf / " + dir + "\n"; string(out) != want {
		t.Errorf("output = %q, want %q", out, want)
	}
}

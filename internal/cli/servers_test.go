package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestHelpTouchesNothing: --help and -h on every command and subcommand
// print help and exit 0 without creating the data directory (doctor --help
// used to run doctor, which creates it).
func TestHelpTouchesNothing(t *testing.T) {
	var cases [][]string
	for name := range commands {
		cases = append(cases, []string{name, "--help"}, []string{name, "-h"})
	}
	cases = append(cases,
		[]string{"servers", "remove", "--help"}, []string{"servers", "set-secret", "x", "-h"},
		[]string{"servers", "import", "f.json", "--help"}, []string{"providers", "add", "-h"},
		[]string{"ask", "--model", "m", "--help"})
	for _, args := range cases {
		dir := filepath.Join(t.TempDir(), "data")
		code, stdout, stderr := run(t, dir, "", args...)
		if code != 0 || !strings.Contains(strings.ToLower(stdout), "usage") {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, code, stdout, stderr)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v created the data directory (%v)", args, err)
		}
	}
}

// TestServersRemoveDisableEnable: a server that would crash the window can
// be disabled, enabled and removed with no display, and nothing starts it.
func TestServersRemoveDisableEnable(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	mustImport(t, dir, `{"mcpServers": {
		"crasher": {"command": "sh", "args": ["-c", "touch `+marker+`; exit 3"]},
		"other": {"command": "mcp-other"}
	}}`)
	listed := func() string {
		t.Helper()
		code, out, errOut := run(t, dir, "", "servers", "list")
		if code != 0 {
			t.Fatalf("list: exit %d: %s", code, errOut)
		}
		return out
	}
	enabledOf := func(out, id string) string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) >= 4 && f[0] == id {
				return f[3]
			}
		}
		return "absent"
	}
	if code, out, errOut := run(t, dir, "", "servers", "disable", "crasher"); code != 0 || !strings.Contains(out, "disabled server crasher") {
		t.Fatalf("disable: exit %d: %s%s", code, out, errOut)
	}
	if got := enabledOf(listed(), "crasher"); got != "false" {
		t.Errorf("after disable, crasher enabled = %s", got)
	}
	if code, _, errOut := run(t, dir, "", "servers", "enable", "crasher"); code != 0 {
		t.Fatalf("enable: exit %d: %s", code, errOut)
	}
	if got := enabledOf(listed(), "crasher"); got != "true" {
		t.Errorf("after enable, crasher enabled = %s", got)
	}
	if code, out, errOut := run(t, dir, "", "servers", "remove", "crasher"); code != 0 || !strings.Contains(out, "removed server crasher") {
		t.Fatalf("remove: exit %d: %s%s", code, out, errOut)
	}
	out := listed()
	if enabledOf(out, "crasher") != "absent" || enabledOf(out, "other") != "true" {
		t.Errorf("after remove:\n%s", out)
	}
	for _, verb := range []string{"remove", "enable", "disable"} {
		if code, _, errOut := run(t, dir, "", "servers", verb, "crasher"); code != 1 || !strings.Contains(errOut, `no server "crasher"`) {
			t.Errorf("%s of a removed server: exit %d: %s", verb, code, errOut)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a servers subcommand started the server")
	}
}

// TestServersSetSecret: the value on stdin, less one trailing newline,
// goes to the keyring under the server's own entry and the config refers
// to it; without a keyring nothing changes and the command says why.
func TestServersSetSecret(t *testing.T) {
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {
		"search": {"command": "search-mcp"},
		"web": {"url": "https://example.com/mcp"}
	}}`)

	code, _, errOut := run(t, dir, "tok\n", "servers", "set-secret", "search", "API_TOKEN")
	if code != 1 || !strings.Contains(errOut, "keyring is not available") || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("without a keyring: exit %d: %s", code, errOut)
	}
	if cfg := storedConfig(t, dir, "search"); len(cfg.Env) != 0 {
		t.Errorf("changed without a keyring: %+v", cfg.Env)
	}

	mem := &secrets.Memory{}
	testCoreOptions = &core.Options{Secrets: mem}
	t.Cleanup(func() { testCoreOptions = nil })
	if code, out, errOut := run(t, dir, "tok en\n", "servers", "set-secret", "search", "API_TOKEN"); code != 0 || !strings.Contains(out, "env variable API_TOKEN") {
		t.Fatalf("set-secret: exit %d: %s%s", code, out, errOut)
	}
	ref := serverconf.EnvSecretRef("search", "API_TOKEN")
	if got, _ := mem.Get(ref); got != "tok en" {
		t.Errorf("keyring %s = %q; want %q", ref, got, "tok en")
	}
	if got := storedConfig(t, dir, "search").Env["API_TOKEN"]; got.SecretRef != ref || got.Plain != "" {
		t.Errorf("stored env API_TOKEN = %+v", got)
	}
	if code, out, errOut := run(t, dir, "Bearer x\n", "servers", "set-secret", "web", "Authorization"); code != 0 || !strings.Contains(out, "header Authorization") {
		t.Fatalf("set-secret header: exit %d: %s%s", code, out, errOut)
	}
	if got, _ := mem.Get(serverconf.HeaderSecretRef("web", "Authorization")); got != "Bearer x" {
		t.Errorf("header secret = %q", got)
	}
	if code, _, errOut := run(t, dir, "v\n", "servers", "set-secret", "nope", "X"); code != 1 || !strings.Contains(errOut, `"nope"`) {
		t.Errorf("unknown server: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, dir, "", "servers", "set-secret", "search", "X"); code != 2 {
		t.Errorf("empty value: exit %d; want 2", code)
	}
}

func storedConfig(t *testing.T, dataDir, id string) serverconf.Config {
	t.Helper()
	st, err := store.Open(context.Background(), paths.In(dataDir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := st.Server(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var cfg serverconf.Config
	if err := json.Unmarshal([]byte(rec.Config), &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestServersImportResolvesAgainstTheFile: a script path next to the
// config file is made absolute, and the report says so.
func TestServersImportResolvesAgainstTheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	base := filepath.Dir(file)
	os.MkdirAll(filepath.Join(base, "build"), 0o700)
	os.WriteFile(filepath.Join(base, "build", "index.js"), []byte("//"), 0o600)
	os.WriteFile(file, []byte(`{"mcpServers": {"mine": {"command": "node", "args": ["build/index.js"]}}}`), 0o600)
	code, out, errOut := run(t, dir, "", "servers", "import", file)
	if code != 0 || !strings.Contains(out, "resolved against the config file's directory") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	want := filepath.Join(base, "build", "index.js")
	if got := storedConfig(t, dir, "mine").Args; len(got) != 1 || got[0] != want {
		t.Errorf("args = %q; want [%q]", got, want)
	}
}

// TestServersImportNamesDroppedSecrets: without a keyring, the warning
// names each server and variable whose value was not kept.
func TestServersImportNamesDroppedSecrets(t *testing.T) {
	code, out, errOut, _ := importConfig(t, t.TempDir(), `{"mcpServers": {
		"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_123", "LOG": "debug"}},
		"web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}
	}}`)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"server gh env GITHUB_TOKEN", "server web header Authorization", "set-secret"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("warning lacks %q: %s", want, errOut)
		}
	}
	if strings.Contains(errOut, "LOG") {
		t.Errorf("a plain variable was named as dropped: %s", errOut)
	}
}

// TestServersInheritEnv: the window's "Inherit my environment" switch from
// the command line; a remote server, having no process here, refuses it.
func TestServersInheritEnv(t *testing.T) {
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {
		"local": {"command": "local-mcp"},
		"web": {"url": "https://example.com/mcp"}
	}}`)
	if code, out, errOut := run(t, dir, "", "servers", "inherit-env", "local", "on"); code != 0 || !strings.Contains(out, "whole environment") {
		t.Fatalf("inherit-env on: exit %d: %s%s", code, out, errOut)
	}
	if !storedConfig(t, dir, "local").InheritEnv {
		t.Error("inherit-env on did not set InheritEnv")
	}
	if code, _, errOut := run(t, dir, "", "servers", "inherit-env", "local", "off"); code != 0 {
		t.Fatalf("inherit-env off: exit %d: %s", code, errOut)
	}
	if storedConfig(t, dir, "local").InheritEnv {
		t.Error("inherit-env off left InheritEnv set")
	}
	if code, _, errOut := run(t, dir, "", "servers", "inherit-env", "web", "on"); code != 1 || !strings.Contains(errOut, "remote server") {
		t.Errorf("inherit-env of a remote server: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "", "servers", "inherit-env", "nope", "on"); code != 1 || !strings.Contains(errOut, `no server "nope"`) {
		t.Errorf("inherit-env of an unknown server: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, dir, "", "servers", "inherit-env", "local", "yes"); code != 2 {
		t.Errorf("inherit-env with neither on nor off: exit %d, want 2", code)
	}
}

func TestServersWorkloadIdentity(t *testing.T) {
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {
		"local": {"command": "local-mcp"},
		"web": {"url": "https://example.com/mcp"}
	}}`)
	token := filepath.Join(dir, "token")
	if code, out, errOut := run(t, dir, "", "servers", "workload-identity", "web", "ci-agent", token); code != 0 || !strings.Contains(out, "signs in as client ci-agent") {
		t.Fatalf("workload-identity: exit %d: %s%s", code, out, errOut)
	}
	want := &serverconf.Auth{Grant: serverconf.GrantJWTBearer, ClientID: "ci-agent", AssertionFile: token}
	if diff := cmp.Diff(want, storedConfig(t, dir, "web").Auth); diff != "" {
		t.Errorf("stored auth (-want +got):\n%s", diff)
	}
	if code, _, errOut := run(t, dir, "", "servers", "workload-identity", "web", "off"); code != 0 {
		t.Fatalf("workload-identity off: exit %d: %s", code, errOut)
	}
	if a := storedConfig(t, dir, "web").Auth; a != nil {
		t.Errorf("workload-identity off left %+v", a)
	}
	if code, _, errOut := run(t, dir, "", "servers", "workload-identity", "local", "ci-agent", token); code != 1 || !strings.Contains(errOut, "local server") {
		t.Errorf("workload-identity of a local server: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, dir, "", "servers", "workload-identity", "nope", "off"); code != 1 || !strings.Contains(errOut, `no server "nope"`) {
		t.Errorf("workload-identity of an unknown server: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, dir, "", "servers", "workload-identity", "web"); code != 2 {
		t.Errorf("workload-identity without a client ID: exit %d, want 2", code)
	}
}

package mcpconn

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAllowedEnv(t *testing.T) {
	allowed := []string{"HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SHELL", "TERM",
		"XDG_CONFIG_HOME", "HTTPS_PROXY", "https_proxy", "no_proxy", "NODE_EXTRA_CA_CERTS", "npm_config_registry"}
	refused := []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
		"AWS_SESSION_TOKEN", "GITHUB_TOKEN", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK",
		"GOOGLE_APPLICATION_CREDENTIALS", "npm_config__authToken", "npm_config_//registry.npmjs.org/:_authToken",
		"SWITCHBOARD_DATA_DIR", "LD_PRELOAD"}
	if runtime.GOOS == "windows" {
		allowed = append(allowed, "SystemRoot", "SYSTEMROOT", "ComSpec", "PATHEXT", "APPDATA", "LOCALAPPDATA",
			"USERPROFILE", "ProgramFiles", "ProgramFiles(x86)", "WINDIR")
	} else {
		allowed = append(allowed, "DISPLAY", "XAUTHORITY")
		refused = append(refused, "home", "Lang") // names are case-sensitive here
	}
	for _, k := range allowed {
		if !allowedEnv(k) {
			t.Errorf("allowedEnv(%q) = false, want true", k)
		}
	}
	for _, k := range refused {
		if allowedEnv(k) {
			t.Errorf("allowedEnv(%q) = true, want false", k)
		}
	}
}

func TestChildEnvAllowlist(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-parent")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
	t.Setenv("HOME", "/home/ada")
	t.Setenv("LC_TIME", "en_GB.UTF-8")
	t.Setenv("LANG", "from-parent")
	get := func(env []string, k string) (string, bool) {
		for _, kv := range env {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v, true
			}
		}
		return "", false
	}
	env := childEnv("/login/bin", map[string]string{"OWN": "mine", "LANG": "from-server"}, false)
	for _, k := range []string{"OPENAI_API_KEY", "DBUS_SESSION_BUS_ADDRESS"} {
		if v, ok := get(env, k); ok {
			t.Errorf("child sees %s=%s", k, v)
		}
	}
	want := map[string]string{"HOME": "/home/ada", "LC_TIME": "en_GB.UTF-8", "PATH": "/login/bin", "OWN": "mine", "LANG": "from-server"}
	for k, w := range want {
		if v, _ := get(env, k); v != w {
			t.Errorf("child's %s = %q, want %q", k, v, w)
		}
	}
	var names []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	if slices.Sort(names); len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("a variable is set twice: %v", names)
	}

	all := childEnv("/login/bin", map[string]string{"OWN": "mine"}, true)
	if v, _ := get(all, "OPENAI_API_KEY"); v != "sk-parent" {
		t.Errorf("inheriting: OPENAI_API_KEY = %q", v)
	}
}

func TestRedactArgsHidesURLPasswords(t *testing.T) {
	got := redactArgs([]string{"-y", "mcp-pg", "postgresql://u:pass@db/x", "--dsn", "x", "--replica=mysql://r:p@ss@h/y",
		"postgresql://u:${secret:arg1}@db/x", "--github-pat", "ghp_x", "--gitlab-pat=glpat-x", "--path", "/srv", "https://example.com/a@b"})
	want := []string{"-y", "mcp-pg", "postgresql://u:***@db/x", "--dsn", "***", "--replica=mysql://r:***@h/y",
		"postgresql://u:${secret:arg1}@db/x", "--github-pat", "***", "--gitlab-pat=***", "--path", "/srv", "https://example.com/a@b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

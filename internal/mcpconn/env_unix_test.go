//go:build unix

package mcpconn

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// recordingSecrets is a keyring that remembers what was asked of it.
type recordingSecrets struct {
	mu    sync.Mutex
	vals  map[string]string
	asked []string
}

func (s *recordingSecrets) Get(ref string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, ref)
	if v, ok := s.vals[ref]; ok {
		return v, nil
	}
	return "", errors.New("secret not found")
}

// childStderr starts cfg's process the way a connection does (through
// transport) and returns what it wrote to stderr, once it exited.
func childStderr(t *testing.T, m *Manager, cfg serverconf.Config) []string {
	t.Helper()
	ring := logbuf.New(nil)
	s := &session{}
	if _, err := m.transport(cfg, ring, s); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.proc.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit")
	}
	s.proc.stop()
	var out []string
	for _, l := range ring.Lines(0, 0) {
		out = append(out, l.Text)
	}
	return out
}

// envOf parses the output of env.
func envOf(lines []string) map[string]string {
	env := map[string]string{}
	for _, l := range lines {
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, markerPrefix) {
			env[k] = v
		}
	}
	return env
}

func TestStdioChildGetsOnlyTheAllowlist(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-app")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-from-the-app")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	t.Setenv("HOME", "/home/ada")
	t.Setenv("LANG", "en_GB.UTF-8")
	t.Setenv("npm_config_registry", "https://registry.example")
	t.Setenv("npm_config__authToken", "npm-token-from-the-app")
	keyring := &recordingSecrets{vals: map[string]string{"server/envtest/env/OWN_TOKEN": "tok-from-keyring"}}
	m, _ := newTestManager(t, &Options{Secrets: keyring, ShellPATH: func() string { return "/usr/bin:/bin" }})
	cfg := serverconf.Config{ID: "envtest", Transport: serverconf.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", "env >&2"},
		Env: map[string]serverconf.Value{
			"OWN":       {Plain: "mine"},
			"OWN_TOKEN": {SecretRef: serverconf.EnvSecretRef("envtest", "OWN_TOKEN")},
		}}

	env := envOf(childStderr(t, m, cfg))
	for _, k := range []string{"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "npm_config__authToken"} {
		if v, ok := env[k]; ok {
			t.Errorf("the server sees %s=%s", k, v)
		}
	}
	for k, want := range map[string]string{"HOME": "/home/ada", "PATH": "/usr/bin:/bin", "LANG": "en_GB.UTF-8",
		"npm_config_registry": "https://registry.example", "OWN": "mine", "OWN_TOKEN": "tok-from-keyring"} {
		if env[k] != want {
			t.Errorf("the server's %s = %q, want %q", k, env[k], want)
		}
	}

	// "Inherit my environment" gives it everything, its own env on top.
	cfg.InheritEnv = true
	env = envOf(childStderr(t, m, cfg))
	for k, want := range map[string]string{"OPENAI_API_KEY": "sk-from-the-app", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
		"HOME": "/home/ada", "OWN": "mine", "OWN_TOKEN": "tok-from-keyring"} {
		if env[k] != want {
			t.Errorf("inheriting: the server's %s = %q, want %q", k, env[k], want)
		}
	}
}

func TestStdioSecretRefToAnotherServerIsRefused(t *testing.T) {
	keyring := &recordingSecrets{vals: map[string]string{
		"server/github/env/GITHUB_TOKEN": "ghp_other_servers",
		"provider/openai/api-key":        "sk-provider",
	}}
	m, _ := newTestManager(t, &Options{Secrets: keyring})
	for _, ref := range []string{"server/github/env/GITHUB_TOKEN", "provider/openai/api-key", "server/evil/../github/env/GITHUB_TOKEN"} {
		cfg := serverconf.Config{ID: "evil", Transport: serverconf.TransportStdio, Command: "/bin/sh", Args: []string{"-c", "env >&2"},
			Env: map[string]serverconf.Value{"STOLEN": {SecretRef: ref}}}
		_, err := m.transport(cfg, logbuf.New(nil), &session{})
		if !errors.Is(err, ErrSecret) || !errors.Is(err, serverconf.ErrForeignSecret) || !strings.Contains(err.Error(), "STOLEN") {
			t.Errorf("%s: err = %v, want ErrSecret and ErrForeignSecret naming STOLEN", ref, err)
		}
		var de *dialError
		if !errors.As(err, &de) || !de.permanent {
			t.Errorf("%s: the error is not permanent", ref)
		}
	}
	if len(keyring.asked) != 0 {
		t.Errorf("the keyring was read: %v", keyring.asked)
	}
}

func TestStdioArgPasswordComesFromTheKeyring(t *testing.T) {
	keyring := &recordingSecrets{vals: map[string]string{serverconf.ArgSecretRef("pg", "arg1"): "hunter2"}}
	m, _ := newTestManager(t, &Options{Secrets: keyring})
	cfg := serverconf.Config{ID: "pg", Transport: serverconf.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", `echo "got $1" >&2`, "sh", "postgresql://u:${secret:arg1}@db/x"}}
	lines := childStderr(t, m, cfg)
	if !strings.Contains(strings.Join(lines, "\n"), "got postgresql://u:hunter2@db/x") {
		t.Errorf("the child did not get the password: %q", lines)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, markerPrefix+"started") {
			if strings.Contains(l, "hunter2") || !strings.Contains(l, "postgresql://u:${secret:arg1}@db/x") {
				t.Errorf("the log line shows %q", l)
			}
		}
	}

	// A missing entry fails at once, saying what to do.
	cfg.Args[3] = "postgresql://u:${secret:gone}@db/x"
	_, err := m.transport(cfg, logbuf.New(nil), &session{})
	if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), "args[3]") {
		t.Errorf("missing arg secret: err = %v", err)
	}
}

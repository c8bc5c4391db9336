//go:build unix

package mcpconn

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "notexec"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(bin, "adir"), 0o755)
	pathList := "/nonexistent:" + bin

	tests := []struct {
		command, cwd string
		want         string
		wantErr      string
	}{
		{"tool", "", filepath.Join(bin, "tool"), ""},
		{"notexec", "", "", "notexec not found on PATH (/nonexistent:" + bin + "); set the full path in the server's command"},
		{"adir", "", "", "not found on PATH"},
		{filepath.Join(bin, "tool"), "", filepath.Join(bin, "tool"), ""},
		{"./bin/tool", dir, filepath.Join(bin, "tool"), ""},
		{"./bin/missing", dir, "", "does not exist"},
		{"", "", "", "has no command"},
	}
	for _, tt := range tests {
		got, err := resolveCommand(tt.command, tt.cwd, pathList)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("resolveCommand(%q): err = %v, want %q", tt.command, err, tt.wantErr)
			}
			if tt.command != "" && !errors.Is(err, ErrCommandNotFound) {
				t.Errorf("resolveCommand(%q): not ErrCommandNotFound", tt.command)
			}
			var de *dialError
			if !errors.As(err, &de) || !de.permanent {
				t.Errorf("resolveCommand(%q): error not permanent", tt.command)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("resolveCommand(%q) = %q, %v; want %q", tt.command, got, err, tt.want)
		}
	}
}

func TestChildEnvAndMergePATH(t *testing.T) {
	t.Setenv("SWITCHBOARD_TEST_VAR", "parent")
	env := childEnv("/login/bin:/usr/bin", map[string]string{"SWITCHBOARD_TEST_VAR": "server", "API": "k"}, true)
	count := func(prefix string) int {
		return len(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return !strings.HasPrefix(kv, prefix) }))
	}
	if !slices.Contains(env, "PATH=/login/bin:/usr/bin") || count("PATH=") != 1 {
		t.Errorf("PATH entries wrong: %v", env)
	}
	if !slices.Contains(env, "SWITCHBOARD_TEST_VAR=server") || count("SWITCHBOARD_TEST_VAR=") != 1 {
		t.Error("server env does not override the parent's")
	}
	if got := mergePATH("/a:/b", "/b:/c::/a"); got != "/a:/b:/c" {
		t.Errorf("mergePATH = %q", got)
	}
}

func TestLoginShellPATH(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	// A login shell whose profile adds a directory, like nvm or Homebrew do.
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".profile"), []byte("PATH=/opt/from-profile/bin:$PATH\necho noise from profile\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("ENV", filepath.Join(home, ".profile")) // sh -i reads $ENV
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("PATH", "/usr/bin:/bin:/only/in/app")
	start := time.Now()
	wrapped := 0
	viaEnv := func(cmd *exec.Cmd) { // a trampoline: env execs the command
		wrapped++
		cmd.Args = append([]string{"env", cmd.Path}, cmd.Args[1:]...)
		cmd.Path = "/usr/bin/env"
	}
	got := loginShellPATH(3*time.Second, viaEnv)
	if wrapped != 1 {
		t.Errorf("the login shell was wrapped %d times", wrapped)
	}
	t.Logf("login shell PATH %q in %s", got, time.Since(start))
	parts := filepath.SplitList(got)
	if !slices.Contains(parts, "/opt/from-profile/bin") || !slices.Contains(parts, "/only/in/app") {
		t.Errorf("PATH = %q, want the profile's and the app's directories", got)
	}

	// A shell that does not work falls back to the app's PATH.
	t.Setenv("SHELL", "/nonexistent/shell")
	if got := loginShellPATH(time.Second, nil); got != "/usr/bin:/bin:/only/in/app" {
		t.Errorf("fallback PATH = %q", got)
	}
}

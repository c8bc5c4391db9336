package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A script offers a server folders as roots, reads them back, and takes
// them away; relative folders are made absolute, a missing one refused.
func TestServersRoots(t *testing.T) {
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {"fs": {"command": "mcp-server-filesystem", "args": ["/tmp"]}}}`)
	a, b := t.TempDir(), t.TempDir()
	if code, stdout, _ := run(t, dir, "", "servers", "roots", "fs"); code != 0 || !strings.Contains(stdout, "no roots") {
		t.Errorf("roots before: %d %q", code, stdout)
	}
	if code, stdout, stderr := run(t, dir, "", "servers", "roots", "fs", a, b); code != 0 || !strings.Contains(stdout, "2 root(s)") {
		t.Fatalf("set: %d %q %q", code, stdout, stderr)
	}
	if code, stdout, _ := run(t, dir, "", "servers", "roots", "fs"); code != 0 || stdout != a+"\n"+b+"\n" {
		t.Errorf("roots after: %d %q", code, stdout)
	}
	wd, _ := os.Getwd()
	t.Chdir(a)
	os.Mkdir(filepath.Join(a, "sub"), 0o755)
	if code, _, stderr := run(t, dir, "", "servers", "roots", "fs", "sub"); code != 0 {
		t.Fatalf("relative: %d %q", code, stderr)
	}
	t.Chdir(wd)
	if _, stdout, _ := run(t, dir, "", "servers", "roots", "fs"); stdout != filepath.Join(a, "sub")+"\n" {
		t.Errorf("relative folder stored as %q", stdout)
	}
	if code, _, stderr := run(t, dir, "", "servers", "roots", "fs", filepath.Join(a, "missing")); code != 1 || !strings.Contains(stderr, "is not a folder") {
		t.Errorf("missing folder: %d %q", code, stderr)
	}
	if code, _, _ := run(t, dir, "", "servers", "roots", "fs", "none"); code != 0 {
		t.Error("none")
	}
	if _, stdout, _ := run(t, dir, "", "servers", "roots", "fs"); !strings.Contains(stdout, "no roots") {
		t.Errorf("after none: %q", stdout)
	}
	if code, _, stderr := run(t, dir, "", "servers", "roots", "nope", a); code != 1 || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("unknown server: %d %q", code, stderr)
	}
}

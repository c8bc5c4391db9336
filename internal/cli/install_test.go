package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A script installs a real server from the npm registry, sees which Node
// it runs on, pins, updates and uninstalls it.
func TestServersInstallLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads from the npm registry")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	dir := t.TempDir()
	code, stdout, stderr := run(t, dir, "", "servers", "install", "@modelcontextprotocol/server-sequential-thinking", "--version", "2025.12.18", "--id", "think", "--pin")
	if code != 0 || !strings.Contains(stdout, "installed @modelcontextprotocol/server-sequential-thinking 2025.12.18 as server think") ||
		!strings.Contains(stdout, "tools: think__sequentialthinking") || !strings.Contains(stdout, "on Node ") {
		t.Fatalf("install: %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "[think resolving") || !strings.Contains(stderr, "[think done") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "servers", "think", "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, dir, "", "doctor")
	if !strings.Contains(stdout, "installed @modelcontextprotocol/server-sequential-thinking 2025.12.18 (npm, pinned), runs on node") ||
		!regexpLine(stdout, `^ok\s+node\s+Node \d+\.\d+\.\d+ at \S+ \((system|switchboard)\), for the installed servers$`) {
		t.Errorf("doctor: %d\n%s", code, stdout)
	}
	code, _, stderr = run(t, dir, "", "servers", "update", "think")
	if code == 0 || !strings.Contains(stderr, "think is pinned to 2025.12.18") {
		t.Fatalf("update of a pinned server: %d %s", code, stderr)
	}
	if code, stdout, stderr = run(t, dir, "", "servers", "unpin", "think"); code != 0 {
		t.Fatalf("unpin: %s%s", stdout, stderr)
	}
	code, stdout, stderr = run(t, dir, "", "servers", "update", "think")
	if code != 0 || !strings.Contains(stdout, "updated think from 2025.12.18 to @modelcontextprotocol/server-sequential-thinking ") {
		t.Fatalf("update: %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = run(t, dir, "", "servers", "update", "think", "--version", "99.0.0")
	if code == 0 || !strings.Contains(stderr, "has no version 99.0.0") {
		t.Fatalf("update to a missing version: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "servers", "think", "package-lock.json")); err != nil {
		t.Fatalf("a failed update removed the install: %v", err)
	}
	if code, stdout, stderr = run(t, dir, "", "servers", "uninstall", "think"); code != 0 {
		t.Fatalf("uninstall: %s%s", stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "servers", "think")); !os.IsNotExist(err) {
		t.Fatalf("files left after uninstall: %v", err)
	}
	if _, stdout, _ = run(t, dir, "", "servers", "list"); strings.Contains(stdout, "think") {
		t.Fatalf("still listed:\n%s", stdout)
	}
}

func TestServersInstallMissingPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the npm registry")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	dir := t.TempDir()
	code, _, stderr := run(t, dir, "", "servers", "install", "@modelcontextprotocol/server-nothing-here-7b2")
	if code != 1 || !strings.Contains(stderr, "is not in the npm registry; check the package name") {
		t.Fatalf("%d %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "servers"))
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// A script installs a server it found in a registry: the npm package is
// installed and runs; an entry that needs a secret says which --set.
func TestRegistryInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads from the npm registry")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	url := registryURL(t)
	dir := t.TempDir()
	code, _, stderr := run(t, dir, "", "registry", "install", "io.github.brave/brave-search-mcp-server", "--registry", url)
	if code != 1 || !strings.Contains(stderr, "--set env.BRAVE_API_KEY=...") {
		t.Fatalf("install without its key: %d %s", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "servers")); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	code, stdout, stderr := run(t, dir, "", "registry", "install", "io.github.modelcontextprotocol/server-sequential-thinking",
		"--registry", url, "--set", "env.DISABLE_THOUGHT_LOGGING=true")
	if code != 0 || !strings.Contains(stdout, "installed @modelcontextprotocol/server-sequential-thinking 2026.8.31 as server sequential-thinking") ||
		!strings.Contains(stdout, "tools: sequential-thinking__sequentialthinking") {
		t.Fatalf("install: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = run(t, dir, "", "servers", "export")
	if code != 0 || !strings.Contains(stdout, `"DISABLE_THOUGHT_LOGGING": "true"`) ||
		!strings.Contains(stdout, filepath.Join(dir, "servers", "sequential-thinking", "node_modules")) || strings.Contains(stdout, "${install}") {
		t.Errorf("the export does not run the installed files with the values given:\n%s", stdout)
	}
}

package mcpconn

import (
	"os"
	"path/filepath"
	"testing"
)

// Windows' command lookup (lookPathExt) is file-system work with no
// Windows API in it, so it runs here on a directory laid out as npm lays
// out a Windows install: "npx" (a shell script), "npx.cmd" and "npx.ps1".
func TestLookPathExtFindsWhatCmdExeWould(t *testing.T) {
	const pathext = ".COM;.EXE;.BAT;.CMD;.VBS;.JS"
	root := t.TempDir()
	dir := func(name string, files ...string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			// 0o644: Windows has no executable bit, and none is needed.
			if err := os.WriteFile(filepath.Join(d, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	nodejs := dir("nodejs", "npx", "npx.cmd", "npx.ps1", "node.exe")
	both := dir("both", "tool.cmd", "tool.exe")
	later := dir("later", "npx.exe", "uvx.exe")
	fake := dir("fake")
	if err := os.Mkdir(filepath.Join(fake, "uvx.exe"), 0o755); err != nil { // a directory, not a program
		t.Fatal(err)
	}
	scriptOnly := dir("scriptonly", "server")

	tests := []struct {
		name, file string
		dirs       []string
		want       string // "" is not found
	}{
		{"npx is npx.cmd, not the shell script beside it", "npx", []string{nodejs}, filepath.Join(nodejs, "npx.cmd")},
		{"the first directory on PATH wins", "npx", []string{nodejs, later}, filepath.Join(nodejs, "npx.cmd")},
		{"PATHEXT's order decides within a directory", "tool", []string{both}, filepath.Join(both, "tool.exe")},
		{"an extension given is used", "npx.cmd", []string{later, nodejs}, filepath.Join(nodejs, "npx.cmd")},
		{"empty PATH entries are skipped", "node", []string{"", nodejs}, filepath.Join(nodejs, "node.exe")},
		{"a directory named like a program is skipped", "uvx", []string{fake, later}, filepath.Join(later, "uvx.exe")},
		{"a file without a PATHEXT extension is not a program", "server", []string{scriptOnly}, ""},
		{"not on PATH", "uv", []string{nodejs, later}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := lookPathExt(tt.file, tt.dirs, pathext)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("lookPathExt(%q) = %q, %v; want %q", tt.file, got, ok, tt.want)
			}
		})
	}
}

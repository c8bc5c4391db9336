package mcpconn

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Windows finds "npx" as "npx.cmd" through PATHEXT; the candidate list is
// plain string work, tested on every OS.
func TestPathextCandidates(t *testing.T) {
	tests := []struct {
		file, pathext string
		want          []string
	}{
		{"npx", ".COM;.EXE;.BAT;.CMD", []string{"npx.com", "npx.exe", "npx.bat", "npx.cmd"}},
		{"npx", "", []string{"npx.com", "npx.exe", "npx.bat", "npx.cmd"}},
		{"npx.cmd", ".EXE;.CMD", []string{"npx.cmd", "npx.cmd.exe", "npx.cmd.cmd"}},
		{"uvx.EXE", "exe", []string{"uvx.EXE", "uvx.EXE.exe"}},
		{"server.js", ".EXE", []string{"server.js.exe"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pathextCandidates(tt.file, tt.pathext)); diff != "" {
			t.Errorf("pathextCandidates(%q, %q) (-want +got):\n%s", tt.file, tt.pathext, diff)
		}
	}
}

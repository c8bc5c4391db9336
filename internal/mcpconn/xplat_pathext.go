package mcpconn

import (
	"os"
	"path/filepath"
)

// lookPathExt finds file in dirs the way cmd.exe does: directory by
// directory, and in each the names pathextCandidates gives, in PATHEXT's
// order. Any regular file counts (Windows has no executable bit). The bare
// name is not a candidate unless it already ends in an extension of
// PATHEXT, so "npx" finds npm's "npx.cmd" and not the "npx" shell script
// beside it, which Windows cannot start. It is Windows' lookPath, kept free
// of build tags so that its tests run on every OS.
func lookPathExt(file string, dirs []string, pathext string) (string, bool) {
	candidates := pathextCandidates(file, pathext)
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		for _, c := range candidates {
			p := filepath.Join(dir, c)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
	}
	return "", false
}

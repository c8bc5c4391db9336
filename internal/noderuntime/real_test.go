package noderuntime

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFetchRealRegistry fetches Node 22 and npm from registry.npmjs.org
// (about 55 MB) and runs both. It runs only with SWITCHBOARD_NET_TESTS=1.
func TestFetchRealRegistry(t *testing.T) {
	if testing.Short() || os.Getenv("SWITCHBOARD_NET_TESTS") != "1" {
		t.Skip("set SWITCHBOARD_NET_TESTS=1 to fetch Node from registry.npmjs.org")
	}
	data := t.TempDir()
	last := map[string]Progress{}
	reports := 0
	start := time.Now()
	n, err := Fetch(t.Context(), FetchOptions{DataDir: data, Major: 22, Progress: func(p Progress) {
		last[p.Step] = p
		reports++
	}})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	var size int64
	var files int
	filepath.WalkDir(data, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
				files++
			}
		}
		return nil
	})
	t.Logf("fetched %+v in %s: node %s %d bytes, npm %s %d bytes downloaded (%d progress reports); %d files, %d bytes unpacked",
		n, took.Round(time.Millisecond), last["node"].Version, last["node"].Done, last["npm"].Version, last["npm"].Done, reports, files, size)

	if !strings.HasPrefix(n.Version, "22.") || n.Source != SourceSwitchboard {
		t.Errorf("Fetch = %+v, want Node 22 from Switchboard", n)
	}
	out, err := exec.Command(n.Path, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "v"+n.Version {
		t.Errorf("node --version: %q, %v", out, err)
	}
	start = time.Now()
	out, err = exec.Command(n.Path, n.NPM, "--version").Output()
	if err != nil {
		t.Fatalf("node npm-cli.js --version: %v", err)
	}
	if _, ok := parseVersion(strings.TrimSpace(string(out))); !ok || strings.TrimSpace(string(out)) != last["npm"].Version {
		t.Errorf("npm --version printed %q, want %s", out, last["npm"].Version)
	}
	t.Logf("npm --version: %s in %s", strings.TrimSpace(string(out)), time.Since(start).Round(time.Millisecond))

	found, err := Find(t.Context(), FindOptions{DataDir: data, places: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(n, found); diff != "" {
		t.Errorf("Find after Fetch (-want +got):\n%s", diff)
	}
}

package paths

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestEnsureMakesExistingDirectoriesPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits; the profile's ACL keeps the directory private")
	}
	p := In(filepath.Join(t.TempDir(), "Switchboard"))
	// Left by an older version, or made by hand, open to everyone.
	for _, d := range []string{p.Dir, p.Logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.CheckPrivate(); !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), "mode 0755") {
		t.Fatalf("CheckPrivate before Ensure = %v, want ErrNotPrivate naming mode 0755", err)
	}
	if err := p.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{p.Dir, p.Logs} {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o700 {
			t.Errorf("%s: mode %04o after Ensure, want 0700", d, got)
		}
	}
	if err := p.CheckPrivate(); err != nil {
		t.Errorf("CheckPrivate after Ensure = %v", err)
	}

	// A new directory is private from the start.
	fresh := In(filepath.Join(t.TempDir(), "new", "Switchboard"))
	if err := fresh.Ensure(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh.Dir); st.Mode().Perm() != 0o700 {
		t.Errorf("new data directory mode %04o, want 0700", st.Mode().Perm())
	}
}

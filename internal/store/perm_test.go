package store

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDatabaseFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits; the profile's ACL keeps the files private")
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	for _, existing := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "switchboard.db")
		if existing { // an empty file left world-readable, as SQLite itself makes them (0644)
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, 0o644)
		}
		s, err := Open(t.Context(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A write makes sure the -wal and -shm files exist.
		if err := s.SetSetting(t.Context(), "perm-test", 1); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if got := mode(p); got != 0o600 {
				t.Errorf("existing=%v: %s has mode %04o, want 0600", existing, filepath.Base(p), got)
			}
		}
		s.Close()
	}
}

package logbuf

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFileRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "srv.log")
	f, err := OpenFile(path, &FileOptions{MaxBytes: 1000, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := New(&Options{Sink: f})
	w := r.Writer()
	for i := range 200 { // ~ 200 * 50 bytes = 10 KB through a 1 KB file
		fmt.Fprintf(w, "line %03d %s\n", i, strings.Repeat("z", 10))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		info, _ := e.Info()
		if info.Size() > 1000 {
			t.Errorf("%s is %d bytes, cap 1000", e.Name(), info.Size())
		}
	}
	if diff := cmp.Diff([]string{"srv.log", "srv.log.1", "srv.log.2"}, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	tail, err := ReadTail(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"line 197 zzzzzzzzzz", "line 198 zzzzzzzzzz", "line 199 zzzzzzzzzz"}
	if diff := cmp.Diff(want, texts(tail)); diff != "" {
		t.Errorf("tail (-want +got):\n%s", diff)
	}
}

func TestOpenRestoresLinesFromBeforeRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	now := func() time.Time { return clock }

	r1, err := Open(path, &Options{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r1.Append("first run: hello")
	r1.AppendLevel(LevelError, "first run: boom")
	r1.Close()

	r2, err := Open(path, &Options{Now: now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	r2.Append("second run")
	got := r2.Lines(0, 0)
	want := []Line{
		{Seq: 1, Time: clock, Level: LevelInfo, Text: "first run: hello", Restored: true},
		{Seq: 2, Time: clock, Level: LevelError, Text: "first run: boom", Restored: true},
		{Seq: 3, Time: clock, Level: LevelInfo, Text: "second run"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}

	// The file holds each line once.
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("file has %d lines, want 3:\n%s", n, data)
	}
}

func TestReadTailMissingFileAndForeignLines(t *testing.T) {
	dir := t.TempDir()
	lines, err := ReadTail(filepath.Join(dir, "nope.log"), 10)
	if err != nil || len(lines) != 0 {
		t.Fatalf("ReadTail(missing) = %v, %v", lines, err)
	}
	path := filepath.Join(dir, "x.log")
	os.WriteFile(path, []byte("not our format\nERROR also not\n"), 0o644)
	lines, err = ReadTail(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"not our format", "ERROR also not"}, texts(lines)); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	if lines[1].Level != LevelError {
		t.Errorf("level = %q, want guessed error", lines[1].Level)
	}
}

func TestFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits")
	}
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "srv.log")
	f, err := OpenFile(path, &FileOptions{MaxBytes: 200, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := New(&Options{Sink: f})
	w := r.Writer()
	for i := range 20 { // through a rotation
		fmt.Fprintf(w, "line %02d %s\n", i, strings.Repeat("z", 20))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	if got := mode(dir); got != 0o700 {
		t.Errorf("log directory mode %04o, want 0700", got)
	}
	for _, p := range []string{path, path + ".1"} {
		if got := mode(p); got != 0o600 {
			t.Errorf("%s mode %04o, want 0600", filepath.Base(p), got)
		}
	}

	// A file an older version left readable by others is narrowed.
	old := filepath.Join(dir, "old.log")
	os.WriteFile(old, []byte("x\n"), 0o644)
	os.Chmod(old, 0o644)
	f, err = OpenFile(old, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := mode(old); got != 0o600 {
		t.Errorf("existing log mode %04o after OpenFile, want 0600", got)
	}
}

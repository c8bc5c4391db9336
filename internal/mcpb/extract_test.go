package mcpb

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree lists the files under dir with their permission bits.
func tree(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		got[filepath.ToSlash(rel)] = info.Mode()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestExtract(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("checks Unix modes")
	}
	b := mustOpen(t, nodeBundle(t, nodeManifest()))
	dir := mustExtract(t, b)
	want := map[string]fs.FileMode{
		".":                             fs.ModeDir | 0o755,
		"manifest.json":                 0o644,
		"server":                        fs.ModeDir | 0o755,
		"server/index.js":               0o644,
		"server/run.sh":                 0o755, // the zip's exec bit is kept
		"node_modules":                  fs.ModeDir | 0o755,
		"node_modules/dep":              fs.ModeDir | 0o755,
		"node_modules/dep/package.json": 0o644,
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("unpacked tree (-want +got):\n%s", diff)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "server", "index.js")); string(got) != "console.log('hi')\n" {
		t.Errorf("index.js = %q", got)
	}
	if left := leftovers(t, filepath.Dir(dir), "hello"); len(left) != 0 {
		t.Errorf("left behind next to the bundle: %v", left)
	}
}

// TestExtractBinaryExecutable: a zip made on Windows records no modes;
// the binary server's command must still be executable.
func TestExtractBinaryExecutable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("checks Unix modes")
	}
	m := nodeManifest()
	set(m, "server.type", "binary")
	set(m, "server.entry_point", "bin/server")
	set(m, "server.mcp_config.command", "${__dirname}/bin/server")
	set(m, "server.mcp_config.platform_overrides", map[string]any{"win32": map[string]any{"command": "bin/server-win.exe"}})
	p := writeZip(t, manifestEntry(t, m),
		entry{name: "bin/server", body: "#!/bin/sh\necho hi\n", fat: true},
		entry{name: "bin/server-win.exe", body: "MZ", fat: true},
		entry{name: "bin/data.txt", body: "x", fat: true})
	dir := mustExtract(t, mustOpen(t, p))
	for name, want := range map[string]fs.FileMode{"bin/server": 0o755, "bin/server-win.exe": 0o755, "bin/data.txt": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
}

func TestExtractTargetExists(t *testing.T) {
	b := mustOpen(t, nodeBundle(t, nodeManifest()))
	dir := t.TempDir()
	err := b.Extract(dir)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Extract into an existing directory: %v, want fs.ErrExist", err)
	}
}

// bombZip writes a bundle whose big.bin entry claims declared bytes but
// inflates to actual bytes of zeros.
func bombZip(t *testing.T, declared, actual int) string {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	zeros := make([]byte, actual)
	fw.Write(zeros)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	m := manifestEntry(t, nodeManifest())
	for _, e := range append([]entry{m}, nodeFiles...) {
		w, _ := zw.Create(e.name)
		w.Write([]byte(e.body))
	}
	h := &zip.FileHeader{Name: "big.bin", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(zeros[:declared]),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(declared)}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bomb.mcpb")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExtractZipBomb: an entry whose header claims 100 bytes but that
// inflates to 8 MiB passes Open's check of declared sizes; Extract must
// stop and leave nothing behind.
func TestExtractZipBomb(t *testing.T) {
	p := bombZip(t, 100, 8<<20)
	b, err := OpenWith(p, &Options{Limits: Limits{MaxTotalBytes: 1 << 20}})
	if err != nil {
		t.Fatalf("Open: %v (the header claims a small file)", err)
	}
	parent := t.TempDir()
	err = b.Extract(filepath.Join(parent, "bomb"))
	if err == nil {
		t.Fatal("Extract of a lying zip succeeded")
	}
	t.Logf("Extract: %v", err)
	if left := leftovers(t, parent); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestExtractCountsBytes: Extract counts what it writes against its
// budget, not only what the headers declare (archive/zip also refuses an
// entry that inflates past its declared size; this is the second guard).
func TestExtractCountsBytes(t *testing.T) {
	p := writeZip(t, append([]entry{manifestEntry(t, nodeManifest()), {name: "big.bin", body: strings.Repeat("z", 300<<10)}}, nodeFiles...)...)
	b := mustOpen(t, p)
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var big *zip.File
	for _, f := range zr.File {
		if f.Name == "big.bin" {
			big = f
		}
	}
	target := filepath.Join(t.TempDir(), "big.bin")
	n, err := b.writeFile(big, target, 200<<10)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("writeFile past its budget: %v, want ErrTooLarge", err)
	}
	if fi, _ := os.Stat(target); n > 200<<10+1 || fi.Size() > 200<<10+1 {
		t.Errorf("wrote %d bytes, past the budget", fi.Size())
	}
	if _, err := b.writeFile(big, filepath.Join(t.TempDir(), "ok.bin"), 300<<10); err != nil {
		t.Errorf("writeFile within its budget: %v", err)
	}
}

// TestExtractRechecks: the file is swapped after Open for one with the
// same manifest and a zip-slip entry; Extract must check again.
func TestExtractRechecks(t *testing.T) {
	p := nodeBundle(t, nodeManifest())
	b := mustOpen(t, p)
	evil := writeZip(t, append([]entry{manifestEntry(t, nodeManifest()), {name: "../escaped.txt", body: "x"}}, nodeFiles...)...)
	data, _ := os.ReadFile(evil)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	err := b.Extract(filepath.Join(parent, "servers", "hello"))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not a relative path") {
		t.Errorf("Extract of a swapped file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "escaped.txt")); err == nil {
		t.Error("the zip-slip entry was written")
	}
	if left := leftovers(t, filepath.Join(parent, "servers")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	// A changed manifest is caught too.
	m := nodeManifest()
	m["version"] = "6.6.6"
	data, _ = os.ReadFile(nodeBundle(t, m))
	os.WriteFile(p, data, 0o644)
	if err := b.Extract(filepath.Join(parent, "again")); err == nil || !strings.Contains(err.Error(), "changed since it was opened") {
		t.Errorf("Extract after the manifest changed: %v", err)
	}
}

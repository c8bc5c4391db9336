package mcpb

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Extract unpacks the bundle into dir, which must not exist. It unpacks
// into a hidden sibling of dir and renames that into place when done, so a
// failure leaves nothing behind. It writes regular files (mode 0644, or
// 0755 when the zip marks them executable) and directories only, refuses
// any entry Open would refuse, and stops once the bytes it has written
// pass Limits.MaxTotalBytes, whatever the zip's headers claim. A binary
// server's command and entry point are made executable even when the zip
// was made on Windows and says nothing about modes.
func (b *Bundle) Extract(dir string) (err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("unpacking bundle: %s already exists; remove it or unpack somewhere else: %w", dir, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".unpack-*")
	if err != nil {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := b.extractTo(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("unpacking bundle: moving it into place: %w", err)
	}
	return nil
}

func (b *Bundle) extractTo(root string) error {
	zr, err := zip.OpenReader(b.path)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("unpacking bundle: %w", err)
	}
	defer zr.Close()
	// The file may have changed since Open: check it all again.
	if _, err := b.checkEntries(&zr.Reader); err != nil {
		return err
	}
	raw, err := b.readManifest(&zr.Reader)
	if err != nil {
		return err
	}
	if !b.sameManifest(raw) {
		return b.errorf(ErrInvalid, "the file changed since it was opened; open it again")
	}
	budget := b.limits.MaxTotalBytes
	for _, f := range zr.File {
		name, isDir, err := entryName(f)
		if err != nil {
			return b.errorf(ErrInvalid, "%v; Switchboard will not unpack it", err)
		}
		target := filepath.Join(root, filepath.FromSlash(name))
		if isDir {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("unpacking bundle: %w", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("unpacking bundle: %w", err)
		}
		n, err := b.writeFile(f, target, budget)
		if err != nil {
			return err
		}
		budget -= n
	}
	if b.Manifest.Server.Type == TypeBinary {
		return b.markExecutable(root)
	}
	return nil
}

// writeFile writes one entry to target (which must not exist yet) and
// returns the bytes written; more than budget is an error.
func (b *Bundle) writeFile(f *zip.File, target string, budget int64) (int64, error) {
	perm := fs.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		perm = 0o755
	}
	rc, err := f.Open()
	if err != nil {
		return 0, b.errorf(ErrInvalid, "reading %s: %v; the file is damaged, download it again", f.Name, err)
	}
	defer rc.Close()
	// O_EXCL: an entry never replaces a file another entry wrote (two
	// names that differ only in case, on a case-insensitive disk).
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, fmt.Errorf("unpacking bundle: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if n > budget {
		return n, b.errorf(ErrTooLarge, "it unpacks to more than %s (the limit); it may be a zip bomb, or ask the bundle's author for a smaller bundle", byteSize(b.limits.MaxTotalBytes))
	}
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, zip.ErrAlgorithm) {
			return n, b.errorf(ErrInvalid, "reading %s: %v; the file is damaged, download it again", f.Name, err)
		}
		return n, fmt.Errorf("unpacking bundle: %w", err)
	}
	// The umask may have taken bits off perm; set exactly what was meant.
	if err := os.Chmod(target, perm); err != nil {
		return n, fmt.Errorf("unpacking bundle: %w", err)
	}
	return n, nil
}

// markExecutable makes a binary server's entry point and command (for
// every platform the manifest names) executable.
func (b *Bundle) markExecutable(root string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	s := b.Manifest.Server
	names := []string{s.EntryPoint}
	if s.MCPConfig != nil {
		if rel, ok := bundleRelative(s.MCPConfig.Command); ok {
			names = append(names, rel)
		}
		for _, o := range s.MCPConfig.PlatformOverrides {
			if rel, ok := bundleRelative(o.Command); ok {
				names = append(names, rel)
			}
		}
	}
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // checked at Open for this platform; others may lack it
		}
		if err := os.Chmod(p, 0o755); err != nil {
			return fmt.Errorf("unpacking bundle: %w", err)
		}
	}
	return nil
}

package noderuntime

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// unpack extracts the npm package tarball tgz into the empty folder dest,
// without the tarball's first path component ("package/"), as npm does.
// It takes regular files and directories only, within lim's bounds on
// entries and bytes, and refuses an entry whose path is absolute or
// climbs with "..", a link, or a device. Files with an executable bit get
// 0755, others 0644. All writes go through an os.Root, so nothing lands
// outside dest whatever the tarball holds. On error, dest holds part of
// the tarball and is the caller's to remove.
func unpack(tgz, dest string, lim limits) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("the tarball is not gzip-compressed: %w", err)
	}
	defer gz.Close()
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()

	tr := tar.NewReader(gz)
	var entries int
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the tarball is damaged: %w", err)
		}
		if entries++; entries > lim.entries {
			return fmt.Errorf("the tarball has more than %d entries", lim.entries)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		rel, err := entryPath(hdr.Name)
		if err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if rel != "" {
				if err := root.MkdirAll(rel, 0o755); err != nil {
					return err
				}
			}
		case tar.TypeReg:
			if rel == "" {
				continue // a file at the top, which npm drops too
			}
			if hdr.Size > lim.unpacked-total {
				return fmt.Errorf("the tarball unpacks to more than %d MB", lim.unpacked>>20)
			}
			n, err := writeFile(root, rel, hdr, tr)
			total += n
			if err != nil {
				return err
			}
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("the tarball holds a link (%s -> %s), which Switchboard does not unpack", hdr.Name, hdr.Linkname)
		default:
			return fmt.Errorf("the tarball holds %s, which is neither a file nor a folder", hdr.Name)
		}
	}
}

// entryPath is where a tarball entry goes, relative to the package's
// folder and in the OS's form: "package/bin/node" -> "bin/node", "" for
// the first component itself.
func entryPath(name string) (string, error) {
	bad := func() (string, error) {
		return "", fmt.Errorf("the tarball holds %q, a path outside its folder", name)
	}
	if strings.ContainsAny(name, "\\\x00") || path.IsAbs(name) {
		return bad()
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == ".." {
			return bad()
		}
	}
	rest := path.Clean(strings.Join(parts[1:], "/"))
	if rest == "." {
		return "", nil
	}
	rel := filepath.FromSlash(rest)
	if !filepath.IsLocal(rel) {
		return bad()
	}
	return rel, nil
}

// writeFile writes one regular file of the tarball and returns its size.
func writeFile(root *os.Root, rel string, hdr *tar.Header, r io.Reader) (int64, error) {
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(diskWriter{out}, io.LimitReader(r, hdr.Size))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = diskError{cerr}
	}
	var de diskError
	if errors.As(err, &de) {
		return n, fmt.Errorf("writing %s: %w; free some disk space and try again", rel, de.err)
	}
	if err != nil {
		return n, fmt.Errorf("the tarball is damaged: %w", err)
	}
	return n, nil
}

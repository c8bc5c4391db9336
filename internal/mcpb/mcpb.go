// Package mcpb reads MCP Bundles (.mcpb, called .dxt before): the format
// Claude Desktop installs local MCP servers from, a zip with a
// manifest.json at its root (spec: github.com/anthropics/mcpb, MANIFEST.md;
// manifest versions 0.1 to 0.4 are read, unknown fields are ignored).
//
// A bundle is hostile input. Open bounds the manifest's size, the number of
// entries and their declared sizes, and checks every entry's name and type
// before anything is written. Extract writes only regular files and
// directories under the target and counts the bytes it actually writes
// (archive/zip already refuses an entry that inflates past its declared
// size; the count is the second guard), and renames a finished staging
// directory into place, so a failed unpack leaves nothing behind. Keys
// that differ only in case are refused, since encoding/json would match
// them where JavaScript (Claude Desktop) does not.
//
// Launch turns the manifest's mcp_config into a command line. A node,
// python or uv server runs with the runtime's bare name (the caller picks
// the Node), a binary server only with a file inside the bundle. Variables
// that change which code a process loads (PATH, NODE_OPTIONS, LD_PRELOAD,
// ...) are dropped with a reason in LaunchSpec.Dropped rather than refused:
// bundles in the wild set NODE_OPTIONS for memory limits, and refusing to
// run them would help nobody. Search paths (PYTHONPATH, NODE_PATH,
// LD_LIBRARY_PATH) are kept when every entry is inside the bundle, as the
// spec's own python example needs.
package mcpb

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Sentinel errors, checked with errors.Is.
var (
	// ErrInvalid is wrapped by every error about a file that is not a
	// well-formed bundle: not a zip, no manifest, a manifest that breaks
	// the spec, an entry that would escape the target directory.
	ErrInvalid = errors.New("not a valid MCP bundle")
	// ErrUnsupported is wrapped when the bundle is well formed but cannot
	// run here: a newer manifest_version, another platform, a command
	// Switchboard will not run.
	ErrUnsupported = errors.New("MCP bundle not supported")
	// ErrTooLarge is wrapped when a bundle exceeds a Limits bound.
	ErrTooLarge = errors.New("MCP bundle too large")
)

// SupportedVersions are the manifest versions Open reads, oldest first.
var SupportedVersions = []string{"0.1", "0.2", "0.3", "0.4"}

// ManifestName is the manifest's path inside a bundle.
const ManifestName = "manifest.json"

// Limits bound what a bundle may make Switchboard read and write. A zero
// field means its default.
type Limits struct {
	// MaxManifestBytes bounds manifest.json (default 1 MiB).
	MaxManifestBytes int64
	// MaxEntries bounds the number of files and directories (default
	// 100,000; a node server's bundled node_modules has thousands).
	MaxEntries int
	// MaxTotalBytes bounds the unpacked size, summed over all files
	// (default 1 GiB).
	MaxTotalBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxManifestBytes <= 0 {
		l.MaxManifestBytes = 1 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 100_000
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 1 << 30
	}
	return l
}

// maxNameBytes bounds one entry's path inside the bundle.
const maxNameBytes = 1024

// Options configure OpenWith. The zero value (or nil) means defaults.
type Options struct {
	Limits Limits
}

// A Bundle is an opened .mcpb file whose manifest passed validation. It
// holds no open file: Extract opens the file again and checks that it has
// not changed.
type Bundle struct {
	// Manifest is the validated manifest.
	Manifest Manifest

	path        string
	limits      Limits
	manifestSum [sha256.Size]byte
	files       map[string]bool // regular files in the zip, by clean name
}

// Open opens the bundle at path with default limits and validates it; see
// OpenWith.
func Open(path string) (*Bundle, error) {
	return OpenWith(path, nil)
}

// OpenWith opens the bundle at path, checks every entry (name, type,
// count, declared size) and reads and validates manifest.json. It fails
// with an error wrapping ErrInvalid, ErrUnsupported or ErrTooLarge that
// names the problem and what to do.
func OpenWith(file string, opts *Options) (*Bundle, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	b := &Bundle{path: file, limits: o.Limits.withDefaults()}
	zr, err := zip.OpenReader(file)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("opening bundle: %w", err)
		}
		return nil, b.errorf(ErrInvalid, "not a zip archive (%v); an MCP bundle (.mcpb or .dxt) is a zip with manifest.json at its root, so check that the download finished", err)
	}
	defer zr.Close()
	// zip.ErrInsecurePath (with GODEBUG=zipinsecurepath=0) still returns
	// the reader; checkEntries names the offending entry.
	entries, err := b.checkEntries(&zr.Reader)
	if err != nil {
		return nil, err
	}
	b.files = entries
	raw, err := b.readManifest(&zr.Reader)
	if err != nil {
		return nil, err
	}
	b.manifestSum = sha256.Sum256(raw)
	m, err := parseManifest(raw)
	if err != nil {
		return nil, b.wrap(err)
	}
	b.Manifest = m
	if err := b.checkPlatform(); err != nil {
		return nil, err
	}
	if err := b.checkFilesPresent(); err != nil {
		return nil, err
	}
	return b, nil
}

// Path is the bundle file Open read.
func (b *Bundle) Path() string { return b.path }

// UserConfig is the bundle's user_config in manifest order, each Default
// with ${HOME}, ${DESKTOP}, ${DOCUMENTS} and ${DOWNLOADS} substituted, so a
// form can show it as is.
func (b *Bundle) UserConfig() []UserConfigField {
	fixed := systemVars("")
	out := make([]UserConfigField, len(b.Manifest.UserConfig))
	for i, f := range b.Manifest.UserConfig {
		f.Min, f.Max = clonePtr(f.Min), clonePtr(f.Max)
		if f.Default != "" {
			f.Default, _ = expandString(f.Default, fixed, nil, 0)
		}
		out[i] = f
	}
	return out
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// A bundleError is an error about one bundle file.
type bundleError struct {
	file string
	msg  string
	kind error
}

func (e *bundleError) Error() string { return e.file + ": " + e.msg }
func (e *bundleError) Unwrap() error { return e.kind }

func (b *Bundle) errorf(kind error, format string, args ...any) error {
	return &bundleError{file: filepath.Base(b.path), msg: fmt.Sprintf(format, args...), kind: kind}
}

// wrap turns a manifest problem into an error naming the bundle file.
func (b *Bundle) wrap(err error) error {
	var me *manifestError
	if errors.As(err, &me) {
		return &bundleError{file: filepath.Base(b.path), msg: me.msg, kind: me.kind}
	}
	return err
}

// checkEntries validates every entry of the archive and returns the set of
// regular files by name.
func (b *Bundle) checkEntries(zr *zip.Reader) (map[string]bool, error) {
	if len(zr.File) > b.limits.MaxEntries {
		return nil, b.errorf(ErrTooLarge, "%d entries, more than the %d Switchboard unpacks; ask the bundle's author for a smaller bundle", len(zr.File), b.limits.MaxEntries)
	}
	files := make(map[string]bool, len(zr.File))
	dirs := make(map[string]bool)
	var total uint64
	for _, f := range zr.File {
		name, isDir, err := entryName(f)
		if err != nil {
			return nil, b.errorf(ErrInvalid, "%v; Switchboard will not unpack it", err)
		}
		if isDir {
			if files[name] {
				return nil, b.errorf(ErrInvalid, "%q is both a file and a directory", name)
			}
			dirs[name] = true
			continue
		}
		if files[name] || dirs[name] {
			return nil, b.errorf(ErrInvalid, "the entry %q appears twice; Switchboard will not pick one", name)
		}
		files[name] = true
		total += f.UncompressedSize64
		if total > uint64(b.limits.MaxTotalBytes) {
			return nil, b.errorf(ErrTooLarge, "it unpacks to more than %s (the limit); it may be a zip bomb, or ask the bundle's author for a smaller bundle", byteSize(b.limits.MaxTotalBytes))
		}
	}
	return files, nil
}

// entryName checks one entry: a relative path with no "..", no volume or
// backslash, not too long, and a regular file or a directory.
func entryName(f *zip.File) (name string, isDir bool, err error) {
	name = f.Name
	mode := f.Mode()
	isDir = mode.IsDir() || strings.HasSuffix(name, "/")
	name = strings.TrimSuffix(name, "/")
	switch {
	case len(f.Name) > maxNameBytes:
		return "", false, fmt.Errorf("entry %.60q... has a path longer than %d bytes", f.Name, maxNameBytes)
	case strings.ContainsAny(name, "\\\x00"):
		return "", false, fmt.Errorf("entry %q has a backslash or NUL in its path", f.Name)
	case !fs.ValidPath(name) || name == "." || !filepath.IsLocal(filepath.FromSlash(name)):
		return "", false, fmt.Errorf("entry %q is not a relative path inside the bundle (absolute, .., or a drive or device name)", f.Name)
	case mode&fs.ModeSymlink != 0:
		return "", false, fmt.Errorf("entry %q is a symbolic link", f.Name)
	case !isDir && !mode.IsRegular():
		return "", false, fmt.Errorf("entry %q is a %s, not a file or directory", f.Name, fileKind(mode))
	}
	return name, isDir, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file (" + m.Type().String() + ")"
}

func (b *Bundle) readManifest(zr *zip.Reader) ([]byte, error) {
	var mf *zip.File
	var nested string
	for _, f := range zr.File {
		if f.Name == ManifestName {
			mf = f
			break
		}
		if nested == "" && path.Base(f.Name) == ManifestName {
			nested = f.Name
		}
	}
	if mf == nil {
		hint := "an MCP bundle has one at the top of the zip; pack the server's directory with `mcpb pack`"
		if nested != "" {
			hint = fmt.Sprintf("there is a %s, which is not at the top of the zip; pack the server's directory itself with `mcpb pack`, not its parent", nested)
		}
		return nil, b.errorf(ErrInvalid, "no %s at the top of the zip, so it is not an MCP bundle (%s)", ManifestName, hint)
	}
	if mf.UncompressedSize64 > uint64(b.limits.MaxManifestBytes) {
		return nil, b.errorf(ErrTooLarge, "%s is %s, more than the %s Switchboard reads", ManifestName, byteSize(int64(mf.UncompressedSize64)), byteSize(b.limits.MaxManifestBytes))
	}
	rc, err := mf.Open()
	if err != nil {
		return nil, b.errorf(ErrInvalid, "reading %s: %v; the file is damaged, download it again", ManifestName, err)
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, b.limits.MaxManifestBytes+1))
	if err != nil {
		return nil, b.errorf(ErrInvalid, "reading %s: %v; the file is damaged, download it again", ManifestName, err)
	}
	if int64(len(raw)) > b.limits.MaxManifestBytes {
		return nil, b.errorf(ErrTooLarge, "%s is more than the %s Switchboard reads", ManifestName, byteSize(b.limits.MaxManifestBytes))
	}
	return raw, nil
}

// checkPlatform refuses a bundle whose compatibility.platforms leaves out
// this one.
func (b *Bundle) checkPlatform() error {
	ps := b.Manifest.Compatibility.Platforms
	if len(ps) == 0 {
		return nil
	}
	here := Platform()
	for _, p := range ps {
		if p == here {
			return nil
		}
	}
	return b.errorf(ErrUnsupported, "the bundle runs only on %s (compatibility.platforms), not on %s; ask its author for a %s build", strings.Join(ps, ", "), here, here)
}

// checkFilesPresent checks that the entry point, and a binary server's
// command, are files in the zip.
func (b *Bundle) checkFilesPresent() error {
	s := b.Manifest.Server
	if !b.files[s.EntryPoint] && !(s.Type == TypeBinary && runtime.GOOS == "windows" && b.files[s.EntryPoint+".exe"]) {
		return b.errorf(ErrInvalid, "server.entry_point %q is not a file in the bundle; ask its author for a fixed bundle", s.EntryPoint)
	}
	if s.Type != TypeBinary {
		return nil
	}
	cmd := effectiveConfig(s.MCPConfig, Platform()).Command
	rel, ok := bundleRelative(cmd)
	if !ok {
		return b.errorf(ErrUnsupported, "binary server's command %q is not a file inside the bundle; Switchboard runs a binary bundle only from its own files", cmd)
	}
	if !b.files[rel] && !(runtime.GOOS == "windows" && b.files[rel+".exe"]) {
		return b.errorf(ErrInvalid, "binary server's command %q is not a file in the bundle; ask its author for a fixed bundle", cmd)
	}
	return nil
}

// bundleRelative turns a command template that names a file inside the
// bundle ("server/x", "${__dirname}/server/x") into its clean slash path,
// or reports false.
func bundleRelative(cmd string) (string, bool) {
	s, ok := strings.CutPrefix(cmd, "${__dirname}")
	if !ok && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) || (len(s) >= 2 && s[1] == ':')) {
		return "", false // absolute, or a Windows drive
	}
	s = strings.NewReplacer("${pathSeparator}", "/", "${/}", "/", `\`, "/").Replace(s)
	s = strings.TrimPrefix(s, "/")
	if strings.Contains(s, "${") || s == "" {
		return "", false
	}
	s = path.Clean(s)
	if !fs.ValidPath(s) || s == "." {
		return "", false
	}
	return s, true
}

// Platform is this system's name as bundles spell it (Node's
// process.platform): "darwin", "linux", "win32".
func Platform() string {
	if runtime.GOOS == "windows" {
		return "win32"
	}
	return runtime.GOOS
}

// sameManifest reports whether raw is the manifest Open validated.
func (b *Bundle) sameManifest(raw []byte) bool {
	sum := sha256.Sum256(raw)
	return bytes.Equal(sum[:], b.manifestSum[:])
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// jsonPosition turns a JSON decoding error's byte offset into line:column.
func jsonPosition(raw []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return ""
	}
	// Offset counts the bytes read, the offending one included.
	off = min(max(off-1, 0), int64(len(raw)))
	line := 1 + bytes.Count(raw[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(raw[:off], '\n')
	return fmt.Sprintf("line %d, column %d: ", line, col)
}

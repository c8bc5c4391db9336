// Package paths decides where Switchboard keeps its data: one directory per
// user (os.UserConfigDir()/Switchboard), overridden by SWITCHBOARD_DATA_DIR,
// which every test sets so that no test touches a real user's data.
// A development build (-tags dev) uses Switchboard-dev beside it instead,
// unless SWITCHBOARD_REAL_DATA=1 (its -real-data flag) says otherwise: its
// browser UI is a way in that the release build does not have.
package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvDataDir overrides the data directory.
const EnvDataDir = "SWITCHBOARD_DATA_DIR"

// EnvRealData, set to 1, lets a development build use the real data
// directory.
const EnvRealData = "SWITCHBOARD_REAL_DATA"

// devBuild is true in development builds (devbuild.go).
var devBuild = false

// Paths are the files and folders Switchboard uses.
type Paths struct {
	Dir      string // the data directory
	Database string // the SQLite file
	Logs     string // app.log and one log file per MCP server
	Lock     string // the single-instance lock file
}

// Resolve returns the paths without creating anything.
func Resolve() (Paths, error) {
	dir := os.Getenv(EnvDataDir)
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return Paths{}, fmt.Errorf("finding the user config directory: %w (set %s to choose a data directory)", err, EnvDataDir)
		}
		name := "Switchboard"
		if devBuild && os.Getenv(EnvRealData) != "1" {
			name = "Switchboard-dev"
		}
		dir = filepath.Join(base, name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Paths{}, fmt.Errorf("resolving data directory %q: %w", dir, err)
	}
	return In(abs), nil
}

// In returns the paths inside dir.
func In(dir string) Paths {
	return Paths{
		Dir:      dir,
		Database: filepath.Join(dir, "switchboard.db"),
		Logs:     filepath.Join(dir, "logs"),
		Lock:     filepath.Join(dir, "switchboard.lock"),
	}
}

// Ensure creates the data and log directories with user-only permissions
// (0700), and takes group and other users' permissions away from them when
// they already existed (MkdirAll leaves an existing directory as it is). It
// fails only when a directory cannot be created: one whose permissions
// cannot be changed (another user owns it) is left as it is, and
// CheckPrivate says so.
func (p Paths) Ensure() error {
	for _, d := range []string{p.Dir, p.Logs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("creating %s: permission denied; make it writable or set %s to another directory", d, EnvDataDir)
			}
			return fmt.Errorf("creating %s: %w", d, err)
		}
		if st, err := os.Stat(d); err == nil && unixPerms && st.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(d, st.Mode().Perm()&0o700)
		}
	}
	return nil
}

// unixPerms is whether permission bits mean anything: not on Windows, where
// the data directory sits in the user's profile, private by its ACL.
var unixPerms = runtime.GOOS != "windows"

// ErrNotPrivate means other users may read the data or log directory.
var ErrNotPrivate = errors.New("the data directory is open to other users")

// CheckPrivate returns an error wrapping ErrNotPrivate that names each of
// the data and log directories which group or other users can open, and
// says how to fix it; nil when both are private (or do not exist yet).
func (p Paths) CheckPrivate() error {
	if !unixPerms {
		return nil
	}
	var open []string
	for _, d := range []string{p.Dir, p.Logs} {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (mode %04o)", d, st.Mode().Perm()))
		}
	}
	if len(open) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; run chmod 700 on it as its owner, or set %s to a directory of your own",
		ErrNotPrivate, strings.Join(open, ", "), EnvDataDir)
}

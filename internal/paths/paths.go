// Package paths decides where Switchboard keeps its data: one directory per
// user (os.UserConfigDir()/Switchboard), overridden by SWITCHBOARD_DATA_DIR,
// which every test sets so that no test touches a real user's data.
package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvDataDir overrides the data directory.
const EnvDataDir = "SWITCHBOARD_DATA_DIR"

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
		dir = filepath.Join(base, "Switchboard")
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

// Ensure creates the data and log directories (user-only permissions).
func (p Paths) Ensure() error {
	for _, d := range []string{p.Dir, p.Logs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("creating %s: permission denied; make it writable or set %s to another directory", d, EnvDataDir)
			}
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return nil
}

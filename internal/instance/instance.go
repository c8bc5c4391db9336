// Package instance makes sure one Switchboard runs per data directory: a
// second start against the same directory would share the database and the
// MCP servers' processes. The lock is an OS file lock, released by the
// kernel when the process dies, so a crash never leaves a stale lock.
package instance

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrRunning means another process holds the lock.
var ErrRunning = errors.New("Switchboard is already running")

// A Lock is held until Release or process exit.
type Lock struct {
	f *os.File
}

// Acquire takes the lock file at path, writing this process's pid into it.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock file %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		pid := strings.TrimSpace(string(b))
		if _, perr := strconv.Atoi(pid); perr != nil {
			pid = "unknown"
		}
		return nil, fmt.Errorf("%w with the same data directory (pid %s); switch to its window, or set SWITCHBOARD_DATA_DIR to use another directory", ErrRunning, pid)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{f: f}, nil
}

// Release gives the lock up; it is safe to call twice.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the lock
	l.f = nil
	return err
}

// Held reports whether a process holds the lock at path now: another
// process, or this one through another Acquire. A command-line process asks
// it to leave the window's running work alone.
func Held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false // no lock file: no window ever ran here
	}
	defer f.Close() // drops the lock if this took it
	return lockFile(f) != nil
}

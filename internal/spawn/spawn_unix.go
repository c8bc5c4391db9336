//go:build unix

package spawn

import (
	"os"
	"strconv"
	"syscall"
)

const supported = true

// closeStray marks every descriptor above stderr close-on-exec.
func closeStray() error {
	if closeRangeCloexec() == nil {
		return nil
	}
	// Without close_range (before Linux 5.11, other systems): walk the
	// descriptors the process has.
	dir := "/proc/self/fd"
	if _, err := os.Stat(dir); err != nil {
		dir = "/dev/fd"
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 {
			continue
		}
		syscall.CloseOnExec(fd) // the directory's own descriptor is gone: EBADF, harmless
	}
	return nil
}

func execve(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}

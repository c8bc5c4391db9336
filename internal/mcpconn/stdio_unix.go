//go:build unix

package mcpconn

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// osEnv are the variables a server gets on Unix besides baseEnv. DISPLAY
// and XAUTHORITY let a browser server (Playwright's, which is headed by
// default) open a window on X11 and XWayland. XDG_RUNTIME_DIR and
// WAYLAND_DISPLAY are left out on purpose: with XDG_RUNTIME_DIR, D-Bus
// libraries find the session bus ($XDG_RUNTIME_DIR/bus), and with it the
// keyring, even without DBUS_SESSION_BUS_ADDRESS. A server that needs them
// gets them from its own env or "inherit my environment".
var osEnv = []string{"DISPLAY", "XAUTHORITY"}

// envFoldCase is whether variable names match in any case: not on Unix.
const envFoldCase = false

// setProcessGroup starts the child in a process group of its own, so the
// whole tree (npx and the node it spawns) can be signalled at once, and a
// Ctrl-C in the terminal that launched the app does not reach it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// A processGroup is the child's process group; its ID is the child's PID.
type processGroup struct {
	pgid int
}

func newProcessGroup(cmd *exec.Cmd) processGroup {
	return processGroup{pgid: cmd.Process.Pid}
}

func (g processGroup) terminate() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }
func (g processGroup) kill()      { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

func (g processGroup) alive() bool { return syscall.Kill(-g.pgid, 0) == nil }

// cleanup ends members of the group that outlived its leader: SIGTERM, then
// SIGKILL after grace. It costs nothing when the group is already empty.
func (g processGroup) cleanup(grace time.Duration) {
	if !g.alive() {
		return
	}
	g.terminate()
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if !g.alive() {
			return
		}
	}
	g.kill()
}

// lookPath finds an executable named file in the directories of pathList.
func lookPath(file, pathList string) (string, bool) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, file)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

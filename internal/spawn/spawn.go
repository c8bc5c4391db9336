// Package spawn starts child processes that inherit nothing but their
// standard streams.
//
// Go creates every descriptor close-on-exec, but the C libraries of the
// window do not always: Wails' asset server on Linux streams each response
// to WebKit through a pipe made without O_CLOEXEC. A child forked while
// such a pipe is open inherits its write end, and WebKit then waits for an
// end of file that only comes when the child exits: for a long-lived MCP
// server, never. The page stays white.
//
// Wrap routes a command through this same binary in a hidden mode (Arg):
// the trampoline marks every descriptor above stderr close-on-exec and
// execs the real command in its place (same PID, process group, session
// and streams). A stray descriptor then lives for the trampoline's few
// milliseconds instead of the child's lifetime.
package spawn

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

const procSelfExe = "/proc/self/exe"

// Arg is the hidden first argument that runs the trampoline: a binary
// whose main starts with Run sees it.
const Arg = "__spawn"

// Run runs the trampoline and does not return on success, when args (a
// process's arguments after its name) start with Arg; otherwise it returns
// at once. On failure it prints why and exits 127 (not found) or 126.
func Run(args []string) {
	if len(args) == 0 || args[0] != Arg {
		return
	}
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "switchboard: "+Arg+" needs a path and an argv")
		os.Exit(126)
	}
	path, argv := args[1], args[2:]
	if err := closeStray(); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard: preparing to start %s: %v\n", path, err)
		os.Exit(126)
	}
	err := execve(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "switchboard: cannot start %s: %v\n", path, err)
	if os.IsNotExist(err) {
		os.Exit(127)
	}
	os.Exit(126)
}

// A Wrapper rewrites a command before it starts so that it runs through
// the trampoline of the binary at Self.
type Wrapper struct {
	// Self is the path of a binary whose main calls Run first.
	Self string
}

// NewWrapper returns a Wrapper for the running binary. On Linux that is
// /proc/self/exe, which a child resolves before it execs to the very file
// the app runs from, even after a package upgrade replaced or deleted it.
func NewWrapper() (*Wrapper, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(procSelfExe); err == nil {
			return &Wrapper{Self: procSelfExe}, nil
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the running binary: %w", err)
	}
	return &Wrapper{Self: self}, nil
}

// Wrap rewrites cmd, not yet started, to run through the trampoline. Its
// Path must already be resolved (exec.Command does it); Args[0], the name
// the child sees, is kept. A nil Wrapper leaves cmd alone.
func (w *Wrapper) Wrap(cmd *exec.Cmd) {
	if w == nil || !supported || cmd.Err != nil {
		return
	}
	args := make([]string, 0, len(cmd.Args)+3)
	args = append(args, w.Self, Arg, cmd.Path)
	if len(cmd.Args) == 0 {
		args = append(args, cmd.Path)
	}
	args = append(args, cmd.Args...)
	cmd.Path, cmd.Args = w.Self, args
}

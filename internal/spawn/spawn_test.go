//go:build unix

package spawn

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary is its own trampoline, as the app's binary is.
func TestMain(m *testing.M) {
	Run(os.Args[1:])
	os.Exit(m.Run())
}

func wrapper(t *testing.T) *Wrapper {
	t.Helper()
	w, err := NewWrapper()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// strayPipe makes a pipe the way Wails' asset server does: without
// O_CLOEXEC (syscall.Pipe is pipe2(p, 0) on Linux and pipe() on macOS). It returns the read end as a file and the write end's number.
func strayPipe(t *testing.T) (*os.File, int) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "stray-r")
	t.Cleanup(func() { r.Close() })
	return r, p[1]
}

// eof reports whether reading r reaches the end of file within wait.
func eof(r *os.File, wait time.Duration) bool {
	done := make(chan struct{})
	go func() {
		var b [1]byte
		r.Read(b[:])
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}

func startSleeper(t *testing.T, w *Wrapper) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	w.Wrap(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A child started through the trampoline does not keep a stray pipe open:
// its reader sees the end of file while the child still runs. Started
// directly, the same child holds the pipe until it exits.
func TestStrayDescriptorsAreNotInherited(t *testing.T) {
	t.Run("wrapped", func(t *testing.T) {
		r, wfd := strayPipe(t)
		cmd := startSleeper(t, wrapper(t))
		syscall.Close(wfd)
		if !eof(r, 10*time.Second) {
			t.Fatal("the pipe's reader never saw EOF: the wrapped child kept its write end")
		}
		if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("the child is gone (%v); the test proves nothing", err)
		}
	})
	t.Run("direct", func(t *testing.T) {
		r, wfd := strayPipe(t)
		cmd := startSleeper(t, nil)
		syscall.Close(wfd)
		if eof(r, 300*time.Millisecond) {
			t.Fatal("EOF arrived although the child holds the write end: the hazard this package guards against is not reproduced")
		}
		cmd.Process.Kill()
		if !eof(r, 10*time.Second) {
			t.Fatal("no EOF after the child was killed")
		}
	})
}

// The wrapped child is the same process (the trampoline execs it), sees
// its own name as argv[0], its environment, directory and streams.
func TestWrappedChildIsTheCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `echo "pid=$$ env=$SPAWN_TEST pwd=$(pwd)"; cat; echo oops >&2; exit 3`)
	cmd.Env = append(os.Environ(), "SPAWN_TEST=yes")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("from stdin\n")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	wrapper(t).Wrap(cmd)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v", err)
	}
	want := "pid=" + strconv.Itoa(cmd.Process.Pid) + " env=yes pwd=" + dir + "\nfrom stdin\n"
	if out.String() != want || errOut.String() != "oops\n" {
		t.Errorf("stdout %q (want %q), stderr %q", out.String(), want, errOut.String())
	}
}

// A command that cannot be started says so on stderr and exits 127/126,
// as a shell would.
func TestTrampolineFailures(t *testing.T) {
	w := wrapper(t)
	for _, tt := range []struct {
		path string
		code int
	}{
		{"/nonexistent/server", 127},
		{t.TempDir(), 126}, // a directory
	} {
		cmd := &exec.Cmd{Path: tt.path, Args: []string{"server"}}
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		w.Wrap(cmd)
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != tt.code {
			t.Errorf("%s: exit %v, want %d", tt.path, err, tt.code)
		}
		if !strings.Contains(errOut.String(), "cannot start "+tt.path) {
			t.Errorf("%s: stderr %q", tt.path, errOut.String())
		}
	}
}

func TestNilWrapperLeavesTheCommand(t *testing.T) {
	cmd := exec.Command("sleep", "1")
	path, args := cmd.Path, cmd.Args
	(*Wrapper)(nil).Wrap(cmd)
	if cmd.Path != path || len(cmd.Args) != len(args) {
		t.Errorf("nil wrapper changed %v", cmd.Args)
	}
}

// The trampoline is found even when the binary's file is gone, as after a
// package upgrade while the app runs.
func TestTrampolineSurvivesTheBinaryBeingDeleted(t *testing.T) {
	if _, err := os.Stat(procSelfExe); err != nil {
		t.Skip("no /proc/self/exe")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	// A copy of this test binary that deletes itself, then starts a child
	// through its trampoline.
	copyPath := filepath.Join(t.TempDir(), "switchboard-copy")
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copyPath, "-test.run=^TestHelperDeletedBinary$")
	cmd.Env = append(os.Environ(), "SPAWN_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "child ran: ok") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

func TestHelperDeletedBinary(t *testing.T) {
	if os.Getenv("SPAWN_HELPER") != "1" {
		t.Skip("run by TestTrampolineSurvivesTheBinaryBeingDeleted")
	}
	self, _ := os.Executable()
	if err := os.Remove(self); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/echo", "child ran: ok")
	wrapper(t).Wrap(cmd)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	os.Stdout.Write(out)
}

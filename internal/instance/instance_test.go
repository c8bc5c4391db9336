package instance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSecondAcquireFailsWithPid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.lock")
	// The lock is per open file description, so a second holder in another
	// process is simulated by a child that takes it and waits.
	if os.Getenv("SWITCHBOARD_LOCK_CHILD") != "" {
		l, err := Acquire(os.Getenv("SWITCHBOARD_LOCK_CHILD"))
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		os.Stdin.Read(make([]byte, 1)) // hold until the parent closes stdin
		l.Release()
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondAcquireFailsWithPid$")
	cmd.Env = append(os.Environ(), "SWITCHBOARD_LOCK_CHILD="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("child did not take the lock: %q %v", buf, err)
	}
	_, err := Acquire(path)
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("Acquire while held = %v; want ErrRunning", err)
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("error %q does not name the holder's pid %d", err, cmd.Process.Pid)
	}
	stdin.Close()
	cmd.Wait()
	// A holder that has gone leaves no stale lock.
	l, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after the holder exited: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
}

func TestHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.lock")
	if Held(path) {
		t.Fatal("held before any lock file existed")
	}
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(path) {
		t.Fatal("not held while acquired")
	}
	if !Held(path) { // asking did not take it
		t.Fatal("asking once released the lock")
	}
	l.Release()
	if Held(path) {
		t.Fatal("held after release")
	}
	if _, err := Acquire(path); err != nil { // and asking left it free
		t.Fatalf("Acquire after Held: %v", err)
	}
}

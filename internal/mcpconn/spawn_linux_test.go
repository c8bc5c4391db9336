package mcpconn

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/spawn"
)

// With Wrap set to spawn's trampoline, a stdio server works as before and
// does not keep a descriptor the app left open without close-on-exec (as
// Wails' asset server does for each response): the pipe's reader sees EOF
// while the server runs.
func TestWrappedServerInheritsNoStrayDescriptor(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], 0); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "stray-r")
	defer r.Close()

	w, err := spawn.NewWrapper()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newTestManager(t, &Options{Wrap: w.Wrap})
	if err := m.Add(mcptest.FaultServer(t, "fault", "ok")); err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, m, "fault", 20*time.Second, StateConnected, StateFailed); st.State != StateConnected {
		t.Fatalf("state %s: %s\n%s", st.State, st.Reason, strings.Join(st.LastStderr, "\n"))
	}
	if got := callText(t, m, "fault__echo", `{"text":"hello"}`); got != "hello" {
		t.Errorf("echo = %q", got)
	}
	syscall.Close(p[1])
	read := make(chan error, 1)
	go func() { _, err := r.Read(make([]byte, 1)); read <- err }()
	select {
	case err := <-read:
		if err != io.EOF {
			t.Errorf("read %v, want EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no EOF: the server holds the stray pipe's write end")
	}
	if st, _ := m.Status("fault"); st.State != StateConnected {
		t.Errorf("server %s after the check; the test proves nothing", st.State)
	}
}

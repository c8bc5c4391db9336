package secrets

// The real-keyring test drives gnome-keyring in a private D-Bus session and
// finds its leftover daemons in /proc: Linux only, so it lives in a _linux
// file and the package's tests still build for Windows and macOS.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRealKeyring runs the contract against gnome-keyring in a private
// session bus: the test binary re-runs itself under dbus-run-session with a
// freshly unlocked keyring in temporary directories.
func TestRealKeyring(t *testing.T) {
	if os.Getenv("SWITCHBOARD_KEYRING_CHILD") == "1" {
		s, st := Open(context.Background(), 5*time.Second)
		if st.Backend != "keyring" {
			t.Fatalf("status = %+v; want the OS keyring", st)
		}
		storeContract(t, s, "test-"+time.Now().Format("150405.000")+"/")
		return
	}
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			keyringMissing(t, "%s is not installed (make test-deps installs dbus and gnome-keyring)", tool)
		}
	}
	dir := t.TempDir()
	runtimeDir := filepath.Join(dir, "run")
	os.MkdirAll(runtimeDir, 0o700)
	script := `printf 'test-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90
exec "$0" -test.run='^TestRealKeyring$' -test.v`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dbus-run-session", "--", "sh", "-c", script, os.Args[0])
	cmd.WaitDelay = 5 * time.Second
	defer killMarked(t, dir)
	cmd.Stdin = nil
	cmd.Env = append(os.Environ(),
		"SWITCHBOARD_KEYRING_CHILD=1",
		"SWITCHBOARD_KEYRING_RUN="+dir,
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_RUNTIME_DIR="+runtimeDir,
		"HOME="+dir, // gnome-keyring keeps its keyrings under HOME/.local/share when XDG_DATA_HOME is unset
	)
	out, err := cmd.CombinedOutput()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 90 {
		keyringMissing(t, "gnome-keyring-daemon could not start here:\n%s", out)
	}
	if err != nil {
		t.Fatalf("real keyring test failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestRealKeyring") {
		t.Fatalf("the child did not run the test:\n%s", out)
	}
}

// keyringMissing skips the real-keyring test, or fails it when
// SWITCHBOARD_REQUIRE_KEYRING=1 (make test, which installs the keyring).
func keyringMissing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := "the real-keyring test cannot run: " + fmt.Sprintf(format, args...)
	if os.Getenv("SWITCHBOARD_REQUIRE_KEYRING") == "1" {
		t.Fatal(msg + "\n(SWITCHBOARD_REQUIRE_KEYRING=1 requires it)")
	}
	t.Skip(msg)
}

// killMarked ends the keyring daemons this test started: gnome-keyring and
// the bus outlive dbus-run-session, and would hold the output pipe open.
// They are found by the marker in their environment, so a keyring the
// developer's desktop runs is never touched.
func killMarked(t *testing.T, dir string) {
	marker := []byte("SWITCHBOARD_KEYRING_RUN=" + dir + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Logf("stopped leftover keyring process %d", pid)
		}
	}
}

package mcptest

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDescendantsFindsAGrandchild(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(grandchild, syscall.SIGKILL) })

	if diff := cmp.Diff([]int{grandchild}, Descendants(cmd.Process.Pid)); diff != "" {
		t.Errorf("below the shell (-want +got):\n%s", diff)
	}
	pids := Descendants(os.Getpid())
	if !slices.Contains(pids, cmd.Process.Pid) || !slices.Contains(pids, grandchild) {
		t.Errorf("descendants %v lack the shell %d or its child %d", pids, cmd.Process.Pid, grandchild)
	}
	if got := Cmdline(cmd.Process.Pid); got != "/bin/sh -c sleep 30 & echo $!; wait" {
		t.Errorf("Cmdline = %q", got)
	}
}

func TestPeakRSS(t *testing.T) {
	if rss := PeakRSS(); rss < 1<<20 {
		t.Errorf("PeakRSS = %d bytes", rss)
	}
}

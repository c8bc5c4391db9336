package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
)

// A proc is a process the bench started, in a process group of its own so
// that it and its children (WebKit's) can be ended together.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startProc starts cmd in a new process group.
func startProc(cmd *exec.Cmd) (*proc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop asks the process to quit (SIGTERM), then kills its group and every
// process of its tree that is left (MCP servers have groups of their own).
func (p *proc) stop() {
	tree := mcptest.Descendants(p.pid())
	if !p.exited() {
		syscall.Kill(p.pid(), syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
	syscall.Kill(-p.pid(), syscall.SIGKILL)
	<-p.done
	for _, pid := range tree {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// procStat returns the parent and the name of pid.
func procStat(pid int) (ppid int, comm string, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	open, close := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || close < open {
		return 0, "", errors.New("unreadable stat")
	}
	fields := strings.Fields(string(data[close+1:]))
	if len(fields) < 2 {
		return 0, "", errors.New("short stat")
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, string(data[open+1 : close]), err
}

// rollup reads Pss and the private (unshared) kB of /proc/PID/smaps_rollup.
func rollup(pid int) (pss, private int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	found := false
	for sc.Scan() {
		key, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			continue
		}
		switch key {
		case "Pss":
			pss, found = n, true
		case "Private_Clean", "Private_Dirty":
			private += n
		}
	}
	if !found {
		return 0, 0, errors.New("no Pss line")
	}
	return pss, private, nil
}

// A treeMemory is the PSS of a process tree, and its private memory (USS:
// pages no other process maps). PSS divides each shared page among the
// processes that map it, so it also moves with what else runs on the
// machine (another WebKit process sharing libwebkit's pages lowers it);
// USS does not.
type treeMemory struct {
	TotalKB   int64            `json:"totalKB"`
	PrivateKB int64            `json:"privateKB"`
	ByProcess map[string]int64 `json:"byProcessKB"`
	Excluded  []string         `json:"excluded,omitempty"`
}

// treePSS sums the PSS of root and its descendants, leaving out the
// subtrees of processes for which exclude is true (MCP servers).
func treePSS(root int, exclude func(pid int) bool) (treeMemory, error) {
	m := treeMemory{ByProcess: map[string]int64{}}
	kb, priv, err := rollup(root)
	if err != nil {
		return m, err
	}
	m.TotalKB, m.PrivateKB, m.ByProcess["main (Go)"] = kb, priv, kb
	skip := map[int]bool{}
	for _, pid := range mcptest.Descendants(root) {
		ppid, comm, err := procStat(pid)
		if err != nil {
			continue
		}
		if skip[ppid] || exclude(pid) {
			skip[pid] = true
			m.Excluded = append(m.Excluded, fmt.Sprintf("%s[%d]", comm, pid))
			continue
		}
		kb, priv, err := rollup(pid)
		if err != nil {
			continue // exited meanwhile
		}
		m.TotalKB += kb
		m.PrivateKB += priv
		m.ByProcess[comm] += kb
	}
	return m, nil
}

// isMCPServer tells the MCP servers the app started (Node) from its own
// WebKit processes.
func isMCPServer(pid int) bool {
	cl := mcptest.Cmdline(pid)
	_, comm, _ := procStat(pid)
	return comm == "node" || strings.Contains(cl, "mcp-server") || strings.Contains(cl, "@modelcontextprotocol")
}

// lookPath is exec.LookPath that returns "" when missing.
func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// appEnv is the environment of an app or minimal window in dir: its own
// data directory and XDG directories, and no session bus, so the keyring
// probe (up to 3 s) and a desktop session never enter the figures.
func appEnv(dir, display string) []string {
	env := append(os.Environ(),
		"SWITCHBOARD_DATA_DIR="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"XDG_DATA_HOME="+filepath.Join(dir, "xdg-data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "xdg-config"),
		"DBUS_SESSION_BUS_ADDRESS=",
		"DISPLAY="+display,
	)
	return env
}

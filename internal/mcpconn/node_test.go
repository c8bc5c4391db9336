package mcpconn

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// everythingStdio is server-everything over stdio, found on the PATH by its
// bare name (its "#!/usr/bin/env node" then finds Node 22 on that PATH).
func everythingStdio(id string) serverconf.Config {
	return serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: "mcp-server-everything", Args: []string{"stdio"}, Enabled: true}
}

func TestEverythingStdio(t *testing.T) {
	e := requireNode(t)
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	cfg := everythingStdio("everything")
	cfg.CallTimeout = 900 * time.Millisecond
	start := time.Now()
	m.Add(cfg)
	st := waitState(t, m, "everything", 30*time.Second, StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("%s: %s\n%s", st.State, st.Reason, strings.Join(st.LastStderr, "\n"))
	}
	t.Logf("server-everything (stdio) connected in %s, protocol %s, %d tools", time.Since(start).Round(time.Millisecond), st.ProtocolVersion, st.ToolCount)

	if got := callText(t, m, "everything__echo", `{"message":"hi"}`); !strings.Contains(got, "hi") {
		t.Errorf("echo = %q", got)
	}

	tests := []struct {
		tool, args string
		check      func(r *Result) bool
	}{
		{"get-tiny-image", `{}`, func(r *Result) bool {
			return slices.ContainsFunc(r.Content, func(c Content) bool { return c.Type == ContentImage && c.MIMEType == "image/png" && len(c.Data) > 0 })
		}},
		{"get-resource-links", `{"count":2}`, func(r *Result) bool {
			return slices.ContainsFunc(r.Content, func(c Content) bool { return c.Type == ContentResourceLink && c.URI != "" })
		}},
		{"get-resource-reference", `{"resourceType":"Text","resourceId":1}`, func(r *Result) bool {
			return slices.ContainsFunc(r.Content, func(c Content) bool { return c.Type == ContentResource && c.URI != "" })
		}},
		{"get-structured-content", `{"location":"Chicago"}`, func(r *Result) bool {
			return json.Valid(r.StructuredContent) && strings.Contains(string(r.StructuredContent), "temperature")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := m.CallTool(t.Context(), "everything__"+tt.tool, json.RawMessage(tt.args), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(res) {
				raw, _ := json.Marshal(res)
				t.Errorf("unexpected result: %.600s", raw)
			}
			if res.ForModel(0) == "" {
				t.Error("empty text for the model")
			}
		})
	}

	// A 2 s operation with progress every 0.4 s outlives the 0.9 s timeout.
	var n int
	var mu sync.Mutex
	res, err := m.CallTool(t.Context(), "everything__trigger-long-running-operation", json.RawMessage(`{"duration":2,"steps":5}`), func(Progress) {
		mu.Lock()
		n++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(res.ForModel(0), "completed") || n < 4 {
		t.Errorf("long operation: %q after %d progress notifications", res.ForModel(0), n)
	}
}

func TestEverythingProtocolHint(t *testing.T) {
	e := requireNode(t)
	var learned string
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH, OnProtocol: func(_, v string) { learned = v }})
	m.Add(everythingStdio("ev"))
	waitState(t, m, "ev", 30*time.Second, StateConnected)
	m.Close()
	if learned != "2025-11-25" {
		t.Fatalf("learned protocol %q, want 2025-11-25", learned)
	}

	// Doctor times connecting (process start, handshake, tools/list); runs
	// alternate so Node's warm-up does not favour either.
	cold := NewManager(&Options{ShellPATH: e.PATH})
	hinted := NewManager(&Options{ShellPATH: e.PATH, ProtocolHints: map[string]string{"ev": learned}})
	const runs = 5
	var without, with time.Duration
	for range runs {
		for _, mm := range []*Manager{cold, hinted} {
			r := mm.Doctor(t.Context(), []serverconf.Config{everythingStdio("ev")})[0]
			if r.State != StateConnected {
				t.Fatalf("doctor: %+v", r)
			}
			if mm == cold {
				without += r.ConnectTime
			} else {
				with += r.ConnectTime
			}
		}
	}
	t.Logf("server-everything stdio connect, mean of %d: %s probing server/discover first, %s with the protocol hint",
		runs, (without / runs).Round(time.Millisecond), (with / runs).Round(time.Millisecond))
}

func TestEverythingRemote(t *testing.T) {
	e := requireNode(t)
	tests := []struct {
		mode, path string
		transport  serverconf.Transport
	}{
		{"sse", "/sse", serverconf.TransportSSE},
		{"streamableHttp", "/mcp", serverconf.TransportHTTP},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			base := startEverythingHTTP(t, e, tt.mode)
			m, _ := newTestManager(t, &Options{PingInterval: 200 * time.Millisecond})
			start := time.Now()
			m.Add(serverconf.Config{ID: "ev", Transport: tt.transport, URL: base + tt.path, Enabled: true,
				Headers: map[string]serverconf.Value{"X-Test": {Plain: "1"}}})
			st := waitState(t, m, "ev", 30*time.Second, StateConnected, StateFailed)
			if st.State != StateConnected {
				t.Fatalf("%s: %s", st.State, st.Reason)
			}
			t.Logf("server-everything (%s) connected in %s, protocol %s", tt.mode, time.Since(start).Round(time.Millisecond), st.ProtocolVersion)
			if got := callText(t, m, "ev__echo", `{"message":"over http"}`); !strings.Contains(got, "over http") {
				t.Errorf("echo = %q", got)
			}
			res, err := m.CallTool(t.Context(), "ev__get-tiny-image", nil, nil)
			if err != nil || !slices.ContainsFunc(res.Content, func(c Content) bool { return c.Type == ContentImage }) {
				t.Errorf("image: %v", err)
			}
			time.Sleep(500 * time.Millisecond) // a few pings
			if st, _ := m.Status("ev"); st.State != StateConnected {
				t.Errorf("after pings: %s %s", st.State, st.Reason)
			}
		})
	}
}

func TestFilesystemServer(t *testing.T) {
	e := requireNode(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the filesystem"), 0o644)
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	m.Add(serverconf.Config{ID: "fs", Transport: serverconf.TransportStdio, Command: "mcp-server-filesystem", Args: []string{dir}, Enabled: true})
	st := waitState(t, m, "fs", 30*time.Second, StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("%s: %s", st.State, st.Reason)
	}
	if got := callText(t, m, "fs__list_directory", fmt.Sprintf(`{"path":%q}`, dir)); !strings.Contains(got, "hello.txt") {
		t.Errorf("list_directory = %q", got)
	}
	if got := callText(t, m, "fs__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "hello.txt"))); got != "hello from the filesystem" {
		t.Errorf("read_text_file = %q", got)
	}
	// Outside the allowed directory: an error result the model can read.
	res, err := m.CallTool(t.Context(), "fs__read_text_file", json.RawMessage(`{"path":"/etc/hostname"}`), nil)
	if err != nil || !res.IsError {
		t.Errorf("outside access: %+v, %v", res, err)
	}
	// The server's stderr banner was captured.
	if lines := m.Stderr("fs").Lines(0, 0); len(lines) < 2 {
		t.Errorf("stderr: %v", lines)
	}
}

func TestMemoryServer(t *testing.T) {
	e := requireNode(t)
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	m.Add(serverconf.Config{ID: "mem", Transport: serverconf.TransportStdio, Command: "mcp-server-memory", Enabled: true,
		Env: map[string]serverconf.Value{"MEMORY_FILE_PATH": {Plain: filepath.Join(t.TempDir(), "memory.jsonl")}}})
	waitState(t, m, "mem", 30*time.Second, StateConnected)
	callText(t, m, "mem__create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`)
	if got := callText(t, m, "mem__read_graph", `{}`); !strings.Contains(got, "wrote the first program") {
		t.Errorf("read_graph = %q", got)
	}
}

func TestCloseTenNodeServers(t *testing.T) {
	e := requireNode(t)
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	var ids []string
	for i := range 10 {
		id := fmt.Sprintf("s%d", i)
		cfg := everythingStdio(id)
		if i%2 == 1 {
			cfg = serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: "mcp-server-memory", Enabled: true,
				Env: map[string]serverconf.Value{"MEMORY_FILE_PATH": {Plain: filepath.Join(t.TempDir(), "m.jsonl")}}}
		}
		m.Add(cfg)
		ids = append(ids, id)
	}
	start := time.Now()
	var pids []int
	for _, id := range ids {
		waitState(t, m, id, 60*time.Second, StateConnected)
		m.mu.Lock()
		s := m.servers[id]
		m.mu.Unlock()
		s.mu.Lock()
		pids = append(pids, s.sess.proc.cmd.Process.Pid)
		s.mu.Unlock()
	}
	t.Logf("10 Node servers connected in %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	m.Close()
	d := time.Since(start)
	t.Logf("closing 10 Node servers took %s", d.Round(time.Millisecond))
	if d > 3*time.Second {
		t.Errorf("Close took %s, want < 3s", d)
	}
	for _, pid := range pids {
		if processAlive(pid) {
			t.Errorf("pid %d still alive after Close", pid)
		}
	}
}

package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// TestDoctorVerdicts is the check: one good, one missing-command
// and one crashing server each get the right verdict, and doctor exits
// non-zero.
func TestDoctorVerdicts(t *testing.T) {
	nodeOnPath(t, "mcp-server-memory")
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {
		"good": {"command": "mcp-server-memory", "env": {"MEMORY_FILE_PATH": "`+filepath.Join(dir, "mem.json")+`"}},
		"ghost": {"command": "no-such-mcp-server-xyz"},
		"crasher": {"command": "node", "args": ["-e", "console.error('fatal: cannot read /etc/crasher.toml'); process.exit(3)"]}
	}}`)
	code, out, _ := run(t, dir, "", "doctor")
	if code == 0 {
		t.Errorf("doctor exited 0 with two broken servers:\n%s", out)
	}
	for _, want := range []string{
		"ok    server good connected",
		"FAIL  server ghost no-such-mcp-server-xyz not found on PATH",
		"FAIL  server crasher the server exited during startup with exit status 3",
		"stderr | fatal: cannot read /etc/crasher.toml",
		"ok    database",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// TestAskDeniesWhenItCannotAsk: stdin is not a terminal, so a tool call
// that needs approval is denied (and the model told), unless --allow says
// otherwise for this run.
func TestAskDeniesWhenItCannotAsk(t *testing.T) {
	nodeOnPath(t, "mcp-server-memory")
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {"memory": {"command": "mcp-server-memory", "env": {"MEMORY_FILE_PATH": "`+filepath.Join(dir, "mem.json")+`"}}}}`)
	srv := llmtest.NewServer(t, nil) // echoes, and calls "use tool NAME {json}"

	code, out, errOut := run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m", `use tool memory__read_graph {}`)
	if code != 0 || !strings.Contains(errOut, "denied: no terminal to ask on") || !strings.Contains(errOut, "memory__read_graph: denied") {
		t.Fatalf("without --allow: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m", "--allow", "read_graph", `use tool memory__read_graph {}`)
	if code != 0 || !strings.Contains(errOut, "memory__read_graph: done") || !strings.Contains(errOut, `"entities"`) {
		t.Fatalf("with --allow: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

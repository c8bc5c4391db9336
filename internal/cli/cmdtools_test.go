package cli

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// A script adds command tools from a file, sees them listed, and ask runs
// one only when --allow lets it (there is no terminal to ask on).
func TestServersAddCommandAndAsk(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no touch")
	}
	dir := t.TempDir()
	work := t.TempDir()
	file := filepath.Join(t.TempDir(), "tools.jsonc")
	os.WriteFile(file, []byte(`{
		// made by hand
		"name": "Files",
		"env": {"LC_ALL": "C"},
		"tools": [{
			"name": "touch",
			"description": "Creates an empty file.",
			"inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
			"command": ["touch", "--", "{{path}}"],
			"cwd": "`+work+`",
			"timeout": "10s",
		}],
	}`), 0o600)
	code, stdout, stderr := run(t, dir, "", "servers", "add-command", file)
	if code != 0 || !strings.Contains(stdout, "added server files with 1 command tools: files__touch") || !strings.Contains(stdout, "--allow files/TOOL") {
		t.Fatalf("add-command: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = run(t, dir, "", "servers", "list")
	if code != 0 || !regexpLine(stdout, `^files\s+Files\s+command\s+true\s+1 command tools: touch$`) {
		t.Errorf("list:\n%s", stdout)
	}

	marker := filepath.Join(work, "made")
	ask := func(extra ...string) (int, string) {
		t.Helper()
		llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
			llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "files__touch", Arguments: []string{`{"path": "made"}`}}),
			llmtest.Text("done"),
		}})
		args := append([]string{"ask", "--base-url", llm.URL, "--model", "m", "--wait-servers", "20s"}, extra...)
		code, stdout, stderr := run(t, dir, "", append(args, "make the file")...)
		return code, stdout + stderr
	}
	if code, out := ask(); code != 0 {
		t.Fatalf("ask: %d %s", code, out)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ask without --allow ran the tool (%v)", err)
	}
	if code, out := ask("--allow", "files/touch"); code != 0 {
		t.Fatalf("ask --allow: %d %s", code, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("ask --allow files/touch did not run the tool: %v", err)
	}
	code, stdout, stderr = run(t, dir, "", "servers", "log", "files")
	if code != 0 || !strings.Contains(stdout, "run touch: touch -- made (in "+work+")") || !strings.Contains(stdout, "touch: exit status 0") {
		t.Errorf("servers log: %d\n%s%s", code, stdout, stderr)
	}

	// Added again: refused without -replace, then replaced.
	if code, _, stderr := run(t, dir, "", "servers", "add-command", file); code != 1 || !strings.Contains(stderr, "add -replace") {
		t.Errorf("add again: %d %q", code, stderr)
	}
	if code, stdout, stderr := run(t, dir, "", "servers", "add-command", "-replace", file); code != 0 || !strings.Contains(stdout, "replaced server files") {
		t.Errorf("-replace: %d %q %q", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, dir, "", "servers", "export"); code != 0 || strings.Contains(stdout, "touch") || !strings.Contains(stderr, "command tools") {
		t.Errorf("export: %d %q %q", code, stdout, stderr)
	}
}

// A wrong file says what is wrong with each field, and adds nothing.
func TestServersAddCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, file string
		says       []string
	}{
		{"bad schema and placeholders", `{"id": "x", "tools": [
			{"name": "a", "inputSchema": {"type": "string"}, "command": ["rg", "{{p}}"]},
			{"name": "b", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}, "command": ["rg", "{{p}}", "{{q"]},
			{"name": "c", "command": []},
			{"name": "d", "command": ["sh", "-c", "rg {{q}}"], "inputSchema": {"type": "object", "properties": {"q": {}}}}]}`,
			[]string{"is not valid; nothing was changed", `tools[0].inputSchema: must have "type": "object"`,
				"tools[1].command[1]: uses {{p}}, which is not a property of the tool's input schema (q)",
				"tools[1].command[2]: has an unfinished placeholder", "tools[2].command: is required",
				"tools[3].command[2]: is code that sh reads"}},
		{"unknown field", `{"id": "x", "tools": [{"name": "a", "command": ["ls"], "args": ["-l"]}]}`, []string{`tools[0] has an unknown field "args"`}},
		{"unknown top field", `{"id": "x", "tool": []}`, []string{`unknown field "tool"`}},
		{"bad timeout", `{"id": "x", "tools": [{"name": "a", "command": ["ls"], "timeout": "soon"}]}`, []string{"write it as 30s"}},
		{"not JSON", `{"id": `, []string{"not JSON"}},
	} {
		file := filepath.Join(t.TempDir(), "tools.json")
		os.WriteFile(file, []byte(tt.file), 0o600)
		code, stdout, stderr := run(t, dir, "", "servers", "add-command", file)
		if code != 1 {
			t.Errorf("%s: exit %d\n%s%s", tt.name, code, stdout, stderr)
		}
		for _, s := range tt.says {
			if !strings.Contains(stderr, s) {
				t.Errorf("%s: stderr lacks %q:\n%s", tt.name, s, stderr)
			}
		}
	}
	if _, stdout, _ := run(t, dir, "", "servers", "list"); !strings.Contains(stdout, "No MCP servers") {
		t.Errorf("a refused file added something:\n%s", stdout)
	}
	// A command server does not replace a server of another kind.
	mustImport(t, dir, `{"mcpServers": {"x": {"command": "mcp-x"}}}`)
	file := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(file, []byte(`{"id": "x", "tools": [{"name": "a", "command": ["ls"]}]}`), 0o600)
	if code, _, stderr := run(t, dir, "", "servers", "add-command", "-replace", file); code != 1 || !strings.Contains(stderr, "is a stdio server") {
		t.Errorf("replacing a stdio server: %d %q", code, stderr)
	}
}

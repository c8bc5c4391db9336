package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// TestResourcesCommands: a script lists a server's resources and reads
// one, fills in a template, and saves binary data only with -o.
func TestResourcesCommands(t *testing.T) {
	dir := t.TempDir()
	importEverything(t, dir)

	code, out, errOut := run(t, dir, "", "resources", "list", "everything")
	if code != 0 || !strings.Contains(out, "demo://resource/static/document/features.md") || !strings.Contains(out, "TEMPLATE") ||
		!strings.Contains(out, "demo://resource/dynamic/text/{resourceId}") {
		t.Fatalf("list: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "resources", "list", "-json", "everything")
	var list mcpconn.ResourceList
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Resources) == 0 {
		t.Fatalf("list -json: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	code, out, errOut = run(t, dir, "", "resources", "read", "everything", "demo://resource/static/document/features.md")
	if code != 0 || !strings.HasPrefix(out, "# ") {
		t.Fatalf("read: exit %d\nstdout %.300s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "resources", "read", "everything", "demo://resource/dynamic/text/{resourceId}", "resourceId=7")
	if code != 0 || !strings.HasPrefix(out, "Resource 7: This is a plaintext resource") {
		t.Fatalf("read a template: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	// Binary data is not printed; -o saves it.
	code, out, errOut = run(t, dir, "", "resources", "read", "everything", "demo://resource/dynamic/blob/2")
	if code != 1 || out != "" || !strings.Contains(errOut, "is binary (text/plain") || !strings.Contains(errOut, "-o FILE") {
		t.Fatalf("read binary: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "blob.txt")
	code, _, errOut = run(t, dir, "", "resources", "read", "-o", file, "everything", "demo://resource/dynamic/blob/2")
	if data, _ := os.ReadFile(file); code != 0 || !strings.HasPrefix(string(data), "Resource 2: This is a base64 blob") {
		t.Fatalf("read -o: exit %d, file %q\nstderr %s", code, data, errOut)
	}

	code, _, errOut = run(t, dir, "", "resources", "read", "everything", "demo://resource/nowhere")
	if code != 1 || !strings.Contains(errOut, "everything answered with an error") {
		t.Fatalf("an unknown resource: exit %d\nstderr %s", code, errOut)
	}
	code, _, errOut = run(t, dir, "", "resources", "list", "nobody")
	if code != 1 || !strings.Contains(errOut, `no server "nobody"`) {
		t.Fatalf("an unknown server: exit %d\nstderr %s", code, errOut)
	}
}

// TestPromptsCommands: a script lists a server's prompts and fills one in.
func TestPromptsCommands(t *testing.T) {
	dir := t.TempDir()
	importEverything(t, dir)

	code, out, errOut := run(t, dir, "", "prompts", "list", "everything")
	if code != 0 || !strings.Contains(out, "args-prompt") || !strings.Contains(out, "city* state") {
		t.Fatalf("list: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "prompts", "get", "everything", "args-prompt", "city=Oslo")
	if code != 0 || out != "[user]\nWhat's weather in Oslo?\n" {
		t.Fatalf("get: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "prompts", "get", "everything", "resource-prompt", "resourceType=Text", "resourceId=1")
	if code != 0 || !strings.Contains(out, "[user]\n[resource <demo://resource/dynamic/text/1>]\nResource 1: This is a plaintext resource") {
		t.Fatalf("get with a resource: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, dir, "", "prompts", "get", "-json", "everything", "args-prompt", "city=Oslo")
	var p mcpconn.PromptResult
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Messages) != 1 {
		t.Fatalf("get -json: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = run(t, dir, "", "prompts", "get", "everything", "args-prompt", "city")
	if code != 2 || !strings.Contains(errOut, `"city" is not NAME=VALUE`) {
		t.Fatalf("a bad argument: exit %d\nstderr %s", code, errOut)
	}
	code, _, errOut = run(t, dir, "", "prompts", "get", "everything", "args-prompt")
	if code != 1 || !strings.Contains(errOut, "getting prompt args-prompt: everything answered with an error") {
		t.Fatalf("a missing argument: exit %d\nstderr %s", code, errOut)
	}
}

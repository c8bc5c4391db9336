package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

func TestUnknownCommand(t *testing.T) {
	code, _, stderr := run(t, t.TempDir(), "", "frobnicate")
	if code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

func TestPathsWithoutDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	dir := t.TempDir()
	code, stdout, _ := run(t, dir, "", "paths")
	if code != 0 || !strings.Contains(stdout, filepath.Join(dir, "switchboard.db")) {
		t.Fatalf("code %d, stdout %q", code, stdout)
	}
}

func TestAskStreamsAndStores(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.Text("Hello ", "from the ", "fake provider.")}})
	dir := t.TempDir()
	code, stdout, stderr := run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m1", "say hello")
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	if stdout != "Hello from the fake provider.\n" {
		t.Errorf("stdout = %q", stdout)
	}
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hits, err := st.Search(context.Background(), "fake provider", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("the exchange was not stored: %v %v", hits, err)
	}
}

func TestAskProviderErrorExitsNonZero(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.AuthError()}})
	code, _, stderr := run(t, t.TempDir(), "", "ask", "--base-url", srv.URL, "--model", "m1", "hi")
	if code != 1 || !strings.Contains(strings.ToLower(stderr), "key") {
		t.Fatalf("exit %d; stderr %q should say the key was refused", code, stderr)
	}
}

func TestAskWithoutProvider(t *testing.T) {
	code, _, stderr := run(t, t.TempDir(), "", "ask", "hi")
	if code != 1 || !strings.Contains(stderr, "Settings") {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
}

// TestServersImportIsAllOrNothing: one bad entry (a command that is not a
// string, a URL without a scheme) fails the whole import, the error names
// each bad server and field, and nothing is saved.
func TestServersImportIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	os.WriteFile(file, []byte(`{"mcpServers": {"files": {"command": "mcp-files", "args": ["/tmp"]}, "bad": {"command": 7}, "noscheme": {"url": "example.com/mcp"}}}`), 0o600)
	code, _, stderr := run(t, dir, "", "servers", "import", file)
	if code != 1 || !strings.Contains(stderr, "Nothing was imported") || !strings.Contains(stderr, `"bad": command`) || !strings.Contains(stderr, `"noscheme": url`) {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	code, stdout, _ := run(t, dir, "", "servers", "list")
	if code != 0 || strings.Contains(stdout, "files") {
		t.Fatalf("list after a refused import: exit %d; stdout %q", code, stdout)
	}
	os.WriteFile(file, []byte(`not json at all`), 0o600)
	code, _, stderr = run(t, dir, "", "servers", "import", file)
	if code != 1 || !strings.Contains(stderr, "Nothing was imported") {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
}

func TestProvidersAddTestList(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{APIKey: "sk-good"})
	dir := t.TempDir()
	if code, _, errOut := run(t, dir, "sk-good\n", "providers", "add", "-id", "local", "-preset", "custom", "-base-url", srv.URL, "-model", "m1", "-key-stdin"); code != 0 {
		t.Fatalf("add: exit %d: %s", code, errOut)
	}
	// The keyring is not reachable in this test: the key lived for that
	// command only, so the test now says exactly what is wrong.
	code, out, _ := run(t, dir, "", "providers", "test", "local")
	if code != 1 || !strings.Contains(strings.ToLower(out), "key") {
		t.Errorf("test without the key: exit %d: %s", code, out)
	}
	code, out, _ = run(t, dir, "", "providers", "list")
	if code != 0 || !strings.Contains(out, "local") || !strings.Contains(out, srv.URL) {
		t.Errorf("list: exit %d: %s", code, out)
	}
	if code, _, _ := run(t, dir, "", "providers", "remove", "local"); code != 0 {
		t.Errorf("remove failed")
	}
}

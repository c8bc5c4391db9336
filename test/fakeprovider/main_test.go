package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/test/internal/testcmd"
)

func TestRunServesScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"models":["scripted"],"replies":[{"content":["Hi"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url := testcmd.Start(t, run, "-addr", "127.0.0.1:0", "-script", script)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("first line %q is not a base URL", url)
	}
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"scripted"`) {
		t.Errorf("models = %s", b)
	}
}

func TestRunBadScript(t *testing.T) {
	if err := run([]string{"-script", "/nonexistent.json"}, io.Discard, nil); err == nil ||
		!strings.Contains(err.Error(), "reading script") {
		t.Errorf("err = %v", err)
	}
}

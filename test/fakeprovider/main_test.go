package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunServesScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"models":["scripted"],"replies":[{"content":["Hi"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, w := io.Pipe()
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-addr", "127.0.0.1:0", "-script", script}, w, stop) }()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
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
	stop <- os.Interrupt
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestRunBadScript(t *testing.T) {
	if err := run([]string{"-script", "/nonexistent.json"}, io.Discard, nil); err == nil ||
		!strings.Contains(err.Error(), "reading script") {
		t.Errorf("err = %v", err)
	}
}

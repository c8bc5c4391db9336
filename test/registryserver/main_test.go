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

func TestRunServesTheFixture(t *testing.T) {
	base := testcmd.Start(t, run, "-addr", "127.0.0.1:0")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a base URL", base)
	}
	resp, err := http.Get(base + "/v0.1/servers?search=sequential&version=latest")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"name":"io.github.modelcontextprotocol/server-sequential-thinking"`) ||
		!strings.Contains(string(b), `"count":1`) {
		t.Errorf("search = %s", b)
	}
}

func TestRunBadData(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"servers": [{"server": {}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-data", "/nonexistent.json"}, {"-data", bad}} {
		if err := run(args, io.Discard, nil); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
}

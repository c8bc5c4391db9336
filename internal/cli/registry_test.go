package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/test/registryserver/registry"
)

// registryURL serves the local registry's fixture in process.
func registryURL(t *testing.T) string {
	t.Helper()
	entries, err := registry.Load("../../test/registryserver/testdata/servers.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.NewHandler(entries, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRegistrySearch(t *testing.T) {
	url := registryURL(t)
	code, stdout, stderr := run(t, t.TempDir(), "", "registry", "search", "memory", "--registry", url)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`io.github.modelcontextprotocol/server-memory +2026.8.31 +npm +MCP server for enabling memory`).MatchString(stdout) ||
		strings.Contains(stdout, "More:") {
		t.Errorf("stdout:\n%s", stdout)
	}

	// Page to the end with the cursors it prints.
	var names []string
	args := []string{"registry", "search", "--limit", "4", "--registry", url}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the pages never end")
		}
		code, stdout, stderr = run(t, t.TempDir(), "", args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		names = append(names, regexp.MustCompile(`(?m)^(\S+/\S+) `).FindAllString(stdout, -1)...)
		m := regexp.MustCompile(`More: switchboard registry search --limit 4 --cursor (\S+)`).FindStringSubmatch(stdout)
		if m == nil {
			break
		}
		args = []string{"registry", "search", "--limit", "4", "--cursor", strings.Trim(m[1], "'"), "--registry", url}
	}
	if len(names) != 11 {
		t.Errorf("%d servers over the pages: %v", len(names), names)
	}

	code, stdout, _ = run(t, t.TempDir(), "", "registry", "search", "weather", "--registry", url)
	if code != 0 || !regexp.MustCompile(`com.example/weather-remote +1.4.0 +remote `).MatchString(stdout) ||
		!strings.Contains(stdout, "[deprecated] Legacy weather server") {
		t.Errorf("weather:\n%s", stdout)
	}
	code, stdout, _ = run(t, t.TempDir(), "", "registry", "search", "no-such-thing", "--registry", url)
	if code != 0 || !strings.Contains(stdout, `No server's name or description contains "no-such-thing"`) {
		t.Errorf("nothing found:\n%s", stdout)
	}
	code, stdout, _ = run(t, t.TempDir(), "", "registry", "search", "fetch", "--json", "--registry", url)
	var page struct {
		Entries []struct {
			Server struct{ Name string } `json:"server"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(stdout), &page); code != 0 || err != nil || len(page.Entries) != 1 ||
		page.Entries[0].Server.Name != "io.github.modelcontextprotocol/server-fetch" {
		t.Errorf("json: %v\n%s", err, stdout)
	}
}

// TestRegistryUsesTheSetting: without --registry, search reads the
// registry the mcp-registry setting names.
func TestRegistryUsesTheSetting(t *testing.T) {
	url := registryURL(t)
	dir := t.TempDir()
	if code, _, stderr := run(t, dir, "", "settings", "set", "mcp-registry", url); code != 0 {
		t.Fatalf("settings set: %s", stderr)
	}
	code, stdout, stderr := run(t, dir, "", "registry", "search", "fetch")
	if code != 0 || !strings.Contains(stdout, "io.github.modelcontextprotocol/server-fetch") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

func TestRegistryShow(t *testing.T) {
	url := registryURL(t)
	code, stdout, stderr := run(t, t.TempDir(), "", "registry", "show", "io.github.github/github-mcp-server", "--registry", url)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"io.github.github/github-mcp-server 0.20.2  (GitHub)",
		"  0  oci ghcr.io/github/github-mcp-server:0.20.2 (stdio, runs with docker)",
		`     adds: stdio server "github"`,
		"     runs: docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN=<token> -e GITHUB_TOOLSETS ghcr.io/github/github-mcp-server:0.20.2",
		"     arg.e.token  (required, secret (kept in the OS keyring)) — GitHub personal access token",
		"     env.GITHUB_TOOLSETS  (optional, default default) — Comma-separated toolsets to enable",
		"     note: Runs with docker, which Switchboard does not install",
		"* 1  remote streamable-http https://api.githubcopilot.com/mcp/",
		`     adds: remote server "github" at https://api.githubcopilot.com/mcp/`,
		"     header.Authorization.token  (required, secret (kept in the OS keyring))",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not have %q:\n%s", want, stdout)
		}
	}

	code, stdout, _ = run(t, t.TempDir(), "", "registry", "show", "--registry", url, "io.github.modelcontextprotocol/server-everything")
	if code != 0 || !strings.Contains(stdout, "     not usable: the npm package @modelcontextprotocol/server-everything runs its own streamable-http server on this machine") ||
		!strings.Contains(stdout, "     runs: <@modelcontextprotocol/server-everything@2026.8.31> stdio") {
		t.Errorf("everything:\n%s", stdout)
	}

	code, stdout, _ = run(t, t.TempDir(), "", "registry", "show", "io.github.modelcontextprotocol/server-sequential-thinking", "--version", "0.6.2", "--json", "--registry", url)
	var shown struct {
		Entry struct {
			Server struct{ Version string } `json:"server"`
		} `json:"entry"`
		Options []struct {
			Index int `json:"index"`
			Kind  string
			Plan  *struct {
				Package, Version string
			} `json:"plan"`
		} `json:"options"`
		Preferred int `json:"preferred"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); code != 0 || err != nil || shown.Entry.Server.Version != "0.6.2" ||
		len(shown.Options) != 1 || shown.Options[0].Plan == nil || shown.Options[0].Plan.Version != "0.6.2" || shown.Preferred != 0 {
		t.Errorf("json: %v\n%s", err, stdout)
	}
}

func TestRegistryErrors(t *testing.T) {
	url := registryURL(t)
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>a web page</html>")
	}))
	defer html.Close()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"registry"}, 2, "usage: switchboard registry search"},
		{[]string{"registry", "frobnicate", "x"}, 2, "usage: switchboard registry search"},
		{[]string{"registry", "install"}, 2, "usage: switchboard registry install NAME"},
		{[]string{"registry", "install", "x"}, 1, "is not a registry server name"},
		{[]string{"registry", "show"}, 2, "usage:"},
		{[]string{"registry", "search", "--limit", "1000", "x"}, 2, "--limit is 1 to 100"},
		{[]string{"registry", "show", "io.github.nobody/nothing", "--registry", url}, 1, "no server io.github.nobody/nothing in the registry at"},
		{[]string{"registry", "show", "not-a-name", "--registry", url}, 1, "is not a registry server name"},
		{[]string{"registry", "search", "x", "--registry", "ftp://example.com"}, 1, "is not an http:// or https:// URL"},
		{[]string{"registry", "search", "x", "--registry", html.URL}, 1, "does not look like an MCP registry: it answered with text/html, not JSON; check the registry URL setting"},
	} {
		code, _, stderr := run(t, t.TempDir(), "", tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	code, stdout, _ := run(t, t.TempDir(), "", "registry", "--help")
	if code != 0 || !strings.Contains(stdout, "switchboard registry show NAME") {
		t.Errorf("help: %d %s", code, stdout)
	}
}

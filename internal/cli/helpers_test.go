package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/paths"
)

// run runs a subcommand against the data directory dataDir.
func run(t *testing.T, dataDir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv(paths.EnvDataDir, dataDir)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // never touch a real keyring
	var out, errb bytes.Buffer
	code = Run(context.Background(), &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// regexpLine reports whether a line of s matches pattern.
func regexpLine(s, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// importConfig writes a config file (any format servers import reads)
// into a new directory and imports it into dataDir.
func importConfig(t *testing.T, dataDir, json string) (code int, stdout, stderr string, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(file, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, dataDir, "", "servers", "import", file)
	return code, stdout, stderr, file
}

// mustImport imports config into the data directory dir, or fails the test.
func mustImport(t *testing.T, dir, config string) {
	t.Helper()
	if code, out, errOut, _ := importConfig(t, dir, config); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
}

// importHTTP imports the streamable-HTTP MCP server at url as name into
// the data directory dir.
func importHTTP(t *testing.T, dir, name, url string) {
	t.Helper()
	mustImport(t, dir, fmt.Sprintf(`{"servers":{%q:{"type":"http","url":%q}}}`, name, url))
}

// serveMCP serves srv over streamable HTTP until the test ends and returns
// its URL.
func serveMCP(t *testing.T, srv *mcp.Server) string {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// textResult is a tool result that says s.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// nodeOnPath puts node and the commands of the real Node test servers
// first on PATH, skipping the test when they are not installed.
func nodeOnPath(t *testing.T, commands ...string) {
	t.Helper()
	n := mcptest.Node(t, commands...)
	t.Setenv("PATH", n.Bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// importEverything adds server-everything (stdio) as "everything" to the
// data directory dir.
func importEverything(t *testing.T, dir string) {
	t.Helper()
	nodeOnPath(t, "mcp-server-everything")
	mustImport(t, dir, `{"mcpServers": {"everything": {"command": "mcp-server-everything", "args": ["stdio"]}}}`)
}

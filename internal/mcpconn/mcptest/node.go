package mcptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RequireNodeEnv set to 1 (make test, make drills and make bench set it)
// makes a test whose Node servers are not installed fail rather than skip.
const RequireNodeEnv = "SWITCHBOARD_REQUIRE_NODE_SERVERS"

// NodeServers is where `make test-deps` (npm ci in test/node) installed
// Node 22 and the real MCP servers the tests run.
type NodeServers struct {
	Node    string // Node 22
	Bin     string // node_modules/.bin: each server's command, and node
	Modules string // node_modules
}

// Node returns where Node 22 and the server commands named (as
// "mcp-server-everything") are. If one is missing, the test is skipped,
// or fails when SWITCHBOARD_REQUIRE_NODE_SERVERS=1.
func Node(t testing.TB, commands ...string) NodeServers {
	t.Helper()
	mods := filepath.Join(repoRoot(t), "test", "node", "node_modules")
	n := NodeServers{Node: filepath.Join(mods, ".bin", "node"), Bin: filepath.Join(mods, ".bin"), Modules: mods}
	need := []string{n.Node}
	for _, c := range commands {
		need = append(need, n.Command(c))
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			msg := fmt.Sprintf("the real MCP servers are not installed (%s is missing); run make test-deps", p)
			if os.Getenv(RequireNodeEnv) == "1" {
				t.Fatal(msg + " (" + RequireNodeEnv + "=1 requires them)")
			}
			t.Skip(msg)
		}
	}
	return n
}

// NodeServer returns the path of a server's command (as
// "mcp-server-memory"), checked as Node checks it.
func NodeServer(t testing.TB, command string) string {
	t.Helper()
	return Node(t, command).Command(command)
}

// Command is the path of a server's command in node_modules/.bin.
func (n NodeServers) Command(name string) string { return filepath.Join(n.Bin, name) }

// Script is the entry point of an @modelcontextprotocol package (as
// "server-everything"), to run with Node.
func (n NodeServers) Script(pkg string) string {
	return filepath.Join(n.Modules, "@modelcontextprotocol", pkg, "dist", "index.js")
}

// PATH is a search path where "node" is Node 22 and the servers' commands
// are found, then /usr/bin and /bin.
func (n NodeServers) PATH() string {
	return n.Bin + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
}

// repoRoot is the directory of go.mod, above the test's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

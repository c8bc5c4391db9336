package installer

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// The tests install real packages with the system's npm; they need Node 20
// or newer with npm, and the npm registry for the ones that download.

const seqThinking = "@modelcontextprotocol/server-sequential-thinking"

func systemRuntime(t *testing.T) func(context.Context) (Runtime, error) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm on PATH")
	}
	return func(context.Context) (Runtime, error) {
		return Runtime{Node: node, NPM: npm, Source: "system"}, nil
	}
}

func newTestInstaller(t *testing.T, registry string) (*Installer, string) {
	t.Helper()
	dir := t.TempDir()
	return New(&Options{DataDir: dir, Registry: registry, Runtime: systemRuntime(t)}), dir
}

// network skips a test that downloads from the npm registry in -short mode.
func network(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("downloads from the npm registry")
	}
}

// leftovers lists what is in the servers folder besides want.
func leftovers(t *testing.T, dataDir string, want ...string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(dataDir, "servers"))
	var out []string
	for _, e := range entries {
		if !contains(want, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// listTools starts the prepared config as a stdio MCP server and lists its
// tools, with npm's registry and every proxy pointed at a closed port.
func listTools(t *testing.T, in *Installer, cfg serverconf.Config) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err := in.Prepare(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(run.Command, run.Args...)
	cmd.Dir = run.Cwd
	cmd.Env = append(os.Environ(), "npm_config_registry=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9",
		"HTTPS_PROXY=http://127.0.0.1:9", "NPM_CONFIG_OFFLINE=true")
	c := mcp.NewClient(&mcp.Implementation{Name: "installer-test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting %s %v: %v", run.Command, run.Args, err)
	}
	defer s.Close()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestInstallUpdateUninstallFromRegistry(t *testing.T) {
	network(t)
	in, data := newTestInstaller(t, "")
	ctx := context.Background()
	cfg, err := in.Install(ctx, Request{Package: seqThinking + "@2025.12.18"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ID != "server-sequential-thinking" || cfg.Install.Version != "2025.12.18" || cfg.Install.Package != seqThinking {
		t.Fatalf("installed %+v %+v", cfg, cfg.Install)
	}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Fatalf("the config it returned does not validate: %v", err)
	}
	for _, f := range []string{"package.json", "package-lock.json", "node_modules/" + seqThinking + "/package.json"} {
		if _, err := os.Stat(filepath.Join(in.Dir(cfg.ID), f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	lock, _ := os.ReadFile(filepath.Join(in.Dir(cfg.ID), "package-lock.json"))
	if !strings.Contains(string(lock), `"integrity": "sha512-`) {
		t.Errorf("the lockfile keeps no integrity hashes")
	}
	if got := listTools(t, in, cfg); !contains(got, "sequentialthinking") {
		t.Fatalf("tools offline = %v", got)
	}

	cfg.Args = append(cfg.Args, "--user-arg") // the user's own args survive an update
	up, err := in.Update(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if up.Install.Version == "2025.12.18" || up.Install.Version == "" {
		t.Fatalf("update kept version %q", up.Install.Version)
	}
	if len(up.Args) != 2 || up.Args[1] != "--user-arg" || !strings.HasPrefix(up.Args[0], serverconf.InstallDirVar+"/") {
		t.Fatalf("update args = %v", up.Args)
	}
	up.Args = up.Args[:1]
	if got := listTools(t, in, up); !contains(got, "sequentialthinking") {
		t.Fatalf("tools after update = %v", got)
	}

	up.Install.Pinned = true
	if _, err := in.Update(ctx, up, ""); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("update of a pinned server = %v", err)
	}
	if err := in.Uninstall(up.ID); err != nil {
		t.Fatal(err)
	}
	if in.Installed(up.ID) || len(leftovers(t, data)) != 0 {
		t.Fatalf("left after uninstall: %v", leftovers(t, data))
	}
}

func TestFailedInstallsSayWhyAndLeaveNothing(t *testing.T) {
	network(t)
	in, data := newTestInstaller(t, "")
	ctx := context.Background()
	broken := filepath.Join(t.TempDir(), "broken.tgz")
	if err := os.WriteFile(broken, []byte("this is not a gzip file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  Request
		want error
		says string
	}{
		{"no such package", Request{Package: "@modelcontextprotocol/server-that-does-not-exist-4f1c"}, ErrNotFound, "check the package name"},
		{"no such version", Request{Package: seqThinking, Version: "99.99.99"}, ErrNoVersion, "no version 99.99.99"},
		{"broken tarball", Request{Package: broken}, ErrBadPackage, "not a valid npm package tarball"},
		{"not a name", Request{Package: "Bad Name!"}, ErrNotFound, "not an npm package name"},
		{"a shell in the version", Request{Package: seqThinking, Version: "1.0; rm -rf ~"}, ErrNoVersion, "not a version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := in.Install(ctx, c.req, nil)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v; want %v saying %q", err, c.want, c.says)
			}
			if l := leftovers(t, data); len(l) != 0 {
				t.Fatalf("left behind: %v", l)
			}
		})
	}
}

func TestUnreachableRegistry(t *testing.T) {
	in, data := newTestInstaller(t, "http://127.0.0.1:9/")
	_, err := in.Install(context.Background(), Request{Package: "@modelcontextprotocol/server-memory-nope-x", Version: "1.0.0"}, nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "http://127.0.0.1:9/") {
		t.Fatalf("err = %v", err)
	}
	if l := leftovers(t, data); len(l) != 0 {
		t.Fatalf("left behind: %v", l)
	}
}

// A self-contained package tarball installs with the registry unreachable.
func TestInstallTarballOffline(t *testing.T) {
	in, _ := newTestInstaller(t, "http://127.0.0.1:9/")
	tgz := writeTarball(t, map[string]string{
		"package/package.json":  `{"name":"@acme/echo-server","version":"1.4.0","bin":{"echo-server":"bin/server.js","other":"bin/other.js"}}`,
		"package/bin/server.js": "console.log('hi')\n",
		"package/bin/other.js":  "",
	})
	cfg, err := in.Install(context.Background(), Request{Package: tgz}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ID != "echo-server" {
		t.Fatalf("the ID of a tarball's server is %q, not its package's name", cfg.ID)
	}
	if err := in.Uninstall(cfg.ID); err != nil {
		t.Fatal(err)
	}
	cfg, err = in.Install(context.Background(), Request{Package: tgz, ID: "echo"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Install.Package != "@acme/echo-server" || cfg.Install.Version != "1.4.0" || cfg.Install.File != filepath.Base(tgz) ||
		cfg.Install.Bin != "echo-server" {
		t.Fatalf("install = %+v", cfg.Install)
	}
	run, err := in.Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(run.Command, run.Args...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hi" {
		t.Fatalf("running %v: %s %v", run.Args, out, err)
	}
	// The tarball was copied in: the install does not depend on where it
	// came from.
	if _, err := os.Stat(filepath.Join(in.Dir("echo"), filepath.Base(tgz))); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(context.Background(), Request{Package: tgz, ID: "echo"}, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("second install = %v", err)
	}
}

func TestPackageCommandChoice(t *testing.T) {
	for _, c := range []struct {
		pj, want, got, err string
	}{
		{`{"name":"@s/a","bin":"x.js"}`, "", "x.js", ""},
		{`{"name":"@s/a","bin":{"a":"./dist/a.js","b":"b.js"}}`, "", "dist/a.js", ""},
		{`{"name":"@s/a","bin":{"c":"c.js","b":"b.js"}}`, "", "", "several commands (b, c)"},
		{`{"name":"@s/a","bin":{"c":"c.js","b":"b.js"}}`, "b", "b.js", ""},
		{`{"name":"@s/a","bin":{"c":"c.js"}}`, "z", "", `no command "z"`},
		{`{"name":"@s/a"}`, "", "", "no command"},
		{`{"name":"@s/a","bin":"../../../etc/passwd"}`, "", "", "outside the package"},
		{`{"name":"@s/a","bin":"/usr/bin/id"}`, "", "", "outside the package"},
	} {
		var pj packageJSON
		if err := jsonUnmarshal(c.pj, &pj); err != nil {
			t.Fatal(err)
		}
		_, got, err := pj.entry(c.want)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.pj, err, c.err)
			}
			continue
		}
		if err != nil || got != c.got {
			t.Errorf("%s: got %q, %v; want %q", c.pj, got, err, c.got)
		}
	}
}

func writeTarball(t *testing.T, files map[string]string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "acme-echo-server-1.4.0.tgz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
	return file
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func TestSweepLeavesYoungStaging(t *testing.T) {
	dir := t.TempDir()
	in := New(&Options{DataDir: dir})
	old := filepath.Join(dir, "servers", ".staging-a-1")
	young := filepath.Join(dir, "servers", ".staging-b-2")
	kept := filepath.Join(dir, "servers", "a")
	for _, d := range []string{old, young, kept} {
		os.MkdirAll(d, 0o700)
	}
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, past, past)
	os.Chtimes(kept, past, past)
	in.Sweep()
	if got := leftovers(t, dir); len(got) != 2 || got[0] != ".staging-b-2" || got[1] != "a" {
		t.Fatalf("after Sweep: %v", got)
	}
}

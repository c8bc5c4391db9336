//go:build unix

package noderuntime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// installNode lays out a Node installation under prefix: bin/node that
// says it is v, and npm as kind says: "cli" for lib/node_modules/npm, "exe"
// for an npm executable in bin, "" for none.
func installNode(t *testing.T, prefix, v, npm string) {
	t.Helper()
	writeTestFile(t, filepath.Join(prefix, "bin", "node"), nodeScript(v), 0o755)
	switch npm {
	case "cli":
		writeTestFile(t, filepath.Join(prefix, "lib", "node_modules", "npm", "bin", "npm-cli.js"), "// npm", 0o644)
	case "exe":
		writeTestFile(t, filepath.Join(prefix, "bin", "npm"), "#!/bin/sh\n", 0o755)
	}
}

// fetchNode lays out what Fetch puts in data: node v and npm with engines.
func fetchNode(t *testing.T, data, v string) {
	t.Helper()
	writeTestFile(t, filepath.Join(data, "runtime", "node", v, "bin", "node"), nodeScript(v), 0o755)
}

func fetchNPM(t *testing.T, data, v, engines string) {
	t.Helper()
	dir := filepath.Join(data, "runtime", "npm", v)
	writeTestFile(t, filepath.Join(dir, "bin", "npm-cli.js"), "// npm", 0o644)
	writeTestFile(t, filepath.Join(dir, "package.json"), `{"name":"npm","engines":{"node":"`+engines+`"}}`, 0o644)
}

// systemNode is what Find reports for installNode(t, prefix, v, "cli").
func systemNode(prefix, v string) Node {
	return Node{Path: filepath.Join(prefix, "bin", "node"), Version: v, Source: SourceSystem,
		NPM: filepath.Join(prefix, "lib", "node_modules", "npm", "bin", "npm-cli.js")}
}

// fetchedNode is what Find reports for fetchNode(t, data, v) with the npm
// of fetchNPM(t, data, npm, ...); npm "" means none fits.
func fetchedNode(data, v, npm string) Node {
	n := Node{Path: filepath.Join(data, "runtime", "node", v, "bin", "node"), Version: v, Source: SourceSwitchboard}
	if npm != "" {
		n.NPM = filepath.Join(data, "runtime", "npm", npm, "bin", "npm-cli.js")
	}
	return n
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, data string) FindOptions
		want  func(root, data string) Node
	}{
		{
			name: "system with npm beats fetched",
			setup: func(t *testing.T, root, data string) FindOptions {
				installNode(t, filepath.Join(root, "sys"), "22.1.0", "cli")
				fetchNode(t, data, "24.0.0")
				fetchNPM(t, data, "11.0.0", ">=20")
				return FindOptions{PathList: filepath.Join(root, "sys", "bin")}
			},
			want: func(root, _ string) Node {
				return systemNode(filepath.Join(root, "sys"), "22.1.0")
			},
		},
		{
			name: "PATH order, not the newest",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "a"), "20.3.0", "cli")
				installNode(t, filepath.Join(root, "b"), "24.1.0", "cli")
				return FindOptions{PathList: filepath.Join(root, "a", "bin") + ":" + filepath.Join(root, "b", "bin")}
			},
			want: func(root, _ string) Node {
				return systemNode(filepath.Join(root, "a"), "20.3.0")
			},
		},
		{
			name: "too old and broken nodes are passed over",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "old"), "18.19.0", "cli")
				writeTestFile(t, filepath.Join(root, "broken", "bin", "node"), "#!/bin/sh\nexit 3\n", 0o755)
				writeTestFile(t, filepath.Join(root, "noexec", "bin", "node"), nodeScript("24.0.0"), 0o644)
				installNode(t, filepath.Join(root, "good"), "22.2.0", "cli")
				return FindOptions{PathList: strings.Join([]string{
					filepath.Join(root, "old", "bin"), filepath.Join(root, "broken", "bin"),
					filepath.Join(root, "noexec", "bin"), filepath.Join(root, "good", "bin")}, ":")}
			},
			want: func(root, _ string) Node {
				return systemNode(filepath.Join(root, "good"), "22.2.0")
			},
		},
		{
			name: "too old system: fetched",
			setup: func(t *testing.T, root, data string) FindOptions {
				installNode(t, filepath.Join(root, "sys"), "18.19.0", "cli")
				fetchNode(t, data, "22.10.0")
				fetchNPM(t, data, "11.0.0", "^20.17.0 || >=22.9.0")
				return FindOptions{PathList: filepath.Join(root, "sys", "bin")}
			},
			want: func(_, data string) Node {
				return fetchedNode(data, "22.10.0", "11.0.0")
			},
		},
		{
			name: "system without npm: fetched",
			setup: func(t *testing.T, root, data string) FindOptions {
				installNode(t, filepath.Join(root, "sys"), "22.1.0", "")
				fetchNode(t, data, "22.10.0")
				fetchNPM(t, data, "11.0.0", "^20.17.0 || >=22.9.0")
				return FindOptions{PathList: filepath.Join(root, "sys", "bin")}
			},
			want: func(_, data string) Node {
				return fetchedNode(data, "22.10.0", "11.0.0")
			},
		},
		{
			name: "system without npm and nothing fetched: system, no npm",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "sys"), "22.1.0", "")
				return FindOptions{PathList: filepath.Join(root, "sys", "bin")}
			},
			want: func(root, _ string) Node {
				return Node{Path: filepath.Join(root, "sys", "bin", "node"), Version: "22.1.0", Source: SourceSystem}
			},
		},
		{
			name: "newest fetched node, with the newest npm that supports it",
			setup: func(t *testing.T, _, data string) FindOptions {
				fetchNode(t, data, "22.9.0")
				fetchNode(t, data, "22.10.0")
				fetchNode(t, data, "18.20.0")
				fetchNPM(t, data, "10.9.0", "^18.17.0 || >=20.5.0")
				fetchNPM(t, data, "11.0.0", "^20.17.0 || >=22.9.0")
				fetchNPM(t, data, "12.0.0", "^22.22.2 || >=26.0.0")
				os.MkdirAll(filepath.Join(data, "runtime", "node", ".fetch-23.0.0-123", "bin"), 0o755)
				return FindOptions{}
			},
			want: func(_, data string) Node {
				return fetchedNode(data, "22.10.0", "11.0.0")
			},
		},
		{
			name: "fetched node without a fitting npm",
			setup: func(t *testing.T, _, data string) FindOptions {
				fetchNode(t, data, "22.1.0")
				fetchNPM(t, data, "12.0.0", ">=26.0.0")
				return FindOptions{}
			},
			want: func(_, data string) Node {
				return fetchedNode(data, "22.1.0", "")
			},
		},
		{
			name: "an npm executable beside node",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "volta"), "22.1.0", "exe")
				return FindOptions{PathList: filepath.Join(root, "volta", "bin")}
			},
			want: func(root, _ string) Node {
				return Node{Path: filepath.Join(root, "volta", "bin", "node"), Version: "22.1.0", Source: SourceSystem,
					NPM: filepath.Join(root, "volta", "bin", "npm")}
			},
		},
		{
			// Homebrew: bin/node links into the Cellar, where npm is.
			name: "npm found where node's link points",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "Cellar", "node", "22.1.0"), "22.1.0", "cli")
				os.MkdirAll(filepath.Join(root, "brew", "bin"), 0o755)
				if err := os.Symlink(filepath.Join("..", "..", "Cellar", "node", "22.1.0", "bin", "node"), filepath.Join(root, "brew", "bin", "node")); err != nil {
					t.Fatal(err)
				}
				return FindOptions{places: []string{filepath.Join(root, "brew", "bin")}}
			},
			want: func(root, _ string) Node {
				return Node{Path: filepath.Join(root, "brew", "bin", "node"), Version: "22.1.0", Source: SourceSystem,
					NPM: filepath.Join(root, "Cellar", "node", "22.1.0", "lib", "node_modules", "npm", "bin", "npm-cli.js")}
			},
		},
		{
			// Debian: /usr/bin/npm is a link to npm-cli.js, which runs on
			// whichever node comes first on PATH unless run with ours.
			name: "npm link beside node is followed to npm-cli.js",
			setup: func(t *testing.T, root, _ string) FindOptions {
				writeTestFile(t, filepath.Join(root, "opt", "npm", "bin", "npm-cli.js"), "// npm", 0o755)
				installNode(t, filepath.Join(root, "usr"), "20.19.0", "")
				if err := os.Symlink(filepath.Join(root, "opt", "npm", "bin", "npm-cli.js"), filepath.Join(root, "usr", "bin", "npm")); err != nil {
					t.Fatal(err)
				}
				return FindOptions{PathList: filepath.Join(root, "usr", "bin")}
			},
			want: func(root, _ string) Node {
				return Node{Path: filepath.Join(root, "usr", "bin", "node"), Version: "20.19.0", Source: SourceSystem,
					NPM: filepath.Join(root, "opt", "npm", "bin", "npm-cli.js")}
			},
		},
		{
			name: "install places after PATH",
			setup: func(t *testing.T, root, _ string) FindOptions {
				installNode(t, filepath.Join(root, "path"), "22.1.0", "")
				installNode(t, filepath.Join(root, "nvm"), "22.3.0", "cli")
				return FindOptions{PathList: filepath.Join(root, "path", "bin"), places: []string{filepath.Join(root, "nvm", "bin")}}
			},
			want: func(root, _ string) Node {
				return systemNode(filepath.Join(root, "nvm"), "22.3.0")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, data := t.TempDir(), t.TempDir()
			opts := tc.setup(t, root, data)
			opts.DataDir = data
			if opts.places == nil {
				opts.places = []string{}
			}
			got, err := Find(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(root, data), got); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindNoNode(t *testing.T) {
	root := t.TempDir()
	installNode(t, filepath.Join(root, "old"), "18.19.0", "cli")
	fetchNode(t, root, "16.0.0")
	for _, tc := range []struct {
		name string
		opts FindOptions
		want []string
	}{
		{"nothing", FindOptions{DataDir: t.TempDir(), places: []string{}},
			[]string{"no Node.js 20 or newer found: install Node.js 20 or newer (nodejs.org), or let Switchboard fetch one"}},
		{"too old", FindOptions{DataDir: root, PathList: filepath.Join(root, "old", "bin"), places: []string{}},
			[]string{"18.19.0 at " + filepath.Join(root, "old", "bin", "node") + " is too old", "let Switchboard fetch one"}},
		// A node in the folder the app runs in is not the user's PATH.
		{"relative PATH entries", FindOptions{PathList: "cwd/bin:.:", places: []string{}}, []string{"let Switchboard fetch one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.opts.PathList, "cwd/bin") {
				installNode(t, filepath.Join(root, "cwd"), "22.1.0", "cli")
				writeTestFile(t, filepath.Join(root, "cwd", "node"), nodeScript("22.1.0"), 0o755)
				t.Chdir(filepath.Join(root, "cwd"))
				tc.opts.PathList = "bin:.:"
			}
			n, err := Find(t.Context(), tc.opts)
			if !errors.Is(err, ErrNoNode) {
				t.Fatalf("Find = %+v, %v; want ErrNoNode", n, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestInstallPlaces(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{
		".nvm/versions/node/v9.0.0/bin", ".nvm/versions/node/v22.2.0/bin", ".nvm/versions/node/v20.10.0/bin",
		".nvm/versions/node/system", ".local/share/fnm/node-versions/v22.1.0/installation/bin",
	} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	h := func(p string) string { return filepath.Join(home, p) }
	want := []string{
		"/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin",
		h(".volta/bin"), h(".asdf/shims"), h(".local/share/mise/shims"), h(".nodenv/shims"),
		h(".nvm/versions/node/v22.2.0/bin"), h(".nvm/versions/node/v20.10.0/bin"), h(".nvm/versions/node/v9.0.0/bin"),
		h(".local/share/fnm/aliases/default/bin"), h(".local/share/fnm/node-versions/v22.1.0/installation/bin"),
		h(".fnm/aliases/default/bin"),
		"/snap/bin", "/usr/bin",
	}
	if diff := cmp.Diff(want, installPlaces(home, "linux")); diff != "" {
		t.Errorf("installPlaces (-want +got):\n%s", diff)
	}
	darwin := installPlaces(home, "darwin")
	if !strings.Contains(strings.Join(darwin, "\n"), h("Library/Application Support/fnm/aliases/default/bin")) {
		t.Errorf("installPlaces on darwin lacks fnm's folder: %v", darwin)
	}
}

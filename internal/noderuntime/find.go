package noderuntime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/boundedio"
)

// versionTimeout bounds "node --version". A first start of a binary can be
// slow (a cold disk, a virus scanner), so it is generous.
const versionTimeout = 10 * time.Second

// maxVersionOutput bounds what is read of "node --version".
const maxVersionOutput = 256

// FindOptions say where Find looks.
type FindOptions struct {
	// DataDir is Switchboard's data directory; Find looks in its runtime
	// folder for a Node that Fetch put there. "" skips that.
	DataDir string
	// PathList is the PATH to look in first: the login shell's, which the
	// server manager computes. "" skips it.
	PathList string
	// Home is the user's home directory, where nvm, Volta, fnm and asdf
	// keep their Nodes; "" means os.UserHomeDir().
	Home string

	// places replaces the install places looked in after PathList; nil
	// means installPlaces(home). Tests set it so the machine's own Node
	// is not found.
	places []string
}

// Find returns the Node to install and run servers with. It takes, in
// this order: the first system Node new enough (MinMajor) that has an npm
// beside it, in PathList's order and then the install places a GUI app's
// PATH misses (installPlaces); the newest Node that Fetch put in DataDir
// (with its npm); the first system Node new enough without npm (NPM is
// then ""). With none, the error wraps ErrNoNode and names the Nodes found
// that were too old or did not run.
func Find(ctx context.Context, opts FindOptions) (Node, error) {
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	places := opts.places
	if places == nil {
		places = installPlaces(home, runtime.GOOS)
	}
	dirs := append(filepath.SplitList(opts.PathList), places...)

	var rejected []string // "18.19.0 at /usr/bin/node"
	var withoutNPM *Node
	seen := map[string]bool{}
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			continue // "" or ".": not a program in whatever folder the app runs in
		}
		p, ok := lookExe(dir, "node")
		if !ok {
			continue
		}
		key := p
		if real, err := filepath.EvalSymlinks(p); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		v, err := nodeVersion(ctx, p, opts.PathList)
		if err != nil {
			if ctx.Err() != nil {
				return Node{}, fmt.Errorf("looking for Node.js: %w", ctx.Err())
			}
			rejected = append(rejected, fmt.Sprintf("%s does not run (%v)", p, err))
			continue
		}
		if v.major < MinMajor {
			rejected = append(rejected, fmt.Sprintf("%s at %s is too old", v, p))
			continue
		}
		n := Node{Path: p, Version: v.String(), Source: SourceSystem, NPM: systemNPM(p)}
		if n.NPM != "" {
			return n, nil
		}
		if withoutNPM == nil {
			withoutNPM = &n
		}
	}

	var fetchedWithoutNPM *Node
	if opts.DataDir != "" {
		n, err := findFetched(ctx, opts.DataDir)
		if err != nil {
			return Node{}, err
		}
		if n.NPM != "" {
			return n, nil
		}
		if n.Path != "" {
			fetchedWithoutNPM = &n
		}
	}
	if withoutNPM != nil {
		return *withoutNPM, nil
	}
	if fetchedWithoutNPM != nil {
		return *fetchedWithoutNPM, nil
	}
	msg := "install Node.js " + fmt.Sprint(MinMajor) + " or newer (nodejs.org), or let Switchboard fetch one"
	if len(rejected) > 0 {
		return Node{}, fmt.Errorf("%w (%s): %s", ErrNoNode, strings.Join(rejected, "; "), msg)
	}
	return Node{}, fmt.Errorf("%w: %s", ErrNoNode, msg)
}

// findFetched returns the newest working Node in dataDir's runtime folder,
// with the newest npm fetched there that supports it, or a zero Node.
func findFetched(ctx context.Context, dataDir string) (Node, error) {
	nodes := versionDirs(filepath.Join(runtimeDir(dataDir), "node"))
	npms := versionDirs(filepath.Join(runtimeDir(dataDir), "npm"))
	var first Node
	for _, d := range nodes {
		p := nodeExe(d.dir)
		if !isFile(p) {
			continue
		}
		v, err := nodeVersion(ctx, p, "")
		if err != nil {
			if ctx.Err() != nil {
				return Node{}, fmt.Errorf("looking for Node.js: %w", ctx.Err())
			}
			continue
		}
		if v.major < MinMajor {
			continue
		}
		n := Node{Path: p, Version: v.String(), Source: SourceSwitchboard, NPM: fetchedNPM(npms, v)}
		if n.NPM != "" {
			return n, nil
		}
		if first.Path == "" {
			first = n
		}
	}
	return first, nil
}

// fetchedNPM is npm-cli.js of the newest npm in npms whose package.json
// says it supports node (engines.node), or "".
func fetchedNPM(npms []versionDir, node version) string {
	for _, d := range npms {
		cli := npmCLI(d.dir)
		if !isFile(cli) {
			continue
		}
		engines, err := readEngines(filepath.Join(d.dir, "package.json"))
		if err != nil {
			continue
		}
		if engines == "" {
			return cli
		}
		if ok, err := satisfies(node, engines); err == nil && ok {
			return cli
		}
	}
	return ""
}

// A versionDir is a folder named after a version.
type versionDir struct {
	dir string
	v   version
}

// versionDirs are the folders in parent named as versions ("22.11.0" or
// "v22.11.0"), newest first. Others (such as a fetch's temporary folders,
// which start with a dot) are left out.
func versionDirs(parent string) []versionDir {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []versionDir
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if v, ok := parseVersion(e.Name()); ok {
			out = append(out, versionDir{filepath.Join(parent, e.Name()), v})
		}
	}
	slices.SortStableFunc(out, func(a, b versionDir) int { return b.v.compare(a.v) })
	return out
}

// nodeVersion runs "node --version" and parses what it prints.
func nodeVersion(ctx context.Context, node, pathList string) (version, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--version")
	cmd.Env = versionEnv(node, pathList)
	out := &boundedio.Buffer{Limit: maxVersionOutput}
	cmd.Stdout = out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return version{}, fmt.Errorf("no answer to --version in %s", versionTimeout)
		}
		return version{}, err
	}
	v, ok := parseVersion(out.String())
	if !ok {
		return version{}, fmt.Errorf("--version printed %q", truncate(out.String(), 40))
	}
	return v, nil
}

// versionEnv is the environment "node --version" runs with: the app's,
// without NODE_OPTIONS (which could load code into it), and with node's
// folder first on PATH so that a version manager's shim finds its tools.
func versionEnv(node, pathList string) []string {
	if pathList == "" {
		pathList = os.Getenv("PATH")
	}
	env := []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + pathList}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "PATH") || strings.EqualFold(k, "NODE_OPTIONS") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// systemNPM is the npm that goes with the system's node at path: npm-cli.js
// in the installation's lib/node_modules (node_modules on Windows), found
// from node's folder and from the folder its links resolve to (Homebrew
// links bin/node into its Cellar), or else an npm executable beside node,
// or "".
func systemNPM(node string) string {
	dirs := []string{filepath.Dir(node)}
	if real, err := filepath.EvalSymlinks(node); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, d := range dirs {
		cli := filepath.Join(d, "..", "lib", "node_modules", "npm", "bin", "npm-cli.js")
		if runtime.GOOS == "windows" {
			cli = filepath.Join(d, "node_modules", "npm", "bin", "npm-cli.js")
		}
		if isFile(cli) {
			return cli
		}
	}
	for _, d := range dirs {
		p, ok := lookExe(d, "npm")
		if !ok {
			continue
		}
		// npm is usually a link to npm-cli.js: run that with this node
		// rather than whichever node its "#!/usr/bin/env node" finds.
		if real, err := filepath.EvalSymlinks(p); err == nil && strings.HasSuffix(real, ".js") {
			return real
		}
		return p
	}
	return ""
}

// lookExe finds the program name in dir: an executable file on Unix; on
// Windows node.exe, or name.cmd or name.exe for other programs.
func lookExe(dir, name string) (string, bool) {
	names := []string{name}
	if runtime.GOOS == "windows" {
		names = []string{name + ".exe"}
		if name != "node" {
			names = []string{name + ".cmd", name + ".exe"}
		}
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// maxPackageJSON bounds a package.json read from disk.
const maxPackageJSON = 1 << 20

// readEngines returns the engines.node range of the package.json at path,
// "" when it has none.
func readEngines(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPackageJSON+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxPackageJSON {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxPackageJSON)
	}
	var pj struct {
		Engines json.RawMessage `json:"engines"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return enginesNode(pj.Engines), nil
}

// enginesNode is the "node" entry of a package's engines, "" when there is
// none. Some old packages have engines as an array or a string; those
// count as none.
func enginesNode(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	s, _ := m["node"].(string)
	return s
}

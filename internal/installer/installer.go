// Package installer installs MCP servers into Switchboard's data directory
// so that they start without a network and without the user's PATH: an npm
// package (from a registry or a .tgz file) is installed by npm into
// <data>/servers/<id>, with its package-lock.json, and run from there by
// the Node that Switchboard picked (package noderuntime); a .mcpb bundle
// is unpacked there (package mcpb).
//
// Every install and update builds a staging folder beside the final one
// and renames it into place at the end, so a failure (a package or version
// that does not exist, a broken tarball, no network) leaves nothing behind
// and an update that fails leaves the installed version as it was.
//
// The installer never saves a config: Install returns the serverconf.Config
// that runs the server, with Config.Install set, for the caller to save.
package installer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Runtime is a Node and the npm that goes with it.
type Runtime struct {
	// Node is the path of the node executable.
	Node string
	// NPM is npm's npm-cli.js (run with Node) or an npm executable.
	NPM string
	// Version is Node's version, "22.11.0".
	Version string
	// Source is "system" or "switchboard" (fetched into the data
	// directory).
	Source string
}

// Options configure an Installer.
type Options struct {
	// DataDir is Switchboard's data directory; servers go in
	// DataDir/servers.
	DataDir string
	// Registry is the npm registry URL; empty uses npm's own setting
	// (https://registry.npmjs.org unless the user's .npmrc says otherwise).
	Registry string
	// Runtime finds the Node and npm to install and run with; it returns
	// an error wrapping noderuntime.ErrNoNode when there is none.
	Runtime func(ctx context.Context) (Runtime, error)
	// Progress, if set, hears what an install is doing.
	Progress func(Progress)
	// PutSecret keeps a bundle's sensitive setting in the keyring under
	// ref; nil refuses bundles that have such settings.
	PutSecret func(ref, value string) error
	// Env is the environment npm runs with (PATH is set to Node's folder
	// first); nil means the app's environment.
	Env []string
}

// A Progress is a step of an install: Step says what is happening
// ("resolving", "downloading", "unpacking", "done"); Fetched counts the
// files npm has fetched so far.
type Progress struct {
	ID      string `json:"id"`
	Step    string `json:"step"`
	Detail  string `json:"detail,omitempty"`
	Fetched int    `json:"fetched,omitempty"`
}

// An Installer installs, updates and removes servers in one data
// directory.
type Installer struct {
	opts Options
}

// New returns an Installer.
func New(opts *Options) *Installer {
	return &Installer{opts: *opts}
}

// A Request says what to install.
type Request struct {
	// ID is the new server's ID (and folder name); empty derives one from
	// the package name.
	ID string `json:"id"`
	// Package is an npm package name, optionally with @VERSION; or a path
	// of a .tgz or .mcpb file.
	Package string `json:"package"`
	// Version is the exact version or dist-tag; empty means the latest
	// (or the version in Package).
	Version string `json:"version"`
	// Bin chooses among a package's commands when it has several.
	Bin string `json:"bin"`
	// Values are a bundle's user_config values (secrets among them go to
	// the keyring when the caller saves the config).
	Values map[string]string `json:"values"`
}

// Errors an install may end with, wrapped with what to do.
var (
	ErrExists       = errors.New("already installed")
	ErrNotFound     = errors.New("no such package")
	ErrNoVersion    = errors.New("no such version")
	ErrBadPackage   = errors.New("not a usable package")
	ErrUnreachable  = errors.New("registry unreachable")
	ErrNotInstalled = errors.New("not installed")
)

// Dir is the folder of installed server id.
func (in *Installer) Dir(id string) string {
	return filepath.Join(in.opts.DataDir, "servers", id)
}

// Installed reports whether server id has files in the data directory.
func (in *Installer) Installed(id string) bool {
	st, err := os.Stat(in.Dir(id))
	return err == nil && st.IsDir()
}

// Uninstall removes installed server id's files. The caller removes its
// config.
func (in *Installer) Uninstall(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	dir := in.Dir(id)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// Renamed first, so that a removal cut short leaves no half server
	// under the server's name.
	gone := filepath.Join(filepath.Dir(dir), ".removing-"+id+"-"+randomSuffix())
	if err := os.Rename(dir, gone); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("removing %s: %w", gone, err)
	}
	return nil
}

// Sweep removes what interrupted installs left behind (staging and
// removal folders) more than an hour ago; a younger one may be an install
// another process (a command beside the window) is running now.
func (in *Installer) Sweep() {
	root := filepath.Join(in.opts.DataDir, "servers")
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".staging-") && !strings.HasPrefix(n, ".removing-") && !strings.HasPrefix(n, ".old-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			_ = os.RemoveAll(filepath.Join(root, n))
		}
	}
}

// Prepare returns cfg as it runs: ${install} in its command, args and
// working directory replaced by its folder, and the command "node" by the
// Node that Switchboard picked. A config without Install is returned as
// it is.
func (in *Installer) Prepare(ctx context.Context, cfg serverconf.Config) (serverconf.Config, error) {
	if cfg.Install == nil {
		return cfg, nil
	}
	dir := in.Dir(cfg.ID)
	if !in.Installed(cfg.ID) {
		return cfg, fmt.Errorf("%w: %s's files are not in %s; install it again (switchboard servers update %s)", ErrNotInstalled, cfg.ID, dir, cfg.ID)
	}
	sub := func(s string) string { return strings.ReplaceAll(s, serverconf.InstallDirVar, dir) }
	cfg.Command, cfg.Cwd = sub(cfg.Command), sub(cfg.Cwd)
	args := make([]string, len(cfg.Args))
	for i, a := range cfg.Args {
		args[i] = sub(a)
	}
	cfg.Args = args
	if cfg.Cwd == "" {
		cfg.Cwd = dir
	}
	if cfg.Command == "node" && in.opts.Runtime != nil {
		rt, err := in.opts.Runtime(ctx)
		if err != nil {
			return cfg, err
		}
		cfg.Command = rt.Node
	}
	return cfg, nil
}

// staging makes an empty folder beside the servers' folders.
func (in *Installer) staging(id string) (string, error) {
	root := filepath.Join(in.opts.DataDir, "servers")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", root, err)
	}
	dir := filepath.Join(root, ".staging-"+id+"-"+randomSuffix())
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// place renames staging to server id's folder. With replace, an existing
// folder is swapped out and removed; without it, an existing folder is
// ErrExists.
func (in *Installer) place(staging, id string, replace bool) error {
	dir := in.Dir(id)
	if _, err := os.Stat(dir); err == nil {
		if !replace {
			return fmt.Errorf("%w: %s is in use by an installed server; choose another ID or update it", ErrExists, id)
		}
		old := filepath.Join(filepath.Dir(dir), ".old-"+id+"-"+randomSuffix())
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(staging, dir); err != nil {
			_ = os.Rename(old, dir)
			return err
		}
		_ = os.RemoveAll(old)
		return nil
	}
	return os.Rename(staging, dir)
}

func (in *Installer) progress(p Progress) {
	if in.opts.Progress != nil {
		in.opts.Progress(p)
	}
}

func checkID(id string) error {
	cfg := serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: "x"}
	return serverconf.Validate(&cfg)
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

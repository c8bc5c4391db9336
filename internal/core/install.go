package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/noderuntime"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/servers"
)

// EventInstallProgress carries an install's, update's or Node download's
// progress: installer.Progress (ID "node" for the Node download).
const EventInstallProgress = "install:progress"

// ErrNeedNode means an install needs a Node that the system does not have:
// ask the user, then install again with FetchNode set.
var ErrNeedNode = errors.New("Switchboard needs Node.js to install this server")

// An InstallRequest asks for a server to be installed.
type InstallRequest struct {
	installer.Request
	// FetchNode is the user's consent to download a Node into the data
	// directory when the system has none new enough.
	FetchNode bool `json:"fetchNode"`
}

// NodeInfo says which Node installed servers run on.
type NodeInfo struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	// Source is "system" or "switchboard".
	Source string `json:"source"`
	// HasNPM: this Node can install servers, not only run them.
	HasNPM bool `json:"hasNpm"`
}

// nodeCache remembers the Node Find picked, so that starting an installed
// server does not ask every node on the PATH for its version.
type nodeCache struct {
	mu   sync.Mutex
	node *noderuntime.Node
}

func (c *nodeCache) get(ctx context.Context, opts noderuntime.FindOptions) (noderuntime.Node, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.node != nil {
		if _, err := os.Stat(c.node.Path); err == nil {
			return *c.node, nil
		}
	}
	n, err := noderuntime.Find(ctx, opts)
	if err != nil {
		return n, err
	}
	c.node = &n
	return n, nil
}

func (c *nodeCache) forget() {
	c.mu.Lock()
	c.node = nil
	c.mu.Unlock()
}

// Node returns the Node installed servers run on; an error wrapping
// noderuntime.ErrNoNode when there is none.
func (s *Services) Node(ctx context.Context) (NodeInfo, error) {
	n, err := s.node.get(ctx, s.findOptions())
	if err != nil {
		return NodeInfo{}, err
	}
	return NodeInfo{Path: n.Path, Version: n.Version, Source: n.Source, HasNPM: n.NPM != ""}, nil
}

func (s *Services) findOptions() noderuntime.FindOptions {
	return noderuntime.FindOptions{DataDir: s.dataDir, PathList: s.Manager.PathList()}
}

// FetchNode downloads a Node (and npm) from the npm registry into the data
// directory, checked against the registry's integrity hashes. Only with
// the user's consent.
func (s *Services) FetchNode(ctx context.Context) (NodeInfo, error) {
	set, _ := LoadSettings(ctx, s.store)
	emit := s.progressEmitter()
	n, err := noderuntime.Fetch(ctx, noderuntime.FetchOptions{
		DataDir:  s.dataDir,
		Registry: set.NPMRegistry,
		Progress: func(p noderuntime.Progress) {
			detail := fmt.Sprintf("%s %s: %.1f MB", p.Step, p.Version, float64(p.Done)/(1<<20))
			if p.Total > 0 {
				detail += fmt.Sprintf(" of %.1f MB", float64(p.Total)/(1<<20))
			}
			emit(installer.Progress{ID: "node", Step: "downloading", Detail: detail})
		},
	})
	s.node.forget()
	if err != nil {
		return NodeInfo{}, err
	}
	s.emitter.Emit(EventInstallProgress, installer.Progress{ID: "node", Step: "done", Detail: "Node " + n.Version})
	return NodeInfo{Path: n.Path, Version: n.Version, Source: n.Source, HasNPM: n.NPM != ""}, nil
}

// installer is an Installer with the current settings, for an install or
// an update; s.files serves what needs no settings.
func (s *Services) installer(ctx context.Context) *installer.Installer {
	set, _ := LoadSettings(ctx, s.store)
	return installer.New(&installer.Options{
		DataDir:   s.dataDir,
		Registry:  set.NPMRegistry,
		Runtime:   s.installRuntime,
		Progress:  s.progressEmitter(),
		PutSecret: s.putSecret,
	})
}

// progressEmitter sends install progress to the window: every step and
// notice, and downloading (npm fetching each file, a download's every
// read) at most five times a second.
func (s *Services) progressEmitter() func(installer.Progress) {
	var mu sync.Mutex
	var last time.Time
	var step string
	return func(p installer.Progress) {
		mu.Lock()
		now := time.Now()
		skip := p.Step == "downloading" && step == "downloading" && now.Sub(last) < 200*time.Millisecond
		if !skip {
			step, last = p.Step, now
		}
		mu.Unlock()
		if !skip {
			s.emitter.Emit(EventInstallProgress, p)
		}
	}
}

// putSecret keeps an installed server's secret value in the keyring.
func (s *Services) putSecret(ref, value string) error {
	if s.secrets == nil {
		return errors.New("the keyring is not available to keep a secret value")
	}
	return s.secrets.Set(ref, value)
}

// installRuntime is the Node and npm an install runs npm with.
func (s *Services) installRuntime(ctx context.Context) (installer.Runtime, error) {
	n, err := s.node.get(ctx, s.findOptions())
	if err != nil {
		return installer.Runtime{}, err
	}
	return installer.Runtime{Node: n.Path, NPM: n.NPM, Version: n.Version, Source: n.Source}, nil
}

// needsNode says whether an install of req needs a Node with npm that is
// not there: ErrNeedNode unless the user agreed to fetch one, which this
// then does.
func (s *Services) needsNode(ctx context.Context, req InstallRequest) error {
	if installer.IsBundleFile(req.Package) && !req.FetchNode {
		return nil // a bundle asks for its runtime at start, not at install
	}
	n, err := s.node.get(ctx, s.findOptions())
	if err == nil && n.NPM != "" {
		return nil
	}
	if err != nil && !errors.Is(err, noderuntime.ErrNoNode) {
		return err
	}
	if !req.FetchNode {
		why := "the system has no Node.js " + fmt.Sprint(noderuntime.MinMajor) + " or newer"
		if err == nil {
			why = "the system's Node.js " + n.Version + " has no npm"
		}
		return fmt.Errorf("%w: %s. Let Switchboard download Node.js %d from the npm registry into its data folder, or install Node.js yourself",
			ErrNeedNode, why, noderuntime.DefaultMajor)
	}
	_, err = s.FetchNode(ctx)
	return err
}

// InstallServer installs a server into the data directory, saves its
// config (enabled) and connects it. Nothing is left behind when it fails.
func (s *Services) InstallServer(ctx context.Context, req InstallRequest) (servers.View, error) {
	if err := s.needsNode(ctx, req); err != nil {
		return servers.View{}, err
	}
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return servers.View{}, err
	}
	taken := func(id string) bool {
		return slices.ContainsFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id })
	}
	inst := s.installer(ctx)
	cfg, err := inst.Install(ctx, req.Request, taken)
	if err != nil {
		return servers.View{}, err
	}
	view, err := s.SaveServer(ctx, cfg)
	if err != nil {
		_ = inst.Uninstall(cfg.ID)
		return servers.View{}, fmt.Errorf("saving the installed server: %w", err)
	}
	return view, nil
}

// An UpdateRequest asks for another version of an installed server.
type UpdateRequest struct {
	ID string `json:"id"`
	// Version is the version to install; empty means the latest.
	Version string `json:"version,omitempty"`
	// File, set, is a newer .tgz or .mcpb to install in its place.
	File string `json:"file,omitempty"`
	// Values are a bundle's settings to change or give again (the
	// sensitive ones, which only the keyring holds).
	Values map[string]string `json:"values,omitempty"`
}

// UpdateServer installs another version of an installed server and
// reconnects it. On failure the installed version stays and keeps
// running.
func (s *Services) UpdateServer(ctx context.Context, req UpdateRequest) (servers.View, error) {
	cfg, err := s.serverConfig(ctx, req.ID)
	if err != nil {
		return servers.View{}, err
	}
	inst := s.installer(ctx)
	if req.File != "" {
		cfg, err = inst.UpdateFromFile(ctx, cfg, req.File, req.Values)
	} else {
		cfg, err = inst.Update(ctx, cfg, req.Version)
	}
	if err != nil {
		return servers.View{}, err
	}
	return s.SaveServer(ctx, cfg)
}

// PinServer pins installed server id to its version, or unpins it.
func (s *Services) PinServer(ctx context.Context, id string, pinned bool) (servers.View, error) {
	cfg, err := s.serverConfig(ctx, id)
	if err != nil {
		return servers.View{}, err
	}
	if cfg.Install == nil {
		return servers.View{}, fmt.Errorf("%s was not installed by Switchboard, so it has no version to pin", id)
	}
	in := *cfg.Install
	in.Pinned = pinned
	cfg.Install = &in
	return s.SaveServer(ctx, cfg)
}

// UninstallServer removes server id (its config, grants and secrets) and,
// when Switchboard installed it, its files.
func (s *Services) UninstallServer(ctx context.Context, id string) error {
	if err := s.Servers.Delete(ctx, id); err != nil {
		return err
	}
	return s.files.Uninstall(id)
}

// serverConfig is the stored config of server id.
func (s *Services) serverConfig(ctx context.Context, id string) (serverconf.Config, error) {
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return serverconf.Config{}, err
	}
	for _, c := range cfgs {
		if c.ID == id {
			return c, nil
		}
	}
	return serverconf.Config{}, fmt.Errorf("no server %q; see switchboard servers list", id)
}

// InstallDir is the folder installed server id lives in.
func (s *Services) InstallDir(id string) string {
	return s.files.Dir(id)
}

// BundleInfo is what an MCP Bundle says of itself, shown before it is
// installed.
type BundleInfo struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Author      string          `json:"author"`
	Runtime     string          `json:"runtime"`
	Settings    []BundleSetting `json:"settings"`
}

// A BundleSetting is a setting a bundle asks the user for (user_config).
type BundleSetting struct {
	Key         string `json:"key"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Type is string, number, boolean, directory or file.
	Type      string `json:"type"`
	Required  bool   `json:"required"`
	Sensitive bool   `json:"sensitive"`
	Multiple  bool   `json:"multiple"`
	Default   string `json:"default"`
}

// ReadBundle says what the bundle in file is and which settings it asks
// for, installing nothing.
func ReadBundle(file string) (BundleInfo, error) {
	b, err := installer.ReadBundle(file)
	if err != nil {
		return BundleInfo{}, err
	}
	m := b.Manifest
	info := BundleInfo{Name: m.Name, Title: m.Title(), Version: m.Version, Description: m.Description, Author: m.Author.Name,
		Runtime: m.Server.Type, Settings: []BundleSetting{}}
	for _, f := range b.UserConfig() {
		info.Settings = append(info.Settings, BundleSetting{Key: f.Key, Title: f.Title, Description: f.Description, Type: f.Type,
			Required: f.Required, Sensitive: f.Sensitive, Multiple: f.Multiple, Default: f.Default})
	}
	return info, nil
}

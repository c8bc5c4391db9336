package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

const installUsage = `usage: switchboard servers install PACKAGE[@VERSION] | FILE.tgz | FILE.mcpb [flags]
  --id ID          the server's ID (default: from the package name)
  --version V      the version to install (default: the latest)
  --bin NAME       the package's command to run, when it has several
  --set KEY=VALUE  a bundle setting (repeat for each); sensitive ones go to the keyring
  --pin            keep this version when updating without naming one
  --fetch-node     download Node.js from the npm registry if the system has none new enough`

// kvFlags collects repeated --set KEY=VALUE flags.
type kvFlags map[string]string

func (k kvFlags) String() string { return "" }
func (k kvFlags) Set(s string) error {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q: write KEY=VALUE", s)
	}
	k[key] = value
	return nil
}

// progressPrinter prints install progress on w, a line per step, and the
// number of files fetched at most once a second.
type progressPrinter struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
	step string
}

func (p *progressPrinter) Emit(name string, payload any) {
	pr, ok := payload.(installer.Progress)
	if name != core.EventInstallProgress || !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Step == p.step && time.Since(p.last) < time.Second {
		return
	}
	p.step, p.last = pr.Step, time.Now()
	line := pr.Step
	if pr.Fetched > 0 {
		line += fmt.Sprintf(" (%d files)", pr.Fetched)
	}
	if pr.Detail != "" {
		line += ": " + pr.Detail
	}
	fmt.Fprintf(p.w, "[%s %s]\n", pr.ID, line)
}

func serversInstall(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	id := fs.String("id", "", "")
	version := fs.String("version", "", "")
	bin := fs.String("bin", "", "")
	pin := fs.Bool("pin", false, "")
	fetchNode := fs.Bool("fetch-node", false, "")
	values := kvFlags{}
	fs.Var(values, "set", "")
	pkg, ok := oneArg(env, fs, args, installUsage)
	if !ok {
		return 2
	}
	return withInstalling(ctx, env, func(s *core.Services, _ []serverconf.Config) int {
		req := core.InstallRequest{Request: installer.Request{ID: *id, Package: pkg, Version: *version, Bin: *bin, Values: values},
			FetchNode: *fetchNode}
		view, err := s.InstallServer(ctx, req)
		if err != nil {
			return installFailed(env, pkg, err)
		}
		cfg := view.Config
		if *pin {
			if v, err := s.PinServer(ctx, cfg.ID, true); err == nil {
				cfg = v.Config
			}
		}
		fmt.Fprintf(env.Stdout, "installed %s %s as server %s in %s\n", cfg.Install.Package, cfg.Install.Version, cfg.ID, s.InstallDir(cfg.ID))
		return reportStart(ctx, env, s, cfg)
	})
}

// reportStart connects installed server cfg and says whether it started,
// with its tools.
func reportStart(ctx context.Context, env *Env, s *core.Services, cfg serverconf.Config) int {
	if !startServers(ctx, env, s, []serverconf.Config{cfg}, cfg.ID, 60*time.Second) {
		return 1
	}
	for _, st := range s.Manager.Statuses() {
		if st.ServerID != cfg.ID {
			continue
		}
		if st.State != mcpconn.StateConnected {
			fmt.Fprintf(env.Stdout, "it does not start yet (%s: %s); see switchboard servers log %s\n", st.State, st.Reason, cfg.ID)
			return 1
		}
	}
	var names []string
	for _, t := range s.Manager.Tools() {
		if t.ServerID == cfg.ID {
			names = append(names, t.Name)
		}
	}
	node := ""
	if n, err := s.Node(ctx); err == nil && cfg.Install.Runtime == "node" {
		node = fmt.Sprintf(" on Node %s (%s)", n.Version, n.Source)
	}
	fmt.Fprintf(env.Stdout, "it runs%s with %d tools: %s\n", node, len(names), strings.Join(names, ", "))
	return 0
}

func serversUpdate(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("update", flag.ContinueOnError)
	version := fs.String("version", "", "the version to update to (default: the latest)")
	file := fs.String("file", "", "a newer .tgz or .mcpb to install in its place")
	values := kvFlags{}
	fs.Var(values, "set", "a bundle setting KEY=VALUE to change or give again (repeat)")
	id, ok := oneArg(env, fs, args, "usage: switchboard servers update ID [--version V | --file FILE [--set KEY=VALUE ...]]")
	if !ok {
		return 2
	}
	return withInstalling(ctx, env, func(s *core.Services, cfgs []serverconf.Config) int {
		var before string
		for _, c := range cfgs {
			if c.ID == id && c.Install != nil {
				before = c.Install.Version
			}
		}
		view, err := s.UpdateServer(ctx, core.UpdateRequest{ID: id, Version: *version, File: *file, Values: values})
		if err != nil {
			return installFailed(env, id, err)
		}
		cfg := view.Config
		if before == cfg.Install.Version {
			fmt.Fprintf(env.Stdout, "%s is at %s %s, the version asked for\n", cfg.ID, cfg.Install.Package, cfg.Install.Version)
		} else {
			fmt.Fprintf(env.Stdout, "updated %s from %s to %s %s\n", cfg.ID, before, cfg.Install.Package, cfg.Install.Version)
		}
		return reportStart(ctx, env, s, cfg)
	})
}

func serversUninstall(ctx context.Context, env *Env, id string) int {
	if !changeServer(ctx, env, id, func(s *core.Services) error { return s.UninstallServer(ctx, id) }) {
		return 1
	}
	fmt.Fprintf(env.Stdout, "uninstalled server %s\n", id)
	return 0
}

func serversPin(ctx context.Context, env *Env, id string, pinned bool) int {
	var version string
	if !changeServer(ctx, env, id, func(s *core.Services) error {
		v, err := s.PinServer(ctx, id, pinned)
		if err == nil {
			version = v.Config.Install.Version
		}
		return err
	}) {
		return 1
	}
	if pinned {
		fmt.Fprintf(env.Stdout, "pinned %s to %s\n", id, version)
	} else {
		fmt.Fprintf(env.Stdout, "unpinned %s (at %s); switchboard servers update %s takes the latest\n", id, version, id)
	}
	return 0
}

const registryInstallUsage = `usage: switchboard registry install NAME [flags]
  --version V      the entry's version (default: the latest)
  --choice N       which way to add it (the numbers registry show prints; default: the preferred)
  --id ID          the server's ID (default: from the name)
  --set KEY=VALUE  a value it asks for (registry show lists them: env.API_KEY=..., arg.path=...); repeat
  --fetch-node     download Node.js from the npm registry if the system has none new enough
  --registry URL   the registry (default: the mcp-registry setting)`

// registryInstall adds a server from a registry entry: an npm package or
// a bundle is installed, a remote or command server added.
func registryInstall(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("registry install", flag.ContinueOnError)
	version := fs.String("version", "", "")
	choice := fs.Int("choice", -1, "")
	id := fs.String("id", "", "")
	fetchNode := fs.Bool("fetch-node", false, "")
	registry := fs.String("registry", "", "")
	values := kvFlags{}
	fs.Var(values, "set", "")
	name, ok := oneArg(env, fs, args, registryInstallUsage)
	if !ok {
		return 2
	}
	return withInstalling(ctx, env, func(s *core.Services, _ []serverconf.Config) int {
		view, err := s.InstallFromRegistry(ctx, core.RegistryInstall{Name: name, Version: *version, Choice: *choice, ID: *id,
			Values: values, FetchNode: *fetchNode, Registry: *registry})
		if err != nil {
			return installFailed(env, name, err)
		}
		cfg := view.Config
		if cfg.Install != nil {
			fmt.Fprintf(env.Stdout, "installed %s %s as server %s\n", cfg.Install.Package, cfg.Install.Version, cfg.ID)
		} else {
			fmt.Fprintf(env.Stdout, "added %s as server %s (%s)\n", name, cfg.ID, cfg.Transport)
		}
		return reportStart(ctx, env, s, cfg)
	})
}

// oneArg parses fs's flags among args and returns the one other argument;
// false (after printing usage) when there is not exactly one.
func oneArg(env *Env, fs *flag.FlagSet, args []string, usage string) (string, bool) {
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { fmt.Fprintln(env.Stderr, usage) }
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", false
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, usage)
		return "", false
	}
	return pos[0], true
}

// withInstalling runs f with services that print install progress on
// stderr and know the stored servers (not connected).
func withInstalling(ctx context.Context, env *Env, f func(s *core.Services, cfgs []serverconf.Config) int) int {
	opts := &core.ServiceOptions{Emitter: &progressPrinter{w: env.Stderr}}
	return withConfigsWith(ctx, env, opts, func(s *core.Services, cfgs []serverconf.Config) int {
		if err := s.Servers.Start(ctx); err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		return f(s, cfgs)
	})
}

// installFailed prints why an install failed, saying how to go on.
func installFailed(env *Env, what string, err error) int {
	var ve *serverconf.ValidationError
	switch {
	case errors.As(err, &ve):
		fmt.Fprintf(env.Stderr, "switchboard: %s needs values; nothing was added:\n", what)
		for _, fe := range ve.Errors {
			fmt.Fprintf(env.Stderr, "  --set %s=...: %s\n", fe.Field, fe.Message)
		}
	case errors.Is(err, core.ErrNeedNode):
		fmt.Fprintf(env.Stderr, "switchboard: %v\nRun again with --fetch-node to let Switchboard download it.\n", err)
	default:
		fmt.Fprintln(env.Stderr, "switchboard:", err)
	}
	return 1
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/noderuntime"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// installPackage is the real npm server the install group measures.
const installPackage = "@modelcontextprotocol/server-sequential-thinking"

// benchInstall measures a server installed into the data directory
// (installer, npm from the registry once) starting with the npm registry
// unreachable (npm's registry and every proxy pointed at a closed port):
// launch → connected with tools listed, median of runs; against the same
// package and version started as users commonly configure it, npx -y
// PACKAGE@VERSION with npx's cache already warm and the registry
// reachable (the baseline, same run, interleaved).
func benchInstall(cfg *config, rep *Report) {
	const key = "installed_start_ratio"
	target := ptr(1.0)
	ctx := context.Background()
	node, err := noderuntime.Find(ctx, noderuntime.FindOptions{PathList: os.Getenv("PATH")})
	if err != nil || node.NPM == "" {
		rep.add(key, notMeasured("ratio", target, fmt.Sprintf("no Node with npm: %v", err)))
		return
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		rep.add(key, notMeasured("ratio", target, "no npx on PATH for the baseline"))
		return
	}
	dir := filepath.Join(cfg.tmp, "install")
	in := installer.New(&installer.Options{DataDir: dir, Runtime: func(context.Context) (installer.Runtime, error) {
		return installer.Runtime{Node: node.Path, NPM: node.NPM, Version: node.Version, Source: node.Source}, nil
	}})
	t0 := time.Now()
	installed, err := in.Install(ctx, installer.Request{Package: installPackage, ID: "think"}, nil)
	if err != nil {
		rep.add(key, notMeasured("ratio", target, "installing: "+err.Error()))
		return
	}
	installTook := time.Since(t0)
	offline := map[string]serverconf.Value{}
	for _, k := range []string{"npm_config_registry", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		offline[k] = serverconf.Value{Plain: "http://127.0.0.1:9"}
	}
	installed.Env = offline
	viaNPX := serverconf.Config{ID: "npx", Transport: serverconf.TransportStdio, Enabled: true, Command: npx,
		Args: []string{"-y", installPackage + "@" + installed.Install.Version}}
	pathList := filepath.Dir(node.Path) + string(os.PathListSeparator) + os.Getenv("PATH")
	start := func(c serverconf.Config) (time.Duration, error) {
		rec := newConnectRecorder()
		m := mcpconn.NewManager(&mcpconn.Options{Emitter: rec, ShellPATH: func() string { return pathList }, PingInterval: -1,
			Installed: in.Prepare})
		defer m.Close()
		if err := m.Add(c); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := m.Start(ctx); err != nil {
			return 0, err
		}
		last, err := rec.wait([]string{c.ID}, 120*time.Second)
		return last.Sub(t), err
	}
	// Uncounted warm-up of both: npx's cache, Node's code cache.
	for _, c := range []serverconf.Config{viaNPX, installed} {
		if _, err := start(c); err != nil {
			rep.add(key, notMeasured("ratio", target, c.ID+" warm-up: "+err.Error()))
			return
		}
	}
	var inst, base []float64
	for range max(cfg.runs, 5) {
		d, err := start(installed)
		if err != nil {
			rep.add(key, notMeasured("ratio", target, "installed, registry unreachable: "+err.Error()))
			return
		}
		inst = append(inst, ms(d))
		if d, err = start(viaNPX); err != nil {
			rep.add(key, notMeasured("ratio", target, "npx -y: "+err.Error()))
			return
		}
		base = append(base, ms(d))
	}
	rep.add(key, Figure{Value: ptr(round(median(inst)/median(base), 2)), Unit: "ratio", Runs: len(inst), Target: target,
		Baseline: ptr(round(median(base), 1)), BaselineUnit: "ms",
		BaselineWhat: fmt.Sprintf("npx -y %s@%s (cache warm, registry reachable) → connected, median", installPackage, installed.Install.Version),
		How: fmt.Sprintf("median(installed %s %s on Node %s, npm registry and proxies at a closed port → connected, tools listed) ÷ baseline; interleaved",
			installPackage, installed.Install.Version, node.Version),
		Samples: roundAll(inst, 1),
		Extra:   map[string]any{"installedMs": round(median(inst), 1), "npxMs": roundAll(base, 1), "installOnceMs": round(ms(installTook), 0)}})
}

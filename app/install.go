package app

import (
	"errors"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpregistry"
	"github.com/switchboard-app/switchboard/internal/servers"
)

// InstallServer installs a server (an npm package, a .tgz or a .mcpb file)
// into the data directory, saves and connects it. Progress comes as
// install:progress events; core.ErrNeedNode's message asks the user's
// consent to download Node, after which the window asks again with
// FetchNode set.
func (a *App) InstallServer(req core.InstallRequest) (servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return servers.View{}, err
	}
	return svc.InstallServer(a.life, req)
}

// UpdateServer installs another version of an installed server: version
// ("" for the latest) or a newer file.
func (a *App) UpdateServer(id, version, file string) (servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return servers.View{}, err
	}
	return svc.UpdateServer(a.life, core.UpdateRequest{ID: id, Version: version, File: file})
}

// PinServer pins an installed server to its version, or unpins it.
func (a *App) PinServer(id string, pinned bool) (servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return servers.View{}, err
	}
	return svc.PinServer(a.life, id, pinned)
}

// NodeStatus says which Node installed servers run on; an error when
// there is none.
func (a *App) NodeStatus() (core.NodeInfo, error) {
	svc, err := a.services()
	if err != nil {
		return core.NodeInfo{}, err
	}
	return svc.Node(a.life)
}

// FetchNode downloads Node.js from the npm registry into the data
// directory; the window calls it only after the user agreed.
func (a *App) FetchNode() (core.NodeInfo, error) {
	svc, err := a.services()
	if err != nil {
		return core.NodeInfo{}, err
	}
	return svc.FetchNode(a.life)
}

// PickPackageFile asks the user for an npm package tarball or an MCP
// Bundle with the system's dialog; "" when they cancel.
func (a *App) PickPackageFile() (string, error) {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return "", errors.New("the window is not ready")
	}
	return runtime.OpenFileDialog(ctx, runtime.OpenDialogOptions{Title: "Install a server from a file",
		Filters: []runtime.FileFilter{{DisplayName: "Server packages (*.tgz, *.mcpb)", Pattern: "*.tgz;*.tar.gz;*.mcpb;*.dxt"}}})
}

// ReadBundle says what an MCP Bundle file is and which settings it asks
// for, before it is installed.
func (a *App) ReadBundle(file string) (core.BundleInfo, error) {
	return core.ReadBundle(file)
}

// SearchRegistry searches the MCP registry (the setting, or the official
// one) for servers.
func (a *App) SearchRegistry(query, cursor string) (core.RegistryPage, error) {
	svc, err := a.services()
	if err != nil {
		return core.RegistryPage{}, err
	}
	return svc.SearchRegistry(a.life, query, cursor)
}

// PlanRegistryInstall says what adding one way (choice; -1 the preferred)
// of a registry entry does and what it asks for.
func (a *App) PlanRegistryInstall(name, version string, choice int) (mcpregistry.Plan, error) {
	svc, err := a.services()
	if err != nil {
		return mcpregistry.Plan{}, err
	}
	return svc.PlanRegistryInstall(a.life, name, version, choice)
}

// InstallFromRegistry adds a server from a registry entry with the values
// the user gave; progress comes as install:progress events.
func (a *App) InstallFromRegistry(req core.RegistryInstall) (servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return servers.View{}, err
	}
	return svc.InstallFromRegistry(a.life, req)
}

package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/installer"
	"github.com/switchboard-app/switchboard/internal/mcpregistry"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/servers"
)

// maxBundleDownload bounds a bundle fetched from the URL a registry entry
// names.
const maxBundleDownload = 512 << 20

// A RegistryItem is a registry entry with the ways Switchboard can add it.
type RegistryItem struct {
	Entry   mcpregistry.Entry    `json:"entry"`
	Options []mcpregistry.Option `json:"options"`
	// Preferred is the option to offer first; -1 when none is usable.
	Preferred int `json:"preferred"`
	// Status is active, deprecated or deleted.
	Status string `json:"status"`
}

// A RegistryPage is one page of a registry search.
type RegistryPage struct {
	Items      []RegistryItem `json:"items"`
	NextCursor string         `json:"nextCursor"`
	// Registry is the URL searched.
	Registry string `json:"registry"`
	// Skipped counts entries left out as malformed.
	Skipped int `json:"skipped"`
}

// A RegistryInstall asks for one option of a registry entry to be added.
type RegistryInstall struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Choice is the index of the option (RegistryItem.Options); -1 takes
	// the preferred one.
	Choice int `json:"choice"`
	// ID is the server's ID; empty takes the plan's suggestion.
	ID string `json:"id,omitempty"`
	// Values answer the plan's Fields by key.
	Values    map[string]string `json:"values,omitempty"`
	FetchNode bool              `json:"fetchNode,omitempty"`
	// Registry, set, is the registry to read the entry from instead of
	// the setting's (the command line's --registry).
	Registry string `json:"registry,omitempty"`
}

func (s *Services) registry(ctx context.Context, override ...string) *mcpregistry.Client {
	set, _ := LoadSettings(ctx, s.store)
	base := set.MCPRegistry
	if len(override) > 0 && override[0] != "" {
		base = override[0]
	}
	if base == "" {
		base = mcpregistry.DefaultURL
	}
	return &mcpregistry.Client{BaseURL: base}
}

func item(e mcpregistry.Entry) RegistryItem {
	return RegistryItem{Entry: e, Options: mcpregistry.Options(e), Preferred: mcpregistry.Preferred(e), Status: e.Status()}
}

// SearchRegistry searches the MCP registry (the setting, or the official
// one) for servers whose name or description has query.
func (s *Services) SearchRegistry(ctx context.Context, query, cursor string) (RegistryPage, error) {
	c := s.registry(ctx)
	page, err := c.Search(ctx, query, cursor, 0)
	if err != nil {
		return RegistryPage{}, err
	}
	out := RegistryPage{Items: make([]RegistryItem, 0, len(page.Entries)), NextCursor: page.NextCursor, Registry: c.BaseURL, Skipped: page.Skipped}
	for _, e := range page.Entries {
		out.Items = append(out.Items, item(e))
	}
	return out, nil
}

// PlanRegistryInstall says what adding option choice (-1: the preferred)
// of registry entry name does and what it asks the user for. The plan's
// ID is free among the configured servers.
func (s *Services) PlanRegistryInstall(ctx context.Context, name, version string, choice int) (mcpregistry.Plan, error) {
	e, err := s.registry(ctx).Get(ctx, name, version)
	if err != nil {
		return mcpregistry.Plan{}, err
	}
	return s.plan(ctx, e, choice)
}

func (s *Services) plan(ctx context.Context, e mcpregistry.Entry, choice int) (mcpregistry.Plan, error) {
	if choice < 0 {
		choice = mcpregistry.Preferred(e)
		if choice < 0 {
			return mcpregistry.Plan{}, fmt.Errorf("%s offers no way to run it that Switchboard supports", e.Server.Name)
		}
	}
	p, err := mcpregistry.PlanInstall(e, choice)
	if err != nil {
		return p, err
	}
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return p, err
	}
	p.ID = mcpregistry.SuggestID(e, func(id string) bool {
		return slices.ContainsFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id }) || s.files.Installed(id)
	})
	return p, nil
}

// InstallFromRegistry adds one option of a registry entry: an npm package
// or a bundle is installed into the data directory, a remote or a command
// (uvx, docker, dnx) is added as a server; the user's values fill in its
// arguments, environment and headers, the secret ones kept in the keyring.
// Nothing is left behind when it fails.
func (s *Services) InstallFromRegistry(ctx context.Context, req RegistryInstall) (servers.View, error) {
	e, err := s.registry(ctx, req.Registry).Get(ctx, req.Name, req.Version)
	if err != nil {
		return servers.View{}, err
	}
	p, err := s.plan(ctx, e, req.Choice)
	if err != nil {
		return servers.View{}, err
	}
	if err := p.Check(req.Values); err != nil {
		return servers.View{}, err
	}
	id := req.ID
	if id == "" {
		id = p.ID
	}
	taken := s.idTaken(ctx)
	var cfg serverconf.Config
	installed := false
	switch p.Kind {
	case mcpregistry.KindNPM:
		if p.Registry != "" && !sameRegistry(p.Registry, "https://registry.npmjs.org") {
			set, _ := LoadSettings(ctx, s.store)
			if !sameRegistry(p.Registry, set.NPMRegistry) {
				return servers.View{}, fmt.Errorf("%s is published to the npm registry %s; to install from there, set it as the npm registry in Settings first", p.Package, p.Registry)
			}
		}
		if err := s.needsNode(ctx, InstallRequest{FetchNode: req.FetchNode}); err != nil {
			return servers.View{}, err
		}
		cfg, err = s.installer(ctx).Install(ctx, installer.Request{ID: id, Package: p.Package, Version: p.Version}, taken)
		installed = err == nil
	case mcpregistry.KindMCPB:
		var file string
		if file, err = s.downloadBundle(ctx, p.URL, p.SHA256); err == nil {
			defer os.RemoveAll(filepath.Dir(file))
			cfg, err = s.installer(ctx).Install(ctx, installer.Request{ID: id, Package: file}, taken)
			installed = err == nil
		}
	default: // remote, stdio
		cfg = p.Config
		cfg.ID, cfg.Enabled = id, true
		if taken(id) {
			err = fmt.Errorf("a server named %s exists; choose another ID", id)
		}
	}
	if err != nil {
		return servers.View{}, err
	}
	if p.Name != "" { // the registry's title, not the package's name
		cfg.Name = p.Name
	}
	undo := func() {
		if installed {
			_ = s.files.Uninstall(cfg.ID)
		}
	}
	if err := p.Apply(&cfg, req.Values, s.putSecret); err != nil {
		undo()
		return servers.View{}, err
	}
	view, err := s.SaveServer(ctx, cfg)
	if err != nil {
		undo()
		return servers.View{}, err
	}
	return view, nil
}

func (s *Services) idTaken(ctx context.Context) func(string) bool {
	cfgs, _ := s.Servers.Configs(ctx)
	return func(id string) bool {
		return slices.ContainsFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id })
	}
}

func sameRegistry(a, b string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "/") }
	return a != "" && b != "" && norm(a) == norm(b)
}

// downloadBundle fetches a bundle from an https URL a registry entry names
// into a temporary folder, checking it against the SHA-256 the entry
// gives; the caller removes the folder.
func (s *Services) downloadBundle(ctx context.Context, raw, sum string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return "", fmt.Errorf("the bundle's address %q is not an https URL", raw)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return "", err
	}
	s.emitter.Emit(EventInstallProgress, installer.Progress{ID: "bundle", Step: "downloading", Detail: raw})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading the bundle: %w; check the network", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading the bundle from %s: %s", u.Host, resp.Status)
	}
	dir, err := os.MkdirTemp("", "switchboard-bundle-")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "server.mcpb")
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, maxBundleDownload+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		err = fmt.Errorf("downloading the bundle: %w", err)
	case n > maxBundleDownload:
		err = fmt.Errorf("the bundle is larger than %d MB; nothing was installed", maxBundleDownload>>20)
	case !strings.EqualFold(hex.EncodeToString(h.Sum(nil)), sum):
		err = errors.New("the downloaded bundle does not match the SHA-256 the registry gives; nothing was installed")
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return file, nil
}

package installer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/switchboard-app/switchboard/internal/mcpb"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// isBundle reports whether file is an MCP Bundle (.mcpb, or .dxt as it
// was called before).
func isBundle(file string) bool { return IsBundleFile(file) }

// IsBundleFile reports whether file names an MCP Bundle.
func IsBundleFile(file string) bool {
	l := strings.ToLower(file)
	return strings.HasSuffix(l, ".mcpb") || strings.HasSuffix(l, ".dxt")
}

// ReadBundle opens a bundle to show what it is and which settings it asks
// for, before installing it.
func ReadBundle(file string) (*mcpb.Bundle, error) {
	b, err := mcpb.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	return b, nil
}

func (in *Installer) installBundle(ctx context.Context, req Request, taken func(string) bool) (serverconf.Config, error) {
	b, err := ReadBundle(req.Package)
	if err != nil {
		return serverconf.Config{}, err
	}
	id := req.ID
	if id == "" {
		id = serverconf.NewID(b.Manifest.Name, func(s string) bool { return in.Installed(s) || taken != nil && taken(s) })
	}
	if err := checkID(id); err != nil {
		return serverconf.Config{}, err
	}
	if in.Installed(id) || taken != nil && taken(id) {
		return serverconf.Config{}, fmt.Errorf("%w: a server named %s exists; choose another ID", ErrExists, id)
	}
	cfg := serverconf.Config{ID: id, Name: b.Manifest.Title(), Transport: serverconf.TransportStdio, Enabled: true}
	return in.placeBundle(ctx, b, cfg, req.Package, req.Values, false)
}

func (in *Installer) updateBundle(ctx context.Context, cfg serverconf.Config, file string, values map[string]string) (serverconf.Config, error) {
	b, err := ReadBundle(file)
	if err != nil {
		return cfg, err
	}
	if cfg.Install.Kind != serverconf.InstallMCPB || b.Manifest.Name != cfg.Install.Package {
		return cfg, fmt.Errorf("%s is the bundle %q, not %s's %q; install it as a new server instead", filepath.Base(file), b.Manifest.Name, cfg.ID, cfg.Install.Package)
	}
	merged := map[string]string{}
	for k, v := range cfg.Install.Values {
		merged[k] = v
	}
	for k, v := range values {
		merged[k] = v
	}
	pinned := cfg.Install.Pinned
	out, err := in.placeBundle(ctx, b, cfg, file, merged, true)
	if err == nil {
		out.Install.Pinned = pinned
	}
	return out, err
}

// placeBundle unpacks b into a staging folder, builds the command line
// with values, and puts the folder in place of cfg's. Sensitive settings
// go to the keyring (Options.PutSecret) and the config names them.
func (in *Installer) placeBundle(ctx context.Context, b *mcpb.Bundle, cfg serverconf.Config, file string, values map[string]string, replace bool) (serverconf.Config, error) {
	if err := ctx.Err(); err != nil {
		return cfg, err
	}
	root := filepath.Join(in.opts.DataDir, "servers")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return cfg, err
	}
	staging := filepath.Join(root, ".staging-"+cfg.ID+"-"+randomSuffix())
	in.progress(Progress{ID: cfg.ID, Step: "unpacking", Detail: filepath.Base(file)})
	if err := b.Extract(staging); err != nil {
		_ = os.RemoveAll(staging)
		return cfg, fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	done := false
	defer func() {
		if !done {
			_ = os.RemoveAll(staging)
		}
	}()
	spec, err := b.Launch(staging, values)
	var fe *mcpb.FieldError
	if errors.As(err, &fe) {
		return cfg, fmt.Errorf("%w (switchboard servers install FILE --set %s=VALUE)", err, fe.Key)
	}
	if err != nil {
		return cfg, err
	}
	// The staging folder becomes the server's folder: name it ${install}.
	rel := func(s string) string { return strings.ReplaceAll(s, staging, serverconf.InstallDirVar) }
	cfg.Command = rel(spec.Command)
	cfg.Cwd = rel(spec.Dir)
	cfg.Args = make([]string, len(spec.Args))
	secretArg := map[int]bool{}
	for _, i := range spec.SecretArgs {
		secretArg[i] = true
	}
	cfg.Env = nil
	for i, a := range spec.Args {
		if !secretArg[i] {
			cfg.Args[i] = rel(a)
			continue
		}
		name := "setting" + strconv.Itoa(i)
		if err := in.putSecret(serverconf.ArgSecretRef(cfg.ID, name), a); err != nil {
			return cfg, err
		}
		cfg.Args[i] = serverconf.ArgSecretPlaceholder(name)
	}
	secretEnv := map[string]bool{}
	for _, k := range spec.SecretEnv {
		secretEnv[k] = true
	}
	for k, v := range spec.Env {
		if cfg.Env == nil {
			cfg.Env = map[string]serverconf.Value{}
		}
		if !secretEnv[k] {
			cfg.Env[k] = serverconf.Value{Plain: rel(v)}
			continue
		}
		ref := serverconf.EnvSecretRef(cfg.ID, k)
		if err := in.putSecret(ref, v); err != nil {
			return cfg, err
		}
		cfg.Env[k] = serverconf.Value{SecretRef: ref}
	}
	for _, d := range spec.Dropped {
		in.progress(Progress{ID: cfg.ID, Step: "checking", Detail: fmt.Sprintf("left out the bundle's %s: %s", d.Key, d.Reason)})
	}
	kept := map[string]string{}
	for _, f := range b.UserConfig() {
		if v, ok := values[f.Key]; ok && !f.Sensitive {
			kept[f.Key] = v
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	if err := in.place(staging, cfg.ID, replace); err != nil {
		return cfg, err
	}
	done = true
	cfg.Install = &serverconf.Install{Kind: serverconf.InstallMCPB, Package: b.Manifest.Name, Version: b.Manifest.Version,
		File: filepath.Base(file), Runtime: spec.Runtime, Values: kept}
	in.progress(Progress{ID: cfg.ID, Step: "done", Detail: b.Manifest.Name + " " + b.Manifest.Version})
	return cfg, nil
}

func (in *Installer) putSecret(ref, value string) error {
	if in.opts.PutSecret == nil {
		return errors.New("this bundle has a sensitive setting, and the keyring is not available to keep it")
	}
	if err := in.opts.PutSecret(ref, value); err != nil {
		return fmt.Errorf("keeping a sensitive setting in the keyring: %w", err)
	}
	return nil
}

// Package servers is the user's list of MCP servers: configs kept in the
// database (secret values in the keyring), imported from and exported to the
// formats of other clients, and handed to the connection manager. A server
// whose command, args or URL change loses its "always allow" grants; one
// whose URL changes, or that is deleted, is also signed out (its OAuth
// tokens belong to the old host).
package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Manager is the part of mcpconn.Manager this package drives.
type Manager interface {
	SetServers(cfgs []serverconf.Config) error
	Add(cfg serverconf.Config) error
	Update(cfg serverconf.Config) error
	Remove(id string) error
	Statuses() []mcpconn.Status
	Tools() []mcpconn.Tool
}

// Trust is told when a server's identity changes (approval.Broker).
type Trust interface {
	ServerChanged(ctx context.Context, serverID, fingerprint string) error
}

// Secrets stores secret values of configs.
type Secrets interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

// View is a server as the UI shows it.
type View struct {
	Config serverconf.Config `json:"config"`
	Status mcpconn.Status    `json:"status"`
	Tools  []mcpconn.Tool    `json:"tools"`
}

// Service manages the configured servers.
type Service struct {
	Store   *store.Store
	Secrets Secrets
	Manager Manager
	Trust   Trust
	Log     *slog.Logger
	// Installed, if set, turns the config of a server Switchboard
	// installed into the command that runs it (installer.Prepare), so
	// that an export names its files and its Node.
	Installed func(ctx context.Context, cfg serverconf.Config) (serverconf.Config, error)
}

// Configs returns the stored configs in display order.
func (s *Service) Configs(ctx context.Context) ([]serverconf.Config, error) {
	recs, err := s.Store.Servers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]serverconf.Config, 0, len(recs))
	for _, r := range recs {
		c, err := decode(r)
		if err != nil {
			s.Log.Error("stored server config unreadable; skipped", "server", r.ID, "err", err)
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// decode is the config a stored server record holds.
func decode(r store.Server) (serverconf.Config, error) {
	var c serverconf.Config
	if err := json.Unmarshal([]byte(r.Config), &c); err != nil {
		return c, err
	}
	c.ID, c.Enabled = r.ID, r.Enabled
	return c, nil
}

// Start hands the stored servers to the manager (which connects the
// enabled ones in the background).
func (s *Service) Start(ctx context.Context) error {
	cfgs, err := s.Configs(ctx)
	if err != nil {
		return err
	}
	return s.Manager.SetServers(cfgs)
}

// List returns every server with its live status and tools.
func (s *Service) List(ctx context.Context) ([]View, error) {
	cfgs, err := s.Configs(ctx)
	if err != nil {
		return nil, err
	}
	statuses := map[string]mcpconn.Status{}
	for _, st := range s.Manager.Statuses() {
		statuses[st.ServerID] = st
	}
	tools := map[string][]mcpconn.Tool{}
	for _, t := range s.Manager.Tools() {
		tools[t.ServerID] = append(tools[t.ServerID], t)
	}
	out := make([]View, 0, len(cfgs))
	for _, c := range cfgs {
		st, ok := statuses[c.ID]
		if !ok {
			st = mcpconn.Status{ServerID: c.ID, State: mcpconn.StateDisconnected}
		}
		ts := tools[c.ID]
		if ts == nil {
			ts = []mcpconn.Tool{}
		}
		out = append(out, View{Config: c, Status: st, Tools: ts})
	}
	return out, nil
}

// Validate returns the field errors of cfg (none when valid).
func Validate(cfg serverconf.Config) []serverconf.FieldError {
	err := serverconf.Validate(&cfg)
	var ve *serverconf.ValidationError
	if errors.As(err, &ve) {
		return ve.Errors
	}
	if err != nil {
		return []serverconf.FieldError{{Field: "", Message: err.Error()}}
	}
	return []serverconf.FieldError{}
}

// Save validates and stores cfg (new or changed), moving secret values into
// the keyring, and updates the manager. An empty ID is made from the name.
func (s *Service) Save(ctx context.Context, cfg serverconf.Config) (serverconf.Config, error) {
	existing, err := s.Configs(ctx)
	if err != nil {
		return cfg, err
	}
	var old *serverconf.Config
	for i := range existing {
		if existing[i].ID == cfg.ID {
			old = &existing[i]
		}
	}
	if cfg.ID == "" {
		cfg.ID = serverconf.NewID(cfg.DisplayName(), func(id string) bool {
			return slices.ContainsFunc(existing, func(c serverconf.Config) bool { return c.ID == id })
		})
	}
	if err := serverconf.Validate(&cfg); err != nil {
		return cfg, err
	}
	if err := serverconf.ExtractSecrets(&cfg, s.Secrets.Set); err != nil {
		return cfg, fmt.Errorf("saving the server's secret values in the keyring: %w", err)
	}
	if err := s.Store.PutServers(ctx, record(cfg)); err != nil {
		return cfg, err
	}
	if old != nil && oauth.CanonicalResource(old.URL) != oauth.CanonicalResource(cfg.URL) {
		s.signOut(cfg.ID)
	}
	if old != nil && serverconf.Fingerprint(old) != serverconf.Fingerprint(&cfg) && s.Trust != nil {
		if err := s.Trust.ServerChanged(ctx, cfg.ID, serverconf.Fingerprint(&cfg)); err != nil {
			s.Log.Warn("dropping grants of a changed server", "server", cfg.ID, "err", err)
		}
	}
	if old != nil {
		err = s.Manager.Update(cfg)
	} else {
		err = s.Manager.Add(cfg)
	}
	return cfg, err
}

func record(cfg serverconf.Config) store.Server {
	raw, _ := json.Marshal(cfg) // a Config always marshals
	return store.Server{ID: cfg.ID, Name: cfg.DisplayName(), Transport: string(cfg.Transport), Enabled: cfg.Enabled,
		Config: string(raw), Fingerprint: serverconf.Fingerprint(&cfg)}
}

// Delete removes a server, its grants and its secret values.
func (s *Service) Delete(ctx context.Context, id string) error {
	cfgs, err := s.Configs(ctx)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteServer(ctx, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no server %q: %w", id, err)
		}
		return err
	}
	for _, c := range cfgs {
		if c.ID != id {
			continue
		}
		// Env, headers, argument passwords and the OAuth client's secret
		// and key: every keyring entry the config names.
		for _, ref := range serverconf.SecretRefs(&c) {
			s.Secrets.Delete(ref)
		}
	}
	if s.Trust != nil {
		s.Trust.ServerChanged(ctx, id, "deleted")
	}
	// The session stops before the sign-out: closing it may refresh the
	// token, which would save it again.
	err = s.Manager.Remove(id)
	s.signOut(id)
	return err
}

// signOut forgets the server's OAuth tokens, registered client and pinned
// issuer: they belong to the URL it had. (The oauth package refuses a
// token stored for another URL anyway; this keeps the keyring clean and
// makes a later server with the same ID and URL sign in afresh.)
func (s *Service) signOut(id string) {
	for _, key := range oauth.Keys(id) {
		if err := s.Secrets.Delete(key); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			s.Log.Warn("forgetting the server's sign-in", "server", id, "err", err)
		}
	}
}

// stored returns server id's config as stored, unvalidated.
func (s *Service) stored(ctx context.Context, id string) (serverconf.Config, error) {
	rec, err := s.Store.Server(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return serverconf.Config{}, fmt.Errorf("no server %q: %w", id, err)
	} else if err != nil {
		return serverconf.Config{}, fmt.Errorf("server %q: %w", id, err)
	}
	cfg, err := decode(rec)
	if err != nil {
		return cfg, fmt.Errorf("server %q: its stored config is unreadable: %w", id, err)
	}
	return cfg, nil
}

// SetToolEnabled switches one tool of a server on or off.
func (s *Service) SetToolEnabled(ctx context.Context, id, tool string, enabled bool) error {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return err
	}
	cfg.DisabledTools = slices.DeleteFunc(cfg.DisabledTools, func(t string) bool { return t == tool })
	if !enabled {
		cfg.DisabledTools = append(cfg.DisabledTools, tool)
	}
	if err := s.Store.PutServers(ctx, record(cfg)); err != nil {
		return err
	}
	return s.Manager.Update(cfg)
}

// SetEnabled switches a server on or off. It does not validate the stored
// config, so a server whose config no longer passes can still be disabled.
func (s *Service) SetEnabled(ctx context.Context, id string, enabled bool) error {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return err
	}
	cfg.Enabled = enabled
	if err := s.Store.PutServers(ctx, record(cfg)); err != nil {
		return err
	}
	return s.Manager.Update(cfg)
}

// SetInheritEnv switches whether a stdio server gets the app's whole
// environment instead of the allowlist (serverconf.Config.InheritEnv). It
// goes through Save, so the server's fingerprint, and with it its grants,
// follow the change.
func (s *Service) SetInheritEnv(ctx context.Context, id string, on bool) (serverconf.Config, error) {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return cfg, err
	}
	if !cfg.Transport.Local() {
		return cfg, fmt.Errorf("server %q is a remote server: it runs no process here, so it has no environment", id)
	}
	cfg.InheritEnv = on
	return s.Save(ctx, cfg)
}

// SetWorkloadIdentity makes remote server id sign in as a workload
// (serverconf.Auth.AssertionFile): as OAuth client clientID, with the
// identity token the platform keeps in file. An empty clientID removes
// the server's sign-in settings.
func (s *Service) SetWorkloadIdentity(ctx context.Context, id, clientID, file string) (serverconf.Config, error) {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return cfg, err
	}
	if cfg.Transport.Local() {
		return cfg, fmt.Errorf("server %q is a local server: it signs in to nothing", id)
	}
	cfg.Auth = nil
	if clientID != "" {
		cfg.Auth = &serverconf.Auth{Grant: serverconf.GrantJWTBearer, ClientID: clientID, AssertionFile: file}
	}
	return s.Save(ctx, cfg)
}

// SetSecret stores value in the keyring under the server's own entry for
// env variable name (a local server) or header name (a remote one), and
// makes the config refer to it.
func (s *Service) SetSecret(ctx context.Context, id, name, value string) (serverconf.Config, error) {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return cfg, err
	}
	if name == "" {
		return cfg, errors.New("the variable or header name is empty")
	}
	vals, ref := &cfg.Env, serverconf.EnvSecretRef(id, name)
	if !cfg.Transport.Local() {
		vals, ref = &cfg.Headers, serverconf.HeaderSecretRef(id, name)
	}
	if err := s.Secrets.Set(ref, value); err != nil {
		return cfg, fmt.Errorf("saving %s in the keyring: %w", name, err)
	}
	m := maps.Clone(*vals)
	if m == nil {
		m = map[string]serverconf.Value{}
	}
	if !cfg.Transport.Local() {
		for k := range m { // header names are case-insensitive
			if strings.EqualFold(k, name) {
				delete(m, k)
			}
		}
	}
	m[name] = serverconf.Value{SecretRef: ref}
	*vals = m
	return s.Save(ctx, cfg)
}

// Preview reads a config file in any supported format and reports what an
// import would add, skip and fail, without changing anything.
func (s *Service) Preview(ctx context.Context, data []byte) (*serverconf.ImportReport, error) {
	existing, err := s.Configs(ctx)
	if err != nil {
		return nil, err
	}
	return serverconf.Import(data, existing)
}

// Import adds every server the file's report lists as added, all or none:
// secrets go to the keyring first, then one database transaction. Text
// pasted into the window has no directory, so relative paths in it are
// left as written (and warned about); see ImportFile.
func (s *Service) Import(ctx context.Context, data []byte) (*serverconf.ImportReport, error) {
	return s.ImportFile(ctx, data, "")
}

// ImportFile is Import of a file read from directory dir, against which
// relative commands and script paths are resolved. When any entry of the
// file is invalid, nothing is imported and the error names each one.
func (s *Service) ImportFile(ctx context.Context, data []byte, dir string) (*serverconf.ImportReport, error) {
	existing, err := s.Configs(ctx)
	if err != nil {
		return nil, err
	}
	rep, err := serverconf.ImportFile(data, existing, dir)
	if err != nil {
		return nil, err
	}
	if err := rep.Err(); err != nil {
		return rep, err
	}
	recs := make([]store.Server, 0, len(rep.Added))
	var written []string
	rollback := func() {
		for _, ref := range written {
			s.Secrets.Delete(ref)
		}
	}
	for i := range rep.Added {
		cfg := &rep.Added[i]
		err := serverconf.ExtractSecrets(cfg, func(ref, value string) error {
			if err := s.Secrets.Set(ref, value); err != nil {
				return err
			}
			written = append(written, ref)
			return nil
		})
		if err != nil {
			rollback()
			return nil, fmt.Errorf("saving secret values of %q: %w; nothing was imported", cfg.ID, err)
		}
		recs = append(recs, record(*cfg))
	}
	if err := s.Store.PutServers(ctx, recs...); err != nil {
		rollback()
		return nil, fmt.Errorf("storing the imported servers: %w; nothing was imported", err)
	}
	for _, cfg := range rep.Added {
		if err := s.Manager.Add(cfg); err != nil {
			s.Log.Warn("starting an imported server", "server", cfg.ID, "err", err)
		}
	}
	return rep, nil
}

// Export writes the stored servers in a client's format ("claude",
// "vscode", "cursor"); secret values are placeholders.
func (s *Service) Export(ctx context.Context, format string) ([]byte, []string, error) {
	cfgs, err := s.Configs(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i, c := range cfgs {
		if c.Install != nil && s.Installed != nil {
			if run, err := s.Installed(ctx, c); err == nil {
				cfgs[i] = run
			}
		}
	}
	return serverconf.ExportWithWarnings(cfgs, format)
}

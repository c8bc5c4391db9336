package app

import (
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/servers"
)

// ListServers returns every configured server with its status and tools.
func (a *App) ListServers() ([]servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	list, err := svc.Servers.List(a.life)
	return orEmpty(list), err
}

// ValidateServer returns the field errors of cfg; empty when valid.
func (a *App) ValidateServer(cfg serverconf.Config) ([]serverconf.FieldError, error) {
	return orEmpty(servers.Validate(cfg)), nil
}

// SaveServer stores a new or edited server and (re)connects it when enabled.
func (a *App) SaveServer(cfg serverconf.Config) (servers.View, error) {
	svc, err := a.services()
	if err != nil {
		return servers.View{}, err
	}
	return svc.SaveServer(a.life, cfg)
}

// DeleteServer removes a server, its grants and secrets, and the files of
// one Switchboard installed.
func (a *App) DeleteServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.UninstallServer(a.life, id)
}

// ConnectServer connects a server now.
func (a *App) ConnectServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Manager.Connect(id)
}

// DisconnectServer disconnects a server until it is connected again.
func (a *App) DisconnectServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Manager.Disconnect(id)
}

// RestartServer stops and starts a server.
func (a *App) RestartServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Manager.Restart(id)
}

// SetToolEnabled switches one tool of a server on or off.
func (a *App) SetToolEnabled(serverID, tool string, enabled bool) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Servers.SetToolEnabled(a.life, serverID, tool, enabled)
}

// PreviewImport reports what importing text (Claude Desktop, VS Code or
// Cursor JSON) would add, skip and fail, changing nothing.
func (a *App) PreviewImport(text string) (*serverconf.ImportReport, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.Servers.Preview(a.life, []byte(text))
}

// ImportServers adds what PreviewImport lists as added, all or nothing.
func (a *App) ImportServers(text string) (*serverconf.ImportReport, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.Servers.Import(a.life, []byte(text))
}

// AuthorizeServer signs in to a remote server in the system browser and
// connects it; it returns when connected or with why not.
func (a *App) AuthorizeServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Authorize(a.life, id)
}

// CancelAuthorize abandons a sign-in in progress.
func (a *App) CancelAuthorize(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.CancelAuthorize(id)
}

// SignOutServer forgets a server's tokens; it then needs authorization again.
func (a *App) SignOutServer(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.SignOut(id)
}

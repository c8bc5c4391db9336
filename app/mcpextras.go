package app

import (
	"errors"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// SetServerLogLevel sets the least severe MCP log message a server is asked
// to send into its log ("" for the server's default), applied at once if
// it is connected and declares logging.
func (a *App) SetServerLogLevel(id string, level serverconf.LogLevel) (serverconf.Config, error) {
	svc, err := a.services()
	if err != nil {
		return serverconf.Config{}, err
	}
	return svc.Servers.SetLogLevel(a.life, id, level)
}

// SetReadOnlyServer lets the tools a server says are read-only run without
// asking (on), or stops that. The server's word is all there is: a server
// that lies gets its tool run unasked, so this is per server and off by
// default; a tool that also says it is destructive always asks.
func (a *App) SetReadOnlyServer(id string, on bool) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.SetReadOnly(a.life, id, on)
}

// PickFolder asks the user for a folder with the system's dialog (for a
// server's roots); "" when they cancel.
func (a *App) PickFolder(title string) (string, error) {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return "", errors.New("the window is not ready")
	}
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: false})
}

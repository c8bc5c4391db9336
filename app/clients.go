package app

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/clientconfig"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Connected apps: other MCP clients (Claude Desktop, VS Code, Cursor,
// scripts) that use the conversations the user shares with them. A
// client argument is the app's ID or name.

// AddedClient is a new connected app with its token, which is shown this
// once: only a hash of it is kept.
type AddedClient struct {
	Client clients.Client `json:"client"`
	Token  string         `json:"token"`
}

func (a *App) registry() (*core.Services, *clients.Registry, error) {
	svc, err := a.services()
	if err != nil {
		return nil, nil, err
	}
	return svc, svc.Clients(), nil
}

// ListClients returns every connected app, revoked ones too.
func (a *App) ListClients() ([]clients.Client, error) {
	_, r, err := a.registry()
	if err != nil {
		return nil, err
	}
	list, err := r.List(a.life)
	return orEmpty(list), err
}

// AddClient registers a connected app and returns its token, once.
func (a *App) AddClient(name string, canStart bool) (AddedClient, error) {
	_, r, err := a.registry()
	if err != nil {
		return AddedClient{}, err
	}
	c, token, err := r.Add(a.life, name, canStart)
	return AddedClient{Client: c, Token: token}, err
}

// RotateClientToken gives a connected app a new token, returned once; the
// old one stops working at once, and the sessions opened with it end.
func (a *App) RotateClientToken(client string) (string, error) {
	svc, err := a.services()
	if err != nil {
		return "", err
	}
	return svc.RotateClient(a.life, client)
}

// RevokeClient refuses a connected app's token from now on and ends its
// open sessions.
func (a *App) RevokeClient(client string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.RevokeClient(a.life, client)
}

// RemoveClient deletes a connected app, its grants and allowed tools; the
// audit keeps its requests.
func (a *App) RemoveClient(client string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.RemoveClient(a.life, client)
}

// SetClientCanStart lets a connected app start conversations of its own,
// or stops it.
func (a *App) SetClientCanStart(client string, on bool) error {
	_, r, err := a.registry()
	if err != nil {
		return err
	}
	return r.SetCanStart(a.life, client, on)
}

// ClientGrants returns the conversations shared with a connected app.
func (a *App) ClientGrants(client string) ([]clients.Grant, error) {
	_, r, err := a.registry()
	if err != nil {
		return nil, err
	}
	list, err := r.Grants(a.life, client)
	return orEmpty(list), err
}

// ConversationGrants returns who a conversation is shared with.
func (a *App) ConversationGrants(conversationID string) ([]clients.Grant, error) {
	_, r, err := a.registry()
	if err != nil {
		return nil, err
	}
	list, err := r.GrantsFor(a.life, conversationID)
	return orEmpty(list), err
}

// GrantClient shares a conversation with a connected app: read, or write
// (read and write); expiresInMs 0 means until it is unshared.
func (a *App) GrantClient(client, conversationID string, access clients.Access, expiresInMs int64) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	var expires time.Time
	if expiresInMs > 0 {
		expires = time.Now().Add(time.Duration(expiresInMs) * time.Millisecond)
	}
	return svc.GrantClient(a.life, client, conversationID, access, expires)
}

// UngrantClient stops sharing a conversation with a connected app; its
// open sessions lose it at once.
func (a *App) UngrantClient(client, conversationID string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.UngrantClient(a.life, client, conversationID)
}

// ClientTools returns the tools a connected app's turns may run without
// asking.
func (a *App) ClientTools(client string) ([]clients.ToolRef, error) {
	_, r, err := a.registry()
	if err != nil {
		return nil, err
	}
	list, err := r.AllowedTools(a.life, client)
	return orEmpty(list), err
}

// AllowClientTool lets a connected app's turns run a server's tool (its
// own name for it) without asking.
func (a *App) AllowClientTool(client, serverID, tool string) error {
	_, r, err := a.registry()
	if err != nil {
		return err
	}
	return r.AllowTool(a.life, client, serverID, tool)
}

// DisallowClientTool makes a connected app's turns ask for the tool again.
func (a *App) DisallowClientTool(client, serverID, tool string) error {
	_, r, err := a.registry()
	if err != nil {
		return err
	}
	return r.DisallowTool(a.life, client, serverID, tool)
}

// ClientAudit returns the connected apps' requests the filter selects,
// newest first.
func (a *App) ClientAudit(filter clients.AuditFilter) ([]clients.AuditEntry, error) {
	_, r, err := a.registry()
	if err != nil {
		return nil, err
	}
	list, err := r.Audit(a.life, filter)
	return orEmpty(list), err
}

// ClientEndpoint says whether the HTTP endpoint for connected apps is on,
// and where.
func (a *App) ClientEndpoint() (core.EndpointStatus, error) {
	svc, err := a.services()
	if err != nil {
		return core.EndpointStatus{}, err
	}
	return svc.ClientEndpoint(), nil
}

// SetClientEndpoint turns the HTTP endpoint on (at port; 0 is a free one)
// or off, and keeps the choice.
func (a *App) SetClientEndpoint(on bool, port int) (core.EndpointStatus, error) {
	svc, err := a.services()
	if err != nil {
		return core.EndpointStatus{}, err
	}
	return svc.SetClientEndpoint(a.life, on, port)
}

// configOptions points a config entry at this program and this data
// directory (core.ClientConfigOptions).
func (a *App) configOptions() *clientconfig.Options { return a.core.ClientConfigOptions() }

// ConnectAppStatus returns an app's config file and whether Switchboard
// can merge its entry into it; it changes nothing.
func (a *App) ConnectAppStatus(app string) (clientconfig.Preview, error) {
	id, err := clientconfig.ParseApp(app)
	if err != nil {
		return clientconfig.Preview{}, err
	}
	return clientconfig.Check(id, a.configOptions())
}

// ConnectApp registers app (Claude Desktop, VS Code, Cursor) as a
// connected app under its name, or gives the one of that name a new token,
// and returns the entry for its config file with the token (shown once).
// Nothing is written: WriteAppConfig does that when the user agrees.
func (a *App) ConnectApp(app string, canStart bool) (core.AppConnection, error) {
	id, err := clientconfig.ParseApp(app)
	if err != nil {
		return core.AppConnection{}, err
	}
	svc, err := a.services()
	if err != nil {
		return core.AppConnection{}, err
	}
	return svc.ConnectApp(a.life, id, canStart, a.configOptions())
}

// WriteAppConfig merges the entry with token into app's config file, after
// the user agreed: every other entry kept, the old file backed up, the new
// one readable by the user only. A file that is not plain JSON is refused
// with what to do instead (copy the entry).
func (a *App) WriteAppConfig(app, token string) (clientconfig.Written, error) {
	id, err := clientconfig.ParseApp(app)
	if err != nil {
		return clientconfig.Written{}, err
	}
	return clientconfig.Write(id, token, a.configOptions())
}

// activityPoll is how often the window looks for requests other processes
// recorded while the Connected apps view shows.
const activityPoll = 2 * time.Second

// An activityFollower follows the audit while the Connected apps view
// shows; its zero value is off.
type activityFollower struct {
	mu   sync.Mutex
	stop context.CancelFunc
}

// WatchClientActivity starts (on) or stops following the requests that
// other processes record: an app that launched `switchboard mcp serve`
// audits from its own process, which sends the window no event. While on,
// the window checks the database's data_version every two seconds (one
// cheap query; across processes nothing can be waited on) and sends
// clients:activity with the newest entry when one was added. The view
// turns it on while it shows.
func (a *App) WatchClientActivity(on bool) error {
	_, r, err := a.registry()
	if err != nil {
		return err
	}
	f := &a.activity
	f.mu.Lock()
	defer f.mu.Unlock()
	if !on {
		if f.stop != nil {
			f.stop()
			f.stop = nil
		}
		return nil
	}
	if f.stop != nil {
		return nil
	}
	w, err := a.core.Store.Watch(a.life)
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(a.life)
	f.stop = stop
	go followActivity(ctx, w, r, activityPoll, a.Emit)
	return nil
}

// followActivity emits clients:activity when the newest audit entry
// changes, looking every period, until ctx ends.
func followActivity(ctx context.Context, w *store.Watcher, r *clients.Registry, every time.Duration, emit func(string, any)) {
	defer w.Close()
	newest := func() (clients.AuditEntry, bool) {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		list, err := r.Audit(qctx, clients.AuditFilter{Limit: 1})
		if err != nil || len(list) == 0 {
			return clients.AuditEntry{}, false
		}
		return list[0], true
	}
	w.Changed(ctx) // the first look always says changed
	last, _ := newest()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !w.Changed(ctx) {
			continue
		}
		if e, ok := newest(); ok && e.ID > last.ID {
			last = e
			emit(mcpserve.EventActivity, e)
		}
	}
}

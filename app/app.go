// Package app is the only package that imports Wails. It binds thin methods
// over internal/core for the frontend, turns internal events into Wails
// events, and wires the window's startup and shutdown. Everything a method
// does is in internal/; a method here converts and forwards.
package app

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/spawn"
)

// App is bound to the frontend: its exported methods become window.go.app.App.*.
type App struct {
	core *core.Core
	// life is cancelled when the window closes: bound calls run under it,
	// so closing the window ends a sign-in or a model listing in progress.
	life    context.Context
	end     context.CancelFunc
	svc     *core.Services // built once, at startup
	svcErr  error          // why svc is nil: the database did not open
	svcOnce sync.Once

	mu    sync.Mutex
	ctx   context.Context         // the Wails context, set at startup
	feeds map[string]*logbuf.Ring // the log rings pushed to the window, by source

	readyOnce sync.Once
	ready     chan struct{} // closed when the frontend called Ready
	hidden    atomic.Bool   // the page said it is hidden (WindowVisible)
	domSeen   chan struct{} // closed when Wails reported the DOM ready
	domOnce   sync.Once
	guardOnce sync.Once        // guardFramesOnce
	watch     *pageWatch       // set by guardFramesOnce
	activity  activityFollower // WatchClientActivity (clients.go)
}

// New returns an App over c.
func New(c *core.Core) *App {
	life, end := context.WithCancel(context.Background())
	return &App{core: c, life: life, end: end, feeds: map[string]*logbuf.Ring{}, ready: make(chan struct{}), domSeen: make(chan struct{})}
}

// readyTimeout is how long the page may take to call Ready before the
// window reloads it.
const readyTimeout = 8 * time.Second

// watchReady reloads the page when the frontend has not called Ready in
// time. It was written for a white page seen in about one launch in ten
// with servers configured, since traced to stray pipes (see services); it
// stays as a guard against any other page that never loads.
// A user never waits on a blank window: after two reloads it gives up and
// logs why.
func (a *App) watchReady(ctx context.Context) {
	for attempt := 1; attempt <= 2; attempt++ {
		select {
		case <-a.ready:
			return
		case <-ctx.Done():
			return
		case <-time.After(readyTimeout):
		}
		dom := false
		select {
		case <-a.domSeen:
			dom = true
		default:
		}
		a.core.Log.Warn("the page did not start in time; reloading it", "attempt", attempt, "domReady", dom, "waited", readyTimeout)
		runtime.WindowReloadApp(ctx)
	}
	select {
	case <-a.ready:
	case <-ctx.Done():
	case <-time.After(readyTimeout):
		a.core.Log.Error("the page did not start after two reloads; restart Switchboard, and see the log for WebKit errors")
	}
}

func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	a.feedLog("app", a.core.AppLog)
	if svc, err := a.services(); err == nil {
		// Servers connect in the background: the window never waits.
		if err := svc.Start(a.life, a.core.Log); err != nil {
			a.core.Log.Error("starting services", "err", err)
		}
	}
	go a.watchReady(a.life)
}

// services returns the product's services, built once with this App as
// their event emitter; an error when the database is not open.
func (a *App) services() (*core.Services, error) {
	a.svcOnce.Do(func() {
		// Servers are told the window shows their views only where it can
		// (appViewsSupported).
		opts := &core.ServiceOptions{Emitter: a, Visible: a.visible, OwnsInstance: true, Manager: &mcpconn.Options{AppViews: appViewsSupported()},
			ClientEndpoint: true} // the connected apps' HTTP endpoint, when the user turned it on
		// Children go through the binary's trampoline: Wails' asset server
		// makes its response pipes without close-on-exec, and a server forked
		// while one is open would keep the page from ever loading.
		if w, err := spawn.NewWrapper(); err == nil {
			opts.Manager.Wrap = w.Wrap
		} else {
			a.core.Log.Warn("starting servers directly", "err", err)
		}
		a.svc, a.svcErr = a.core.Services(opts)
	})
	return a.svc, a.svcErr
}

func (a *App) domReady(ctx context.Context) {
	a.domOnce.Do(func() { close(a.domSeen) })
	a.restoreWindow(ctx)
}

func (a *App) beforeClose(ctx context.Context) bool {
	a.saveWindow(ctx)
	return false
}

func (a *App) shutdown(ctx context.Context) {
	a.end()
	a.core.Log.Info("window closed")
}

// Emit sends an event to the frontend. Internal packages get the App as
// their Emitter; before startup events are dropped. A server's first
// status starts pushing its log.
func (a *App) Emit(name string, payload any) {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if st, ok := payload.(mcpconn.Status); ok && name == mcpconn.EventServerStatus && a.svc != nil {
		if r := a.svc.Manager.Stderr(st.ServerID); r != nil {
			a.feedLog(st.ServerID, r)
		}
	}
	if ctx != nil {
		runtime.EventsEmit(ctx, name, payload)
	}
}

// Info is what the frontend learns when it starts.
type Info struct {
	Version  string         `json:"version"`
	DataDir  string         `json:"dataDir"`
	Database string         `json:"database"`
	LogDir   string         `json:"logDir"`
	Keyring  secrets.Status `json:"keyring"`
	Problems []core.Problem `json:"problems"`
	// Notice says why the window was reloaded (a view froze it, or the
	// page crashed); empty on a normal start.
	Notice string `json:"notice,omitempty"`
}

// Ready is called by the frontend once it has mounted; it returns what the
// first screen shows and records that the window is alive.
func (a *App) Ready() (Info, error) {
	c := a.core
	c.Log.Info("frontend ready")
	a.readyOnce.Do(func() { close(a.ready) })
	problems := c.Problems
	if problems == nil {
		problems = []core.Problem{}
	}
	return Info{
		Version:  buildinfo.String(),
		DataDir:  c.Paths.Dir,
		Database: c.Paths.Database,
		LogDir:   c.Paths.Logs,
		Keyring:  c.Keyring,
		Problems: problems,
		Notice:   a.takeNotice(),
	}, nil
}

func (a *App) logger() *slog.Logger { return a.core.Log }

// takeNotice returns, once, why the window was reloaded, if it was.
func (a *App) takeNotice() string {
	a.mu.Lock()
	w := a.watch
	a.mu.Unlock()
	if w == nil {
		return ""
	}
	return w.takeNotice()
}

// errNoStore is returned by methods that need the database when it could
// not be opened (the first screen already explains why).
var errNoStore = core.ErrNoDatabase

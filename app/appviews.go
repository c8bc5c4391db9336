package app

import (
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard-app/switchboard/internal/appview"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// Servers' views (MCP Apps): the window shows a tool's view in its card.
// Everything is decided in core (internal/core/appviews.go) and served by
// internal/appview; these methods forward.

// appViewsSupported reports whether this window shows servers' views,
// and so whether Switchboard advertises the MCP Apps extension to
// servers. It is the one place that decides: a build whose webview cannot
// keep a view's frame away from the app's bindings returns false (see
// frameguard_*.go). On Linux the guard is put in place as the page loads,
// after servers were told; should that fail, OpenAppView refuses.
func appViewsSupported() bool { return canGuardFrames() }

// errFramesUnguarded is OpenAppView's answer when the frame guard could
// not be put in place.
var errFramesUnguarded = errors.New("server views are off in this window: it could not keep a view's frame away from the app (see the app log); the tool's text result is shown instead")

// OpenAppView opens the view of a server's tool (its own name) for a
// conversation, and returns where to load it and how to frame it.
func (a *App) OpenAppView(conversationID, serverID, tool string) (core.AppView, error) {
	if !framesGuarded() {
		return core.AppView{}, errFramesUnguarded
	}
	svc, err := a.services()
	if err != nil {
		return core.AppView{}, err
	}
	return svc.OpenAppView(a.life, conversationID, serverID, tool)
}

// AppViewCallTool runs a tool (the server's own name) a view asks for:
// only its own server's tools meant for views, each after the user's
// approval (the modal says the view asks), within the view's limits.
func (a *App) AppViewCallTool(viewID, tool string, args map[string]any) (*mcpconn.Result, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.AppViewCallTool(a.life, viewID, tool, args)
}

// AppViewReadResource reads a resource of the view's own server.
func (a *App) AppViewReadResource(viewID, uri string) (*mcpconn.ResourceContents, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.AppViewReadResource(a.life, viewID, uri)
}

// AppViewOpenLink opens an http(s) link a view asks for in the user's
// browser; the window asks the user first and calls this only on yes.
func (a *App) AppViewOpenLink(viewID, url string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.AppViewOpenLink(a.life, viewID, url)
}

// CloseAppView closes a view: it is no longer served and its calls stop.
func (a *App) CloseAppView(viewID string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.CloseAppView(viewID)
}

// viewMiddleware sends the asset server's requests for views
// (appview.PathPrefix) to the open views, and every other to next; a view
// path is never the app's (404 when no view is open there).
func (a *App) viewMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, appview.PathPrefix) {
			if r.URL.Path == "/" || r.URL.Path == "/index.html" {
				a.guardFramesOnce()
			}
			next.ServeHTTP(w, r)
			return
		}
		svc, err := a.services()
		if err != nil {
			http.NotFound(w, r)
			return
		}
		svc.AppViewHandler().ServeHTTP(w, r)
	})
}

// guardFramesOnce puts the frame guard in place before the app's page is
// first served (a no-op where the platform guards frames itself), and
// logs frames' refused messages: a view trying the app's bindings.
func (a *App) guardFramesOnce() {
	a.guardOnce.Do(func() {
		// A frame's message to the bindings is a view gone hostile (no
		// view needs them): every view is ended, since which one it was
		// cannot be told.
		var logged atomic.Int64
		onFrameRefused(func(n int64, size int) {
			if logged.Add(1) <= 5 || n%100 == 0 {
				a.core.Log.Warn("refused a message from a frame inside the window: only the app's own page may call it", "refused", n, "bytes", size)
			}
			if svc, err := a.services(); err == nil {
				if ended := svc.EndAppViews("a view tried to reach the app itself, so every view was stopped"); ended > 0 {
					a.core.Log.Warn("stopped every view after a frame's message to the bindings", "views", ended)
				}
			}
		})
		var navLogged atomic.Int64
		onFrameNavigation(func(uri string) bool {
			svc, err := a.services()
			return err == nil && svc.AppViewFrameAllowed(uri)
		}, func(uri string) {
			if navLogged.Add(1) <= 20 {
				a.core.Log.Warn("refused a navigation inside the window: a view may load only what it declared", "url", clip(uri, 200))
			}
		})
		w := &pageWatch{
			now: time.Now,
			viewsOpen: func() int {
				if svc, err := a.services(); err == nil {
					return svc.AppViewsOpen()
				}
				return 0
			},
			ended: func(reason string) {
				a.core.Log.Warn("reloaded the window", "why", reason)
				if svc, err := a.services(); err == nil {
					svc.EndAppViews("it stopped responding and froze the window")
				}
			},
		}
		a.mu.Lock()
		a.watch = w
		a.mu.Unlock()
		onPageHang(w.hung, w.gone)
		if err := guardFrames(); err != nil {
			a.core.Log.Error("server views are off: the frame guard failed", "err", err)
		} else if canGuardFrames() && runtime.GOOS == "linux" {
			a.core.Log.Info("frame guard in place: only the app's page reaches its bindings")
		}
	})
}

// clip cuts s to at most n bytes for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

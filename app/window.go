package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// windowState is the window's size and position, kept between runs.
type windowState struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Maximised bool `json:"maximised"`
	Placed    bool `json:"placed"` // X and Y were saved
}

const windowKey = "window"

// Default and minimum window sizes.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 800, 600
)

func (a *App) loadWindow() windowState {
	ws := windowState{Width: defaultWidth, Height: defaultHeight}
	if a.core.Store == nil {
		return ws
	}
	var saved windowState
	if err := a.core.Store.Setting(a.life, windowKey, &saved); err == nil {
		if saved.Width >= minWidth && saved.Height >= minHeight && saved.Width < 20000 && saved.Height < 20000 {
			ws = saved
		}
	}
	return ws
}

func (a *App) restoreWindow(ctx context.Context) {
	ws := a.loadWindow()
	if ws.Placed {
		runtime.WindowSetPosition(ctx, ws.X, ws.Y)
	}
	if ws.Maximised {
		runtime.WindowMaximise(ctx)
	}
}

func (a *App) saveWindow(ctx context.Context) {
	if a.core.Store == nil {
		return
	}
	ws := a.loadWindow()
	ws.Maximised = runtime.WindowIsMaximised(ctx)
	if !ws.Maximised {
		ws.Width, ws.Height = runtime.WindowGetSize(ctx)
		ws.X, ws.Y = runtime.WindowGetPosition(ctx)
		ws.Placed = true
	}
	if err := a.core.Store.SetSetting(a.life, windowKey, ws); err != nil {
		a.logger().Warn("saving window size", "err", err)
	}
}

// raise brings the window to the front when a second start is attempted.
func (a *App) raise() {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return
	}
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx)
}

// WindowChanged is called by the frontend (debounced) when the window was
// resized, so the size survives even a crash or a kill.
func (a *App) WindowChanged() error {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return nil
	}
	a.saveWindow(ctx)
	return nil
}

package app

import (
	"fmt"
	"net/url"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-app/switchboard/internal/core"
)

// GetSettings returns the app-wide settings.
func (a *App) GetSettings() (core.Settings, error) {
	return core.LoadSettings(a.life, a.core.Store)
}

// SaveSettings validates and stores the settings.
func (a *App) SaveSettings(s core.Settings) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.SaveSettings(a.life, s)
}

// OpenURL opens an http(s) or mailto link in the system browser.
func (a *App) OpenURL(link string) error {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
		return fmt.Errorf("not opening %q: only http, https and mailto links are opened", link)
	}
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return fmt.Errorf("the window is not ready")
	}
	runtime.BrowserOpenURL(ctx, u.String())
	return nil
}

package app

import (
	"context"
	"fmt"
	"net/url"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/core"
)

// GetSettings returns the app-wide settings.
func (a *App) GetSettings() (core.Settings, error) {
	return core.LoadSettings(context.Background(), a.core.Store)
}

// SaveSettings validates and stores the settings.
func (a *App) SaveSettings(s core.Settings) error {
	if err := core.SaveSettings(context.Background(), a.core.Store, s); err != nil {
		return err
	}
	if svc, err := a.services(); err == nil {
		svc.Chat.SetLimits(chat.Limits{MaxToolRounds: s.MaxToolRounds, ResultLimit: s.ToolResultLimit, DefaultSystemPrompt: s.DefaultSystemPrompt})
	}
	return nil
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

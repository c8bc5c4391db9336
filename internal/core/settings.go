package core

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Themes lists the values of Settings.Theme (the frontend's contract is
// generated from it).
var Themes = []string{"system", "light", "dark"}

// Settings are the user's app-wide preferences.
type Settings struct {
	// Theme is "system", "light" or "dark".
	Theme string `json:"theme" ts_type:"Theme"`
	// ToolResultLimit caps the characters of a tool result the model sees.
	ToolResultLimit int `json:"toolResultLimit"`
	// MaxToolRounds caps model→tools→model rounds in one turn.
	MaxToolRounds int `json:"maxToolRounds"`
	// DefaultSystemPrompt is used by conversations without their own.
	DefaultSystemPrompt string `json:"defaultSystemPrompt"`
	// DefaultProviderID is the provider new conversations use; empty means
	// the first configured.
	DefaultProviderID string `json:"defaultProviderId"`
	// TrifectaGuard: a call of a tool that can send data out asks again,
	// even under a standing grant or yolo, once the conversation has read
	// private data and taken in outside content (the lethal-trifecta
	// guard). On by default; settings saved before it existed read as on.
	TrifectaGuard bool `json:"trifectaGuard"`
}

// DefaultSettings are the settings of a new install.
func DefaultSettings() Settings {
	return Settings{
		Theme:               "system",
		ToolResultLimit:     32000,
		MaxToolRounds:       10,
		DefaultSystemPrompt: "You are a helpful assistant. Use the available tools when they help answer the user's request, and say briefly what you did with them.",
		TrifectaGuard:       true,
	}
}

const settingsKey = "app.settings"

// LoadSettings returns the stored settings, defaults filling what is unset.
func LoadSettings(ctx context.Context, st *store.Store) (Settings, error) {
	s := DefaultSettings()
	if st == nil {
		return s, ErrNoDatabase
	}
	err := st.Setting(ctx, settingsKey, &s)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultSettings(), nil
	}
	return s, err
}

// SaveSettings validates and stores s.
func SaveSettings(ctx context.Context, st *store.Store, s Settings) error {
	if !slices.Contains(Themes, s.Theme) {
		return fmt.Errorf("theme %q: choose system, light or dark", s.Theme)
	}
	if s.ToolResultLimit < 1000 || s.ToolResultLimit > 1_000_000 {
		return fmt.Errorf("tool-result limit %d: choose between 1,000 and 1,000,000 characters", s.ToolResultLimit)
	}
	if s.MaxToolRounds < 1 || s.MaxToolRounds > 100 {
		return fmt.Errorf("tool rounds %d: choose between 1 and 100", s.MaxToolRounds)
	}
	if st == nil {
		return ErrNoDatabase
	}
	return st.SetSetting(ctx, settingsKey, s)
}

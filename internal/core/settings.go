package core

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
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
	// ToolSearch is when the model gets the tool-search pair (search_tools,
	// call_tool) instead of the tools: "auto" when they are more than
	// ToolSearchMaxTools or their definitions past ToolSearchMaxKB,
	// "always", or "off". Settings saved before it existed read as auto.
	ToolSearch string `json:"toolSearch" ts_type:"ToolSearchMode"`
	// ToolSearchMaxTools is auto's tool count (1 to 10,000).
	ToolSearchMaxTools int `json:"toolSearchMaxTools"`
	// ToolSearchMaxKB is auto's size of the tools' definitions in KB
	// (1 to 16,384).
	ToolSearchMaxKB int `json:"toolSearchMaxKB"`
	// NPMRegistry is the npm registry servers (and a Node, when
	// Switchboard fetches one) are installed from; empty means npm's own
	// setting, https://registry.npmjs.org unless the user's .npmrc names a
	// mirror.
	NPMRegistry string `json:"npmRegistry"`
	// MCPRegistry is the MCP registry the server browser searches; empty
	// means the official one (mcpregistry.DefaultURL).
	MCPRegistry string `json:"mcpRegistry"`
}

// ToolSearchModes lists the values of Settings.ToolSearch (the frontend's
// contract is generated from it).
var ToolSearchModes = []toolsearch.Mode{toolsearch.ModeAuto, toolsearch.ModeAlways, toolsearch.ModeOff}

// ToolSearchSettings are the settings' tool search as the chat engine
// takes it.
func (s Settings) ToolSearchSettings() toolsearch.Settings {
	return toolsearch.Settings{Mode: toolsearch.Mode(s.ToolSearch), MaxTools: s.ToolSearchMaxTools, MaxBytes: s.ToolSearchMaxKB * 1024}
}

// DefaultSettings are the settings of a new install.
func DefaultSettings() Settings {
	return Settings{
		Theme:               "system",
		ToolResultLimit:     32000,
		MaxToolRounds:       10,
		DefaultSystemPrompt: "You are a helpful assistant. Use the available tools when they help answer the user's request, and say briefly what you did with them.",
		TrifectaGuard:       true,
		ToolSearch:          string(toolsearch.ModeAuto),
		ToolSearchMaxTools:  toolsearch.DefaultMaxTools,
		ToolSearchMaxKB:     toolsearch.DefaultMaxBytes / 1024,
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

// SaveSettings validates and stores s. Tool search's fields all left zero
// (by a caller that predates them) take their defaults.
func SaveSettings(ctx context.Context, st *store.Store, s Settings) error {
	if s.ToolSearch == "" && s.ToolSearchMaxTools == 0 && s.ToolSearchMaxKB == 0 {
		def := DefaultSettings()
		s.ToolSearch, s.ToolSearchMaxTools, s.ToolSearchMaxKB = def.ToolSearch, def.ToolSearchMaxTools, def.ToolSearchMaxKB
	}
	if !slices.Contains(Themes, s.Theme) {
		return fmt.Errorf("theme %q: choose system, light or dark", s.Theme)
	}
	if s.ToolResultLimit < 1000 || s.ToolResultLimit > 1_000_000 {
		return fmt.Errorf("tool-result limit %d: choose between 1,000 and 1,000,000 characters", s.ToolResultLimit)
	}
	if s.MaxToolRounds < 1 || s.MaxToolRounds > 100 {
		return fmt.Errorf("tool rounds %d: choose between 1 and 100", s.MaxToolRounds)
	}
	if !slices.Contains(ToolSearchModes, toolsearch.Mode(s.ToolSearch)) {
		return fmt.Errorf("tool search %q: choose auto, always or off", s.ToolSearch)
	}
	if s.ToolSearchMaxTools < 1 || s.ToolSearchMaxTools > 10_000 {
		return fmt.Errorf("tool search after %d tools: choose between 1 and 10,000", s.ToolSearchMaxTools)
	}
	if s.ToolSearchMaxKB < 1 || s.ToolSearchMaxKB > 16<<10 {
		return fmt.Errorf("tool search after %d KB of tool definitions: choose between 1 and 16,384", s.ToolSearchMaxKB)
	}
	for _, u := range []struct{ name, url string }{{"npm registry", s.NPMRegistry}, {"MCP registry", s.MCPRegistry}} {
		if err := checkRegistryURL(u.url); err != nil {
			return fmt.Errorf("%s %q: %w", u.name, u.url, err)
		}
	}
	if st == nil {
		return ErrNoDatabase
	}
	return st.SetSetting(ctx, settingsKey, s)
}

// checkRegistryURL accepts an empty URL (the default) or an absolute
// http(s) URL without credentials in it.
func checkRegistryURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case len(raw) > 2048:
		return errors.New("is longer than 2048 characters")
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return errors.New("give an http:// or https:// URL, or leave it empty for the default")
	case u.User != nil:
		return errors.New("must not hold a user name or password; put credentials in ~/.npmrc")
	}
	return nil
}

package core

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

// Settings saved before tool search existed read as auto with the default
// thresholds, and a save that predates the fields keeps them so; a bad
// value is refused saying what to choose.
func TestToolSearchSettings(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := map[string]any{"theme": "dark", "toolResultLimit": 5000, "maxToolRounds": 3, "trifectaGuard": true}
	if err := st.SetSetting(ctx, settingsKey, old); err != nil {
		t.Fatal(err)
	}
	set, err := LoadSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := toolsearch.Settings{Mode: toolsearch.ModeAuto, MaxTools: toolsearch.DefaultMaxTools, MaxBytes: toolsearch.DefaultMaxBytes}
	if got := set.ToolSearchSettings(); got != want || set.Theme != "dark" {
		t.Errorf("old settings read as %+v (%+v), want %+v", got, set, want)
	}

	set.ToolSearch, set.ToolSearchMaxTools, set.ToolSearchMaxKB = "", 0, 0
	if err := SaveSettings(ctx, st, set); err != nil {
		t.Fatal(err)
	}
	if set, _ = LoadSettings(ctx, st); set.ToolSearchSettings() != want {
		t.Errorf("saved without the fields: %+v", set.ToolSearchSettings())
	}

	for _, bad := range []func(*Settings){
		func(s *Settings) { s.ToolSearch = "sometimes" },
		func(s *Settings) { s.ToolSearchMaxTools = 0 },
		func(s *Settings) { s.ToolSearchMaxKB = 16<<10 + 1 },
	} {
		s := DefaultSettings()
		bad(&s)
		if err := SaveSettings(ctx, st, s); err == nil || !strings.Contains(err.Error(), "tool search") {
			t.Errorf("%+v saved: %v", s, err)
		}
	}
	s := DefaultSettings()
	s.ToolSearch, s.ToolSearchMaxTools, s.ToolSearchMaxKB = "always", 10, 2
	if err := SaveSettings(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	if set, _ = LoadSettings(ctx, st); set.ToolSearchSettings() != (toolsearch.Settings{Mode: toolsearch.ModeAlways, MaxTools: 10, MaxBytes: 2048}) {
		t.Errorf("saved always/10/2: %+v", set.ToolSearchSettings())
	}
}

package llm

import (
	"strings"
	"testing"
)

func TestPresets(t *testing.T) {
	ps := Presets()
	if ps[0].ID != DefaultPresetID {
		t.Errorf("first preset = %q, want the default %q", ps[0].ID, DefaultPresetID)
	}
	for _, p := range ps {
		if p.ID == CustomPresetID {
			continue
		}
		if _, err := ValidateBaseURL(p.BaseURL); err != nil {
			t.Errorf("preset %s: %v", p.ID, err)
		}
		if p.NeedsKey == (p.KeyEnv == "") {
			t.Errorf("preset %s: NeedsKey=%v but KeyEnv=%q", p.ID, p.NeedsKey, p.KeyEnv)
		}
		if p.Local != strings.Contains(p.BaseURL, "localhost") {
			t.Errorf("preset %s: Local=%v for %s", p.ID, p.Local, p.BaseURL)
		}
	}
	if p, ok := PresetByID("groq"); !ok || p.BaseURL != "https://api.groq.com/openai/v1" {
		t.Errorf("PresetByID(groq) = %+v, %v", p, ok)
	}
	if _, ok := PresetByID("nope"); ok {
		t.Error("PresetByID(nope) found something")
	}
	ps[0].ID = "changed"
	if Presets()[0].ID != DefaultPresetID {
		t.Error("Presets returned the package's own slice")
	}
}

func TestValidateBaseURL(t *testing.T) {
	tests := []struct {
		in, want, errHas string
	}{
		{in: "https://api.cerebras.ai/v1", want: "https://api.cerebras.ai/v1"},
		{in: "  http://localhost:11434/v1/  ", want: "http://localhost:11434/v1"},
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "", errHas: "empty"},
		{in: "api.openai.com/v1", errHas: "must start with http:// or https://"},
		{in: "ftp://x/v1", errHas: "must start with http:// or https://"},
		{in: "https:///v1", errHas: "has no host"},
		{in: "https://user:pw@x.com/v1", errHas: "API key field"},
		{in: "https://x.com/v1?key=1", errHas: "query"},
		{in: "https://x.com/v1/chat/completions", errHas: "should end before /chat/completions, e.g. https://x.com/v1"},
		{in: "https://x.com/v1/models/", errHas: "should end before /models"},
		{in: "http://[::1", errHas: "not a valid URL"},
	}
	for _, tt := range tests {
		got, err := ValidateBaseURL(tt.in)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("ValidateBaseURL(%q) error = %v, want it to contain %q", tt.in, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ValidateBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

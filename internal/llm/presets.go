package llm

import (
	"fmt"
	"net/url"
	"strings"
)

// A Preset is a known provider: where it lives and where its key comes from.
type Preset struct {
	// ID is stable and stored in configs ("cerebras", "openai", ...).
	ID string `json:"id"`
	// Name is for display.
	Name string `json:"name"`
	// BaseURL is the OpenAI-compatible base URL, ending before
	// /chat/completions. Empty for the custom preset: the user gives it.
	BaseURL string `json:"baseUrl"`
	// KeyEnv names the environment variable conventionally holding the key;
	// empty when the provider needs none.
	KeyEnv string `json:"keyEnv"`
	// NeedsKey is true when requests without an API key are refused.
	NeedsKey bool `json:"needsKey"`
	// Local is true for servers that run on this machine.
	Local bool `json:"local"`
}

// DefaultPresetID is the preset a new install starts with.
const DefaultPresetID = "cerebras"

// CustomPresetID is the preset whose base URL the user types.
const CustomPresetID = "custom"

var presets = []Preset{
	{ID: "cerebras", Name: "Cerebras", BaseURL: "https://api.cerebras.ai/v1", KeyEnv: "CEREBRAS_API_KEY", NeedsKey: true},
	{ID: "openai", Name: "OpenAI", BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", NeedsKey: true},
	{ID: "groq", Name: "Groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", NeedsKey: true},
	{ID: "openrouter", Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", NeedsKey: true},
	{ID: "ollama", Name: "Ollama", BaseURL: "http://localhost:11434/v1", Local: true},
	{ID: "lmstudio", Name: "LM Studio", BaseURL: "http://localhost:1234/v1", Local: true},
	{ID: CustomPresetID, Name: "Custom (OpenAI-compatible)"},
}

// Presets returns the known providers, the default first. The slice is a
// copy the caller may keep.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	copy(out, presets)
	return out
}

// PresetByID returns the preset with the given ID.
func PresetByID(id string) (Preset, bool) {
	for _, p := range presets {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// ValidateBaseURL checks a user-given base URL and returns it without a
// trailing slash. The error says what to type instead.
func ValidateBaseURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", fmt.Errorf("the base URL is empty; enter the provider's API URL, e.g. https://api.example.com/v1")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("the base URL %q is not a valid URL; enter it like https://api.example.com/v1", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the base URL %q must start with http:// or https://", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("the base URL %q has no host; enter it like https://api.example.com/v1", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("the base URL %q contains a user name or password; put the key in the API key field instead", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("the base URL %q must not have a query or #fragment", raw)
	}
	path := strings.TrimRight(u.Path, "/")
	for _, suffix := range []string{"/chat/completions", "/completions", "/models"} {
		if strings.HasSuffix(path, suffix) {
			return "", fmt.Errorf("the base URL %q should end before %s, e.g. %s",
				raw, suffix, strings.TrimSuffix(strings.TrimRight(s, "/"), suffix))
		}
	}
	u.Path = path
	u.RawPath = ""
	return u.String(), nil
}

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
	// Tools is what the provider accepts of a request's tools.
	Tools ToolLimits `json:"-"`
}

// ToolLimits are what a provider accepts of one request's tools.
type ToolLimits struct {
	// Provider names the provider in messages ("OpenAI").
	Provider string
	// MaxTools is the most tools one request may carry; zero means no
	// known limit.
	MaxTools int
	// MaxNameLength is the longest tool name accepted; zero means no known
	// limit. (mcpconn's exposed names are at most 64 characters of
	// [a-zA-Z0-9_-], which every preset accepts.)
	MaxNameLength int
	// Documented is false when the limits are assumed, not published.
	Documented bool
}

// Tool limits. OpenAI documents 128 tools per request and names of at most
// 64 characters of [a-zA-Z0-9_-] (API reference, chat/completions
// "tools" and "function.name"). Groq, Cerebras and OpenRouter publish no
// count; they are given OpenAI's, which their OpenAI-compatible endpoints
// (and, for OpenRouter, many upstream models) follow. Ollama and LM Studio
// run locally and set no count: the context is their limit.
var (
	openAITools  = ToolLimits{Provider: "OpenAI", MaxTools: 128, MaxNameLength: 64, Documented: true}
	assumedTools = ToolLimits{MaxTools: 128, MaxNameLength: 64}
	localTools   = ToolLimits{MaxNameLength: 64}
)

func assumed(name string) ToolLimits { l := assumedTools; l.Provider = name; return l }

func local(name string) ToolLimits { l := localTools; l.Provider = name; return l }

// DefaultPresetID is the preset a new install starts with.
const DefaultPresetID = "cerebras"

// CustomPresetID is the preset whose base URL the user types.
const CustomPresetID = "custom"

var presets = []Preset{
	{ID: "cerebras", Name: "Cerebras", BaseURL: "https://api.cerebras.ai/v1", KeyEnv: "CEREBRAS_API_KEY", NeedsKey: true, Tools: assumed("Cerebras")},
	{ID: "openai", Name: "OpenAI", BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", NeedsKey: true, Tools: openAITools},
	{ID: "groq", Name: "Groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", NeedsKey: true, Tools: assumed("Groq")},
	{ID: "openrouter", Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", NeedsKey: true, Tools: assumed("OpenRouter")},
	{ID: "ollama", Name: "Ollama", BaseURL: "http://localhost:11434/v1", Local: true, Tools: local("Ollama")},
	{ID: "lmstudio", Name: "LM Studio", BaseURL: "http://localhost:1234/v1", Local: true, Tools: local("LM Studio")},
	{ID: CustomPresetID, Name: "Custom (OpenAI-compatible)"},
}

// ToolLimitsFor returns the tool limits of the provider at baseURL: those
// of the preset whose base URL has the same host, or, for any other
// provider, OpenAI's count (many OpenAI-compatible servers copy it),
// marked as not documented.
func ToolLimitsFor(baseURL string) ToolLimits {
	if p, ok := presetByHost(baseURL); ok {
		return p.Tools
	}
	return assumed(ProviderName(baseURL))
}

// ProviderName names the provider at baseURL for messages: the preset's
// name ("OpenAI"), or "the provider at HOST".
func ProviderName(baseURL string) string {
	if p, ok := presetByHost(baseURL); ok {
		return p.Name
	}
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return "the provider at " + u.Host
	}
	return "the provider"
}

func presetByHost(baseURL string) (Preset, bool) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return Preset{}, false
	}
	for _, p := range presets {
		if pu, err := url.Parse(p.BaseURL); err == nil && p.BaseURL != "" && strings.EqualFold(pu.Host, u.Host) {
			return p, true
		}
	}
	return Preset{}, false
}

// ToolLimits returns the limits of the client's provider (ToolLimitsFor).
func (c *Client) ToolLimits() ToolLimits { return ToolLimitsFor(c.baseURL) }

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

// Package providers manages the model providers a user configured: their
// records in the database, their API keys in the keyring (or the usual
// environment variable, e.g. CEREBRAS_API_KEY), and clients for them.
package providers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

// ErrNoProvider means no provider is configured yet.
var ErrNoProvider = errors.New("no model provider is configured; add one in Settings → Providers")

// View is a provider as the UI sees it: never the key itself.
type View struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Preset       string `json:"preset"`
	BaseURL      string `json:"baseUrl"`
	DefaultModel string `json:"defaultModel"`
	// HasKey is true when a key is stored or found in the environment.
	HasKey bool `json:"hasKey"`
	// KeyFromEnv names the environment variable the key comes from, when
	// no key is stored.
	KeyFromEnv string `json:"keyFromEnv"`
}

// Input is what the UI sends to save a provider. An empty APIKey keeps the
// stored key; ClearKey removes it.
type Input struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Preset       string `json:"preset"`
	BaseURL      string `json:"baseUrl"`
	DefaultModel string `json:"defaultModel"`
	APIKey       string `json:"apiKey"`
	ClearKey     bool   `json:"clearKey,omitempty"`
}

// TestResult says whether a provider answers, and exactly what is wrong.
type TestResult struct {
	OK      bool     `json:"ok"`
	Message string   `json:"message"`
	Models  []string `json:"models,omitempty"`
}

// Service manages providers.
type Service struct {
	Store   *store.Store
	Secrets secrets.Store
	Log     *slog.Logger
	// HTTPClient is used for provider requests; nil means llm's default.
	HTTPClient *http.Client
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

func (s *Service) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

func keyRef(id string) string { return "provider/" + id + "/api-key" }

// List returns the configured providers.
func (s *Service) List(ctx context.Context) ([]View, error) {
	recs, err := s.Store.Providers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(recs))
	for _, r := range recs {
		out = append(out, s.view(r))
	}
	return out, nil
}

func (s *Service) view(r store.Provider) View {
	v := View{ID: r.ID, Name: r.Name, Preset: r.Preset, BaseURL: r.BaseURL, DefaultModel: r.DefaultModel}
	if _, err := s.Secrets.Get(keyRef(r.ID)); err == nil {
		v.HasKey = true
	} else if p, ok := llm.PresetByID(r.Preset); ok && p.KeyEnv != "" && s.getenv(p.KeyEnv) != "" {
		v.HasKey, v.KeyFromEnv = true, p.KeyEnv
	}
	return v
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Save validates and stores a provider, its key going to the keyring.
func (s *Service) Save(ctx context.Context, in Input) (View, error) {
	preset, ok := llm.PresetByID(in.Preset)
	if !ok {
		return View{}, fmt.Errorf("unknown provider preset %q", in.Preset)
	}
	if in.ID == "" {
		in.ID = preset.ID
	}
	if !idPattern.MatchString(in.ID) {
		return View{}, fmt.Errorf("provider id %q: use lowercase letters, digits, - and _ (up to 32)", in.ID)
	}
	if in.Name == "" {
		in.Name = preset.Name
	}
	base := strings.TrimSpace(in.BaseURL)
	if base == "" {
		base = preset.BaseURL
	}
	if base == "" {
		return View{}, errors.New("base URL: enter the provider's OpenAI-compatible base URL, e.g. https://example.com/v1")
	}
	base, err := llm.ValidateBaseURL(base)
	if err != nil {
		return View{}, fmt.Errorf("base URL: %w", err)
	}
	rec := store.Provider{ID: in.ID, Name: in.Name, Preset: preset.ID, BaseURL: base, DefaultModel: strings.TrimSpace(in.DefaultModel), KeyRef: keyRef(in.ID)}
	switch {
	case in.ClearKey:
		if err := s.Secrets.Delete(rec.KeyRef); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return View{}, err
		}
	case strings.TrimSpace(in.APIKey) != "":
		if err := s.Secrets.Set(rec.KeyRef, strings.TrimSpace(in.APIKey)); err != nil {
			return View{}, err
		}
	}
	if err := s.Store.PutProvider(ctx, rec); err != nil {
		return View{}, err
	}
	return s.view(rec), nil
}

// Delete removes a provider and its stored key.
func (s *Service) Delete(ctx context.Context, id string) error {
	if err := s.Store.DeleteProvider(ctx, id); err != nil {
		return err
	}
	if err := s.Secrets.Delete(keyRef(id)); err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return err
	}
	return nil
}

// Client returns a client for the provider and its default model. An empty
// id means the first configured provider.
func (s *Service) Client(ctx context.Context, id string) (*llm.Client, store.Provider, error) {
	rec, err := s.Record(ctx, id)
	if err != nil {
		return nil, rec, err
	}
	key, err := s.Secrets.Get(rec.KeyRef)
	if errors.Is(err, secrets.ErrNotFound) {
		key = ""
		if p, ok := llm.PresetByID(rec.Preset); ok && p.KeyEnv != "" {
			key = s.getenv(p.KeyEnv)
		}
	} else if err != nil {
		return nil, rec, err
	}
	c, err := llm.NewClient(llm.ProviderConfig{BaseURL: rec.BaseURL, APIKey: key, HTTPClient: s.HTTPClient, Logger: s.Log})
	return c, rec, err
}

// Record returns provider id's stored record ("" means the first one),
// without its key.
func (s *Service) Record(ctx context.Context, id string) (store.Provider, error) {
	if id == "" {
		all, err := s.Store.Providers(ctx)
		if err != nil {
			return store.Provider{}, err
		}
		if len(all) == 0 {
			return store.Provider{}, ErrNoProvider
		}
		return all[0], nil
	}
	rec, err := s.Store.Provider(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, fmt.Errorf("provider %q is not configured; add it in Settings → Providers", id)
	}
	return rec, err
}

// Test checks that a provider answers and lists models.
func (s *Service) Test(ctx context.Context, id string) TestResult {
	c, _, err := s.Client(ctx, id)
	if err != nil {
		return TestResult{Message: err.Error()}
	}
	models, err := c.TestConnection(ctx)
	if err != nil {
		return TestResult{Message: err.Error()}
	}
	ids := modelIDs(models)
	return TestResult{OK: true, Message: fmt.Sprintf("Connected: %d model(s) available.", len(ids)), Models: ids}
}

// Models lists a provider's models.
func (s *Service) Models(ctx context.Context, id string) ([]string, error) {
	c, _, err := s.Client(ctx, id)
	if err != nil {
		return nil, err
	}
	models, err := c.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	return modelIDs(models), nil
}

func modelIDs(models []llm.Model) []string {
	ids := make([]string, 0, len(models))
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	return ids
}

package app

import (
	"context"
	"net/http"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/providers"
)

// ListPresets returns the known providers.
func (a *App) ListPresets() ([]llm.Preset, error) { return llm.Presets(), nil }

// ListProviders returns the configured providers (never their keys).
func (a *App) ListProviders() ([]providers.View, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	list, err := svc.Providers.List(a.life)
	return orEmpty(list), err
}

// SaveProvider stores a provider; its key goes to the keyring.
func (a *App) SaveProvider(in providers.Input) (providers.View, error) {
	svc, err := a.services()
	if err != nil {
		return providers.View{}, err
	}
	return svc.Providers.Save(a.life, in)
}

// DeleteProvider removes a provider and its key.
func (a *App) DeleteProvider(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Providers.Delete(a.life, id)
}

// TestProvider checks a provider and says exactly what is wrong.
func (a *App) TestProvider(id string) (providers.TestResult, error) {
	svc, err := a.services()
	if err != nil {
		return providers.TestResult{}, err
	}
	ctx, cancel := context.WithTimeout(a.life, 30*time.Second)
	defer cancel()
	return svc.Providers.Test(ctx, id), nil
}

// ListModels lists a provider's models.
func (a *App) ListModels(providerID string) ([]string, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(a.life, 30*time.Second)
	defer cancel()
	models, err := svc.Providers.Models(ctx, providerID)
	return orEmpty(models), err
}

// DetectLocal looks for Ollama and LM Studio on this machine.
func (a *App) DetectLocal() ([]llm.LocalServer, error) {
	return orEmpty(llm.DetectLocal(a.life, http.DefaultClient)), nil
}

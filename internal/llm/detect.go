package llm

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// DetectTimeout bounds each local probe of DetectLocal.
const DetectTimeout = 800 * time.Millisecond

// A LocalServer is a local provider that answered DetectLocal.
type LocalServer struct {
	Preset Preset  `json:"preset"`
	Models []Model `json:"models,omitempty"` // may be empty: running, nothing loaded
}

// DetectLocal probes the local presets (Ollama, LM Studio) on localhost,
// at the same time and each for at most DetectTimeout, and returns those
// that answered with a model list, in preset order. hc nil means a default
// client. Servers that do not answer are simply absent.
func DetectLocal(ctx context.Context, hc *http.Client) []LocalServer {
	var local []Preset
	for _, p := range presets {
		if p.Local {
			local = append(local, p)
		}
	}
	found := make([]*LocalServer, len(local))
	var wg sync.WaitGroup
	for i, p := range local {
		wg.Go(func() {
			c, err := NewClient(ProviderConfig{BaseURL: p.BaseURL, HTTPClient: hc, RequestTimeout: DetectTimeout})
			if err != nil {
				return
			}
			pctx, cancel := context.WithTimeout(ctx, DetectTimeout)
			defer cancel()
			models, err := c.ListModels(pctx)
			if err != nil {
				return
			}
			found[i] = &LocalServer{Preset: p, Models: models}
		})
	}
	wg.Wait()
	var out []LocalServer
	for _, f := range found {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

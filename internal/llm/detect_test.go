package llm

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

func TestDetectLocal(t *testing.T) {
	ollama := llmtest.NewServer(t, &llmtest.Options{Models: []string{"qwen3:8b", "llama3.2:3b"}})
	ollamaAddr := strings.TrimSuffix(strings.TrimPrefix(ollama.URL, "http://"), "/v1")
	nothing := strings.TrimSuffix(strings.TrimPrefix(closedURL(t), "http://"), "/v1")
	// Route the presets' localhost ports to the fake (Ollama) and to a
	// closed port (LM Studio not running).
	var dialer net.Dialer
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			switch addr {
			case "localhost:11434":
				addr = ollamaAddr
			case "localhost:1234":
				addr = nothing
			default:
				t.Errorf("unexpected probe of %s", addr)
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}}
	got := DetectLocal(t.Context(), hc)
	if len(got) != 1 || got[0].Preset.ID != "ollama" {
		t.Fatalf("DetectLocal = %+v, want only ollama", got)
	}
	if len(got[0].Models) != 2 || got[0].Models[0].ID != "llama3.2:3b" {
		t.Errorf("models = %+v", got[0].Models)
	}
}

package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

func TestNewClientValidatesBaseURL(t *testing.T) {
	if _, err := NewClient(ProviderConfig{BaseURL: "localhost:11434"}); err == nil ||
		!strings.Contains(err.Error(), "must start with http:// or https://") {
		t.Errorf("err = %v", err)
	}
}

func TestListModels(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Models: []string{"zeta", "alpha", "mid"}})
	got, err := newTestClient(t, srv).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Model{{ID: "alpha", OwnedBy: "llmtest"}, {ID: "mid", OwnedBy: "llmtest"}, {ID: "zeta", OwnedBy: "llmtest"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if r := srv.Requests()[0]; r.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request = %s with Authorization %q", r.Path, r.Header.Get("Authorization"))
	}
}

// closedURL returns a base URL on which nothing listens.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

func TestTestConnection(t *testing.T) {
	handler := func(status int, contentType, body string, delay time.Duration) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	dnsFail := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "api.nowhere.example", IsNotFound: true}}
		},
	}}
	tests := []struct {
		name    string
		key     string
		opts    *llmtest.Options // an llmtest server, or
		handler http.HandlerFunc // a plain one, or
		baseURL string           // a fixed URL
		client  *http.Client     // optional
		is      error            // nil: success
		msgHas  []string
	}{
		{name: "ok", opts: &llmtest.Options{Models: []string{"m"}}},
		{name: "wrong key", key: "sk-wrong", opts: &llmtest.Options{APIKey: "sk-right"}, is: ErrAuth,
			msgHas: []string{"the provider refused the API key; check it in Settings → Providers", "HTTP 401"}},
		{name: "forbidden", handler: handler(403, "application/json", `{"error":{"message":"Project does not have access"}}`, 0), is: ErrAuth,
			msgHas: []string{"HTTP 403: Project does not have access"}},
		{name: "connection refused", baseURL: closedURL(t), is: ErrUnreachable,
			msgHas: []string{"cannot reach the provider at http://127.0.0.1:", "connection refused; is the server running"}},
		{name: "dns", baseURL: "https://api.nowhere.example/v1", client: dnsFail, is: ErrUnreachable,
			msgHas: []string{"https://api.nowhere.example/v1", `"api.nowhere.example" does not resolve`}},
		{name: "timeout", handler: handler(200, "application/json", `{"data":[]}`, 5*time.Second), is: ErrUnreachable,
			msgHas: []string{"no answer within 200ms"}},
		{name: "404 on /models", handler: handler(404, "text/plain", "404 page not found", 0), is: ErrNotCompatible,
			msgHas: []string{"not serve an OpenAI-compatible API", "HTTP 404"}},
		{name: "html page", handler: handler(200, "text/html", "<!doctype html><html><body>Welcome</body></html>", 0), is: ErrNotCompatible,
			msgHas: []string{"answered with an HTML page"}},
		{name: "other json", handler: handler(200, "application/json", `[1,2,3]`, 0), is: ErrNotCompatible,
			msgHas: []string{"not with a model list"}},
		{name: "no models", handler: handler(200, "application/json", `{"object":"list","data":[]}`, 0), is: ErrNoModels,
			msgHas: []string{"lists no models"}},
		{name: "server error", handler: handler(502, "application/json", `{"error":{"message":"upstream down"}}`, 0), is: ErrServer,
			msgHas: []string{"HTTP 502: upstream down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ProviderConfig{BaseURL: tt.baseURL, APIKey: cmpOr(tt.key, "sk-right"), HTTPClient: tt.client,
				RequestTimeout: 200 * time.Millisecond}
			switch {
			case tt.opts != nil:
				srv := llmtest.NewServer(t, tt.opts)
				cfg.BaseURL, cfg.HTTPClient = srv.URL, srv.Client()
			case tt.handler != nil:
				hs := httptest.NewServer(tt.handler)
				t.Cleanup(hs.Close)
				cfg.BaseURL = hs.URL + "/v1"
			}
			c, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			models, err := c.TestConnection(t.Context())
			t.Logf("err: %v", err)
			if tt.is == nil {
				if err != nil || len(models) == 0 {
					t.Fatalf("TestConnection = %v, %v", models, err)
				}
				return
			}
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			for _, s := range tt.msgHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err = %q, want it to contain %q", err, s)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestListModelsCancelled(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hs.Close)
	c, err := NewClient(ProviderConfig{BaseURL: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := c.ListModels(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

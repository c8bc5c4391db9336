package mcpconn

import (
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// An httpRecorder is the http.RoundTripper under a remote server's SDK
// transport. It adds the configured headers and remembers whether the server
// asked for authorization, which the SDK only reports as an error string.
type httpRecorder struct {
	base    http.RoundTripper
	headers map[string]string

	mu       sync.Mutex
	authCode int // 401, or 403 with a WWW-Authenticate challenge; 0 if none since reset
}

func (t *httpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" { // the SDK's own headers (session, OAuth) win
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		switch {
		case resp.StatusCode == http.StatusUnauthorized,
			resp.StatusCode == http.StatusForbidden && strings.Contains(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "bearer"):
			t.mu.Lock()
			t.authCode = resp.StatusCode
			t.mu.Unlock()
		case resp.StatusCode < 300:
			t.mu.Lock()
			t.authCode = 0
			t.mu.Unlock()
		}
	}
	return resp, err
}

// needsAuth reports the status code of the last authorization refusal, if
// no request succeeded since.
func (t *httpRecorder) needsAuth() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.authCode
}

// remoteTransport builds the SDK transport for an SSE or streamable-HTTP
// server. headers are already resolved.
func (m *Manager) remoteTransport(cfg serverconf.Config, headers map[string]string) (mcp.Transport, *httpRecorder) {
	rec := &httpRecorder{base: m.httpBase, headers: headers}
	client := &http.Client{Transport: rec}
	if cfg.Transport == serverconf.TransportSSE {
		return &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, rec
	}
	t := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
	if m.opts.AuthHandler != nil {
		t.OAuthHandler = m.opts.AuthHandler(cfg)
	}
	return t, rec
}

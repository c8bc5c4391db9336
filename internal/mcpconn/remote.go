package mcpconn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/netguard"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A remote server's HTTP traffic stays on the origin (scheme, host and
// port) of its configured URL: the configured headers, often an API key,
// are meant for that origin only. A redirect to another origin, or an SSE
// endpoint event naming one, is refused rather than followed; the user
// sets the final address instead. Connections go through netguard, so a
// server on the internet cannot be used to reach the user's network.
//
// Whatever the server sends is bounded: a JSON response body by
// MaxResponseBody, each server-sent event by MaxEventSize (the SDK's
// scanner enforces it; a long-lived event stream as a whole is not
// bounded, its events are).

// MaxResponseBody bounds a remote server's response body other than an
// event stream. The read fails with ErrResponseTooLarge beyond it.
const MaxResponseBody = 16 << 20

// MaxEventSize bounds one server-sent event of a remote server.
const MaxEventSize = 16 << 20

// ErrCrossOrigin is matched (errors.Is) by the error of a request a remote
// server sent to another origin.
var ErrCrossOrigin = errors.New("cross-origin request refused")

// ErrResponseTooLarge is matched (errors.Is) by the error of a response
// body longer than MaxResponseBody.
var ErrResponseTooLarge = fmt.Errorf("the server's response is larger than %d MiB; Switchboard stopped reading it", MaxResponseBody>>20)

type crossOriginError struct {
	origin   string
	redirect bool
}

func (e *crossOriginError) Error() string {
	what := "sent Switchboard"
	if e.redirect {
		what = "redirected"
	}
	return fmt.Sprintf("the server %s to another origin (%s); Switchboard does not follow that — set the server's URL to the final address", what, e.origin)
}

func (e *crossOriginError) Is(target error) bool { return target == ErrCrossOrigin }

// An httpRecorder is the http.RoundTripper under a remote server's SDK
// transport. It keeps requests on the configured origin, adds the
// configured headers, bounds response bodies, and remembers whether the
// server asked for authorization, which the SDK only reports as an error
// string.
type httpRecorder struct {
	base    http.RoundTripper
	origin  string // of the configured URL; see netguard.Origin
	headers map[string]string

	mu       sync.Mutex
	authCode int // 401, or 403 with a WWW-Authenticate challenge; 0 if none since reset
	// refused is the first request kept from another origin: the cause of
	// the connection's end, which the SDK may report as the stream's EOF
	// instead, depending on which of its goroutines notices first.
	refused error
}

func (t *httpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := netguard.Origin(req.URL); o != t.origin {
		// Redirects stop at checkRedirect; this is the rest, such as the
		// POSTs to an SSE endpoint on another origin.
		return nil, t.refuse(&crossOriginError{origin: o, redirect: req.Response != nil})
	}
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" { // the SDK's own headers (session, OAuth) win
				req.Header.Set(k, v)
			}
		}
	}
	if m := req.Header.Get("Mcp-Method"); strings.HasPrefix(m, "tasks/") && req.Header.Get("Mcp-Name") == "" {
		req = taskNameHeader(req)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if s := sinkOf(req.Context()); s != nil && req.Method == http.MethodPost && resp.StatusCode == http.StatusOK {
		s.capture(resp) // a tools/call's answer, which may be a task
	}
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
	if ct := strings.ToLower(resp.Header.Get("Content-Type")); !strings.HasPrefix(strings.TrimSpace(ct), "text/event-stream") {
		resp.Body = &limitedBody{rc: resp.Body, left: MaxResponseBody}
	}
	return resp, nil
}

// checkRedirect is the remote client's http.Client.CheckRedirect: same
// origin only, at most 10 hops.
func (t *httpRecorder) checkRedirect(req *http.Request, via []*http.Request) error {
	if o := netguard.Origin(req.URL); o != t.origin {
		return t.refuse(&crossOriginError{origin: o, redirect: true})
	}
	if len(via) >= 10 {
		return errors.New("the server redirected 10 times; set the server's URL to the final address")
	}
	return nil
}

// refuse remembers err, a request kept from another origin, and returns it.
func (t *httpRecorder) refuse(err error) error {
	t.mu.Lock()
	if t.refused == nil {
		t.refused = err
	}
	t.mu.Unlock()
	return err
}

// refusal is the first request refused for its origin, or nil.
func (t *httpRecorder) refusal() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

// needsAuth reports the status code of the last authorization refusal, if
// no request succeeded since.
func (t *httpRecorder) needsAuth() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.authCode
}

// A limitedBody fails a read past its limit with ErrResponseTooLarge, so
// the SDK's io.ReadAll of a response ends instead of buffering forever.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Exactly at the limit is fine if the body ends there.
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, ErrResponseTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// closeIdle closes the kept-alive connections of the session's own
// transport (remoteTransport makes one per session): nothing reuses them
// once the session ended. A nil t (a stdio session) does nothing.
func (t *httpRecorder) closeIdle() {
	if t == nil {
		return
	}
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// remoteTransport builds the SDK transport for an SSE or streamable-HTTP
// server. headers are already resolved.
func (m *Manager) remoteTransport(cfg serverconf.Config, headers map[string]string) (mcp.Transport, *httpRecorder) {
	origin := ""
	if u, err := url.Parse(cfg.URL); err == nil {
		origin = netguard.Origin(u)
	}
	rec := &httpRecorder{base: netguard.New(cfg.URL, nil).Transport(), origin: origin, headers: headers}
	client := &http.Client{Transport: rec, CheckRedirect: rec.checkRedirect}
	if cfg.Transport == serverconf.TransportSSE {
		return &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: MaxEventSize}, rec
	}
	t := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: MaxEventSize}
	if m.opts.AuthHandler != nil {
		h := m.opts.AuthHandler(cfg)
		t.OAuthHandler = h
		// A handler whose tokens are bound to a key (DPoP, RFC 9449)
		// rewrites the requests that carry them, since the SDK sends every
		// token as Bearer; it goes outside rec, so the origin checks and
		// the 401 records see what is sent.
		if w, ok := h.(interface {
			Transport(http.RoundTripper) http.RoundTripper
		}); ok {
			client.Transport = w.Transport(rec)
		}
	}
	return t, rec
}

// taskNameHeader sets the Mcp-Name header of a tasks/* request to its task
// ID, as the Tasks extension asks (for routing to the instance that holds
// the task); the SDK sets it only for the methods it knows. A body it
// cannot read is left as it is.
func taskNameHeader(req *http.Request) *http.Request {
	if req.GetBody == nil {
		return req
	}
	body, err := req.GetBody()
	if err != nil {
		return req
	}
	defer body.Close()
	var msg struct {
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.NewDecoder(io.LimitReader(body, 1<<20)).Decode(&msg) != nil || msg.Params.TaskID == "" ||
		len(msg.Params.TaskID) > MaxTaskIDBytes || strings.ContainsFunc(msg.Params.TaskID, isControl) {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Set("Mcp-Name", msg.Params.TaskID)
	return req
}

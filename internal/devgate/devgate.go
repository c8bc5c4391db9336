// Package devgate guards the development build's browser UI.
//
// The development build serves the frontend and a WebSocket (/wails/ipc)
// that calls every bound method, so whoever reaches it can add a stdio
// server (run any program) or turn approvals off. Wails' dev server accepts
// any Origin and cannot be configured, so it listens on an address nobody
// can guess (InternalAddr) and a Gate in front of it, on the address the
// developer chose, lets through only requests that
//
//   - name that address as their Host (a DNS-rebound name does not),
//   - carry the per-run secret: the printed URL's ?token= sets an HttpOnly,
//     SameSite=Strict cookie, so other sites' pages never send it, and
//   - come from the page itself or the user, when the browser says
//     (Sec-Fetch-Site), and for WebSockets and anything but GET and HEAD,
//     from the page's own Origin: cookies are per host, not per port, so a
//     page of another local server would send the cookie.
//
// The package knows nothing of Wails.
package devgate

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// EnvToken, when set, is the token to use instead of a random one, so that
// a test harness knows the URL without reading the app's output.
const EnvToken = "SWITCHBOARD_DEV_TOKEN"

// Options configure a Gate.
type Options struct {
	// Addr is the host:port the browser uses, such as "127.0.0.1:34115":
	// the only Host accepted and, as http://Addr, the only Origin. It must
	// name a host, not all interfaces.
	Addr string
	// Backend is the address (host:port) of the server behind the gate.
	Backend string
	// Token is the per-run secret; at least 32 characters (NewToken).
	Token string
	// BackendWait is how long a request waits for the backend to start
	// listening; zero means 60 seconds.
	BackendWait time.Duration
}

// A Gate is the http.Handler in front of the dev server. Start serves it
// on Options.Addr; tests can serve it with httptest instead.
type Gate struct {
	addr   string
	origin string
	token  []byte
	cookie string
	proxy  *httputil.ReverseProxy

	mu  sync.Mutex
	srv *http.Server // nil until Start
}

// New returns a Gate; it starts nothing.
func New(opts Options) (*Gate, error) {
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("dev server address %q: %w (use host:port, such as 127.0.0.1:34115)", opts.Addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return nil, fmt.Errorf("dev server address %q names no host: give one, such as 127.0.0.1:%s (the gate accepts only that host)", opts.Addr, port)
	}
	if len(opts.Token) < 32 {
		return nil, errors.New("the dev server token is shorter than 32 characters")
	}
	if _, _, err := net.SplitHostPort(opts.Backend); err != nil {
		return nil, fmt.Errorf("backend address %q: %w", opts.Backend, err)
	}
	wait := opts.BackendWait
	if wait == 0 {
		wait = 60 * time.Second
	}
	g := &Gate{
		addr:   opts.Addr,
		origin: "http://" + opts.Addr,
		token:  []byte(opts.Token),
		// One cookie per port: two dev builds on one host keep theirs.
		cookie: "switchboard_dev_" + port,
	}
	backend := &url.URL{Scheme: "http", Host: opts.Backend}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil
	transport.DialContext = dialWaiting(wait)
	g.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backend)
			g.stripSecret(r.Out)
		},
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "the app's dev server is not answering: "+err.Error(), http.StatusBadGateway)
		},
	}
	return g, nil
}

// URL is the address to open: it carries the token, which sets the cookie.
func (g *Gate) URL() string {
	return g.origin + "/?token=" + string(g.token)
}

// Start listens on Options.Addr and serves in the background.
func (g *Gate) Start() error {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", g.addr, err)
	}
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	g.mu.Lock()
	g.srv = srv
	g.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// Close stops serving; it is safe to call twice or without Start.
func (g *Gate) Close() error {
	g.mu.Lock()
	srv := g.srv
	g.srv = nil
	g.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

const openHint = "open the URL the app printed at start (http://%s/?token=…); it sets the cookie this needs\n"

// ServeHTTP checks the request and passes it to the backend.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Host != g.addr {
		http.Error(w, fmt.Sprintf("switchboard dev server: wrong Host %q; use http://%s", r.Host, g.addr), http.StatusForbidden)
		return
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none": // no header (not a browser), the page, or the user
	default:
		http.Error(w, fmt.Sprintf("switchboard dev server: a request from another page (Sec-Fetch-Site: %s) refused", site), http.StatusForbidden)
		return
	}
	upgrade := r.Header.Get("Upgrade") != ""
	if q := r.URL.Query().Get("token"); q != "" && g.validToken(q) {
		if r.Method == http.MethodGet && !upgrade {
			http.SetCookie(w, &http.Cookie{
				Name: g.cookie, Value: string(g.token), Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode,
			})
			// The token leaves the address bar; the cookie carries it now.
			to := r.URL.EscapedPath()
			if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
				to = "/" // never a protocol-relative URL to another host
			}
			if q := withoutToken(r.URL.Query()).Encode(); q != "" {
				to += "?" + q
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
	} else if c, err := r.Cookie(g.cookie); err != nil || !g.validToken(c.Value) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "switchboard dev server: no valid token; "+openHint, g.addr)
		return
	}
	if (upgrade || (r.Method != http.MethodGet && r.Method != http.MethodHead)) && r.Header.Get("Origin") != g.origin {
		http.Error(w, fmt.Sprintf("switchboard dev server: Origin %q refused; only %s may call the app", r.Header.Get("Origin"), g.origin), http.StatusForbidden)
		return
	}
	g.proxy.ServeHTTP(w, r)
}

func (g *Gate) validToken(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), g.token) == 1
}

// stripSecret removes the token and the cookie from what the backend sees.
func (g *Gate) stripSecret(out *http.Request) {
	if out.URL.Query().Has("token") {
		out.URL.RawQuery = withoutToken(out.URL.Query()).Encode()
	}
	var keep []string
	for _, c := range out.Cookies() {
		if c.Name != g.cookie {
			keep = append(keep, c.String())
		}
	}
	out.Header.Del("Cookie")
	if len(keep) > 0 {
		out.Header.Set("Cookie", strings.Join(keep, "; "))
	}
}

func withoutToken(q url.Values) url.Values {
	q.Del("token")
	return q
}

// dialWaiting dials like net.Dialer but, while the backend refuses
// connections because it has not started yet, tries again with backoff
// for up to wait.
func dialWaiting(wait time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		deadline := time.Now().Add(wait)
		delay := 20 * time.Millisecond
		for {
			c, err := d.DialContext(ctx, network, addr)
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
				return c, err
			}
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
			delay = min(delay*2, time.Second)
		}
	}
}

// NewToken returns a fresh secret: 32 random bytes, hex-encoded.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

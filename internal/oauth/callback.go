package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultCallbackTimeout bounds how long a sign-in waits for the browser.
const DefaultCallbackTimeout = 5 * time.Minute

// Errors of a sign-in through the CallbackServer.
var (
	// ErrStateMismatch means the browser came back with a state this
	// sign-in did not send: a stale tab, or a forged request. The
	// CallbackServer itself answers such a request with an error page and
	// keeps waiting for the right one.
	ErrStateMismatch = errors.New("sign-in rejected: the answer does not belong to this sign-in (state mismatch); start the sign-in again")
	// ErrCallbackTimeout means the browser never came back.
	ErrCallbackTimeout = errors.New("sign-in timed out: the browser did not come back; start the sign-in again")
	// ErrAccessDenied matches an AuthorizationError whose code is
	// access_denied: the user refused.
	ErrAccessDenied = errors.New("access denied")
	// ErrCallbackUsed means Fetch was called again on a used CallbackServer.
	ErrCallbackUsed = errors.New("callback server already used; create one per sign-in")
)

// An AuthorizationError is an error the authorization server sent back to
// the redirect URI (RFC 6749 section 4.1.2.1).
type AuthorizationError struct {
	Code        string // "access_denied", "invalid_scope", ...
	Description string
	URI         string
}

func (e *AuthorizationError) Error() string {
	if e.Code == "access_denied" {
		if e.Description != "" {
			return "sign-in refused: " + e.Description
		}
		return "sign-in refused at the authorization server"
	}
	msg := "authorization server refused the sign-in: " + e.Code
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}

// Is makes errors.Is(err, ErrAccessDenied) true when the user refused.
func (e *AuthorizationError) Is(target error) bool {
	return target == ErrAccessDenied && e.Code == "access_denied"
}

// CallbackOptions configure a CallbackServer. The zero value is ready to use.
type CallbackOptions struct {
	// Addr is the loopback address to listen on; empty means 127.0.0.1 and
	// a free port. Only loopback IP addresses are accepted.
	Addr string
	// Path is the redirect URI's path; empty means "/callback".
	Path string
	// Timeout bounds Fetch; zero means DefaultCallbackTimeout.
	Timeout time.Duration
	// Open shows the authorization URL to the user; nil means OpenBrowser.
	Open Opener
}

// A CallbackServer receives one OAuth redirect on a loopback address
// (RFC 8252 section 7.3). It listens from NewCallbackServer on, so its
// RedirectURI can be registered before the sign-in starts; it serves only
// during Fetch, answers one callback, and then closes.
type CallbackServer struct {
	ln       net.Listener
	host     string // "127.0.0.1:port", the only Host header served
	path     string
	redirect string
	timeout  time.Duration
	open     Opener

	mu       sync.Mutex
	started  bool
	answered bool
	state    string              // expected state, set by Fetch
	result   chan callbackResult // buffer 1: the handler never blocks
	srv      *http.Server
	closed   bool
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// NewCallbackServer listens on a loopback address. Call Close when done;
// Fetch closes it too.
func NewCallbackServer(opts *CallbackOptions) (*CallbackServer, error) {
	var o CallbackOptions
	if opts != nil {
		o = *opts
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Path == "" {
		o.Path = "/callback"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultCallbackTimeout
	}
	if o.Open == nil {
		o.Open = OpenBrowser
	}
	ap, err := netip.ParseAddrPort(o.Addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("callback address %q is not a loopback IP address and port", o.Addr)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in callback: %w", err)
	}
	host := ln.Addr().String()
	return &CallbackServer{
		ln:       ln,
		host:     host,
		path:     o.Path,
		redirect: (&url.URL{Scheme: "http", Host: host, Path: o.Path}).String(),
		timeout:  o.Timeout,
		open:     o.Open,
		result:   make(chan callbackResult, 1),
	}, nil
}

// RedirectURI is the URI the authorization server must redirect to, e.g.
// http://127.0.0.1:53124/callback.
func (s *CallbackServer) RedirectURI() string { return s.redirect }

// Fetch implements auth.AuthorizationCodeFetcher: it opens args.URL for the
// user and waits for the redirect, the timeout or ctx. The state it expects
// is the one in args.URL. It closes the server before returning.
func (s *CallbackServer) Fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	defer s.Close()
	u, err := url.Parse(args.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("authorization URL %q is not an http(s) URL", args.URL)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("authorization URL has no state parameter")
	}

	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return nil, ErrCallbackUsed
	}
	s.started = true
	s.state = state
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	srv := s.srv
	s.mu.Unlock()
	go srv.Serve(s.ln) // returns when Close shuts the server down

	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	openCtx, cancel := context.WithCancel(ctx)
	defer cancel() // stops an opener still following redirects
	opened := make(chan error, 1)
	go func() { opened <- s.open(openCtx, args.URL) }()

	for {
		select {
		case r := <-s.result:
			return r.res, r.err
		case err := <-opened:
			opened = nil
			if err == nil {
				continue
			}
			// An opener that follows redirects returns after the callback
			// answered; the callback's result wins over the opener's view.
			select {
			case r := <-s.result:
				return r.res, r.err
			default:
			}
			return nil, fmt.Errorf("opening the sign-in page: %w", err)
		case <-timer.C:
			return nil, fmt.Errorf("%w (waited %v)", ErrCallbackTimeout, s.timeout)
		case <-ctx.Done():
			return nil, fmt.Errorf("sign-in cancelled: %w", context.Cause(ctx))
		}
	}
}

// Close stops listening, after the page of a callback being answered is
// written. It is safe to call more than once.
func (s *CallbackServer) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	srv := s.srv
	s.mu.Unlock()
	if srv == nil {
		return s.ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

// ServeHTTP answers the redirect. Only GET on the redirect path with the
// listener's own Host and the sign-in's state counts as the one callback;
// anything else (a favicon request, a DNS-rebound page, a request from a
// web page that guessed the port but cannot know the state) gets an error
// page and is not counted, so the real redirect still completes the
// sign-in.
func (s *CallbackServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Host != s.host {
		http.Error(w, "wrong host", http.StatusBadRequest)
		return
	}
	if r.URL.Path != s.path {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	used, expected := s.answered, s.state
	// An answer with another state does not use up the sign-in.
	matches := expected != "" && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(expected)) == 1
	if matches {
		s.answered = true
	}
	s.mu.Unlock()
	if used {
		writePage(w, http.StatusGone, page{Title: "Link already used",
			Message: "This sign-in link was already used. Start the sign-in again from Switchboard."})
		return
	}
	if !matches {
		writePage(w, http.StatusBadRequest, page{Title: "Sign-in rejected",
			Message: "This answer does not belong to the sign-in Switchboard started (the state does not match), so it was rejected. If a sign-in is in progress, finish it in the page Switchboard opened."})
		return
	}

	var res callbackResult
	var status int
	var pg page
	switch {
	case q.Get("error") != "":
		ae := &AuthorizationError{Code: q.Get("error"), Description: q.Get("error_description"), URI: q.Get("error_uri")}
		res.err = ae
		status = http.StatusOK
		pg = page{Title: "Sign-in not completed", Message: "The authorization server did not grant access.",
			Code: ae.Code, Detail: ae.Description}
		if ae.Code == "access_denied" {
			pg.Message = "You declined the sign-in, so Switchboard was not given access."
		}
	case q.Get("code") == "":
		res.err = errors.New("sign-in callback has neither a code nor an error")
		status = http.StatusBadRequest
		pg = page{Title: "Sign-in failed", Message: "The answer from the authorization server has no authorization code. Start the sign-in again from Switchboard."}
	default:
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		status = http.StatusOK
		pg = page{Title: "Signed in", Message: "Switchboard received the authorization. You can close this tab."}
	}
	// The result goes out before the page, so an opener that follows
	// redirects finds it as soon as its request returns.
	select {
	case s.result <- res:
	default: // unreachable: only the first callback sends
	}
	writePage(w, status, pg)
}

type page struct {
	Title, Message string
	Code, Detail   string // echoed from the request: escaped by html/template
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} - Switchboard</title>
<style>body{font:16px system-ui,sans-serif;max-width:34em;margin:4em auto;padding:0 1em;color:#222}
code{background:#eee;padding:0 .2em}</style></head>
<body><h1>{{.Title}}</h1><p>{{.Message}}</p>
{{if .Code}}<p>Error: <code>{{.Code}}</code>{{if .Detail}}: {{.Detail}}{{end}}</p>{{end}}
</body></html>
`))

func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, p)
}

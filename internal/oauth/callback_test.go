package oauth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const testAuthURL = "https://auth.example.com/authorize?client_id=c&state=the-state&code_challenge=x"

type page200 struct {
	status int
	body   string
}

// answer returns an Opener that, instead of a browser, requests the
// callback with query and records the page it gets. Like a browser, it
// reads the page even after Fetch has returned.
func answer(t *testing.T, cb *CallbackServer, query string, got chan<- page200) Opener {
	t.Helper()
	return func(context.Context, string) error {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, cb.RedirectURI()+"?"+query, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if got != nil {
			got <- page200{resp.StatusCode, string(body)}
		}
		return nil
	}
}

func newCallback(t *testing.T, opts *CallbackOptions) *CallbackServer {
	t.Helper()
	cb, err := NewCallbackServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.Close() })
	return cb
}

func TestCallbackSuccess(t *testing.T) {
	cb := newCallback(t, nil)
	pages := make(chan page200, 1)
	cb.open = answer(t, cb, "code=the-code&state=the-state&iss=https%3A%2F%2Fauth.example.com", pages)
	res, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if err != nil {
		t.Fatal(err)
	}
	want := &auth.AuthorizationResult{Code: "the-code", State: "the-state", Iss: "https://auth.example.com"}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	p := <-pages
	if p.status != http.StatusOK || !strings.Contains(p.body, "You can close this tab") {
		t.Errorf("page = %d %q", p.status, p.body)
	}
}

// TestCallbackStateMismatchDoesNotConsume: a request with a wrong state
// (a web page that found the port, a stale tab) gets an error page and
// does not use up the sign-in; the real redirect still completes it.
func TestCallbackStateMismatchDoesNotConsume(t *testing.T) {
	for _, forged := range []string{"code=the-code&state=forged", "error=access_denied&state=forged", "code=the-code"} {
		t.Run(forged, func(t *testing.T) {
			cb := newCallback(t, &CallbackOptions{Timeout: 10 * time.Second})
			forgedPages, realPages := make(chan page200, 1), make(chan page200, 1)
			cb.open = func(ctx context.Context, u string) error {
				if err := answer(t, cb, forged, forgedPages)(ctx, u); err != nil {
					return err
				}
				return answer(t, cb, "code=real-code&state=the-state", realPages)(ctx, u)
			}
			res, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
			if err != nil || res == nil || res.Code != "real-code" {
				t.Fatalf("Fetch = %+v, %v; want the real callback's code", res, err)
			}
			p := <-forgedPages
			if p.status != http.StatusBadRequest || !strings.Contains(p.body, "rejected") || !strings.Contains(p.body, "state does not match") {
				t.Errorf("forged page = %d %q", p.status, p.body)
			}
			if strings.Contains(p.body, "the-code") {
				t.Error("page echoes the code")
			}
			if p := <-realPages; p.status != http.StatusOK {
				t.Errorf("real page = %d %q", p.status, p.body)
			}
		})
	}
}

func TestCallbackErrorParam(t *testing.T) {
	cb := newCallback(t, nil)
	pages := make(chan page200, 1)
	cb.open = answer(t, cb, "error=access_denied&error_description=The+user+said+no&state=the-state", pages)
	_, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("err = %v, want ErrAccessDenied", err)
	}
	var ae *AuthorizationError
	if !errors.As(err, &ae) || ae.Code != "access_denied" || ae.Description != "The user said no" {
		t.Errorf("err = %#v", err)
	}
	if got, want := err.Error(), "sign-in refused: The user said no"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	p := <-pages
	if !strings.Contains(p.body, "You declined the sign-in") {
		t.Errorf("page = %q", p.body)
	}

	// Another error code is not access denied, and says what the server said.
	cb = newCallback(t, nil)
	cb.open = answer(t, cb, "error=invalid_scope&state=the-state", nil)
	_, err = cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if errors.Is(err, ErrAccessDenied) || err == nil || err.Error() != "authorization server refused the sign-in: invalid_scope" {
		t.Errorf("err = %v", err)
	}

}

func TestCallbackEscapesEchoedValues(t *testing.T) {
	cb := newCallback(t, nil)
	pages := make(chan page200, 1)
	q := url.Values{
		"error":             {`<img src=x onerror=alert(1)>`},
		"error_description": {`<script>alert("x")</script>&`},
		"state":             {"the-state"},
	}
	cb.open = answer(t, cb, q.Encode(), pages)
	_, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if err == nil {
		t.Fatal("Fetch succeeded")
	}
	p := <-pages
	for _, raw := range []string{"<script>", "<img"} {
		if strings.Contains(p.body, raw) {
			t.Errorf("page contains unescaped %q:\n%s", raw, p.body)
		}
	}
	for _, escaped := range []string{"&lt;script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&amp;"} {
		if !strings.Contains(p.body, escaped) {
			t.Errorf("page lacks %q:\n%s", escaped, p.body)
		}
	}
}

func TestCallbackTimeout(t *testing.T) {
	cb := newCallback(t, &CallbackOptions{Timeout: 50 * time.Millisecond, Open: func(context.Context, string) error { return nil }})
	start := time.Now()
	_, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if !errors.Is(err, ErrCallbackTimeout) {
		t.Fatalf("err = %v, want ErrCallbackTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestCallbackCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	opened := make(chan struct{})
	cb := newCallback(t, &CallbackOptions{Open: func(context.Context, string) error { close(opened); return nil }})
	go func() { <-opened; cancel() }()
	_, err := cb.Fetch(ctx, &auth.AuthorizationArgs{URL: testAuthURL})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The listener is closed once Fetch returns.
	if _, err := http.Get(cb.RedirectURI() + "?code=x&state=the-state"); err == nil {
		t.Error("callback still answers after cancellation")
	}
}

func TestCallbackOpenerError(t *testing.T) {
	boom := errors.New("no browser")
	cb := newCallback(t, &CallbackOptions{Open: func(context.Context, string) error { return boom }})
	if _, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL}); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the opener's error", err)
	}
}

func TestCallbackLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.168.1.10:0", "localhost:0", "example.com:80"} {
		if cb, err := NewCallbackServer(&CallbackOptions{Addr: addr}); err == nil {
			cb.Close()
			t.Errorf("NewCallbackServer(%q) succeeded", addr)
		}
	}
	cb := newCallback(t, nil)
	u, err := url.Parse(cb.RedirectURI())
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "0" || u.Path != "/callback" {
		t.Errorf("RedirectURI = %q", cb.RedirectURI())
	}
	if ip := cb.ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		t.Errorf("listening on %v", ip)
	}
}

func TestCallbackOneUse(t *testing.T) {
	cb := newCallback(t, nil)
	var extra []int
	cb.open = func(ctx context.Context, _ string) error {
		// Requests that are not the callback do not use it up.
		for _, path := range []string{"/favicon.ico", "/callback/x"} {
			resp, err := http.Get("http://" + cb.host + path)
			if err != nil {
				return err
			}
			resp.Body.Close()
			extra = append(extra, resp.StatusCode)
		}
		req, _ := http.NewRequest(http.MethodGet, cb.RedirectURI()+"?code=x&state=the-state", nil)
		req.Host = "evil.example:80" // a DNS-rebound page
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		extra = append(extra, resp.StatusCode)
		return answer(t, cb, "code=the-code&state=the-state", nil)(ctx, "")
	}
	res, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if err != nil || res.Code != "the-code" {
		t.Fatalf("Fetch = %+v, %v", res, err)
	}
	if diff := cmp.Diff([]int{404, 404, 400}, extra); diff != "" {
		t.Errorf("statuses of other requests (-want +got):\n%s", diff)
	}
	if _, err := http.Get(cb.RedirectURI() + "?code=y&state=the-state"); err == nil {
		t.Error("callback answers a second time")
	}
	if _, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL}); !errors.Is(err, ErrCallbackUsed) {
		t.Errorf("second Fetch: %v, want ErrCallbackUsed", err)
	}
	if err := cb.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCallbackSecondAnswerWhileServing(t *testing.T) {
	cb := newCallback(t, nil)
	second := make(chan page200, 1)
	cb.open = func(ctx context.Context, _ string) error {
		// The handler is exercised directly: the first answer wins, the
		// second gets "already used" and never blocks.
		for _, q := range []string{"code=a&state=the-state", "code=b&state=the-state"} {
			req, _ := http.NewRequest(http.MethodGet, cb.RedirectURI()+"?"+q, nil)
			rec := httptest.NewRecorder()
			cb.ServeHTTP(rec, req)
			second <- page200{rec.Code, rec.Body.String()}
		}
		return nil
	}
	res, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: testAuthURL})
	if err != nil || res.Code != "a" {
		t.Fatalf("Fetch = %+v, %v; want code a", res, err)
	}
	<-second
	if p := <-second; p.status != http.StatusGone {
		t.Errorf("second answer: %d %q", p.status, p.body)
	}
}

func TestCallbackRejectsBadAuthURL(t *testing.T) {
	for _, u := range []string{"javascript:alert(1)", "https://auth.example.com/authorize?client_id=c"} {
		cb := newCallback(t, &CallbackOptions{Open: func(context.Context, string) error {
			t.Error("opener called")
			return nil
		}})
		if _, err := cb.Fetch(t.Context(), &auth.AuthorizationArgs{URL: u}); err == nil {
			t.Errorf("Fetch(%q) succeeded", u)
		}
	}
}

func TestOpenBrowserRefusesOtherSchemes(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "ms-settings:", "not a url\x00"} {
		if err := OpenBrowser(t.Context(), u); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("OpenBrowser(%q) = %v", u, err)
		}
	}
}

package devgate

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// A fakeBackend stands for Wails' dev server: /wails/ipc answers a
// WebSocket handshake and then echoes bytes; anything else answers "page".
type fakeBackend struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []*http.Request // what reached it
}

func newFakeBackend(t *testing.T) *fakeBackend {
	b := &fakeBackend{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.got = append(b.got, r.Clone(r.Context()))
		b.mu.Unlock()
		if r.URL.Path != "/wails/ipc" || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			io.WriteString(w, "page")
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
		rw.Flush()
		io.Copy(conn, rw) // echo
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *fakeBackend) requests() []*http.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*http.Request(nil), b.got...)
}

// startGate serves a Gate for backend on a fresh loopback port; it returns
// the gate and its address.
func startGate(t *testing.T, backend string) (*Gate, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	g, err := New(Options{Addr: addr, Backend: backend, Token: token, BackendWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = g
	srv.Start()
	t.Cleanup(srv.Close)
	return g, addr
}

// wsDial sends a WebSocket handshake for /wails/ipc to addr with the given
// Host, Origin and Cookie (empty: not sent) and returns the response and,
// after a 101, the connection.
func wsDial(t *testing.T, addr, host, origin, cookie, query string) (*http.Response, net.Conn) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "GET /wails/ipc" + query + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	if origin != "" {
		req += "Origin: " + origin + "\r\n"
	}
	if cookie != "" {
		req += "Cookie: " + cookie + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(res.Body)
		res.Body = io.NopCloser(strings.NewReader(string(body)))
		return res, nil
	}
	return res, &bufConn{Conn: conn, r: br}
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func TestWebSocketChecks(t *testing.T) {
	be := newFakeBackend(t)
	g, addr := startGate(t, be.srv.Listener.Addr().String())
	_, port, _ := net.SplitHostPort(addr)
	own := "http://" + addr
	cookie := g.cookie + "=" + token
	tests := []struct {
		name                 string
		host, origin, cookie string
		query                string
		want                 int
		wantBody             string
	}{
		{name: "another site's page", host: addr, origin: "https://evil.example", cookie: cookie, want: 403, wantBody: "Origin"},
		{name: "another local server's page (cookies are per host, not port)", host: addr, origin: "http://127.0.0.1:1", cookie: cookie, want: 403},
		{name: "no Origin", host: addr, cookie: cookie, want: 403},
		{name: "a DNS-rebound name", host: "evil.example:" + port, origin: "http://evil.example:" + port, cookie: cookie, want: 403, wantBody: "Host"},
		{name: "no cookie", host: addr, origin: own, want: 403, wantBody: "?token="},
		{name: "a wrong cookie", host: addr, origin: own, cookie: g.cookie + "=" + strings.Repeat("0", 64), want: 403},
		{name: "a wrong token", host: addr, origin: own, query: "?token=" + strings.Repeat("0", 64), want: 403},
		{name: "the page itself", host: addr, origin: own, cookie: cookie, want: 101},
		{name: "the token instead of the cookie", host: addr, origin: own, query: "?token=" + token, want: 101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(be.requests())
			res, conn := wsDial(t, addr, tt.host, tt.origin, tt.cookie, tt.query)
			if res.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.want)
			}
			if tt.want != 101 {
				body, _ := io.ReadAll(res.Body)
				if !strings.Contains(string(body), tt.wantBody) {
					t.Errorf("body %q does not mention %q", body, tt.wantBody)
				}
				if n := len(be.requests()); n != before {
					t.Errorf("a refused request reached the backend")
				}
				return
			}
			// The upgraded connection is a tunnel to the backend.
			if _, err := io.WriteString(conn, "ping"); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 4)
			if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
				t.Fatalf("echo %q, %v", buf, err)
			}
			got := be.requests()[len(be.requests())-1]
			if strings.Contains(got.Header.Get("Cookie"), token) || strings.Contains(got.URL.RawQuery, token) {
				t.Errorf("the backend saw the token: cookie %q, query %q", got.Header.Get("Cookie"), got.URL.RawQuery)
			}
		})
	}
}

// client returns an HTTP client that does not follow redirects.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestTokenURLSetsCookie(t *testing.T) {
	be := newFakeBackend(t)
	g, addr := startGate(t, be.srv.Listener.Addr().String())
	if want := "http://" + addr + "/?token=" + token; g.URL() != want {
		t.Errorf("URL() = %q, want %q", g.URL(), want)
	}
	res, err := client().Get(g.URL())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("got %d to %q, want 303 to /", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies %v", cs)
	}
	c := cs[0]
	if c.Value != token || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v: want the token, HttpOnly, SameSite=Strict, Path=/", c)
	}
	if len(be.requests()) != 0 {
		t.Errorf("the token request reached the backend")
	}

	// A path that would make a protocol-relative redirect goes to / instead.
	req, _ := http.NewRequest("GET", "http://"+addr+"/?token="+token+"&x=1", nil)
	req.URL.Path = "//evil.example/"
	res, err = client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); loc != "/?x=1" {
		t.Errorf("Location %q, want /?x=1", loc)
	}
}

func TestPlainRequests(t *testing.T) {
	be := newFakeBackend(t)
	g, addr := startGate(t, be.srv.Listener.Addr().String())
	own := "http://" + addr
	tests := []struct {
		name, method, origin string
		site                 string // Sec-Fetch-Site
		cookie               bool
		want                 int
	}{
		{name: "a page load with the cookie", method: "GET", cookie: true, want: 200},
		{name: "a page load without it", method: "GET", want: 403},
		{name: "a load the user asked for", method: "GET", site: "none", cookie: true, want: 200},
		{name: "a load by the page itself", method: "GET", site: "same-origin", cookie: true, want: 200},
		{name: "a load by another local server's page", method: "GET", site: "same-site", cookie: true, want: 403},
		{name: "a load by another site's page", method: "GET", site: "cross-site", cookie: true, want: 403},
		{name: "a POST from another site", method: "POST", origin: "https://evil.example", cookie: true, want: 403},
		{name: "a POST without Origin", method: "POST", cookie: true, want: 403},
		{name: "a POST from the page", method: "POST", origin: own, cookie: true, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, own+"/index.html", strings.NewReader("{}"))
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.site != "" {
				req.Header.Set("Sec-Fetch-Site", tt.site)
			}
			if tt.cookie {
				req.AddCookie(&http.Cookie{Name: g.cookie, Value: token})
			}
			res, err := client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Fatalf("status %d (%s), want %d", res.StatusCode, body, tt.want)
			}
			if tt.want == 200 && string(body) != "page" {
				t.Errorf("body %q, want the backend's", body)
			}
		})
	}
}

func TestWaitsForBackend(t *testing.T) {
	// A free port nobody listens on yet.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	backend := ln.Addr().String()
	ln.Close()

	g, addr := startGate(t, backend)
	started := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond) // the first dials are refused
		ln, err := net.Listen("tcp", backend)
		if err != nil {
			t.Error(err)
			close(started)
			return
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "late") })}
		t.Cleanup(func() { srv.Close() })
		close(started)
		srv.Serve(ln)
	}()
	req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
	req.AddCookie(&http.Cookie{Name: g.cookie, Value: token})
	res, err := client().Do(req)
	<-started
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "late" {
		t.Fatalf("got %d %q, want 200 from the backend that started late", res.StatusCode, body)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{Addr: ":34115", Backend: "127.0.0.1:1", Token: token},
		{Addr: "0.0.0.0:34115", Backend: "127.0.0.1:1", Token: token},
		{Addr: "127.0.0.1", Backend: "127.0.0.1:1", Token: token},
		{Addr: "127.0.0.1:34115", Backend: "127.0.0.1:1", Token: "short"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestStartServesAndCloseTwice(t *testing.T) {
	be := newFakeBackend(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	g, err := New(Options{Addr: addr, Backend: be.srv.Listener.Addr().String(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Errorf("status %d without a cookie, want 403", res.StatusCode)
	}
	if err := g.Close(); err != nil {
		t.Error(err)
	}
	if err := g.Close(); err != nil {
		t.Error(err)
	}
}

func TestInternalAddr(t *testing.T) {
	addr, err := InternalAddr()
	if err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		t.Fatalf("%s is not a loopback address", addr)
	}
	if runtime.GOOS == "linux" && host == "127.0.0.1" {
		// 1 in 2^24: a failure here is a bug, not luck.
		t.Errorf("on Linux the host should be a random 127.x.y.z, got %s", host)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the address is not free: %v", err)
	}
	ln.Close()
}

func TestArgs(t *testing.T) {
	tests := []struct {
		args     []string
		addr     string
		realData bool
		rewrite  []string
	}{
		{
			args:    []string{"-devserver", "127.0.0.1:34115", "-assetdir", "frontend/dist", "-loglevel", "Warning"},
			addr:    "127.0.0.1:34115",
			rewrite: []string{"-devserver", "INTERNAL", "-assetdir", "frontend/dist", "-loglevel", "Warning"},
		},
		{
			args:     []string{"-real-data", "--devserver=localhost:1", "-assetdir=x"},
			addr:     "localhost:1",
			realData: true,
			rewrite:  []string{"-devserver", "INTERNAL", "-assetdir=x"},
		},
		{
			args:    []string{"-real-data=false", "-assetdir", "x"},
			rewrite: []string{"-assetdir", "x"},
		},
		{args: []string{}, rewrite: []string{}},
	}
	for _, tt := range tests {
		addr, realData := ParseArgs(tt.args)
		if addr != tt.addr || realData != tt.realData {
			t.Errorf("ParseArgs(%q) = %q, %v; want %q, %v", tt.args, addr, realData, tt.addr, tt.realData)
		}
		if diff := cmp.Diff(tt.rewrite, RewriteArgs(tt.args, "INTERNAL")); diff != "" {
			t.Errorf("RewriteArgs(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

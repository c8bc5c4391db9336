package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-app/switchboard/internal/netguard"
	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// bearerSpy is a server that wants a sign-in and records every
// Authorization header it is sent.
type bearerSpy struct {
	URL  string
	mu   sync.Mutex
	auth []string
}

func newBearerSpy(t *testing.T) *bearerSpy {
	s := &bearerSpy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "sign in", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/mcp"
	return s
}

func (s *bearerSpy) sawAny(tokens []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var seen []string
	for _, a := range s.auth {
		for _, tok := range tokens {
			if strings.Contains(a, tok) {
				seen = append(seen, a)
			}
		}
	}
	return seen
}

// TestTokenBoundToServerURL: a token signed in for one URL is not sent to
// another URL under the same server ID (the URL was edited, or the server
// deleted and another added with its ID), and is forgotten.
func TestTokenBoundToServerURL(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	store := NewStore(secrets, nil)
	const id = "linear"
	h, err := NewHandler(id, nil, Options{Store: store, Open: approvingBrowser().Open, ServerURL: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(WithInteractive(t.Context()), endpoint, h); err != nil {
		t.Fatalf("sign-in: %v", err)
	}

	// The same URL written differently is the same server: the token is
	// reused without a sign-in.
	same := strings.Replace(endpoint, "http://", "HTTP://", 1) + "/"
	h, err = NewHandler(id, nil, Options{Store: store, ServerURL: same})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("same server, URL written differently: %v", err)
	}

	// Now the server's URL is another host's.
	other := newBearerSpy(t)
	h, err = NewHandler(id, nil, Options{Store: store, ServerURL: other.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), other.URL, h); !errors.Is(err, ErrNeedsAuth) {
		t.Fatalf("connect to the new URL: %v, want ErrNeedsAuth", err)
	}
	if seen := other.sawAny(as.Issued()); len(seen) > 0 {
		t.Fatalf("the new host was sent the old server's token: %q", seen)
	}
	if secrets.has(TokenKey(id)) || secrets.has(ClientKey(id)) {
		t.Errorf("the old server's token or client is still stored:\n%s", secrets.all())
	}
}

// switchableMCP is a protected MCP server whose resource metadata names
// the authorization server set by use.
type switchableMCP struct {
	URL string
	as  atomic.Pointer[oauthtest.AuthServer]
}

func newSwitchableMCP(t *testing.T, servers ...*oauthtest.AuthServer) *switchableMCP {
	s := &switchableMCP{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/mcp"
	for _, as := range servers {
		as.SetResource(s.URL)
	}
	s.as.Store(servers[0])
	prmURL := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: s.URL, AuthorizationServers: []string{s.as.Load().URL}, ScopesSupported: []string{"mcp"},
		}).ServeHTTP(w, r)
	})
	verify := func(ctx context.Context, tok string, r *http.Request) (*auth.TokenInfo, error) {
		for _, as := range servers {
			if info, err := as.Verify(ctx, tok, r); err == nil {
				return info, nil
			}
		}
		return nil, auth.ErrInvalidToken
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(oauthtest.EchoHandler()))
	return s
}

// TestClientSecretPinnedToIssuer: a configured client secret goes only to
// the authorization server it was first used with. When the server's
// metadata names another, the sign-in stops with a clear message before
// the secret is sent, until the user signs out.
func TestClientSecretPinnedToIssuer(t *testing.T) {
	first := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "svc", ClientSecret: "s3cret"})
	second := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "svc", ClientSecret: "s3cret"})
	srv := newSwitchableMCP(t, first, second)
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	store := NewStore(secrets, nil)
	cfg := &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "cs"}
	connect := func() error {
		h, err := NewHandler("svc", cfg, Options{Store: store, ServerURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		return connectAndEcho(t.Context(), srv.URL, h)
	}
	if err := connect(); err != nil {
		t.Fatal(err)
	}

	srv.as.Store(second)
	err := connect()
	if !errors.Is(err, ErrIssuerChanged) || !strings.Contains(err.Error(), "now names the authorization server "+second.URL) ||
		!strings.Contains(err.Error(), "does not send them there") {
		t.Fatalf("err = %v, want ErrIssuerChanged", err)
	}
	if got := second.ClientAuth(); len(got) != 0 {
		t.Fatalf("the other authorization server got the client secret (%v)", got)
	}

	// The user confirms the move: sign out, and the secret goes there.
	if err := store.SignOut("svc"); err != nil {
		t.Fatal(err)
	}
	if err := connect(); err != nil {
		t.Fatalf("after sign-out: %v", err)
	}
	if got := second.ClientAuth(); len(got) != 1 {
		t.Fatalf("client authentications at the new server: %v", got)
	}
}

// TestPostOnlyTo: the client of a sign-in with a configured secret POSTs
// only to the pinned issuer's token endpoint.
func TestPostOnlyTo(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	c := postOnlyTo(srv.Client(), srv.URL+"/token", srv.URL)
	for _, tt := range []struct {
		method, path string
		ok           bool
	}{{"POST", "/token", true}, {"GET", "/.well-known/oauth-authorization-server", true}, {"POST", "/other/token", false}} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader("client_secret=s3cret"))
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if (err == nil) != tt.ok || (!tt.ok && !errors.Is(err, ErrIssuerChanged)) {
			t.Errorf("%s %s: err = %v", tt.method, tt.path, err)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests reached the server, want 2", n)
	}
}

// fakeInternet resolves names to documentation addresses (203.0.113.0/24)
// or to local ones, and dials the documentation addresses on loopback, so
// a test can have a server on "the internet" without leaving the machine.
type fakeInternet struct {
	names  map[string]string         // host -> address
	routes map[netip.Addr]netip.Addr // public -> loopback
	mu     sync.Mutex
	dialed []string
}

func (f *fakeInternet) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	a, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func (f *fakeInternet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, address)
	f.mu.Unlock()
	ap := netip.MustParseAddrPort(address)
	to, ok := f.routes[ap.Addr()]
	if !ok {
		return nil, errors.New("test: no route to " + address) // never the real network
	}
	var d net.Dialer
	return d.DialContext(ctx, network, netip.AddrPortFrom(to, ap.Port()).String())
}

// TestDiscoveryRefusesLocalAddresses: a server on the internet whose
// metadata names an authorization server on this machine or at the cloud
// metadata address gets no request sent there; one on the internet is
// reached.
func TestDiscoveryRefusesLocalAddresses(t *testing.T) {
	var asHits atomic.Int32
	as := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asHits.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(as.Close)
	asPort := strconv.Itoa(as.Listener.Addr().(*net.TCPAddr).Port)

	tests := []struct {
		as      string
		refused bool
	}{
		{"http://127.0.0.1:" + asPort, true},
		{"https://metadata.evil", true},
		{"https://intranet.evil", true},
		{"https://example.com:" + asPort, false}, // on the internet, as far as this test's DNS knows
	}
	for _, tt := range tests {
		t.Run(tt.as, func(t *testing.T) {
			asHits.Store(0)
			// The MCP server: https://example.com:port, on loopback. The
			// httptest certificate is for example.com.
			mux := http.NewServeMux()
			srv := httptest.NewTLSServer(mux)
			t.Cleanup(srv.Close)
			serverURL := "https://example.com:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port) + "/mcp"
			mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
				Resource: serverURL, AuthorizationServers: []string{tt.as},
			}))
			mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "sign in", http.StatusUnauthorized)
			})

			f := &fakeInternet{
				names:  map[string]string{"example.com": "203.0.113.7", "metadata.evil": "169.254.169.254", "intranet.evil": "10.0.0.7"},
				routes: map[netip.Addr]netip.Addr{netip.MustParseAddr("203.0.113.7"): netip.MustParseAddr("127.0.0.1")},
			}
			client := func() *http.Client {
				tr := netguard.New(serverURL, &netguard.Options{Lookup: f.lookup, Dial: f.dial}).Transport()
				tr.TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
				return &http.Client{Transport: tr, Timeout: 10 * time.Second}
			}
			h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), ServerURL: serverURL, HTTPClient: client(),
				Interactive: true, Open: func(context.Context, string) error {
					t.Error("browser opened")
					return errors.New("no")
				}})
			if err != nil {
				t.Fatal(err)
			}
			mc := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
			_, err = mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: serverURL, HTTPClient: client(), OAuthHandler: h,
				DisableStandaloneSSE: true}, nil)
			t.Logf("connect: %v", err)
			if err == nil {
				t.Fatal("connected without a sign-in")
			}
			if refused := strings.Contains(err.Error(), "refusing to connect to"); refused != tt.refused {
				t.Fatalf("connect: %v; want refused %v", err, tt.refused)
			}
			if n := asHits.Load(); tt.refused && n != 0 || !tt.refused && n == 0 {
				t.Errorf("the authorization server got %d requests", n)
			}
			for _, d := range f.dialed {
				if !strings.HasPrefix(d, "203.0.113.7:") {
					t.Errorf("dialed %s", d)
				}
			}
		})
	}
}

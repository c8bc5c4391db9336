package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// testIdP is an enterprise identity provider: OpenID Connect metadata
// without PKCE methods (a token exchange needs none), and a token endpoint
// that exchanges the user's ID token for an ID-JAG accepted by as.
type testIdP struct {
	t       *testing.T
	srv     *httptest.Server
	as      *testAS
	idToken string

	mu        sync.Mutex
	exchanges []string // "audience resource", per exchange
}

func newTestIdP(t *testing.T, as *testAS) *testIdP {
	p := &testIdP{t: t, as: as, idToken: "id-" + rand.Text()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                 p.srv.URL,
			"authorization_endpoint": p.srv.URL + "/authorize",
			"token_endpoint":         p.srv.URL + "/token",
			"grant_types_supported":  []string{oauthex.GrantTypeTokenExchange},
		})
	})
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *testIdP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != oauthex.GrantTypeTokenExchange,
		f.Get("subject_token_type") != oauthex.TokenTypeIDToken,
		f.Get("requested_token_type") != oauthex.TokenTypeIDJAG,
		f.Get("client_id") != "switchboard":
		p.t.Logf("bad token exchange: %v", f)
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	case f.Get("subject_token") != p.idToken:
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	jag := "jag-" + rand.Text()
	p.mu.Lock()
	p.exchanges = append(p.exchanges, f.Get("audience")+" "+f.Get("resource"))
	p.mu.Unlock()
	p.as.mu.Lock()
	p.as.assertions[jag] = true
	p.as.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": jag, "issued_token_type": oauthex.TokenTypeIDJAG, "token_type": "N_A"})
}

func TestEnterpriseManagedAuthorization(t *testing.T) {
	as := newTestAS(t)
	as.ccClientID, as.ccSecret = "mcp-client", "s3cret"
	as.authMethods = []string{"client_secret_basic"}
	endpoint := newProtectedMCPServer(t, as)
	idp := newTestIdP(t, as)
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	enterprise := &Enterprise{Issuer: idp.srv.URL, ClientID: "switchboard",
		IDToken: func(context.Context) (string, error) { return idp.idToken, nil }}
	cfg := &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "mcp-client", ClientSecretRef: "cs"}

	opener := &countingOpener{}
	h, err := NewHandler("s", cfg, Options{Store: NewStore(secrets, nil), Open: opener.open, Enterprise: enterprise})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect with enterprise-managed authorization: %v", err)
	}
	idp.mu.Lock()
	got := idp.exchanges
	idp.mu.Unlock()
	if diff := cmp.Diff([]string{as.srv.URL + " " + endpoint}, got); diff != "" {
		t.Errorf("token exchanges (audience resource) (-want +got):\n%s", diff)
	}
	as.mu.Lock()
	seen := as.ccAuthSeen
	as.mu.Unlock()
	if diff := cmp.Diff([]string{"basic"}, seen); diff != "" {
		t.Errorf("client authentication at the server's authorization server (-want +got):\n%s", diff)
	}
	if opener.n.Load() != 0 {
		t.Errorf("the browser opened %d times", opener.n.Load())
	}

	// The access token expired: a new one comes from a new exchange,
	// without the user.
	as.expireAccessTokens()
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect after the token expired: %v", err)
	}
	idp.mu.Lock()
	n := len(idp.exchanges)
	idp.mu.Unlock()
	if n != 2 {
		t.Errorf("%d token exchanges, want 2", n)
	}
}

func TestEnterpriseManagedAuthorizationErrors(t *testing.T) {
	as := newTestAS(t)
	as.ccClientID, as.ccSecret = "mcp-client", "s3cret"
	endpoint := newProtectedMCPServer(t, as)
	idp := newTestIdP(t, as)
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	store := NewStore(secrets, nil)
	cfg := &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "mcp-client", ClientSecretRef: "cs"}

	if _, err := NewHandler("s", cfg, Options{Store: store}); err == nil {
		t.Error("NewHandler without an identity provider succeeded")
	}
	if _, err := NewHandler("s", &serverconf.Auth{Grant: GrantJWTBearer}, Options{Store: store, Enterprise: &Enterprise{
		Issuer: idp.srv.URL, ClientID: "switchboard", IDToken: func(context.Context) (string, error) { return "", nil }}}); err == nil {
		t.Error("NewHandler without a client ID succeeded")
	}

	tests := []struct {
		name    string
		idp     Enterprise
		wantErr string
	}{
		{"sign-in fails", Enterprise{Issuer: idp.srv.URL, ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return "", errors.New("user closed the window") }},
			"user closed the window"},
		{"stale ID token", Enterprise{Issuer: idp.srv.URL, ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return "id-stale", nil }},
			"invalid_grant"},
		{"wrong issuer", Enterprise{Issuer: idp.srv.URL + "/tenant", ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return idp.idToken, nil }},
			"publishes no metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHandler("s", cfg, Options{Store: store, Enterprise: &tt.idp})
			if err != nil {
				t.Fatal(err)
			}
			err = connectAndEcho(t.Context(), endpoint, h)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://idp.example.com", []string{
			"https://idp.example.com/.well-known/oauth-authorization-server",
			"https://idp.example.com/.well-known/openid-configuration"}},
		{"https://idp.example.com/tenant1/", []string{
			"https://idp.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://idp.example.com/.well-known/openid-configuration/tenant1",
			"https://idp.example.com/tenant1/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, metadataURLs(tt.issuer)); diff != "" {
			t.Errorf("metadataURLs(%q) (-want +got):\n%s", tt.issuer, diff)
		}
	}
}

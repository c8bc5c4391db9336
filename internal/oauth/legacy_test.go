package oauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// newLegacyMCPServer starts a 2025-03-26 server: no protected resource
// metadata, and at its root the metadata of the issuer that issuer(origin)
// returns, whose endpoints as serves under /oauth/ on the same server. It
// returns the MCP endpoint.
func newLegacyMCPServer(t *testing.T, as *testAS, issuer func(origin string) string) string {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                issuer(srv.URL),
			"authorization_endpoint":                srv.URL + "/oauth/authorize",
			"token_endpoint":                        srv.URL + "/oauth/token",
			"registration_endpoint":                 srv.URL + "/oauth/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
		})
	})
	mux.HandleFunc("POST /oauth/register", as.register)
	mux.HandleFunc("GET /oauth/authorize", as.authorize)
	mux.HandleFunc("POST /oauth/token", as.token)
	mux.Handle("/mcp", auth.RequireBearerToken(as.verify, nil)(echoMCPHandler()))
	as.resource = srv.URL + "/mcp"
	return as.resource
}

func TestLegacyServerWithMetadataAtRoot(t *testing.T) {
	as := newTestAS(t)
	endpoint := newLegacyMCPServer(t, as, func(origin string) string { return origin + "/oauth" })
	secrets := newMemSecrets()
	opener := &countingOpener{}
	h, err := NewHandler("legacy", nil, Options{Store: NewStore(secrets, nil), Open: opener.open})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(WithInteractive(t.Context()), endpoint, h); err != nil {
		t.Fatalf("sign-in with the metadata at the root: %v", err)
	}
	if reg, authz, _ := as.counts(); reg != 1 || authz != 1 || opener.n.Load() != 1 {
		t.Fatalf("registrations %d, authorizations %d, browser opened %d times; want 1, 1, 1", reg, authz, opener.n.Load())
	}
	if !secrets.has(TokenKey("legacy")) || !secrets.has(ClientKey("legacy")) {
		t.Fatalf("token or client not stored:\n%s", secrets.all())
	}

	// The next start uses the stored token.
	h, err = NewHandler("legacy", nil, Options{Store: NewStore(secrets, nil), Open: opener.open})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect with the stored token: %v", err)
	}
}

func TestLegacyServerIssuerOnAnotherOrigin(t *testing.T) {
	as := newTestAS(t)
	endpoint := newLegacyMCPServer(t, as, func(string) string { return "https://as.example.com/oauth" })
	opener := &countingOpener{}
	h, err := NewHandler("legacy", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.open})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), endpoint, h)
	if err == nil || !strings.Contains(err.Error(), "not on the server's origin") {
		t.Fatalf("err = %v, want the issuer refused", err)
	}
	if reg, authz, _ := as.counts(); reg != 0 || authz != 0 || opener.n.Load() != 0 {
		t.Errorf("registrations %d, authorizations %d, browser %d; want none", reg, authz, opener.n.Load())
	}
}

func TestLegacyServerClientCredentials(t *testing.T) {
	as := newTestAS(t)
	as.ccClientID, as.ccSecret = "svc", "s3cret"
	endpoint := newLegacyMCPServer(t, as, func(origin string) string { return origin + "/oauth" })
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	cfg := &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "cs"}
	h, err := NewHandler("legacy", cfg, Options{Store: NewStore(secrets, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("client credentials with the metadata at the root: %v", err)
	}
}

// A server whose resource metadata names another resource is refused,
// not taken for a 2025-03-26 server (as the SDK alone would).
func TestResourceMetadataMismatch(t *testing.T) {
	as := newTestAS(t)
	mux := http.NewServeMux()
	rs := httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	prmURL := rs.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: "https://elsewhere.example.com/mcp", AuthorizationServers: []string{as.srv.URL},
	}))
	mux.Handle("/mcp", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(echoMCPHandler()))
	as.resource = rs.URL + "/mcp"

	opener := &countingOpener{}
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.open})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), rs.URL+"/mcp", h)
	if !errors.Is(err, errResourceMetadataInvalid) {
		t.Fatalf("err = %v, want errResourceMetadataInvalid", err)
	}
	if reg, authz, _ := as.counts(); reg != 0 || authz != 0 || opener.n.Load() != 0 {
		t.Errorf("registrations %d, authorizations %d, browser %d; want none", reg, authz, opener.n.Load())
	}
}

package oauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
)

func TestLegacyServerWithMetadataAtRoot(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewLegacyMCP(t, as, func(origin string) string { return origin + "/oauth" })
	secrets := newMemSecrets()
	opener := approvingBrowser()
	h, err := NewHandler("legacy", nil, Options{Store: NewStore(secrets, nil), Open: opener.Open, ServerURL: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(WithInteractive(t.Context()), endpoint, h); err != nil {
		t.Fatalf("sign-in with the metadata at the root: %v", err)
	}
	if c := as.Counts(); c.Registrations != 1 || c.Authorizations != 1 || len(opener.Opened()) != 1 {
		t.Fatalf("%+v, browser opened %d times; want 1 registration, 1 authorization, 1 browser", c, len(opener.Opened()))
	}
	if !secrets.has(TokenKey("legacy")) || !secrets.has(ClientKey("legacy")) {
		t.Fatalf("token or client not stored:\n%s", secrets.all())
	}

	// The next start uses the stored token.
	h, err = NewHandler("legacy", nil, Options{Store: NewStore(secrets, nil), Open: opener.Open, ServerURL: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect with the stored token: %v", err)
	}
}

func TestLegacyServerIssuerOnAnotherOrigin(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewLegacyMCP(t, as, func(string) string { return "https://as.example.com/oauth" })
	opener := approvingBrowser()
	h, err := NewHandler("legacy", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.Open})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), endpoint, h)
	if err == nil || !strings.Contains(err.Error(), "not on the server's origin") {
		t.Fatalf("err = %v, want the issuer refused", err)
	}
	if c := as.Counts(); c != (oauthtest.Counts{}) || len(opener.Opened()) != 0 {
		t.Errorf("%+v, browser %d; want none", c, len(opener.Opened()))
	}
}

func TestLegacyServerClientCredentials(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "svc", ClientSecret: "s3cret"})
	endpoint := oauthtest.NewLegacyMCP(t, as, func(origin string) string { return origin + "/oauth" })
	h := secretClient(t, "legacy", "s3cret", Options{})
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("client credentials with the metadata at the root: %v", err)
	}
}

// A server whose resource metadata names another resource is refused,
// not taken for a 2025-03-26 server (as the SDK alone would).
func TestResourceMetadataMismatch(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	mux := http.NewServeMux()
	rs := httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	prmURL := rs.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: "https://elsewhere.example.com/mcp", AuthorizationServers: []string{as.URL},
	}))
	mux.Handle("/mcp", auth.RequireBearerToken(as.Verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(oauthtest.EchoHandler()))
	as.SetResource(rs.URL + "/mcp")

	opener := approvingBrowser()
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.Open})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), rs.URL+"/mcp", h)
	if !errors.Is(err, errResourceMetadataInvalid) {
		t.Fatalf("err = %v, want errResourceMetadataInvalid", err)
	}
	if c := as.Counts(); c != (oauthtest.Counts{}) || len(opener.Opened()) != 0 {
		t.Errorf("%+v, browser %d; want none", c, len(opener.Opened()))
	}
}

package oauth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// The test servers speak the same grant and assertion types as the
// handlers.
func TestOAuthTestConstants(t *testing.T) {
	if oauthtest.GrantJWTBearer != GrantJWTBearer || oauthtest.ClientAssertionType != ClientAssertionType {
		t.Errorf("oauthtest has %q and %q; oauth has %q and %q",
			oauthtest.GrantJWTBearer, oauthtest.ClientAssertionType, GrantJWTBearer, ClientAssertionType)
	}
}

func TestEnterpriseManagedAuthorization(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "mcp-client", ClientSecret: "s3cret",
		AuthMethods: []string{"client_secret_basic"}})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	idp := oauthtest.NewIdentityProvider(t, as, "switchboard")
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	enterprise := &Enterprise{Issuer: idp.URL, ClientID: "switchboard",
		IDToken: func(context.Context) (string, error) { return idp.IDToken, nil }}
	cfg := &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "mcp-client", ClientSecretRef: "cs"}

	opener := &oauthtest.Browser{}
	h, err := NewHandler("s", cfg, Options{Store: NewStore(secrets, nil), Open: opener.Open, Enterprise: enterprise})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect with enterprise-managed authorization: %v", err)
	}
	if diff := cmp.Diff([]string{as.URL + " " + endpoint}, idp.Exchanges()); diff != "" {
		t.Errorf("token exchanges (audience resource) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"basic"}, as.ClientAuth()); diff != "" {
		t.Errorf("client authentication at the server's authorization server (-want +got):\n%s", diff)
	}
	if n := len(opener.Opened()); n != 0 {
		t.Errorf("the browser opened %d times", n)
	}

	// The access token expired: a new one comes from a new exchange,
	// without the user.
	as.ExpireAccessTokens()
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect after the token expired: %v", err)
	}
	if n := len(idp.Exchanges()); n != 2 {
		t.Errorf("%d token exchanges, want 2", n)
	}
}

func TestEnterpriseManagedAuthorizationErrors(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "mcp-client", ClientSecret: "s3cret"})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	idp := oauthtest.NewIdentityProvider(t, as, "switchboard")
	secrets := newMemSecrets()
	secrets.Set("cs", "s3cret")
	store := NewStore(secrets, nil)
	cfg := &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "mcp-client", ClientSecretRef: "cs"}

	if _, err := NewHandler("s", cfg, Options{Store: store}); err == nil {
		t.Error("NewHandler without an identity provider succeeded")
	}
	if _, err := NewHandler("s", &serverconf.Auth{Grant: GrantJWTBearer}, Options{Store: store, Enterprise: &Enterprise{
		Issuer: idp.URL, ClientID: "switchboard", IDToken: func(context.Context) (string, error) { return "", nil }}}); err == nil {
		t.Error("NewHandler without a client ID succeeded")
	}

	tests := []struct {
		name    string
		idp     Enterprise
		wantErr string
	}{
		{"sign-in fails", Enterprise{Issuer: idp.URL, ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return "", errors.New("user closed the window") }},
			"user closed the window"},
		{"stale ID token", Enterprise{Issuer: idp.URL, ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return "id-stale", nil }},
			"invalid_grant"},
		{"wrong issuer", Enterprise{Issuer: idp.URL + "/tenant", ClientID: "switchboard",
			IDToken: func(context.Context) (string, error) { return idp.IDToken, nil }},
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

package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-app/switchboard/internal/netguard"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// GrantJWTBearer is the serverconf.Auth.Grant of enterprise-managed
// authorization (SEP-990, "cross-app access"): Switchboard exchanges the
// user's sign-in at the enterprise identity provider (Options.Enterprise)
// for an identity assertion grant (ID-JAG, RFC 8693 token exchange), and
// that grant for an access token at the server's authorization server (RFC
// 7523 JWT bearer grant), authenticating there as Auth.ClientID. No
// browser and no consent screen per server: the IdP's policy decides.
//
// The SDK's extauth.EnterpriseHandler is not used: it needs the server's
// authorization server and resource configured rather than discovered,
// refuses IdP metadata without PKCE methods (which a token exchange does
// not use), and sends the client secret only in the request body.
const GrantJWTBearer = serverconf.GrantJWTBearer

// Enterprise is the user's enterprise identity provider (IdP).
type Enterprise struct {
	// Issuer is the IdP's issuer URL. Its token endpoint comes from its
	// metadata (RFC 8414 or OpenID Connect discovery).
	Issuer string
	// ClientID is Switchboard's client at the IdP.
	ClientID string
	// ClientSecretRef names the keyring entry of that client's secret;
	// empty for a public client.
	ClientSecretRef string
	// IDToken returns the user's OpenID Connect ID token from the IdP (the
	// app's single sign-on), signing in first if needed. It is called for
	// each new access token.
	IDToken func(ctx context.Context) (string, error)
}

// An enterpriseGrant makes the grant parameters of a GrantJWTBearer token
// request: a fresh ID-JAG each time, since it lives minutes.
type enterpriseGrant struct {
	idp    Enterprise
	store  *Store
	client *http.Client

	mu            sync.Mutex
	tokenEndpoint string // the IdP's, once discovered
}

// newEnterpriseGrant returns the grant of idp. With the default HTTP
// client (defaultClient), requests to the IdP go through a client whose
// netguard policy is the IdP's own: the user configured it, so an IdP on
// the intranet is reachable even for a server on the internet.
func newEnterpriseGrant(idp *Enterprise, opts Options, defaultClient bool) (*enterpriseGrant, error) {
	if idp == nil || idp.Issuer == "" || idp.ClientID == "" || idp.IDToken == nil {
		return nil, errors.New("enterprise-managed authorization needs the identity provider's issuer, client ID and single sign-on; set them in Settings")
	}
	client := opts.HTTPClient
	if defaultClient {
		client = netguard.New(idp.Issuer, nil).Client(30 * time.Second)
	}
	return &enterpriseGrant{idp: *idp, store: opts.Store, client: client}, nil
}

func (g *enterpriseGrant) params(ctx context.Context, as *oauthex.AuthServerMeta, resource string, scopes []string) (url.Values, error) {
	endpoint, err := g.idpTokenEndpoint(ctx)
	if err != nil {
		return nil, err
	}
	idToken, err := g.idp.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("signing in to the identity provider: %w", err)
	}
	creds := &oauthex.ClientCredentials{ClientID: g.idp.ClientID}
	if ref := g.idp.ClientSecretRef; ref != "" {
		secret, err := g.store.Secret(ref)
		if err != nil {
			return nil, err
		}
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
	}
	jag, err := oauthex.ExchangeToken(ctx, endpoint, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           as.Issuer,
		Resource:           resource,
		Scope:              scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, g.client)
	if err != nil {
		return nil, fmt.Errorf("the identity provider refused access to this server: %w", describeTokenError(err))
	}
	if typ, _ := jag.Extra("issued_token_type").(string); typ != oauthex.TokenTypeIDJAG {
		return nil, fmt.Errorf("the identity provider issued a %q, not an identity assertion grant", typ)
	}
	return url.Values{"grant_type": {GrantJWTBearer}, "assertion": {jag.AccessToken}}, nil
}

// idpTokenEndpoint discovers the IdP's token endpoint, once.
func (g *enterpriseGrant) idpTokenEndpoint(ctx context.Context) (string, error) {
	g.mu.Lock()
	endpoint := g.tokenEndpoint
	g.mu.Unlock()
	if endpoint != "" {
		return endpoint, nil
	}
	for _, u := range metadataURLs(g.idp.Issuer) {
		asm, err := getAuthServerMeta(ctx, u, g.client)
		if err != nil {
			return "", fmt.Errorf("identity provider: %w", err)
		}
		if asm == nil {
			continue
		}
		if strings.TrimSuffix(asm.Issuer, "/") != strings.TrimSuffix(g.idp.Issuer, "/") {
			return "", fmt.Errorf("identity provider metadata at %s names the issuer %q, not %q", u, asm.Issuer, g.idp.Issuer)
		}
		if err := checkEndpoints(asm); err != nil {
			return "", fmt.Errorf("identity provider metadata: %w", err)
		}
		g.mu.Lock()
		g.tokenEndpoint = asm.TokenEndpoint
		g.mu.Unlock()
		return asm.TokenEndpoint, nil
	}
	return "", fmt.Errorf("identity provider %s publishes no metadata; check its issuer URL", g.idp.Issuer)
}

// metadataURLs are where an issuer's metadata may be (RFC 8414 section 3.1
// and OpenID Connect Discovery, with the path inserted or appended), in
// the order the MCP specification gives.
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	p := strings.Trim(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	at := func(path string) string {
		v := *u
		v.Path = path
		return v.String()
	}
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + p),
		at("/.well-known/openid-configuration/" + p),
		at("/" + p + "/.well-known/openid-configuration"),
	}
}

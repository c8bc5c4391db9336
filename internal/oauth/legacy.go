package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Servers of the 2025-03-26 MCP revision publish no protected resource
// metadata: the server's origin is the authorization server, with its RFC
// 8414 metadata at the origin's root, or, without metadata, the endpoints
// /authorize, /token and /register there.
//
// Some of them (and the conformance scenario
// auth/2025-03-26-oauth-metadata-backcompat) serve at the root the metadata
// of an issuer at a path of the same origin, such as
// https://mcp.example.com/oauth. RFC 8414 section 3.3 forbids that, and the
// SDK's handler refuses it. Under the 2025-03-26 rules the origin vouches
// for what it serves at its root, so Switchboard accepts an issuer on the
// server's own origin (never another origin: that is the mix-up the check
// is for) and, since the SDK's handler cannot be given metadata, signs in
// itself with the same steps (legacySignIn).

// errResourceMetadataInvalid: the server publishes protected resource
// metadata that the SDK rejected (its resource is not the server, or an
// authorization server URL is unsafe), so it is not a 2025-03-26 server.
var errResourceMetadataInvalid = errors.New("the server's protected resource metadata is invalid (its resource does not match the server, or it names an unsafe authorization server); check the server URL")

// legacyDiscover returns the authorization server of a 2025-03-26 server:
// the metadata at its origin's root, or the default endpoints there. The
// returned resource metadata is the one the 2025-03-26 rules imply. tried
// is why findResource took none of the server's metadata.
func legacyDiscover(ctx context.Context, challenges []oauthex.Challenge, serverURL string, client *http.Client, tried error) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing server URL: %w", err)
	}
	published, err := publishesResourceMetadata(ctx, challenges, su, client)
	if err != nil {
		return nil, nil, err
	}
	if published {
		if tried != nil { // server-written text: clipped
			why := tried.Error()
			if len(why) > 400 {
				why = strings.ToValidUTF8(why[:400], "") + "…"
			}
			return nil, nil, fmt.Errorf("%w (%s)", errResourceMetadataInvalid, why)
		}
		return nil, nil, errResourceMetadataInvalid
	}
	origin := (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	prm := &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{origin}}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		asm, err := getAuthServerMeta(ctx, origin+p, client)
		if err != nil {
			return nil, nil, err
		}
		if asm == nil {
			continue
		}
		iss, err := url.Parse(asm.Issuer)
		if err != nil || iss.Scheme != su.Scheme || iss.Host != su.Host || iss.RawQuery != "" || iss.Fragment != "" {
			return nil, nil, fmt.Errorf("the authorization server metadata at %s names the issuer %q, which is not on the server's origin %s", origin+p, asm.Issuer, origin)
		}
		if err := checkEndpoints(asm); err != nil {
			return nil, nil, fmt.Errorf("the authorization server metadata at %s: %w", origin+p, err)
		}
		return prm, asm, nil
	}
	return prm, &oauthex.AuthServerMeta{
		Issuer:                origin,
		AuthorizationEndpoint: origin + "/authorize",
		TokenEndpoint:         origin + "/token",
		RegistrationEndpoint:  origin + "/register",
	}, nil
}

// pathIssuer reports whether a 2025-03-26 server's metadata names an
// issuer at a path of its origin: the case the SDK refuses.
func pathIssuer(prm *oauthex.ProtectedResourceMetadata, asm *oauthex.AuthServerMeta) bool {
	return strings.TrimSuffix(asm.Issuer, "/") != prm.AuthorizationServers[0]
}

// publishesResourceMetadata reports whether the server points to protected
// resource metadata or answers one of its well-known URLs with a document.
func publishesResourceMetadata(ctx context.Context, challenges []oauthex.Challenge, su *url.URL, client *http.Client) (bool, error) {
	for _, c := range challenges {
		if c.Params["resource_metadata"] != "" {
			return true, nil
		}
	}
	mu := url.URL{Scheme: su.Scheme, Host: su.Host}
	paths := []string{"/.well-known/oauth-protected-resource/" + strings.TrimLeft(su.Path, "/"), "/.well-known/oauth-protected-resource"}
	for _, p := range paths {
		mu.Path = p
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu.String(), nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, fmt.Errorf("getting protected resource metadata: %w", err)
		}
		drain(resp)
		if resp.StatusCode < 300 {
			return true, nil
		}
	}
	return false, nil
}

// getAuthServerMeta reads an authorization server metadata document. A 4xx
// answer means there is none: nil and no error. Unlike the SDK's it does
// not check the issuer or PKCE support: the caller does what applies.
func getAuthServerMeta(ctx context.Context, metadataURL string, client *http.Client) (*oauthex.AuthServerMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metadataURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("getting authorization server metadata: %w", err)
	}
	defer drain(resp)
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, nil
	case resp.StatusCode >= 300:
		return nil, fmt.Errorf("getting authorization server metadata from %s: %s", metadataURL, resp.Status)
	}
	var asm oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&asm); err != nil {
		return nil, fmt.Errorf("reading authorization server metadata from %s: %w", metadataURL, err)
	}
	if asm.Issuer == "" || asm.TokenEndpoint == "" {
		return nil, fmt.Errorf("authorization server metadata at %s has no issuer or no token endpoint", metadataURL)
	}
	return &asm, nil
}

// checkEndpoints refuses endpoints Switchboard would send a user or a
// secret to that are neither https nor on this machine.
func checkEndpoints(asm *oauthex.AuthServerMeta) error {
	for name, v := range map[string]string{
		"authorization_endpoint": asm.AuthorizationEndpoint,
		"token_endpoint":         asm.TokenEndpoint,
		"registration_endpoint":  asm.RegistrationEndpoint,
	} {
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || !(u.Scheme == "https" || u.Scheme == "http" && isLoopbackHost(u.Hostname())) {
			return fmt.Errorf("%s %q is not an https URL", name, v)
		}
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// legacySignIn is the authorization code flow against metadata the SDK
// refused (see the top of this file), with the steps the SDK's
// AuthorizationCodeHandler takes: client registration, scopes, PKCE S256,
// state, resource indicator, RFC 9207 issuer check, code exchange.
func (h *codeHandler) legacySignIn(ctx context.Context, prm *oauthex.ProtectedResourceMetadata, asm *oauthex.AuthServerMeta,
	challenges []oauthex.Challenge, cb *CallbackServer, client *storedClient, b binding) error {
	conf := &oauth2.Config{
		RedirectURL: cb.RedirectURI(),
		Endpoint:    oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint},
	}
	if client != nil && !sameEndpoint(asm.AuthorizationEndpoint, client.AuthURL) {
		client = nil // registered with another authorization server
	}
	switch {
	case h.cfg.ClientID != "":
		conf.ClientID = h.cfg.ClientID
		if ref := h.cfg.ClientSecretRef; ref != "" {
			secret, err := h.opts.Store.Secret(ref)
			if err != nil {
				return err
			}
			conf.ClientSecret = secret
		}
		conf.Endpoint.AuthStyle = preferredAuthStyle(asm.TokenEndpointAuthMethodsSupported)
	case h.opts.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		conf.ClientID = h.opts.ClientMetadataURL
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	case client != nil:
		conf.ClientID, conf.ClientSecret = client.ClientID, client.ClientSecret
		conf.Endpoint.AuthStyle = preferredAuthStyle(asm.TokenEndpointAuthMethodsSupported)
	case asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, h.registration(cb.RedirectURI()), h.opts.HTTPClient)
		if err != nil {
			return fmt.Errorf("registering with the authorization server: %w", err)
		}
		conf.ClientID, conf.ClientSecret = reg.ClientID, reg.ClientSecret
		conf.Endpoint.AuthStyle = authStyle(reg.TokenEndpointAuthMethod)
	default:
		return errors.New("the authorization server offers no client registration; set a client ID in the server's settings")
	}

	scopes := h.scopes(challengeScopes(challenges))
	if slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access") // we keep refresh tokens (SEP-2207)
	}
	conf.Scopes = scopes

	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	resource := oauth2.SetAuthURLParam("resource", prm.Resource)
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resource)
	h.log.Info("oauth sign-in started", "issuer", asm.Issuer)
	res, err := cb.Fetch(ctx, &auth.AuthorizationArgs{URL: authURL})
	if err != nil {
		return err
	}
	if res.State != state {
		return ErrStateMismatch
	}
	if res.Iss != "" && strings.TrimSuffix(res.Iss, "/") != strings.TrimSuffix(asm.Issuer, "/") {
		return fmt.Errorf("the authorization response comes from issuer %q, not %q", res.Iss, asm.Issuer)
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.opts.HTTPClient), res.Code,
		oauth2.VerifierOption(verifier), resource)
	if err != nil {
		return fmt.Errorf("exchanging the authorization code: %w", err)
	}
	h.startSession(conf, tok, cb.RedirectURI(), b)
	return nil
}

// preferredAuthStyle picks the client authentication of a client with a
// secret from the methods the server supports, as the SDK does.
func preferredAuthStyle(supported []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(supported, "client_secret_post"):
		return oauth2.AuthStyleInParams
	case slices.Contains(supported, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	default:
		return oauth2.AuthStyleAutoDetect
	}
}

// authStyle is the oauth2 style of a registered token_endpoint_auth_method;
// RFC 7591 makes client_secret_basic the default.
func authStyle(method string) oauth2.AuthStyle {
	switch method {
	case "client_secret_post", "none":
		return oauth2.AuthStyleInParams
	default:
		return oauth2.AuthStyleInHeader
	}
}

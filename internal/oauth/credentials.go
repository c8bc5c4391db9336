package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// credentialsHandler gets tokens with a grant that needs no user: the
// client credentials grant (RFC 6749 section 4.4, MCP SEP-1046) or, with
// grant set, a JWT bearer grant: enterprise-managed (enterprise.go) or
// workload identity federation (workload.go). The client
// authenticates with client_secret_basic, client_secret_post or
// private_key_jwt (RFC 7523). The SDK's extauth.ClientCredentialsHandler
// is not used: it picks the secret method from metadata only, has no
// private_key_jwt, and binds later token requests to the context of the
// request that first failed.
type credentialsHandler struct {
	id         string
	cfg        serverconf.Auth
	opts       Options
	log        *slog.Logger
	refreshCtx context.Context
	srv        *serverRef
	// grant returns the grant parameters of one token request (grant_type
	// and the grant itself); nil means client_credentials. It runs for
	// every request, so a short-lived grant is fetched fresh.
	grant func(ctx context.Context, as *oauthex.AuthServerMeta, resource string, scopes []string) (url.Values, error)
	what  string // the grant in messages: "the client credentials"

	mu  sync.Mutex
	src oauth2.TokenSource
}

var _ auth.OAuthHandler = (*credentialsHandler)(nil)

func (h *credentialsHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src == nil {
		return nil, nil
	}
	return h.src, nil
}

func (h *credentialsHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) (err error) {
	defer drain(resp)
	// No browser to keep from reopening: a failure is only remembered,
	// for whoever started the Interaction to say why.
	defer func() { interactionOf(ctx).fail(err) }()
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("reading the server's WWW-Authenticate header: %w", err)
	}
	if resp.StatusCode == http.StatusForbidden && challengeError(challenges) != "insufficient_scope" {
		return nil
	}
	h.srv.learn(req.URL)
	client := h.opts.HTTPClient
	prm, asm, err := discover(ctx, challenges, req.URL.String(), client)
	if err != nil {
		return err
	}
	// The configured secret or key goes only to the authorization server
	// it was first used with; its token endpoint comes from that issuer's
	// metadata, which discover checked names it.
	if h.cfg.ClientSecretRef != "" || h.cfg.PrivateKeyRef != "" {
		if err := h.opts.Store.pinIssuer(h.id, h.cfg.ClientID, asm.Issuer); err != nil {
			return err
		}
	}
	scopes := h.cfg.Scopes
	if len(scopes) == 0 {
		scopes = challengeScopes(challenges)
	}
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	fetch, err := h.fetcher(asm, prm.Resource, scopes)
	if err != nil {
		return err
	}
	tok, err := fetch(context.WithValue(ctx, oauth2.HTTPClient, client))
	if err != nil {
		return fmt.Errorf("getting a token with %s: %w", h.what, describeTokenError(err))
	}
	h.log.Info("oauth token received", "grant", h.what)
	h.mu.Lock()
	h.src = oauth2.ReuseTokenSource(tok, tokenFunc(func() (*oauth2.Token, error) { return fetch(h.refreshCtx) }))
	h.mu.Unlock()
	return nil
}

// fetcher returns the function that requests a token, choosing the client
// authentication: the configured one, else private_key_jwt when a key is
// set, else client_secret_basic unless the server supports only
// client_secret_post (RFC 8414 makes basic the default).
func (h *credentialsHandler) fetcher(asm *oauthex.AuthServerMeta, resource string, scopes []string) (func(context.Context) (*oauth2.Token, error), error) {
	params := url.Values{}
	if resource != "" {
		params.Set("resource", resource) // RFC 8707
	}
	method := h.cfg.ClientAuth
	if method == "" {
		switch supported := asm.TokenEndpointAuthMethodsSupported; {
		case h.cfg.PrivateKeyRef != "":
			method = serverconf.PrivateKeyJWT
		case slices.Contains(supported, serverconf.ClientSecretPost) && !slices.Contains(supported, serverconf.ClientSecretBasic):
			method = serverconf.ClientSecretPost
		default:
			method = serverconf.ClientSecretBasic
		}
	}
	// requestParams are the parameters of one token request: the resource,
	// and the grant when it is not client_credentials.
	requestParams := func(ctx context.Context) (url.Values, error) {
		p := cloneValues(params)
		if h.grant != nil {
			g, err := h.grant(ctx, asm, resource, scopes)
			if err != nil {
				return nil, err
			}
			for k, v := range g { // clientcredentials lets grant_type be replaced
				p[k] = v
			}
		}
		return p, nil
	}
	if method == serverconf.PrivateKeyJWT {
		pemData, err := h.opts.Store.Secret(h.cfg.PrivateKeyRef)
		if err != nil {
			return nil, err
		}
		key, err := parseSigningKey(pemData)
		if err != nil {
			return nil, fmt.Errorf("private key for %s: %w", h.id, err)
		}
		return func(ctx context.Context) (*oauth2.Token, error) {
			assertion, err := key.clientAssertion(h.cfg.ClientID, asm.Issuer, time.Now())
			if err != nil {
				return nil, err
			}
			p, err := requestParams(ctx)
			if err != nil {
				return nil, err
			}
			p.Set("client_assertion_type", ClientAssertionType)
			p.Set("client_assertion", assertion)
			cc := clientcredentials.Config{ClientID: h.cfg.ClientID, TokenURL: asm.TokenEndpoint, Scopes: scopes,
				EndpointParams: p, AuthStyle: oauth2.AuthStyleInParams}
			return cc.Token(ctx)
		}, nil
	}
	if h.cfg.ClientSecretRef == "" && h.cfg.AssertionFile != "" {
		// A workload is a public client: its identity token is its
		// credential (SEP-1933).
		return func(ctx context.Context) (*oauth2.Token, error) {
			p, err := requestParams(ctx)
			if err != nil {
				return nil, err
			}
			cc := clientcredentials.Config{ClientID: h.cfg.ClientID, TokenURL: asm.TokenEndpoint, Scopes: scopes,
				EndpointParams: p, AuthStyle: oauth2.AuthStyleInParams}
			return cc.Token(ctx)
		}, nil
	}
	if h.cfg.ClientSecretRef == "" {
		return nil, errors.New("the server's grant needs a client secret or a private key; add one in the server's settings")
	}
	secret, err := h.opts.Store.Secret(h.cfg.ClientSecretRef)
	if err != nil {
		return nil, err
	}
	style := oauth2.AuthStyleInHeader
	if method == serverconf.ClientSecretPost {
		style = oauth2.AuthStyleInParams
	}
	return func(ctx context.Context) (*oauth2.Token, error) {
		p, err := requestParams(ctx)
		if err != nil {
			return nil, err
		}
		cc := clientcredentials.Config{ClientID: h.cfg.ClientID, ClientSecret: secret, TokenURL: asm.TokenEndpoint,
			Scopes: scopes, EndpointParams: p, AuthStyle: style}
		return cc.Token(ctx)
	}, nil
}

type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

func describeTokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client") {
		return fmt.Errorf("the authorization server rejected the client (%s); check the client ID and its secret or key: %w", re.ErrorCode, err)
	}
	return err
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// discover finds the server's authorization server: through its protected
// resource metadata, or by the 2025-03-26 rules (see legacy.go) when it
// has none.
func discover(ctx context.Context, challenges []oauthex.Challenge, serverURL string, client *http.Client) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	prm, tried, err := findResource(ctx, challenges, serverURL, client)
	if err != nil {
		return nil, nil, err
	}
	if prm == nil {
		return legacyDiscover(ctx, challenges, serverURL, client, tried)
	}
	asm, err := authServerMeta(ctx, prm.AuthorizationServers[0], client)
	if err != nil {
		return nil, nil, err
	}
	return prm, asm, nil
}

// authServerMeta is the metadata of issuer, checked by the SDK to name
// issuer, or the default endpoints when it publishes none.
func authServerMeta(ctx context.Context, issuer string, client *http.Client) (*oauthex.AuthServerMeta, error) {
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, client)
	if err != nil {
		return nil, fmt.Errorf("getting authorization server metadata: %w", err)
	}
	if asm == nil { // as the SDK does: the default endpoints
		base := strings.TrimSuffix(issuer, "/")
		asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: base + "/authorize",
			TokenEndpoint: base + "/token", RegistrationEndpoint: base + "/register"}
	}
	return asm, nil
}

// findResource finds the protected resource metadata as the SDK's
// AuthorizationCodeHandler does: the WWW-Authenticate hint, then the
// well-known URIs at the endpoint's path and at the root. It returns nil
// when the server publishes none, as a 2025-03-26 server does, and in tried
// what each place answered, so that a caller that then finds metadata
// published after all can say why it was not taken.
func findResource(ctx context.Context, challenges []oauthex.Challenge, serverURL string, client *http.Client) (prm *oauthex.ProtectedResourceMetadata, tried, err error) {
	type candidate struct{ metadata, resource string }
	var cands []candidate
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			cands = append(cands, candidate{u, serverURL})
			break
		}
	}
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing server URL: %w", err)
	}
	mu := *su
	mu.RawQuery, mu.Fragment = "", ""
	mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(su.Path, "/")
	cands = append(cands, candidate{mu.String(), serverURL})
	root := *su
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	mu.Path = "/.well-known/oauth-protected-resource"
	cands = append(cands, candidate{mu.String(), root.String()})

	var errs []error
	for _, c := range cands {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.metadata, c.resource, client)
		if err != nil || prm == nil {
			errs = append(errs, err)
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, nil, errors.New("protected resource metadata names no authorization server")
		}
		return prm, nil, nil
	}
	return nil, errors.Join(errs...), nil
}

func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

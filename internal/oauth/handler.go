package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-app/switchboard/internal/netguard"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// ErrNeedsAuth means the server wants a sign-in and the handler may not
// open a browser: the connection manager shows the server as needing
// authorization, and the user starts the sign-in from the UI.
var ErrNeedsAuth = errors.New("sign-in required")

// Options configure NewHandler. Store is required; every other zero value
// means the default.
type Options struct {
	// Store keeps tokens and registered clients, and holds the client
	// secret or private key named in the config.
	Store *Store
	// Interactive lets every authorization open the browser. Without it a
	// sign-in happens only under a context from WithInteractive; otherwise
	// Authorize returns ErrNeedsAuth.
	Interactive bool
	// Open shows the authorization URL; nil means OpenBrowser.
	Open Opener
	// ServerURL is the server's configured URL. Stored tokens and
	// registered clients are bound to it (CanonicalResource): one stored
	// for another URL is not used. Empty means the server is learned from
	// the first request Authorize sees, and no stored token is reused.
	ServerURL string
	// HTTPClient makes discovery, registration and token requests; nil
	// means a client with a 30-second timeout whose connections netguard
	// checks: no private or local address unless ServerURL is at one.
	HTTPClient *http.Client
	// CallbackTimeout bounds the wait for the browser; zero means
	// DefaultCallbackTimeout.
	CallbackTimeout time.Duration
	// ClientName is sent at dynamic client registration; empty means
	// "Switchboard".
	ClientName string
	// ClientMetadataURL is an https URL of a client ID metadata document
	// (SEP-991), used when the authorization server supports them; empty
	// means dynamic registration only.
	ClientMetadataURL string
	// Enterprise is the identity provider of servers whose grant is
	// GrantJWTBearer; nil means no such server can be authorized.
	Enterprise *Enterprise
	// Logger receives sign-in and refresh events, never token values; nil
	// means no logging.
	Logger *slog.Logger
}

type interactiveKey struct{}

// An Interaction is one sign-in the user started, such as Authorize in a
// server's settings. A handler may open the browser for requests made
// under it (Context), once. It is the one memory of how the sign-in
// ended: the error of a failed or cancelled sign-in is kept, so that the
// other requests of the same connect (the SDK tries server/discover, then
// initialize) do not open the browser again after the user refused, and so
// that whoever started it can say why (Err). The zero value is ready to
// use; one Interaction serves one sign-in.
type Interaction struct {
	mu  sync.Mutex
	err error
}

// Context returns ctx marked as belonging to in.
func (in *Interaction) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, interactiveKey{}, in)
}

// Err returns the error that ended in's sign-in, nil if none failed.
func (in *Interaction) Err() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.err
}

// fail records err, if not nil, as how the sign-in ended.
func (in *Interaction) fail(err error) {
	if in == nil || err == nil {
		return
	}
	in.mu.Lock()
	in.err = err
	in.mu.Unlock()
}

// WithInteractive marks ctx as belonging to a new Interaction: a handler
// may open the browser for requests made under it, once; if that sign-in
// fails, later requests under ctx get the same error.
func WithInteractive(ctx context.Context) context.Context {
	return new(Interaction).Context(ctx)
}

func interactionOf(ctx context.Context) *Interaction {
	in, _ := ctx.Value(interactiveKey{}).(*Interaction)
	return in
}

// NewHandler returns the OAuth handler for a server's
// StreamableClientTransport (or SSE transport). cfg nil means the
// authorization code flow with dynamic registration. A client_credentials
// or GrantJWTBearer grant never needs the browser; an authorization code
// grant reuses the stored token, refreshes it silently, and signs in
// through the browser only when Interactive or WithInteractive allow it.
func NewHandler(serverID string, cfg *serverconf.Auth, opts Options) (auth.OAuthHandler, error) {
	if opts.Store == nil {
		return nil, errors.New("oauth: Options.Store is required")
	}
	if serverID == "" {
		return nil, errors.New("oauth: a server ID is required")
	}
	var a serverconf.Auth
	if cfg != nil {
		a = *cfg
		a.Scopes = slices.Clone(a.Scopes)
	}
	srv := &serverRef{}
	if opts.ServerURL != "" {
		srv.resource = CanonicalResource(opts.ServerURL)
	}
	if opts.HTTPClient == nil {
		srv.guard = netguard.New(opts.ServerURL, nil)
		opts.HTTPClient = srv.guard.Client(30 * time.Second)
	}
	if opts.Open == nil {
		opts.Open = OpenBrowser
	}
	if opts.ClientName == "" {
		opts.ClientName = "Switchboard"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	log := opts.Logger.With("server", serverID)
	srv.dpop = newDPoP(serverID, opts.Store, log)
	opts.HTTPClient = srv.dpop.client(opts.HTTPClient) // token requests get DPoP proofs (dpop.go)
	// Refreshes outlive the request that started the session: they run
	// under a background context that carries the HTTP client.
	refreshCtx := context.WithValue(context.Background(), oauth2.HTTPClient, opts.HTTPClient)

	switch a.Grant {
	case serverconf.GrantClientCredentials:
		return &credentialsHandler{id: serverID, cfg: a, opts: opts, log: log, refreshCtx: refreshCtx, srv: srv,
			what: "the client credentials"}, nil
	case GrantJWTBearer:
		if a.AssertionFile != "" {
			if a.ClientID == "" {
				return nil, errors.New("oauth: workload identity federation needs the client ID registered with the server's authorization server")
			}
			return &credentialsHandler{id: serverID, cfg: a, opts: opts, log: log, refreshCtx: refreshCtx, srv: srv,
				grant: workloadGrant(a.AssertionFile), what: "the workload identity token"}, nil
		}
		if a.ClientID == "" {
			return nil, errors.New("oauth: enterprise-managed authorization needs the client ID registered with the server's authorization server")
		}
		g, err := newEnterpriseGrant(opts.Enterprise, opts, srv.guard != nil)
		if err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		return &credentialsHandler{id: serverID, cfg: a, opts: opts, log: log, refreshCtx: refreshCtx, srv: srv,
			grant: g.params, what: "the enterprise identity provider's grant"}, nil
	case "", serverconf.GrantAuthorizationCode:
		h := &codeHandler{id: serverID, cfg: a, opts: opts, log: log, refreshCtx: refreshCtx, srv: srv}
		if err := h.restore(); err != nil {
			return nil, err
		}
		return h, nil
	default:
		return nil, fmt.Errorf("oauth: unsupported grant %q", a.Grant)
	}
}

// A serverRef is the server a handler signs in to.
type serverRef struct {
	guard *netguard.Guard // of the default HTTP client; nil with the caller's
	dpop  *dpop           // its DPoP key and nonces

	mu       sync.Mutex
	resource string // CanonicalResource of the server's URL; "" until known
}

// learn takes the server from a request to it when Options.ServerURL did
// not name it.
func (r *serverRef) learn(u *url.URL) {
	if r.guard != nil {
		r.guard.SetServer(u.String())
	}
	r.mu.Lock()
	if r.resource == "" {
		r.resource = CanonicalResource(u.String())
	}
	r.mu.Unlock()
}

func (r *serverRef) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resource
}

// codeHandler is the authorization code flow. The SDK's
// AuthorizationCodeHandler does discovery, registration, PKCE, state,
// resource and the code exchange; a new one is built for each sign-in,
// because its redirect URI is the port of that sign-in's CallbackServer.
type codeHandler struct {
	id         string
	cfg        serverconf.Auth
	opts       Options
	log        *slog.Logger
	refreshCtx context.Context
	srv        *serverRef

	mu       sync.Mutex
	session  *session // nil: no usable token
	granted  []string // scopes of the current token, kept across step-ups
	inflight *signInCall
}

type signInCall struct {
	done chan struct{}
	err  error
}

var _ auth.OAuthHandler = (*codeHandler)(nil)

func (h *codeHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.session == nil {
		return nil, nil // a nil *session would be a non-nil interface
	}
	return h.session, nil
}

// restore loads the stored token, if any, when it was issued for this
// server's URL. One issued for another URL (the server's URL changed, or
// a server with the same ID was deleted and added again elsewhere) is
// forgotten, with the client registered for it: the new host never gets
// it.
func (h *codeHandler) restore() error {
	var t storedToken
	ok, err := h.opts.Store.load(TokenKey(h.id), &t)
	if err != nil || !ok {
		return err
	}
	resource := h.srv.get()
	if resource == "" {
		return nil // nothing to check the token against: sign in again
	}
	if t.Resource != resource {
		h.log.Info("stored oauth token is for another server URL; sign-in needed", "tokenFor", t.Resource)
		for _, key := range []string{TokenKey(h.id), ClientKey(h.id)} {
			if err := h.opts.Store.delete(key); err != nil {
				h.log.Warn("deleting oauth state of another server URL", "err", err)
			}
		}
		return nil
	}
	if t.RefreshToken == "" && !t.Expiry.IsZero() && time.Now().After(t.Expiry) {
		return h.opts.Store.delete(TokenKey(h.id))
	}
	secret, err := h.clientSecret(t.ClientID)
	if err != nil {
		return err
	}
	conf := &oauth2.Config{
		ClientID: t.ClientID, ClientSecret: secret, Scopes: t.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: t.AuthURL, TokenURL: t.TokenURL, AuthStyle: t.AuthStyle},
	}
	h.srv.dpop.restored(t.TokenType, t.TokenURL)
	h.session, h.granted = h.newSession(conf, t.token(), binding{Resource: t.Resource, Issuer: t.Issuer}), t.Scopes
	return nil
}

// clientSecret finds the secret of the client a stored token was issued
// to: the configured client's, or the registered one's.
func (h *codeHandler) clientSecret(clientID string) (string, error) {
	if h.cfg.ClientID != "" && clientID == h.cfg.ClientID {
		if h.cfg.ClientSecretRef == "" {
			return "", nil
		}
		return h.opts.Store.Secret(h.cfg.ClientSecretRef)
	}
	var c storedClient
	ok, err := h.opts.Store.load(ClientKey(h.id), &c)
	if err != nil || !ok || c.ClientID != clientID {
		return "", err
	}
	return c.ClientSecret, nil
}

// Authorize runs when the server answers 401, or 403 insufficient_scope.
// Under an Interaction, an error it returns ends that sign-in: the next
// request under it gets the same error without a browser.
func (h *codeHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) (err error) {
	h.srv.learn(req.URL)
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && challengeError(challenges) != "insufficient_scope" {
		// Not an authorization problem a sign-in solves; as the SDK does,
		// let the retry fail with the server's own answer.
		drain(resp)
		return nil
	}
	in := interactionOf(ctx)
	if !h.opts.Interactive && in == nil {
		drain(resp)
		h.log.Info("oauth sign-in needed")
		return fmt.Errorf("server %s: %w", h.id, ErrNeedsAuth)
	}
	if in != nil {
		if err := in.Err(); err != nil {
			drain(resp)
			return err
		}
		defer func() { in.fail(err) }()
	}

	// One sign-in at a time: a second request that fails meanwhile waits
	// for the first instead of opening another browser tab.
	h.mu.Lock()
	if c := h.inflight; c != nil {
		h.mu.Unlock()
		drain(resp)
		select {
		case <-c.done:
			return c.err
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	c := &signInCall{done: make(chan struct{})}
	h.inflight = c
	h.mu.Unlock()

	c.err = h.signIn(ctx, req, resp, false)
	if errors.Is(c.err, errStaleClient) {
		h.log.Info("oauth authorization server changed; registering again")
		if err := h.opts.Store.delete(ClientKey(h.id)); err != nil {
			h.log.Warn("deleting stale oauth client", "err", err)
		}
		c.err = h.signIn(ctx, req, resp, true)
	}
	h.mu.Lock()
	h.inflight = nil
	h.mu.Unlock()
	close(c.done)
	return c.err
}

// errStaleClient stops a sign-in, before the browser opens, whose stored
// client was registered with another authorization server.
var errStaleClient = errors.New("registered client belongs to another authorization server")

func (h *codeHandler) signIn(ctx context.Context, req *http.Request, resp *http.Response, fresh bool) error {
	// A server without protected resource metadata follows the 2025-03-26
	// rules, some of which the SDK's handler refuses (legacy.go). The SDK
	// repeats the discovery; a sign-in is rare enough not to mind.
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	var legacyPRM *oauthex.ProtectedResourceMetadata
	var legacyAS *oauthex.AuthServerMeta
	prm, tried, err := findResource(ctx, challenges, req.URL.String(), h.opts.HTTPClient)
	if err == nil && prm == nil {
		legacyPRM, legacyAS, err = legacyDiscover(ctx, challenges, req.URL.String(), h.opts.HTTPClient, tried)
	}
	if err != nil {
		drain(resp)
		return err
	}
	b := binding{Resource: h.srv.get()}
	if prm != nil {
		b.Issuer = prm.AuthorizationServers[0] // the SDK checks its metadata names this issuer
	} else {
		b.Issuer = legacyAS.Issuer
	}
	// A configured client secret goes only to the authorization server it
	// was first used with.
	var tokenEndpoint string
	if h.cfg.ClientID != "" && h.cfg.ClientSecretRef != "" {
		if err := h.opts.Store.pinIssuer(h.id, h.cfg.ClientID, b.Issuer); err != nil {
			drain(resp)
			return err
		}
		asm := legacyAS
		if asm == nil {
			if asm, err = authServerMeta(ctx, b.Issuer, h.opts.HTTPClient); err != nil {
				drain(resp)
				return err
			}
		}
		tokenEndpoint = asm.TokenEndpoint
	}

	var client *storedClient
	if h.cfg.ClientID == "" && !fresh {
		var c storedClient
		ok, err := h.opts.Store.load(ClientKey(h.id), &c)
		if err != nil {
			drain(resp)
			return err
		}
		// A client registered for another server or authorization server
		// is not reused.
		if ok && c.Resource == b.Resource && sameIssuer(c.Issuer, b.Issuer) {
			client = &c
		}
	}
	cb, err := h.callbackServer(client)
	if err != nil {
		drain(resp)
		return err
	}
	defer cb.Close()
	if client != nil && client.RedirectURI != cb.RedirectURI() {
		client = nil // its port is taken: register again with the new one
	}

	if legacyAS != nil && pathIssuer(legacyPRM, legacyAS) {
		drain(resp)
		h.log.Info("oauth: 2025-03-26 server with its metadata at the root", "issuer", legacyAS.Issuer)
		err = h.legacySignIn(ctx, legacyPRM, legacyAS, challenges, cb, client, b)
	} else {
		err = h.sdkSignIn(ctx, req, resp, cb, client, b, tokenEndpoint)
	}
	if err != nil {
		if errors.Is(err, errStaleClient) {
			return err
		}
		if client != nil && clientRejected(err) {
			// The authorization server forgot the registration; the next
			// sign-in registers again.
			if derr := h.opts.Store.delete(ClientKey(h.id)); derr != nil {
				h.log.Warn("deleting rejected oauth client", "err", derr)
			}
			return fmt.Errorf("the authorization server no longer accepts Switchboard's registration; sign in again: %w", err)
		}
		return fmt.Errorf("signing in: %w", err)
	}
	h.log.Info("oauth sign-in complete")
	return nil
}

// sdkSignIn signs in with the SDK's AuthorizationCodeHandler, which
// closes resp. A non-empty tokenEndpoint is the only URL the sign-in may
// POST to: that of the issuer a configured client secret is pinned to,
// whatever the SDK's own discovery finds.
func (h *codeHandler) sdkSignIn(ctx context.Context, req *http.Request, resp *http.Response, cb *CallbackServer, client *storedClient,
	b binding, tokenEndpoint string) error {
	httpClient := h.opts.HTTPClient
	if tokenEndpoint != "" {
		httpClient = postOnlyTo(httpClient, tokenEndpoint, b.Issuer)
	}
	conf := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         cb.RedirectURI(),
		Client:              httpClient,
		RequestRefreshToken: true,
		ScopeFilter:         h.scopes,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if client != nil && !sameEndpoint(args.URL, client.AuthURL) {
				return nil, errStaleClient
			}
			h.log.Info("oauth sign-in started")
			return cb.Fetch(ctx, args)
		},
		NewTokenSource: func(_ context.Context, conf *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return h.startSession(conf, tok, cb.RedirectURI(), b), nil
		},
	}
	switch {
	case h.cfg.ClientID != "":
		pre := &oauthex.ClientCredentials{ClientID: h.cfg.ClientID}
		if ref := h.cfg.ClientSecretRef; ref != "" {
			secret, err := h.opts.Store.Secret(ref)
			if err != nil {
				drain(resp)
				return err
			}
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
		conf.PreregisteredClient = pre
	case client != nil:
		pre := &oauthex.ClientCredentials{ClientID: client.ClientID}
		if client.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: client.ClientSecret}
		}
		conf.PreregisteredClient = pre
	default:
		conf.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: h.registration(cb.RedirectURI())}
	}
	if h.cfg.ClientID == "" && h.opts.ClientMetadataURL != "" {
		conf.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.opts.ClientMetadataURL}
	}
	inner, err := auth.NewAuthorizationCodeHandler(conf)
	if err != nil {
		drain(resp)
		return fmt.Errorf("configuring sign-in: %w", err)
	}
	return inner.Authorize(ctx, req, resp)
}

// registration is the metadata of a dynamic client registration.
func (h *codeHandler) registration(redirectURI string) *oauthex.ClientRegistrationMetadata {
	return &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirectURI},
		ClientName:              h.opts.ClientName,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
	}
}

// callbackServer listens on the port of the stored client's redirect URI
// when there is one and it is free, else on a new port.
func (h *codeHandler) callbackServer(client *storedClient) (*CallbackServer, error) {
	opts := &CallbackOptions{Timeout: h.opts.CallbackTimeout, Open: h.opts.Open}
	if client != nil {
		if u, err := url.Parse(client.RedirectURI); err == nil {
			o := *opts
			o.Addr, o.Path = u.Host, u.Path
			if cb, err := NewCallbackServer(&o); err == nil {
				return cb, nil
			}
		}
	}
	return NewCallbackServer(opts)
}

// scopes is the SDK's ScopeFilter: the configured scopes, or else the
// discovered ones, plus those already granted.
func (h *codeHandler) scopes(discovered []string) []string {
	want := discovered
	if len(h.cfg.Scopes) > 0 {
		want = h.cfg.Scopes
	}
	h.mu.Lock()
	granted := h.granted
	h.mu.Unlock()
	out := slices.Clone(granted)
	for _, s := range want {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// startSession stores the client and token of a completed sign-in, bound
// to b, and makes them the handler's session.
func (h *codeHandler) startSession(conf *oauth2.Config, tok *oauth2.Token, redirectURI string, b binding) *session {
	if h.cfg.ClientID == "" && conf.ClientID != h.opts.ClientMetadataURL {
		c := storedClient{ClientID: conf.ClientID, ClientSecret: conf.ClientSecret, RedirectURI: redirectURI, AuthURL: conf.Endpoint.AuthURL,
			Resource: b.Resource, Issuer: b.Issuer}
		if err := h.opts.Store.save(ClientKey(h.id), c); err != nil {
			h.log.Warn("saving oauth client", "err", err)
		}
	}
	h.saveToken(conf, tok, b)
	s := h.newSession(conf, tok, b)
	h.mu.Lock()
	h.session, h.granted = s, conf.Scopes
	h.mu.Unlock()
	return s
}

func (h *codeHandler) saveToken(conf *oauth2.Config, tok *oauth2.Token, b binding) {
	if b.Resource == "" {
		return // not bound to a server: it would never be used again
	}
	if err := h.opts.Store.save(TokenKey(h.id), newStoredToken(conf, tok, b)); err != nil {
		// The token still works for this run; the next start signs in again.
		h.log.Warn("saving oauth token", "err", err)
	}
}

// endSession forgets a token the authorization server will not refresh.
func (h *codeHandler) endSession(s *session, cause error) {
	h.mu.Lock()
	if h.session == s {
		h.session = nil
	}
	h.mu.Unlock()
	reason := "no refresh token"
	var re *oauth2.RetrieveError
	if errors.As(cause, &re) {
		reason = re.ErrorCode
		if reason == "" && re.Response != nil {
			reason = re.Response.Status
		}
	}
	h.log.Info("oauth refresh refused; sign-in needed", "reason", reason)
	if err := h.opts.Store.delete(TokenKey(h.id)); err != nil {
		h.log.Warn("deleting oauth token", "err", err)
	}
}

func (h *codeHandler) newSession(conf *oauth2.Config, tok *oauth2.Token, b binding) *session {
	r := &refresher{h: h, conf: conf, refreshToken: tok.RefreshToken, b: b}
	return &session{h: h, src: oauth2.ReuseTokenSource(tok, r)}
}

// A session is the token source of a signed-in server. It refreshes
// through a refresher, which saves each new token.
type session struct {
	h   *codeHandler
	src oauth2.TokenSource
}

// errNoRefreshToken: the token expired and there is nothing to refresh it with.
var errNoRefreshToken = errors.New("token expired and there is no refresh token")

// Token returns a valid token, refreshing it when needed. When the
// authorization server refuses the refresh, the session ends and Token
// returns no token and no error: the transport then sends the request
// without one, gets 401, and calls Authorize, which signs in again or
// returns ErrNeedsAuth.
func (s *session) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err == nil {
		return tok, nil
	}
	if errors.Is(err, errNoRefreshToken) || refused(err) {
		s.h.endSession(s, err)
		return nil, nil
	}
	return nil, fmt.Errorf("refreshing the access token: %w", err)
}

// A refresher gets a new token with the refresh token. ReuseTokenSource
// calls it under its lock, one refresh at a time, so a rotated refresh
// token is never used twice and saves happen in order.
type refresher struct {
	h            *codeHandler
	conf         *oauth2.Config
	refreshToken string
	b            binding
}

func (r *refresher) Token() (*oauth2.Token, error) {
	if r.refreshToken == "" {
		return nil, errNoRefreshToken
	}
	tok, err := r.conf.TokenSource(r.h.refreshCtx, &oauth2.Token{RefreshToken: r.refreshToken}).Token()
	if err != nil {
		return nil, err
	}
	r.refreshToken = tok.RefreshToken
	r.h.saveToken(r.conf, tok, r.b)
	r.h.log.Info("oauth token refreshed")
	return tok, nil
}

// refused reports whether the token endpoint answered with an OAuth error
// (4xx): the grant is gone, unlike a network error or a 5xx.
func refused(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500
}

func clientRejected(err error) bool {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client"
	}
	var ae *AuthorizationError
	if errors.As(err, &ae) {
		return ae.Code == "invalid_client" || ae.Code == "unauthorized_client"
	}
	return false
}

// postOnlyTo is c, except that it refuses to POST anywhere but to
// tokenEndpoint, the pinned issuer's.
func postOnlyTo(c *http.Client, tokenEndpoint, issuer string) *http.Client {
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc := *c
	cc.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodPost && !sameEndpoint(req.URL.String(), tokenEndpoint) {
			return nil, fmt.Errorf("refusing to send the client secret to %s: it is not the token endpoint of %s, the authorization server it is pinned to: %w",
				req.URL.Redacted(), issuer, ErrIssuerChanged)
		}
		return base.RoundTrip(req)
	})
	return &cc
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// sameEndpoint reports whether authURL (with its query) is at endpoint.
func sameEndpoint(authURL, endpoint string) bool {
	a, err1 := url.Parse(authURL)
	b, err2 := url.Parse(endpoint)
	if err1 != nil || err2 != nil {
		return false
	}
	return a.Scheme == b.Scheme && a.Host == b.Host && a.Path == b.Path
}

func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}

// drain closes a response Authorize does not pass on to the SDK, which
// closes the ones it gets.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

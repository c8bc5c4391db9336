// Package oauthtest runs, in process, the servers a test of Switchboard's
// OAuth sign-in talks to: an authorization server (AuthServer), an MCP
// server it protects (NewProtectedMCP, NewLegacyMCP, NewDPoPMCP), an enterprise
// identity provider (IdentityProvider), and a Browser that stands in for
// the user's.
//
// The authorization server is strict where real ones are (exact redirect
// URIs, PKCE S256, the resource parameter, rotated refresh tokens), so a
// test that passes here signs in to a real server too. It records every
// token it issues, so a test can look for them where they must not be.
//
// The package imports nothing of Switchboard's: package oauth's own tests
// use it.
package oauthtest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Grant and assertion types the AuthServer accepts beyond the core ones.
const (
	// GrantJWTBearer is the RFC 7523 grant of enterprise-managed
	// authorization: an ID-JAG from the identity provider for a token.
	GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	// ClientAssertionType is the client_assertion_type of private_key_jwt.
	ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// AuthServerOptions configure NewAuthServer; nil, and every zero field,
// means the default.
type AuthServerOptions struct {
	// TokenLifetime is the expires_in of every access token; zero means an
	// hour. Below oauth2's 10-second expiry margin, a client refreshes the
	// token before every use.
	TokenLifetime time.Duration
	// Deny makes the authorization endpoint answer as if the user refused:
	// it redirects back with error=access_denied.
	Deny bool
	// AuthMethods is the metadata's token_endpoint_auth_methods_supported;
	// nil means none, client_secret_post, client_secret_basic and
	// private_key_jwt.
	AuthMethods []string
	// ClientID is the confidential client that the client_credentials and
	// jwt-bearer grants authenticate, with ClientSecret (basic or post) or
	// the private key whose public half is ClientKey (private_key_jwt, RS256
	// or ES256). Empty means no such client.
	ClientID     string
	ClientSecret string
	ClientKey    crypto.PublicKey
	// DPoP advertises ES256 DPoP proofs (RFC 9449) in the metadata. A
	// token request with a proof, which must be valid, gets a token of
	// type DPoP bound to the proof's key, and a refresh token bound to it
	// too; Verify refuses such a token as a Bearer one.
	DPoP bool
	// DPoPNonce, with DPoP, is the nonce every token request's proof must
	// carry; the first without gets use_dpop_nonce and the nonce.
	DPoPNonce string
}

// An AuthServer is an OAuth 2.1 authorization server over httptest: RFC
// 8414 metadata, dynamic client registration (loopback redirect URIs
// only), an authorization endpoint that approves (or, with Deny, refuses)
// at once, and a token endpoint for authorization_code (PKCE S256
// checked), refresh_token (rotated), client_credentials and jwt-bearer,
// with DPoP-bound tokens (dpop.go) when AuthServerOptions.DPoP is set.
// Every request must name the resource set by SetResource.
type AuthServer struct {
	// URL is the issuer; its endpoints are URL+"/authorize", "/token" and
	// "/register".
	URL string

	t    testing.TB
	opts AuthServerOptions
	mux  *http.ServeMux

	mu             sync.Mutex
	resource       string
	clients        map[string][]string // client ID -> registered redirect URIs
	codes          map[string]issuedCode
	access         map[string]time.Time // access token -> expiry
	refresh        map[string]bool      // valid refresh tokens
	issued         []string
	registrations  int
	authorizations int
	refreshes      int
	clientAuth     []string          // "basic", "post", "jwt", per authenticated request
	jtis           map[string]bool   // client assertion and DPoP proof IDs seen
	bound          map[string]string // access or refresh token -> DPoP key thumbprint
	dpopAccepted   []DPoPProof
	dpopNonces     int
	dpopRefused    []string
	assertions     map[string]bool // ID-JAGs accepted once by the jwt-bearer grant
}

type issuedCode struct {
	clientID, redirectURI, challenge string
}

// NewAuthServer starts an AuthServer, closed when the test ends.
func NewAuthServer(t testing.TB, opts *AuthServerOptions) *AuthServer {
	a := &AuthServer{t: t, clients: map[string][]string{}, codes: map[string]issuedCode{}, access: map[string]time.Time{},
		refresh: map[string]bool{}, jtis: map[string]bool{}, assertions: map[string]bool{}, bound: map[string]string{}}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.TokenLifetime == 0 {
		a.opts.TokenLifetime = time.Hour
	}
	if a.opts.AuthMethods == nil {
		a.opts.AuthMethods = []string{"none", "client_secret_post", "client_secret_basic", "private_key_jwt"}
	}
	a.mux = http.NewServeMux()
	a.mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	a.mux.HandleFunc("POST /register", a.register)
	a.mux.HandleFunc("GET /authorize", a.authorize)
	a.mux.HandleFunc("POST /token", a.token)
	srv := httptest.NewServer(a.mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Handler serves the endpoints at /register, /authorize and /token, for a
// server that mounts them under its own origin (NewLegacyMCP).
func (a *AuthServer) Handler() http.Handler { return a.mux }

// SetResource sets the resource indicator (RFC 8707) every authorization
// and token request must carry: the protected MCP endpoint.
func (a *AuthServer) SetResource(resource string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resource = resource
}

// AddClient registers a client as an administrator would, with its
// redirect URIs; nil refuses every redirect URI.
func (a *AuthServer) AddClient(clientID string, redirectURIs []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[clientID] = redirectURIs
}

// AcceptAssertion makes the jwt-bearer grant accept assertion, once.
func (a *AuthServer) AcceptAssertion(assertion string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.assertions[assertion] = true
}

// ExpireAccessTokens makes every access token issued so far expired.
func (a *AuthServer) ExpireAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range a.access {
		a.access[k] = time.Now().Add(-time.Minute)
	}
}

// RevokeRefreshTokens refuses, with invalid_grant, every refresh token
// issued so far, as when the user revokes the grant. Tokens issued later
// work.
func (a *AuthServer) RevokeRefreshTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.refresh)
}

// Counts are the requests an AuthServer has granted.
type Counts struct {
	// Registrations counts dynamic client registrations.
	Registrations int
	// Authorizations counts approved authorization requests: each is a
	// sign-in the user went through.
	Authorizations int
	// Refreshes counts tokens issued for a refresh token.
	Refreshes int
}

// Counts returns what the server has granted so far.
func (a *AuthServer) Counts() Counts {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Counts{a.registrations, a.authorizations, a.refreshes}
}

// Issued returns every access and refresh token handed out, oldest first.
func (a *AuthServer) Issued() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.issued)
}

// ClientAuth returns how the confidential client authenticated at the
// token endpoint, per request: "basic", "post" or "jwt".
func (a *AuthServer) ClientAuth() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.clientAuth)
}

// Verify is the resource server's auth.TokenVerifier: it accepts the
// Bearer access tokens this server issued, until they expire.
func (a *AuthServer) Verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[token]
	if !ok || time.Now().After(exp) || a.bound[token] != "" {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: exp}, nil
}

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	meta := map[string]any{
		"issuer":                                a.URL,
		"authorization_endpoint":                a.URL + "/authorize",
		"token_endpoint":                        a.URL + "/token",
		"registration_endpoint":                 a.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": a.opts.AuthMethods,
		"scopes_supported":                      []string{"mcp", "offline_access"},
	}
	if a.opts.DPoP {
		meta["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	writeJSON(w, http.StatusOK, meta)
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata")
		return
	}
	for _, u := range meta.RedirectURIs {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri")
			return
		}
	}
	a.mu.Lock()
	a.registrations++
	id := fmt.Sprintf("client-%d", a.registrations)
	a.clients[id] = meta.RedirectURIs
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none",
		"grant_types": meta.GrantTypes, "client_name": meta.ClientName,
	})
}

// authorize checks the request as a strict server does (exact redirect
// URI, PKCE S256, resource) and redirects back at once.
func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	uris, ok := a.clients[q.Get("client_id")]
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
	case !slices.Contains(uris, q.Get("redirect_uri")):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
	case q.Get("response_type") != "code":
		http.Error(w, "response_type must be code", http.StatusBadRequest)
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
	case q.Get("state") == "":
		http.Error(w, "state required", http.StatusBadRequest)
	case q.Get("resource") != a.resource:
		http.Error(w, "wrong resource "+q.Get("resource"), http.StatusBadRequest)
	default:
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		if a.opts.Deny {
			v.Set("error", "access_denied")
			v.Set("error_description", "The user declined")
		} else {
			a.authorizations++
			code := rand.Text()
			a.codes[code] = issuedCode{q.Get("client_id"), q.Get("redirect_uri"), q.Get("code_challenge")}
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	f := r.PostForm
	a.mu.Lock()
	defer a.mu.Unlock()
	jkt, ok := a.tokenProof(w, r)
	if !ok {
		return
	}
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok, c.clientID != f.Get("client_id"), c.redirectURI != f.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "invalid_grant")
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant") // PKCE check failed
		case f.Get("resource") != a.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target")
		default:
			a.issue(w, true, jkt)
		}
	case "refresh_token":
		rt := f.Get("refresh_token")
		if !a.refresh[rt] || a.bound[rt] != "" && a.bound[rt] != jkt {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		delete(a.refresh, rt) // rotation
		a.refreshes++
		a.issue(w, true, jkt)
	case "client_credentials":
		if err := a.checkClientAuth(r, f); err != nil {
			a.t.Logf("client authentication failed: %v", err)
			oauthError(w, http.StatusUnauthorized, "invalid_client")
			return
		}
		a.issue(w, false, jkt)
	case GrantJWTBearer:
		if err := a.checkClientAuth(r, f); err != nil {
			a.t.Logf("client authentication failed: %v", err)
			oauthError(w, http.StatusUnauthorized, "invalid_client")
			return
		}
		ok := a.assertions[f.Get("assertion")]
		delete(a.assertions, f.Get("assertion"))
		switch {
		case !ok:
			oauthError(w, http.StatusBadRequest, "invalid_grant")
		case f.Get("resource") != a.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target")
		default:
			a.issue(w, false, jkt)
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
	}
}

// issue answers a token request, binding the tokens to the DPoP key jkt
// unless it is empty; called with a.mu held.
func (a *AuthServer) issue(w http.ResponseWriter, withRefresh bool, jkt string) {
	at := "at-" + rand.Text()
	a.access[at] = time.Now().Add(a.opts.TokenLifetime)
	a.issued = append(a.issued, at)
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(a.opts.TokenLifetime.Seconds())}
	if jkt != "" {
		resp["token_type"] = "DPoP"
		a.bound[at] = jkt
	}
	if withRefresh {
		rt := "rt-" + rand.Text()
		a.refresh[rt] = true
		if jkt != "" {
			a.bound[rt] = jkt
		}
		a.issued = append(a.issued, rt)
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// checkClientAuth authenticates the confidential client; called with a.mu
// held.
func (a *AuthServer) checkClientAuth(r *http.Request, f url.Values) error {
	if id, secret, ok := r.BasicAuth(); ok {
		a.clientAuth = append(a.clientAuth, "basic")
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if id != a.opts.ClientID || secret != a.opts.ClientSecret {
			return errors.New("wrong basic credentials")
		}
		return nil
	}
	if f.Get("client_assertion") != "" {
		a.clientAuth = append(a.clientAuth, "jwt")
		if f.Get("client_assertion_type") != ClientAssertionType {
			return errors.New("wrong client_assertion_type")
		}
		return a.verifyAssertion(f.Get("client_assertion"))
	}
	a.clientAuth = append(a.clientAuth, "post")
	if f.Get("client_id") != a.opts.ClientID || f.Get("client_secret") != a.opts.ClientSecret {
		return errors.New("wrong post credentials")
	}
	return nil
}

// verifyAssertion checks an RFC 7523 client assertion's signature and
// claims; called with a.mu held.
func (a *AuthServer) verifyAssertion(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return errors.New("not a JWS")
	}
	dec := base64.RawURLEncoding
	var header struct{ Alg, Typ string }
	var claims struct {
		Iss, Sub, Aud, Jti string
		Iat, Exp           int64
	}
	hb, err1 := dec.DecodeString(parts[0])
	cb, err2 := dec.DecodeString(parts[1])
	sig, err3 := dec.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3, json.Unmarshal(hb, &header), json.Unmarshal(cb, &claims)); err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch key := a.opts.ClientKey.(type) {
	case *rsa.PublicKey:
		if header.Alg != "RS256" {
			return fmt.Errorf("alg %s for an RSA key", header.Alg)
		}
		if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
			return err
		}
	case *ecdsa.PublicKey:
		if header.Alg != "ES256" || len(sig) != 64 {
			return fmt.Errorf("alg %s, signature of %d bytes for an EC key", header.Alg, len(sig))
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(key, digest[:], r, s) {
			return errors.New("bad ES256 signature")
		}
	default:
		return errors.New("no key configured")
	}
	now := time.Now().Unix()
	switch {
	case claims.Iss != a.opts.ClientID || claims.Sub != a.opts.ClientID:
		return fmt.Errorf("iss %q sub %q", claims.Iss, claims.Sub)
	case claims.Aud != a.URL:
		return fmt.Errorf("aud %q, want the issuer %q", claims.Aud, a.URL)
	case claims.Exp <= now || claims.Exp > now+600 || claims.Iat > now+5:
		return fmt.Errorf("iat %d exp %d now %d", claims.Iat, claims.Exp, now)
	case claims.Jti == "" || a.jtis[claims.Jti]:
		return fmt.Errorf("jti %q missing or reused", claims.Jti)
	}
	a.jtis[claims.Jti] = true
	return nil
}

func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

package oauth

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
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// testAS is a small authorization server: metadata, dynamic registration,
// an authorize endpoint that approves (or denies) at once, and a token
// endpoint for authorization_code (with PKCE S256), refresh_token (with
// rotation) and client_credentials (basic, post, private_key_jwt).
type testAS struct {
	t        *testing.T
	srv      *httptest.Server
	resource string // the resource parameter every request must carry

	mu             sync.Mutex
	clients        map[string][]string // client ID -> registered redirect URIs
	codes          map[string]issuedCode
	access         map[string]time.Time // access token -> expiry
	refresh        map[string]bool      // valid refresh tokens
	issued         []string             // every token handed out, for leak checks
	registrations  int
	authorizations int
	refreshes      int
	deny           bool
	ttl            time.Duration

	// client credentials
	authMethods []string
	ccClientID  string
	ccSecret    string
	ccKey       crypto.PublicKey
	ccAuthSeen  []string // "basic", "post", "jwt"
	jtis        map[string]bool

	// enterprise-managed authorization: ID-JAGs an identity provider
	// issued for this server, each accepted once by the jwt-bearer grant
	assertions map[string]bool
}

type issuedCode struct {
	clientID, redirectURI, challenge string
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{t: t, clients: map[string][]string{}, codes: map[string]issuedCode{}, access: map[string]time.Time{},
		refresh: map[string]bool{}, ttl: time.Hour, jtis: map[string]bool{}, assertions: map[string]bool{},
		authMethods: []string{"none", "client_secret_post", "client_secret_basic", "private_key_jwt"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *testAS) metadata(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	methods := a.authMethods
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                a.srv.URL,
		"authorization_endpoint":                a.srv.URL + "/authorize",
		"token_endpoint":                        a.srv.URL + "/token",
		"registration_endpoint":                 a.srv.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": methods,
		"scopes_supported":                      []string{"mcp", "offline_access"},
	})
}

func (a *testAS) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	for _, u := range meta.RedirectURIs {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
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
func (a *testAS) authorize(w http.ResponseWriter, r *http.Request) {
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
		if a.deny {
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

func (a *testAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	f := r.PostForm
	a.mu.Lock()
	defer a.mu.Unlock()
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
			a.issue(w, true)
		}
	case "refresh_token":
		if !a.refresh[f.Get("refresh_token")] {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		delete(a.refresh, f.Get("refresh_token")) // rotation
		a.refreshes++
		a.issue(w, true)
	case "client_credentials":
		if err := a.checkClientAuth(r, f); err != nil {
			a.t.Logf("client authentication failed: %v", err)
			oauthError(w, http.StatusUnauthorized, "invalid_client")
			return
		}
		a.issue(w, false)
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
			a.issue(w, false)
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
	}
}

func (a *testAS) issue(w http.ResponseWriter, withRefresh bool) {
	at := "at-" + rand.Text()
	a.access[at] = time.Now().Add(a.ttl)
	a.issued = append(a.issued, at)
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(a.ttl.Seconds())}
	if withRefresh {
		rt := "rt-" + rand.Text()
		a.refresh[rt] = true
		a.issued = append(a.issued, rt)
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// checkClientAuth authenticates a client_credentials request; called with a.mu held.
func (a *testAS) checkClientAuth(r *http.Request, f url.Values) error {
	if id, secret, ok := r.BasicAuth(); ok {
		a.ccAuthSeen = append(a.ccAuthSeen, "basic")
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if id != a.ccClientID || secret != a.ccSecret {
			return errors.New("wrong basic credentials")
		}
		return nil
	}
	if f.Get("client_assertion") != "" {
		a.ccAuthSeen = append(a.ccAuthSeen, "jwt")
		if f.Get("client_assertion_type") != ClientAssertionType {
			return errors.New("wrong client_assertion_type")
		}
		return a.verifyAssertion(f.Get("client_assertion"))
	}
	a.ccAuthSeen = append(a.ccAuthSeen, "post")
	if f.Get("client_id") != a.ccClientID || f.Get("client_secret") != a.ccSecret {
		return errors.New("wrong post credentials")
	}
	return nil
}

// verifyAssertion checks an RFC 7523 client assertion's signature and claims.
func (a *testAS) verifyAssertion(jwt string) error {
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
	switch key := a.ccKey.(type) {
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
	case claims.Iss != a.ccClientID || claims.Sub != a.ccClientID:
		return fmt.Errorf("iss %q sub %q", claims.Iss, claims.Sub)
	case claims.Aud != a.srv.URL:
		return fmt.Errorf("aud %q, want the issuer %q", claims.Aud, a.srv.URL)
	case claims.Exp <= now || claims.Exp > now+600 || claims.Iat > now+5:
		return fmt.Errorf("iat %d exp %d now %d", claims.Iat, claims.Exp, now)
	case claims.Jti == "" || a.jtis[claims.Jti]:
		return fmt.Errorf("jti %q missing or reused", claims.Jti)
	}
	a.jtis[claims.Jti] = true
	return nil
}

// expireAccessTokens makes every access token expired at the server.
func (a *testAS) expireAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range a.access {
		a.access[k] = time.Now().Add(-time.Minute)
	}
}

func (a *testAS) revokeRefreshTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.refresh)
}

func (a *testAS) counts() (registrations, authorizations, refreshes int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations, a.authorizations, a.refreshes
}

// verify is the resource server's TokenVerifier.
func (a *testAS) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[token]
	if !ok || time.Now().After(exp) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: exp}, nil
}

func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// newProtectedMCPServer starts a streamable-HTTP MCP server with one tool,
// "echo", behind the SDK's bearer-token middleware, and the protected
// resource metadata naming as. It returns the MCP endpoint URL.
func newProtectedMCPServer(t *testing.T, as *testAS) string {
	mux := http.NewServeMux()
	rs := httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	endpoint := rs.URL + "/mcp"
	as.resource = endpoint
	prmURL := rs.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: endpoint, AuthorizationServers: []string{as.srv.URL}, ScopesSupported: []string{"mcp"},
	}))
	mux.Handle("/mcp", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(echoMCPHandler()))
	return endpoint
}

// echoMCPHandler is a streamable-HTTP MCP server with one tool, "echo".
func echoMCPHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1.0.0"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "echoes"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}

// connectAndEcho connects to endpoint through h and calls echo.
func connectAndEcho(ctx context.Context, endpoint string, h auth.OAuthHandler) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		return err
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
		return fmt.Errorf("echo returned %+v", res.Content)
	}
	return nil
}

// memSecrets is a Secrets in memory.
type memSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func newMemSecrets() *memSecrets { return &memSecrets{m: map[string]string{}} }

func (s *memSecrets) Get(key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (s *memSecrets) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}

func (s *memSecrets) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; !ok {
		return ErrNotFound
	}
	delete(s.m, key)
	return nil
}

func (s *memSecrets) has(key string) bool {
	_, err := s.Get(key)
	return err == nil
}

func (s *memSecrets) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for k, v := range s.m {
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

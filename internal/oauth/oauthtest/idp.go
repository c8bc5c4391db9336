package oauthtest

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// An IdentityProvider is an enterprise identity provider (SEP-990):
// OpenID Connect metadata, and a token endpoint that exchanges the user's
// ID token (RFC 8693) for an ID-JAG that its AuthServer accepts once.
type IdentityProvider struct {
	// URL is the issuer.
	URL string
	// IDToken is the ID token of the user signed in at the provider; an
	// exchange of any other is refused with invalid_grant.
	IDToken string

	t        testing.TB
	as       *AuthServer
	clientID string

	mu        sync.Mutex
	exchanges []string
}

// NewIdentityProvider starts an IdentityProvider whose ID-JAGs as
// accepts, for the client clientID. It closes when the test ends.
func NewIdentityProvider(t testing.TB, as *AuthServer, clientID string) *IdentityProvider {
	p := &IdentityProvider{t: t, as: as, clientID: clientID, IDToken: "id-" + rand.Text()}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                 p.URL,
			"authorization_endpoint": p.URL + "/authorize",
			"token_endpoint":         p.URL + "/token",
			"grant_types_supported":  []string{oauthex.GrantTypeTokenExchange},
		})
	})
	mux.HandleFunc("POST /token", p.token)
	return p
}

// Exchanges returns "<audience> <resource>" for each ID-JAG issued.
func (p *IdentityProvider) Exchanges() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.exchanges)
}

func (p *IdentityProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != oauthex.GrantTypeTokenExchange,
		f.Get("subject_token_type") != oauthex.TokenTypeIDToken,
		f.Get("requested_token_type") != oauthex.TokenTypeIDJAG,
		f.Get("client_id") != p.clientID:
		p.t.Logf("bad token exchange: %v", f)
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	case f.Get("subject_token") != p.IDToken:
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	jag := "jag-" + rand.Text()
	p.mu.Lock()
	p.exchanges = append(p.exchanges, f.Get("audience")+" "+f.Get("resource"))
	p.mu.Unlock()
	p.as.AcceptAssertion(jag)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": jag, "issued_token_type": oauthex.TokenTypeIDJAG, "token_type": "N_A"})
}

package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DPoPSkew is how far a proof's iat may be from the server's clock.
const DPoPSkew = 60 * time.Second

// A DPoPProof is a DPoP proof (RFC 9449) a server accepted.
type DPoPProof struct {
	JTI, HTM, HTU, Nonce string
	// JKT is the thumbprint (RFC 7638) of the proof's key.
	JKT string
}

// checkProof verifies a DPoP proof as RFC 9449 section 4.3 does: one
// compact JWS of typ dpop+jwt, alg ES256, a public P-256 jwk in its
// header that verifies its signature, htm and htu of the request (htu
// without query or fragment), iat within DPoPSkew, a jti not in seen, and
// ath the hash of accessToken when there is one (none otherwise).
func checkProof(proofs []string, method, uri, accessToken string, seen map[string]bool, now time.Time) (DPoPProof, error) {
	if len(proofs) != 1 {
		return DPoPProof{}, fmt.Errorf("%d DPoP headers, want 1", len(proofs))
	}
	parts := strings.Split(proofs[0], ".")
	if len(parts) != 3 {
		return DPoPProof{}, errors.New("DPoP proof is not a compact JWS")
	}
	dec := base64.RawURLEncoding
	var header struct {
		Typ, Alg string
		JWK      map[string]string `json:"jwk"`
	}
	var claims struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   *int64 `json:"iat"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
	hb, err1 := dec.DecodeString(parts[0])
	cb, err2 := dec.DecodeString(parts[1])
	sig, err3 := dec.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3, json.Unmarshal(hb, &header), json.Unmarshal(cb, &claims)); err != nil {
		return DPoPProof{}, fmt.Errorf("decoding DPoP proof: %w", err)
	}
	jwk := header.JWK
	switch {
	case header.Typ != "dpop+jwt":
		return DPoPProof{}, fmt.Errorf("typ %q", header.Typ)
	case header.Alg != "ES256":
		return DPoPProof{}, fmt.Errorf("alg %q", header.Alg)
	case jwk == nil || jwk["kty"] != "EC" || jwk["crv"] != "P-256":
		return DPoPProof{}, fmt.Errorf("jwk %v is not a P-256 key", jwk)
	case jwk["d"] != "":
		return DPoPProof{}, errors.New("jwk holds the private key")
	}
	x, err1 := dec.DecodeString(jwk["x"])
	y, err2 := dec.DecodeString(jwk["y"])
	if err := errors.Join(err1, err2); err != nil || len(x) != 32 || len(y) != 32 {
		return DPoPProof{}, fmt.Errorf("jwk coordinates: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), slices.Concat([]byte{4}, x, y))
	if err != nil {
		return DPoPProof{}, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return DPoPProof{}, errors.New("DPoP proof signature does not verify with its jwk")
	}
	var ath string
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		ath = dec.EncodeToString(sum[:])
	}
	switch {
	case claims.JTI == "":
		return DPoPProof{}, errors.New("no jti")
	case seen[claims.JTI]:
		return DPoPProof{}, fmt.Errorf("jti %q replayed", claims.JTI)
	case claims.HTM != method:
		return DPoPProof{}, fmt.Errorf("htm %q, request %s", claims.HTM, method)
	case claims.HTU != uri:
		return DPoPProof{}, fmt.Errorf("htu %q, request %s", claims.HTU, uri)
	case claims.IAT == nil || now.Sub(time.Unix(*claims.IAT, 0)).Abs() > DPoPSkew:
		return DPoPProof{}, fmt.Errorf("iat %v outside %v of now", claims.IAT, DPoPSkew)
	case claims.ATH != ath:
		return DPoPProof{}, fmt.Errorf("ath %q, want %q", claims.ATH, ath)
	}
	seen[claims.JTI] = true
	tp := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + jwk["x"] + `","y":"` + jwk["y"] + `"}`))
	return DPoPProof{JTI: claims.JTI, HTM: claims.HTM, HTU: claims.HTU, Nonce: claims.Nonce, JKT: dec.EncodeToString(tp[:])}, nil
}

// requestURI is the URI a proof's htu must name for r: its URL without
// query, on the server's origin.
func requestURI(r *http.Request) string {
	return "http://" + r.Host + r.URL.Path
}

// A DPoPResource is a streamable-HTTP MCP server (tool "echo") that takes
// only DPoP-bound tokens of its AuthServer (RFC 9449 section 7), each
// with a fresh proof, and, with a nonce, demands it (section 9).
type DPoPResource struct {
	// URL is the MCP endpoint.
	URL string

	as    *AuthServer
	nonce string
	prm   string

	mu       sync.Mutex
	jtis     map[string]bool
	schemes  []string
	accepted []DPoPProof
	nonces   int
	refused  []string
}

// NewDPoPMCP starts a DPoPResource protected by as, which must have
// AuthServerOptions.DPoP, with its protected resource metadata naming
// as. nonce non-empty makes every proof need it. The endpoint becomes
// as's resource; the server closes when the test ends.
func NewDPoPMCP(t testing.TB, as *AuthServer, nonce string) *DPoPResource {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rs := &DPoPResource{URL: srv.URL + "/mcp", as: as, nonce: nonce, prm: srv.URL + "/.well-known/oauth-protected-resource/mcp",
		jtis: map[string]bool{}}
	as.SetResource(rs.URL)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: rs.URL, AuthorizationServers: []string{as.URL}, ScopesSupported: []string{"mcp"},
		DPOPSigningAlgValuesSupported: []string{"ES256"}, DPOPBoundAccessTokensRequired: true,
	}))
	echo := EchoHandler()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if rs.check(w, r) {
			echo.ServeHTTP(w, r)
		}
	})
	return rs
}

// check answers r's refusal and returns false, or returns true.
func (rs *DPoPResource) check(w http.ResponseWriter, r *http.Request) bool {
	authz := r.Header.Get("Authorization")
	if authz == "" {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP algs="ES256", resource_metadata=%q`, rs.prm))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return false
	}
	scheme, token, _ := strings.Cut(authz, " ")
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.schemes = append(rs.schemes, scheme)
	refuse := func(err error) bool {
		rs.refused = append(rs.refused, err.Error())
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error="invalid_token", resource_metadata=%q`, rs.prm))
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return false
	}
	if !strings.EqualFold(scheme, "DPoP") {
		return refuse(fmt.Errorf("scheme %q, want DPoP", scheme))
	}
	p, err := checkProof(r.Header.Values("DPoP"), r.Method, requestURI(r), token, rs.jtis, time.Now())
	if err != nil {
		return refuse(err)
	}
	if jkt, err := rs.as.boundTo(token); err != nil || jkt != p.JKT {
		return refuse(fmt.Errorf("token not bound to the proof's key (%v)", err))
	}
	if rs.nonce != "" && p.Nonce != rs.nonce {
		rs.nonces++
		w.Header().Set("DPoP-Nonce", rs.nonce)
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"`)
		http.Error(w, "use_dpop_nonce", http.StatusUnauthorized)
		return false
	}
	rs.accepted = append(rs.accepted, p)
	return true
}

// A DPoPRecord is what a DPoP-checking server saw.
type DPoPRecord struct {
	// Accepted are the proofs of the requests it served.
	Accepted []DPoPProof
	// Schemes are the Authorization schemes of the requests that had one.
	Schemes []string
	// NonceChallenges counts use_dpop_nonce answers.
	NonceChallenges int
	// Refused are why requests with a token or proof were refused.
	Refused []string
}

// Record returns what rs has seen so far.
func (rs *DPoPResource) Record() DPoPRecord {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return DPoPRecord{Accepted: slices.Clone(rs.accepted), Schemes: slices.Clone(rs.schemes), NonceChallenges: rs.nonces,
		Refused: slices.Clone(rs.refused)}
}

// DPoPRecord returns the proofs a's token endpoint accepted and its
// nonce challenges.
func (a *AuthServer) DPoPRecord() DPoPRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return DPoPRecord{Accepted: slices.Clone(a.dpopAccepted), NonceChallenges: a.dpopNonces, Refused: slices.Clone(a.dpopRefused)}
}

// tokenProof checks the DPoP proof of a token request, if any; called
// with a.mu held. It returns the proof's key thumbprint ("" without a
// proof), or false when it has answered the request with an error.
func (a *AuthServer) tokenProof(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	if !a.opts.DPoP || len(r.Header.Values("DPoP")) == 0 {
		return "", true
	}
	p, err := checkProof(r.Header.Values("DPoP"), r.Method, a.URL+"/token", "", a.jtis, time.Now())
	if err != nil {
		a.dpopRefused = append(a.dpopRefused, err.Error())
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
		return "", false
	}
	if a.opts.DPoPNonce != "" && p.Nonce != a.opts.DPoPNonce {
		a.dpopNonces++
		w.Header().Set("DPoP-Nonce", a.opts.DPoPNonce)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce",
			"error_description": "Authorization server requires nonce in DPoP proof"})
		return "", false
	}
	a.dpopAccepted = append(a.dpopAccepted, p)
	return p.JKT, true
}

// boundTo returns the thumbprint of the key a valid access token is bound
// to.
func (a *AuthServer) boundTo(token string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[token]
	if !ok || time.Now().After(exp) {
		return "", auth.ErrInvalidToken
	}
	jkt := a.bound[token]
	if jkt == "" {
		return "", errors.New("a Bearer token")
	}
	return jkt, nil
}

package oauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
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

	"github.com/switchboard-app/switchboard/internal/netguard"
)

// DPoP (RFC 9449, MCP SEP-1932) binds a server's tokens to a key that only
// Switchboard holds, so a stolen access or refresh token is useless
// without it. A server's key is a P-256 key (ES256), made when a first
// proof is needed and kept in the Store under DPoPKey, so that a token
// bound to it still works after a restart; SignOut forgets it.
//
// Once the MCP requests go through Transport, token requests carry a
// proof when the authorization server's metadata lists ES256 in
// dpop_signing_alg_values_supported, or, for any token endpoint
// discovered, once the MCP server challenged with the DPoP scheme. An
// authorization server that ignores the proof issues a Bearer token,
// which is sent as before. A token whose token_type is DPoP is sent
// as "Authorization: DPoP <token>" with a fresh proof on every request, by
// the RoundTripper that Transport returns. A use_dpop_nonce error, from
// the token endpoint (400) or the MCP server (401), is answered by sending
// the request once more with the server's nonce; the latest nonce of each
// server is remembered for the next proof.
//
// Two go-sdk v1.8.0 limits shape this. oauthex.AuthServerMeta has no
// dpop_signing_alg_values_supported, and its AuthorizationCodeHandler has
// no hook on the token request, so the token requests' HTTP client reads
// that field from the metadata responses it carries (learnMetadata) and
// signs the POSTs to the token endpoints it names. And the streamable
// transport writes "Authorization: Bearer " + the token whatever its
// type, with no hook per request, so Transport's RoundTripper rewrites the
// header of a DPoP-bound token and adds the proof. Both go once the SDK
// has the metadata field and either takes a DPoP signer in its handler
// config or asks the OAuthHandler to set a request's authorization
// headers (for example an optional SetAuthHeader(req, token) method).

const (
	// dpopMaxMetadata bounds the authorization server metadata read for
	// its DPoP algorithms.
	dpopMaxMetadata = 1 << 20
	// dpopMaxError bounds the token endpoint's error body read for
	// use_dpop_nonce.
	dpopMaxError = 64 << 10
	// dpopMaxEndpoints bounds the token endpoints and nonces remembered
	// per server: a handful is normal.
	dpopMaxEndpoints = 16
	// dpopMaxNonce bounds a server's DPoP-Nonce, which goes into every
	// later proof; a longer one is ignored.
	dpopMaxNonce = 1 << 10
)

// Nonce roles: the authorization server's and the MCP server's nonces are
// kept apart even on one origin.
const (
	roleAS = "as "
	roleRS = "rs "
)

// A dpop is a server's DPoP state: its key, the token endpoints that take
// proofs, and the latest nonces. One is shared by a handler's token
// requests and its Transport. The zero value is not usable: see newDPoP.
type dpop struct {
	serverID string
	store    *Store
	log      *slog.Logger

	// keyMu makes concurrent first proofs wait for one load or generation
	// of the key, which reads and writes the keyring; mu is never held
	// during I/O.
	keyMu sync.Mutex
	key   *signingKey // nil until the first proof

	mu sync.Mutex
	// endpoints maps a token endpoint (see endpointOf) to whether its
	// authorization server advertised ES256 proofs.
	endpoints map[string]bool
	// required: the MCP server challenged with the DPoP scheme, so every
	// known token endpoint gets proofs.
	required bool
	// transported: Transport was asked for, so MCP requests can present a
	// DPoP-bound token. Until then token requests carry no proof.
	transported bool
	nonces      map[string]string // role + origin -> latest DPoP-Nonce
}

func newDPoP(serverID string, store *Store, log *slog.Logger) *dpop {
	return &dpop{serverID: serverID, store: store, log: log, endpoints: map[string]bool{}, nonces: map[string]string{}}
}

// storedDPoPKey is a server's DPoP key in the Store.
type storedDPoPKey struct {
	PrivateKey string `json:"privateKey"` // PKCS #8 PEM
}

// signer returns the server's key: the stored one, or a new one, saved.
// A key that cannot be saved is still used for this run.
func (d *dpop) signer() (*signingKey, error) {
	d.keyMu.Lock()
	defer d.keyMu.Unlock()
	if d.key != nil {
		return d.key, nil
	}
	var stored storedDPoPKey
	ok, err := d.store.load(DPoPKey(d.serverID), &stored)
	if err != nil {
		d.log.Warn("reading the dpop key; making a new one", "err", err)
	}
	if ok {
		if k, err := parseSigningKey(stored.PrivateKey); err == nil && k.alg == "ES256" {
			d.key = k
			return k, nil
		}
		d.log.Warn("stored dpop key is unusable; making a new one")
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	stored.PrivateKey = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err := d.store.save(DPoPKey(d.serverID), stored); err != nil {
		// Tokens bound to it work until the app quits; then a sign-in.
		d.log.Warn("saving the dpop key", "err", err)
	}
	d.key = &signingKey{alg: "ES256", key: priv}
	return d.key, nil
}

// proof returns a DPoP proof (RFC 9449 section 4.2) for a request of
// method to u, with the server's nonce if any, and with ath when the
// request carries accessToken.
func (k *signingKey) proof(method string, u *url.URL, nonce, accessToken string, now time.Time) (string, error) {
	jwk, err := publicJWK(k.key.Public().(*ecdsa.PublicKey))
	if err != nil {
		return "", err
	}
	claims := map[string]any{"jti": rand.Text(), "htm": method, "htu": htu(u), "iat": now.Unix()}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return k.sign(map[string]any{"typ": "dpop+jwt", "alg": k.alg, "jwk": jwk}, claims)
}

// publicJWK is the public key as a JWK (RFC 7518 section 6.2.1).
func publicJWK(pub *ecdsa.PublicKey) (map[string]string, error) {
	b, err := pub.Bytes() // 0x04 || x || y
	if err != nil {
		return nil, err
	}
	enc := base64.RawURLEncoding
	return map[string]string{"kty": "EC", "crv": "P-256", "x": enc.EncodeToString(b[1:33]), "y": enc.EncodeToString(b[33:])}, nil
}

// htu is u without query and fragment (RFC 9449 section 4.2).
func htu(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

// endpointOf is the form token endpoints are compared in: scheme, host
// and path, without a trailing slash.
func endpointOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.Path, "/")
}

func (d *dpop) nonce(key string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[key]
}

func (d *dpop) setNonce(key, nonce string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.nonces[key]; ok || len(d.nonces) < dpopMaxEndpoints {
		d.nonces[key] = nonce
	}
}

// expect marks tokenURL as taking proofs (advertised is true) or as known
// (it gets proofs once the MCP server requires DPoP).
func (d *dpop) expect(tokenURL string, advertised bool) {
	u, err := url.Parse(tokenURL)
	if err != nil || u.Host == "" {
		return
	}
	ep := endpointOf(u)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.endpoints[ep]; !ok && len(d.endpoints) >= dpopMaxEndpoints {
		return
	}
	d.endpoints[ep] = d.endpoints[ep] || advertised
}

// restored is told of a stored token: a DPoP-bound one is refreshed with
// proofs, from the key it is bound to.
func (d *dpop) restored(tokenType, tokenURL string) {
	if strings.EqualFold(tokenType, "DPoP") {
		d.expect(tokenURL, true)
	}
}

// wantsProof reports whether a POST to u is a token request that gets a
// proof. None does before Transport is asked for: a DPoP-bound token
// sent as Bearer would be refused, and a sign-in would follow each 401.
func (d *dpop) wantsProof(u *url.URL) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	advertised, known := d.endpoints[endpointOf(u)]
	return d.transported && (advertised || known && d.required)
}

// client returns c with token requests signed (see the package comment
// above): its RoundTripper reads the DPoP algorithms of the metadata it
// fetches and adds proofs to the POSTs to those token endpoints.
func (d *dpop) client(c *http.Client) *http.Client {
	cc := *c
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		switch {
		case req.Method == http.MethodGet && isAuthServerMetadata(req.URL):
			resp, err := base.RoundTrip(req)
			if err == nil && resp.StatusCode == http.StatusOK {
				d.learnMetadata(resp)
			}
			return resp, err
		case req.Method == http.MethodPost && d.wantsProof(req.URL):
			return d.send(base, req, roleAS, "")
		}
		return base.RoundTrip(req)
	})
	return &cc
}

func isAuthServerMetadata(u *url.URL) bool {
	return strings.Contains(u.Path, "/.well-known/oauth-authorization-server") || strings.Contains(u.Path, "/.well-known/openid-configuration")
}

// learnMetadata notes the token endpoint of authorization server metadata
// and whether it takes ES256 proofs, leaving resp's body for its reader.
func (d *dpop) learnMetadata(resp *http.Response) {
	data, err := peekBody(resp, dpopMaxMetadata)
	if err != nil {
		return
	}
	var meta struct {
		TokenEndpoint string   `json:"token_endpoint"`
		Algs          []string `json:"dpop_signing_alg_values_supported"`
	}
	if json.Unmarshal(data, &meta) != nil || meta.TokenEndpoint == "" {
		return
	}
	advertised := slices.Contains(meta.Algs, "ES256")
	if len(meta.Algs) > 0 && !advertised {
		d.log.Info("authorization server takes no ES256 dpop proofs; tokens stay unbound", "algs", meta.Algs)
	}
	d.expect(meta.TokenEndpoint, advertised)
}

// peekBody reads up to max bytes of resp's body and puts them back, so
// the body's reader still gets all of it.
func peekBody(resp *http.Response, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, max))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	return data, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// send sends req with a proof, and once more with a new proof when the
// server answers with a nonce it wants (use_dpop_nonce). accessToken, if
// any, is sent with the DPoP scheme and bound to the proof (ath).
func (d *dpop) send(base http.RoundTripper, req *http.Request, role, accessToken string) (*http.Response, error) {
	key, err := d.signer()
	if err != nil {
		return nil, err
	}
	nonceKey := role + netguard.Origin(req.URL)
	for retry := false; ; retry = true {
		nonce := d.nonce(nonceKey)
		r := req.Clone(req.Context())
		if retry && req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		p, err := key.proof(req.Method, req.URL, nonce, accessToken, time.Now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", p)
		if accessToken != "" {
			r.Header.Set("Authorization", "DPoP "+accessToken)
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := resp.Header.Get("DPoP-Nonce")
		if len(fresh) > dpopMaxNonce {
			d.log.Warn("ignoring an oversized dpop nonce", "bytes", len(fresh))
			fresh = ""
		}
		if fresh != "" {
			d.setNonce(nonceKey, fresh)
		}
		canRetry := !retry && fresh != "" && fresh != nonce && (req.Body == nil || req.Body == http.NoBody || req.GetBody != nil)
		if !canRetry || !askedForNonce(resp, role) {
			return resp, nil
		}
		drain(resp)
	}
}

// askedForNonce reports whether resp is a use_dpop_nonce error: a 400
// from the token endpoint (RFC 9449 section 8) or a 401 from the MCP
// server (section 9). A token endpoint's body is left for its reader.
func askedForNonce(resp *http.Response, role string) bool {
	switch {
	case role == roleAS && resp.StatusCode == http.StatusBadRequest:
		data, err := peekBody(resp, dpopMaxError)
		var e struct {
			Error string `json:"error"`
		}
		return err == nil && json.Unmarshal(data, &e) == nil && e.Error == "use_dpop_nonce"
	case role == roleRS && resp.StatusCode == http.StatusUnauthorized:
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		for _, c := range cs {
			if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
				return true
			}
		}
	}
	return false
}

// transport returns the RoundTripper of the MCP server's requests: those
// carrying a DPoP-bound token of tokens get the DPoP scheme and a proof.
func (d *dpop) transport(tokens func(context.Context) (oauth2.TokenSource, error), base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	d.mu.Lock()
	d.transported = true
	d.mu.Unlock()
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		if ok && bound(req.Context(), tokens, tok) {
			return d.send(base, req, roleRS, tok)
		}
		resp, err := base.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusUnauthorized {
			d.noticeChallenge(resp)
		}
		return resp, err
	})
}

// bound reports whether accessToken is the handler's current token and
// DPoP-bound (its token_type is DPoP, RFC 9449 section 5).
func bound(ctx context.Context, tokens func(context.Context) (oauth2.TokenSource, error), accessToken string) bool {
	ts, err := tokens(ctx)
	if err != nil || ts == nil {
		return false
	}
	// The transport has just asked for it: ReuseTokenSource answers from
	// its cache.
	cur, err := ts.Token()
	return err == nil && cur != nil && cur.AccessToken == accessToken && strings.EqualFold(cur.TokenType, "DPoP")
}

// noticeChallenge makes DPoP required when the MCP server challenges with
// the DPoP scheme (RFC 9449 section 7.1).
func (d *dpop) noticeChallenge(resp *http.Response) {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Scheme == "dpop" {
			d.mu.Lock()
			d.required = true
			d.mu.Unlock()
			return
		}
	}
}

// Transport returns base wrapped for the MCP requests of h's server: a
// DPoP-bound token goes with the DPoP scheme and a fresh proof, and the
// server's use_dpop_nonce is answered. h is a handler from NewHandler, or
// a wrapper of one that has the same Transport method; for any other
// handler, base is returned. base nil means http.DefaultTransport.
//
// The SDK's transport sends "Bearer" whatever the token's type (see the
// comment at the top of dpop.go): the MCP transport's HTTP client must use
// this RoundTripper for a DPoP-bound token to be accepted.
func Transport(h auth.OAuthHandler, base http.RoundTripper) http.RoundTripper {
	if t, ok := h.(interface {
		Transport(http.RoundTripper) http.RoundTripper
	}); ok {
		return t.Transport(base)
	}
	if base == nil {
		return http.DefaultTransport
	}
	return base
}

// Transport is the DPoP RoundTripper of the handler's MCP requests; see
// the package function Transport.
func (h *codeHandler) Transport(base http.RoundTripper) http.RoundTripper {
	return h.srv.dpop.transport(h.TokenSource, base)
}

// Transport is the DPoP RoundTripper of the handler's MCP requests; see
// the package function Transport.
func (h *credentialsHandler) Transport(base http.RoundTripper) http.RoundTripper {
	return h.srv.dpop.transport(h.TokenSource, base)
}

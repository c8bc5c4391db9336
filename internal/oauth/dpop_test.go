package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
)

// headerLog is an http.RoundTripper that records the Authorization
// scheme and DPoP header of every request it passes on.
type headerLog struct {
	mu      sync.Mutex
	schemes []string
	proofs  int
}

func (l *headerLog) RoundTrip(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	if scheme, _, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok {
		l.schemes = append(l.schemes, scheme)
	}
	if req.Header.Get("DPoP") != "" {
		l.proofs++
	}
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// echoThrough connects to endpoint as the app does, the MCP client's
// transport wrapped by Transport(h), and calls echo twice.
func echoThrough(ctx context.Context, endpoint string, h auth.OAuthHandler, base http.RoundTripper) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: Transport(h, base)}}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
			return err
		}
	}
	return nil
}

func TestDPoP(t *testing.T) {
	for _, nonce := range []bool{false, true} {
		t.Run(map[bool]string{false: "no nonce", true: "nonces"}[nonce], func(t *testing.T) {
			asOpts := &oauthtest.AuthServerOptions{DPoP: true}
			var rsNonce string
			if nonce {
				asOpts.DPoPNonce, rsNonce = "as-nonce", "rs-nonce"
			}
			as := oauthtest.NewAuthServer(t, asOpts)
			rs := oauthtest.NewDPoPMCP(t, as, rsNonce)
			secrets := newMemSecrets()
			const id = "notes"
			opts := Options{Store: NewStore(secrets, nil), Open: approvingBrowser().Open, ServerURL: rs.URL, CallbackTimeout: 30 * time.Second}
			h, err := NewHandler(id, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := echoThrough(WithInteractive(t.Context()), rs.URL, h, nil); err != nil {
				t.Fatalf("sign-in and echo: %v\nresource server refused: %q\nauthorization server refused: %q",
					err, rs.Record().Refused, as.DPoPRecord().Refused)
			}

			// The token request carried a proof of the token endpoint,
			// with the authorization server's nonce once it asked.
			asRec := as.DPoPRecord()
			if len(asRec.Accepted) != 1 {
				t.Fatalf("token endpoint accepted %d proofs, want 1 (refused %q)", len(asRec.Accepted), asRec.Refused)
			}
			tokenProof := asRec.Accepted[0]
			if tokenProof.HTM != "POST" || tokenProof.HTU != as.URL+"/token" {
				t.Errorf("token request proof htm %s htu %s", tokenProof.HTM, tokenProof.HTU)
			}
			wantAS := 0
			if nonce {
				wantAS = 1
			}
			if asRec.NonceChallenges != wantAS || tokenProof.Nonce != asOpts.DPoPNonce {
				t.Errorf("token endpoint: %d nonce challenges, proof nonce %q; want %d and %q",
					asRec.NonceChallenges, tokenProof.Nonce, wantAS, asOpts.DPoPNonce)
			}

			// Every MCP request presented the token with the DPoP scheme
			// and a proof of its own (the server refuses a replayed jti),
			// by the key the token is bound to; the resource server's
			// nonce was asked for once, then remembered.
			rsRec := rs.Record()
			if len(rsRec.Refused) != 0 {
				t.Errorf("resource server refused: %q", rsRec.Refused)
			}
			for _, s := range rsRec.Schemes {
				if s != "DPoP" {
					t.Errorf("Authorization schemes %q, want DPoP only", rsRec.Schemes)
					break
				}
			}
			// initialize, notifications/initialized, two tools/call
			if len(rsRec.Accepted) < 4 {
				t.Errorf("resource server accepted %d requests, want at least 4", len(rsRec.Accepted))
			}
			jtis := map[string]bool{}
			for _, p := range rsRec.Accepted {
				// POST, and DELETE when the session ends
				if p.JKT != tokenProof.JKT || p.HTM != "POST" && p.HTM != "DELETE" || p.HTU != rs.URL || p.Nonce != rsNonce || jtis[p.JTI] {
					t.Errorf("MCP request proof %+v; want key %s, POST or DELETE %s, nonce %q, a new jti", p, tokenProof.JKT, rs.URL, rsNonce)
				}
				jtis[p.JTI] = true
			}
			wantRS := 0
			if nonce {
				wantRS = 1
			}
			if rsRec.NonceChallenges != wantRS {
				t.Errorf("resource server asked for its nonce %d times, want %d", rsRec.NonceChallenges, wantRS)
			}
			if !secrets.has(DPoPKey(id)) {
				t.Error("DPoP key not stored")
			}

			// After a restart the stored token has expired: the refresh
			// carries a proof by the stored key, to which the refresh
			// token is bound, and no new sign-in happens.
			expireStoredToken(t, secrets, id)
			h2, err := NewHandler(id, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := echoThrough(t.Context(), rs.URL, h2, nil); err != nil {
				t.Fatalf("echo after restart: %v\nresource server refused: %q\nauthorization server refused: %q",
					err, rs.Record().Refused, as.DPoPRecord().Refused)
			}
			if c := as.Counts(); c.Authorizations != 1 || c.Refreshes != 1 {
				t.Errorf("%+v; want the one sign-in and one refresh", c)
			}
			asRec = as.DPoPRecord()
			if n := len(asRec.Accepted); n != 2 || asRec.Accepted[1].JKT != tokenProof.JKT {
				t.Errorf("token endpoint proofs %+v; want the refresh's, by the same key", asRec.Accepted)
			}
		})
	}
}

func TestDPoPClientCredentials(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{DPoP: true, DPoPNonce: "n", ClientID: "svc", ClientSecret: "s3cret"})
	rs := oauthtest.NewDPoPMCP(t, as, "m")
	h := secretClient(t, "svc", "s3cret", Options{ServerURL: rs.URL})
	if err := echoThrough(t.Context(), rs.URL, h, nil); err != nil {
		t.Fatalf("echo: %v\nresource server refused: %q\nauthorization server refused: %q", err, rs.Record().Refused, as.DPoPRecord().Refused)
	}
	if asRec := as.DPoPRecord(); len(asRec.Accepted) != 1 || asRec.Accepted[0].Nonce != "n" {
		t.Errorf("token endpoint proofs %+v, want one with its nonce", asRec.Accepted)
	}
	if rsRec := rs.Record(); len(rsRec.Refused) != 0 || len(rsRec.Accepted) < 4 {
		t.Errorf("resource server accepted %d, refused %q", len(rsRec.Accepted), rsRec.Refused)
	}
}

// A server without DPoP gets Bearer tokens, without proofs, and no key is
// made for it.
func TestDPoPBearerServer(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	const id = "plain"
	h, err := NewHandler(id, nil, Options{Store: NewStore(secrets, nil), Open: approvingBrowser().Open, ServerURL: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	log := &headerLog{}
	if err := echoThrough(WithInteractive(t.Context()), endpoint, h, log); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.schemes) < 4 || log.proofs != 0 {
		t.Errorf("%d requests with a token, %d with a proof; want at least 4 and 0", len(log.schemes), log.proofs)
	}
	for _, s := range log.schemes {
		if s != "Bearer" {
			t.Fatalf("Authorization schemes %q, want Bearer only", log.schemes)
		}
	}
	if rec := as.DPoPRecord(); len(rec.Accepted) != 0 {
		t.Errorf("token requests with proofs: %+v", rec.Accepted)
	}
	if secrets.has(DPoPKey(id)) {
		t.Error("a DPoP key was made for a server without DPoP")
	}
}

func TestDPoPProofClaims(t *testing.T) {
	d := newDPoP("s", NewStore(newMemSecrets(), nil), slog.New(slog.DiscardHandler))
	key, err := d.signer()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://mcp.example.com/mcp?session=1#frag")
	now := time.Unix(1_700_000_000, 0)
	var jtis []string
	for range 2 {
		p, err := key.proof("POST", u, "n1", "tok", now)
		if err != nil {
			t.Fatal(err)
		}
		header, claims := decodeJWT(t, p)
		if diff := cmp.Diff(map[string]any{"typ": "dpop+jwt", "alg": "ES256"}, map[string]any{"typ": header["typ"], "alg": header["alg"]}); diff != "" {
			t.Errorf("header (-want +got):\n%s", diff)
		}
		jwk, _ := header["jwk"].(map[string]any)
		if jwk["kty"] != "EC" || jwk["crv"] != "P-256" || jwk["d"] != nil {
			t.Errorf("jwk %v", jwk)
		}
		jtis = append(jtis, claims["jti"].(string))
		delete(claims, "jti")
		want := map[string]any{"htm": "POST", "htu": "https://mcp.example.com/mcp", "iat": float64(now.Unix()), "nonce": "n1",
			// base64url(SHA-256("tok"))
			"ath": "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI"}
		if diff := cmp.Diff(want, claims); diff != "" {
			t.Errorf("claims (-want +got):\n%s", diff)
		}
	}
	if jtis[0] == jtis[1] {
		t.Error("two proofs with one jti")
	}
}

// decodeJWT returns a JWS's header and claims, unverified.
func decodeJWT(t *testing.T, jws string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		t.Fatalf("%q is not a compact JWS", jws)
	}
	for i, v := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// Until the MCP requests go through Transport, a DPoP-bound token could
// only be sent as Bearer: the token requests carry no proof, and the
// tokens stay Bearer.
func TestDPoPNeedsTransport(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{DPoP: true})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	const id = "notes"
	h, err := NewHandler(id, nil, Options{Store: NewStore(secrets, nil), Open: approvingBrowser().Open, ServerURL: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(WithInteractive(t.Context()), endpoint, h); err != nil {
		t.Fatal(err)
	}
	if rec := as.DPoPRecord(); len(rec.Accepted) != 0 {
		t.Errorf("token requests with proofs: %+v", rec.Accepted)
	}
	if secrets.has(DPoPKey(id)) {
		t.Error("a DPoP key was made without Transport")
	}
}

// A nonce past dpopMaxNonce, which would ride in every later proof, is not
// taken: the request it was demanded for fails instead of growing.
func TestDPoPOversizedNonce(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{DPoP: true, ClientID: "svc", ClientSecret: "s3cret"})
	rs := oauthtest.NewDPoPMCP(t, as, strings.Repeat("n", dpopMaxNonce+1))
	h := secretClient(t, "svc", "s3cret", Options{ServerURL: rs.URL})
	if err := echoThrough(t.Context(), rs.URL, h, nil); err == nil {
		t.Fatal("echo succeeded with an oversized nonce")
	}
	for _, p := range rs.Record().Accepted {
		t.Errorf("a proof was accepted: %+v", p)
	}
	if n := rs.Record().NonceChallenges; n == 0 {
		t.Error("the server never demanded its nonce; the test proves nothing")
	}
}

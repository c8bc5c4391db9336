package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// countingOpener follows redirects like a browser that approves at once,
// and counts how often it was asked.
type countingOpener struct{ n atomic.Int32 }

func (o *countingOpener) open(ctx context.Context, u string) error {
	o.n.Add(1)
	return FollowRedirects(nil)(ctx, u)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// expireStoredToken moves the stored token's expiry into the past, as if
// the app had been closed for a day.
func expireStoredToken(t *testing.T, secrets *memSecrets, serverID string) storedToken {
	t.Helper()
	raw, err := secrets.Get(TokenKey(serverID))
	if err != nil {
		t.Fatal(err)
	}
	var tok storedToken
	if err := json.Unmarshal([]byte(raw), &tok); err != nil {
		t.Fatal(err)
	}
	tok.Expiry = time.Now().Add(-time.Hour)
	data, _ := json.Marshal(tok)
	secrets.Set(TokenKey(serverID), string(data))
	return tok
}

func TestEndToEndSignInReuseRefresh(t *testing.T) {
	as := newTestAS(t)
	endpoint := newProtectedMCPServer(t, as)
	secrets := newMemSecrets()
	store := NewStore(secrets, nil)
	opener := &countingOpener{}
	logs := &syncBuffer{}
	opts := Options{Store: store, Open: opener.open, Logger: slog.New(slog.NewTextHandler(logs, nil)), CallbackTimeout: 30 * time.Second}
	const id = "notes"
	ctx := t.Context()

	newHandler := func(o Options) *codeHandler {
		t.Helper()
		h, err := NewHandler(id, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		return h.(*codeHandler)
	}

	// At start, with nothing stored, no browser: ErrNeedsAuth.
	if err := connectAndEcho(ctx, endpoint, newHandler(opts)); !errors.Is(err, ErrNeedsAuth) {
		t.Fatalf("connect without sign-in: %v, want ErrNeedsAuth", err)
	}
	if n := opener.n.Load(); n != 0 {
		t.Fatalf("opener called %d times without an interactive context", n)
	}

	// The user clicks Authorize: discovery, registration, PKCE, the
	// loopback callback, the exchange.
	if err := connectAndEcho(WithInteractive(ctx), endpoint, newHandler(opts)); err != nil {
		t.Fatalf("interactive sign-in: %v", err)
	}
	if reg, authz, _ := as.counts(); reg != 1 || authz != 1 || opener.n.Load() != 1 {
		t.Fatalf("registrations %d, authorizations %d, browser opened %d times; want 1, 1, 1", reg, authz, opener.n.Load())
	}
	if !secrets.has(TokenKey(id)) || !secrets.has(ClientKey(id)) {
		t.Fatalf("token or client not stored:\n%s", secrets.all())
	}
	if ok, err := store.SignedIn(id); !ok || err != nil {
		t.Errorf("SignedIn = %v, %v", ok, err)
	}

	// Next start: the stored token is used, without a sign-in.
	if err := connectAndEcho(ctx, endpoint, newHandler(opts)); err != nil {
		t.Fatalf("connect with the stored token: %v", err)
	}
	if reg, authz, refreshes := as.counts(); reg != 1 || authz != 1 || refreshes != 0 || opener.n.Load() != 1 {
		t.Fatalf("after restart: registrations %d, authorizations %d, refreshes %d, browser %d", reg, authz, refreshes, opener.n.Load())
	}

	// A day later: the access token has expired; it is refreshed silently
	// and the new one is saved.
	as.expireAccessTokens()
	old := expireStoredToken(t, secrets, id)
	if err := connectAndEcho(ctx, endpoint, newHandler(opts)); err != nil {
		t.Fatalf("connect with an expired token: %v", err)
	}
	if _, authz, refreshes := as.counts(); authz != 1 || refreshes != 1 || opener.n.Load() != 1 {
		t.Fatalf("after expiry: authorizations %d, refreshes %d, browser %d; want 1, 1, 1", authz, refreshes, opener.n.Load())
	}
	var saved storedToken
	raw, _ := secrets.Get(TokenKey(id))
	json.Unmarshal([]byte(raw), &saved)
	if saved.AccessToken == old.AccessToken || saved.RefreshToken == old.RefreshToken || !saved.Expiry.After(time.Now()) {
		t.Errorf("refreshed token not saved: old %v, saved %v", old.Expiry, saved.Expiry)
	}

	// The grant is revoked: the refresh is refused, the token forgotten,
	// and the connection manager is told a sign-in is needed.
	as.expireAccessTokens()
	as.revokeRefreshTokens()
	expireStoredToken(t, secrets, id)
	if err := connectAndEcho(ctx, endpoint, newHandler(opts)); !errors.Is(err, ErrNeedsAuth) {
		t.Fatalf("connect after the refresh was refused: %v, want ErrNeedsAuth", err)
	}
	if secrets.has(TokenKey(id)) {
		t.Error("refused token still stored")
	}
	if !secrets.has(ClientKey(id)) {
		t.Error("registered client forgotten with the token")
	}

	// Signing in again reuses the registration and its redirect URI (the
	// test server compares redirect URIs exactly, port included).
	if err := connectAndEcho(WithInteractive(ctx), endpoint, newHandler(opts)); err != nil {
		t.Fatalf("second sign-in: %v", err)
	}
	if reg, authz, _ := as.counts(); reg != 1 || authz != 2 {
		t.Errorf("second sign-in: registrations %d, authorizations %d; want 1, 2", reg, authz)
	}

	// Sign out forgets both.
	if err := store.SignOut(id); err != nil {
		t.Fatal(err)
	}
	if secrets.has(TokenKey(id)) || secrets.has(ClientKey(id)) {
		t.Errorf("SignOut left:\n%s", secrets.all())
	}
	if err := store.SignOut(id); err != nil {
		t.Errorf("second SignOut: %v", err)
	}

	// No token ever reaches the log.
	as.mu.Lock()
	issued := append([]string(nil), as.issued...)
	as.mu.Unlock()
	out := logs.String()
	for _, tok := range issued {
		if strings.Contains(out, tok) {
			t.Errorf("token %s… in the log", tok[:6])
		}
	}
	if !strings.Contains(out, "oauth token refreshed") || !strings.Contains(out, "oauth refresh refused") {
		t.Errorf("log lacks refresh events:\n%s", out)
	}
}

func TestRefreshDuringSession(t *testing.T) {
	as := newTestAS(t)
	as.ttl = 5 * time.Second // inside oauth2's expiry margin: every use refreshes
	endpoint := newProtectedMCPServer(t, as)
	secrets := newMemSecrets()
	opener := &countingOpener{}
	h, err := NewHandler("s", nil, Options{Store: NewStore(secrets, nil), Open: opener.open, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	// The connect context ends with the sign-in; later refreshes must not
	// depend on it.
	ctx, cancel := context.WithCancel(t.Context())
	if err := connectAndEcho(ctx, endpoint, h); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("second session on the same handler: %v", err)
	}
	if _, authz, refreshes := as.counts(); authz != 1 || refreshes == 0 {
		t.Errorf("authorizations %d, refreshes %d; want 1 and some", authz, refreshes)
	}
}

func TestAccessDenied(t *testing.T) {
	as := newTestAS(t)
	as.deny = true
	endpoint := newProtectedMCPServer(t, as)
	opener := &countingOpener{}
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.open})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), endpoint, h)
	if !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("err = %v, want ErrAccessDenied", err)
	}
	if !strings.Contains(err.Error(), "sign-in refused: The user declined") {
		t.Errorf("message %q does not say the user refused", err)
	}
	// The SDK tries server/discover and then initialize; the user who said
	// no is not asked twice.
	if n := opener.n.Load(); n != 1 {
		t.Errorf("browser opened %d times, want 1", n)
	}
}

func TestInteractiveOption(t *testing.T) {
	as := newTestAS(t)
	endpoint := newProtectedMCPServer(t, as)
	opener := &countingOpener{}
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.open, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("Interactive handler without WithInteractive: %v", err)
	}
	if n := opener.n.Load(); n != 1 {
		t.Errorf("browser opened %d times, want 1", n)
	}
}

func TestPreregisteredClient(t *testing.T) {
	as := newTestAS(t)
	endpoint := newProtectedMCPServer(t, as)
	as.clients["desktop-app"] = nil // any redirect URI is refused...
	secrets := newMemSecrets()
	store := NewStore(secrets, nil)
	cfg := &serverconf.Auth{ClientID: "desktop-app", Scopes: []string{"mcp"}}
	h, err := NewHandler("s", cfg, Options{Store: store, Open: FollowRedirects(nil)})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(WithInteractive(t.Context()), endpoint, h)
	if err == nil || !strings.Contains(err.Error(), "redirect_uri not registered") {
		t.Fatalf("err = %v, want the server's refusal of the redirect URI", err)
	}
	if reg, _, _ := as.counts(); reg != 0 {
		t.Errorf("a pre-registered client was registered again (%d)", reg)
	}
	if secrets.has(ClientKey("s")) {
		t.Error("a pre-registered client was stored")
	}
}

func TestNewHandlerErrors(t *testing.T) {
	store := NewStore(newMemSecrets(), nil)
	if _, err := NewHandler("s", nil, Options{}); err == nil {
		t.Error("NewHandler without a Store succeeded")
	}
	if _, err := NewHandler("", nil, Options{Store: store}); err == nil {
		t.Error("NewHandler without a server ID succeeded")
	}
	if _, err := NewHandler("s", &serverconf.Auth{Grant: "password"}, Options{Store: store}); err == nil {
		t.Error("NewHandler with an unknown grant succeeded")
	}
}

func TestRestoreDropsExpiredTokenWithoutRefresh(t *testing.T) {
	secrets := newMemSecrets()
	data, _ := json.Marshal(storedToken{AccessToken: "a", Expiry: time.Now().Add(-time.Minute), TokenURL: "https://x/token", ClientID: "c"})
	secrets.Set(TokenKey("s"), string(data))
	h, err := NewHandler("s", nil, Options{Store: NewStore(secrets, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if ts, _ := h.TokenSource(t.Context()); ts != nil {
		t.Error("expired token without refresh token restored")
	}
	if secrets.has(TokenKey("s")) {
		t.Error("expired token without refresh token kept")
	}
}

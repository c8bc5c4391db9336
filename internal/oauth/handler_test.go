package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// approvingBrowser is a browser whose user approves every sign-in at once.
func approvingBrowser() *oauthtest.Browser {
	return &oauthtest.Browser{Follow: FollowRedirects(nil)}
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

// connectTwice connects through h and calls echo twice: first under a
// context it then cancels, then under the test's. The handler must not
// keep using the context of the connect that got the first token.
func connectTwice(t *testing.T, endpoint string, h auth.OAuthHandler) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	if err := connectAndEcho(ctx, endpoint, h); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("second session on the same handler, after the first one's context ended: %v", err)
	}
}

// secretClient returns serverID's Handler that signs in with the client
// credentials grant as client "svc", whose secret (in the store opts is
// given) is secret.
func secretClient(t *testing.T, serverID, secret string, opts Options) auth.OAuthHandler {
	t.Helper()
	secrets := newMemSecrets()
	secrets.Set("cs", secret)
	cfg := &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "cs"}
	opts.Store = NewStore(secrets, nil)
	h, err := NewHandler(serverID, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
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
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	store := NewStore(secrets, nil)
	opener := approvingBrowser()
	logs := &syncBuffer{}
	opts := Options{Store: store, Open: opener.Open, Logger: slog.New(slog.NewTextHandler(logs, nil)), CallbackTimeout: 30 * time.Second,
		ServerURL: endpoint}
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
	if n := len(opener.Opened()); n != 0 {
		t.Fatalf("opener called %d times without an interactive context", n)
	}

	// The user clicks Authorize: discovery, registration, PKCE, the
	// loopback callback, the exchange.
	if err := connectAndEcho(WithInteractive(ctx), endpoint, newHandler(opts)); err != nil {
		t.Fatalf("interactive sign-in: %v", err)
	}
	if c := as.Counts(); c.Registrations != 1 || c.Authorizations != 1 || len(opener.Opened()) != 1 {
		t.Fatalf("%+v, browser opened %d times; want 1 registration, 1 authorization, 1 browser", c, len(opener.Opened()))
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
	if c := as.Counts(); c != (oauthtest.Counts{Registrations: 1, Authorizations: 1}) || len(opener.Opened()) != 1 {
		t.Fatalf("after restart: %+v, browser %d", c, len(opener.Opened()))
	}

	// A day later: the access token has expired; it is refreshed silently
	// and the new one is saved.
	as.ExpireAccessTokens()
	old := expireStoredToken(t, secrets, id)
	if err := connectAndEcho(ctx, endpoint, newHandler(opts)); err != nil {
		t.Fatalf("connect with an expired token: %v", err)
	}
	if c := as.Counts(); c.Authorizations != 1 || c.Refreshes != 1 || len(opener.Opened()) != 1 {
		t.Fatalf("after expiry: %+v, browser %d; want 1 authorization, 1 refresh, 1 browser", c, len(opener.Opened()))
	}
	var saved storedToken
	raw, _ := secrets.Get(TokenKey(id))
	json.Unmarshal([]byte(raw), &saved)
	if saved.AccessToken == old.AccessToken || saved.RefreshToken == old.RefreshToken || !saved.Expiry.After(time.Now()) {
		t.Errorf("refreshed token not saved: old %v, saved %v", old.Expiry, saved.Expiry)
	}

	// The grant is revoked: the refresh is refused, the token forgotten,
	// and the connection manager is told a sign-in is needed.
	as.ExpireAccessTokens()
	as.RevokeRefreshTokens()
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
	if c := as.Counts(); c.Registrations != 1 || c.Authorizations != 2 {
		t.Errorf("second sign-in: %+v; want 1 registration, 2 authorizations", c)
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
	out := logs.String()
	for _, tok := range as.Issued() {
		if strings.Contains(out, tok) {
			t.Errorf("token %s… in the log", tok[:6])
		}
	}
	if !strings.Contains(out, "oauth token refreshed") || !strings.Contains(out, "oauth refresh refused") {
		t.Errorf("log lacks refresh events:\n%s", out)
	}
}

func TestRefreshDuringSession(t *testing.T) {
	// A lifetime inside oauth2's expiry margin: every use refreshes.
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{TokenLifetime: 5 * time.Second})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: FollowRedirects(nil), Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	// The connect context ends with the sign-in; later refreshes must not
	// depend on it.
	connectTwice(t, endpoint, h)
	if c := as.Counts(); c.Authorizations != 1 || c.Refreshes == 0 {
		t.Errorf("%+v; want 1 authorization and some refreshes", c)
	}
}

func TestAccessDenied(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Deny: true})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	opener := approvingBrowser()
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.Open})
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
	if n := len(opener.Opened()); n != 1 {
		t.Errorf("browser opened %d times, want 1", n)
	}
}

func TestInteractiveOption(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewProtectedMCP(t, as)
	opener := approvingBrowser()
	h, err := NewHandler("s", nil, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.Open, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("Interactive handler without WithInteractive: %v", err)
	}
	if n := len(opener.Opened()); n != 1 {
		t.Errorf("browser opened %d times, want 1", n)
	}
}

func TestPreregisteredClient(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	endpoint := oauthtest.NewProtectedMCP(t, as)
	as.AddClient("desktop-app", nil) // any redirect URI is refused...
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
	if n := as.Counts().Registrations; n != 0 {
		t.Errorf("a pre-registered client was registered again (%d)", n)
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
	data, _ := json.Marshal(storedToken{Resource: "https://x/mcp", AccessToken: "a", Expiry: time.Now().Add(-time.Minute), TokenURL: "https://x/token", ClientID: "c"})
	secrets.Set(TokenKey("s"), string(data))
	h, err := NewHandler("s", nil, Options{Store: NewStore(secrets, nil), ServerURL: "https://x/mcp"})
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

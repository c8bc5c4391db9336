package core

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// eventLog is the window: it keeps every event with its payload as JSON
// (a string), as the UI receives it.
type eventLog struct{ eventtest.Recorder }

func (l *eventLog) Emit(name string, payload any) {
	data, err := json.Marshal(payload)
	if err != nil {
		data = []byte("unmarshalable payload: " + err.Error())
	}
	l.Recorder.Emit(name, string(data))
}

// remoteApp is the app over one data directory and one keyring, with a
// remote MCP server behind a test authorization server, and a browser
// whose user approves every sign-in at once.
type remoteApp struct {
	as       *oauthtest.AuthServer
	endpoint string
	paths    paths.Paths
	keyring  *secrets.Memory
	browser  *oauthtest.Browser
	events   *eventLog
}

func newRemoteApp(t *testing.T, opts *oauthtest.AuthServerOptions) *remoteApp {
	as := oauthtest.NewAuthServer(t, opts)
	return &remoteApp{
		as:       as,
		endpoint: oauthtest.NewProtectedMCP(t, as),
		paths:    paths.In(t.TempDir()),
		keyring:  &secrets.Memory{},
		browser:  &oauthtest.Browser{Follow: oauth.FollowRedirects(nil)},
		events:   &eventLog{},
	}
}

// start opens a Core and starts its services, as launching the app does.
// The Core is closed when the test ends, if not before.
func (a *remoteApp) start(t *testing.T) (*Core, *Services) {
	t.Helper()
	c, err := Open(t.Context(), &Options{Paths: &a.paths, Secrets: a.keyring})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	svc, err := c.Services(&ServiceOptions{
		Emitter:     a.events,
		Manager:     &mcpconn.Options{PingInterval: 200 * time.Millisecond}, // the app pings every 30 s
		OpenBrowser: a.browser.Open,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(t.Context(), c.Log); err != nil {
		t.Fatal(err)
	}
	return c, svc
}

// addServer adds the remote server, as the server settings do, and
// returns its ID.
func (a *remoteApp) addServer(t *testing.T, svc *Services) string {
	t.Helper()
	cfg, err := svc.Servers.Save(t.Context(), serverconf.Config{Name: "Notes", Transport: serverconf.TransportHTTP, URL: a.endpoint, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.ID
}

// opened is how many times the browser was asked to open.
func (a *remoteApp) opened() int { return len(a.browser.Opened()) }

// reachState waits up to timeout for the server to reach want, and
// returns its last status.
func reachState(svc *Services, id string, want mcpconn.State, timeout time.Duration) (mcpconn.Status, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	st, err := svc.Manager.Wait(ctx, id, func(st mcpconn.Status) bool { return st.State == want })
	if err != nil && st.Reason == "" {
		st.Reason = err.Error() // say why, in the callers' messages
	}
	return st, err == nil
}

// waitState waits for the server to reach want, or fails the test.
func waitState(t *testing.T, svc *Services, id string, want mcpconn.State) mcpconn.Status {
	t.Helper()
	st, ok := reachState(svc, id, want, 30*time.Second)
	if !ok {
		t.Fatalf("server %s is %s (%s); want %s", id, st.State, st.Reason, want)
	}
	return st
}

// echo calls the server's echo tool through the connection manager.
func echo(t *testing.T, svc *Services, id, text string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"text": text})
	res, err := svc.Manager.CallTool(t.Context(), id+"__echo", args, nil)
	if err != nil {
		t.Fatalf("calling echo: %v", err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != text {
		t.Fatalf("echo returned %+v", res)
	}
}

// keyringToken returns the tokens the app keeps in the keyring for the
// server, or "" and "" when there are none.
func keyringToken(t *testing.T, keyring *secrets.Memory, id string) (access, refresh string) {
	t.Helper()
	raw, err := keyring.Get(oauth.TokenKey(id))
	if errors.Is(err, secrets.ErrNotFound) {
		return "", ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken  string `json:"accessToken"`
		RefreshToken string `json:"refreshToken"`
	}
	if err := json.Unmarshal([]byte(raw), &tok); err != nil {
		t.Fatalf("stored token is not JSON: %v", err)
	}
	return tok.AccessToken, tok.RefreshToken
}

// TestRemoteServerSignInLifecycle follows a remote server that needs
// OAuth through the app: no browser at start, Authorize, a relaunch that
// reuses the stored token, silent refreshes, a refused refresh, sign-out;
// and no token ever reaches the data directory or the UI.
func TestRemoteServerSignInLifecycle(t *testing.T) {
	ctx := t.Context()
	// A lifetime inside oauth2's 10-second expiry margin: before every
	// request the token the app holds has expired, and is refreshed.
	app := newRemoteApp(t, &oauthtest.AuthServerOptions{TokenLifetime: 5 * time.Second})
	as := app.as

	// (a) At start the server needs authorization, and no browser opens.
	c, svc := app.start(t)
	id := app.addServer(t, svc)
	waitState(t, svc, id, mcpconn.StateNeedsAuth)
	if n := app.opened(); n != 0 {
		t.Fatalf("the browser opened %d times at start", n)
	}
	if got := as.Counts(); got != (oauthtest.Counts{}) {
		t.Fatalf("the authorization server saw %+v before Authorize", got)
	}

	// (b) The user clicks Authorize: one browser window, and the server
	// connects with its tools listed.
	if err := svc.Authorize(ctx, id); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	st := waitState(t, svc, id, mcpconn.StateConnected)
	if st.ToolCount != 1 || !slices.ContainsFunc(svc.Manager.Tools(), func(tool mcpconn.Tool) bool { return tool.Name == id+"__echo" }) {
		t.Fatalf("after Authorize: %d tools, registry %+v", st.ToolCount, svc.Manager.Tools())
	}
	if got := as.Counts(); got.Registrations != 1 || got.Authorizations != 1 || app.opened() != 1 {
		t.Fatalf("after Authorize: %+v, browser opened %d times; want 1 registration, 1 authorization, 1 browser", got, app.opened())
	}
	echo(t, svc, id, "signed in")

	// (c) The next launch, over the same data directory and keyring,
	// connects with the stored token, without a sign-in.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, svc = app.start(t)
	waitState(t, svc, id, mcpconn.StateConnected)
	echo(t, svc, id, "after relaunch")
	if got := as.Counts(); got.Registrations != 1 || got.Authorizations != 1 || app.opened() != 1 {
		t.Fatalf("after relaunch: %+v, browser opened %d times; want no new sign-in", got, app.opened())
	}

	// (d) The access token the app holds has expired: a tool call
	// refreshes it silently, and the keyring keeps the new one.
	before := as.Counts()
	issuedBefore := len(as.Issued())
	oldAccess, oldRefresh := keyringToken(t, app.keyring, id)
	echo(t, svc, id, "after expiry")
	if got := as.Counts(); got.Refreshes <= before.Refreshes || got.Authorizations != 1 || app.opened() != 1 {
		t.Fatalf("tool call with an expired token: %+v (before %+v), browser %d; want a refresh, no sign-in", got, before, app.opened())
	}
	access, refresh := keyringToken(t, app.keyring, id)
	newer := as.Issued()[issuedBefore:]
	if access == oldAccess || refresh == oldRefresh || !slices.Contains(newer, access) || !slices.Contains(newer, refresh) {
		t.Errorf("refreshed token not saved: the keyring has %.9s…/%.9s…, before the call %.9s…/%.9s…", access, refresh, oldAccess, oldRefresh)
	}
	if _, err := as.Verify(ctx, access, nil); err != nil {
		t.Errorf("the saved access token does not work: %v", err)
	}

	// (e) The user revoked the grant while the app was closed: at the next
	// launch the refresh is refused, the server needs authorization again,
	// no browser opens by itself, and the dead token is forgotten.
	// TestRefusedRefreshInRunningSession revokes it while connected.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	as.RevokeRefreshTokens()
	c, svc = app.start(t)
	waitState(t, svc, id, mcpconn.StateNeedsAuth)
	if n := app.opened(); n != 1 {
		t.Errorf("the browser opened %d times; want only the user's 1", n)
	}
	if access, _ := keyringToken(t, app.keyring, id); access != "" {
		t.Error("the refused token is still in the keyring")
	}

	// (f) Signed in again (the registration is reused), then signed out:
	// the server needs authorization, and the keyring holds neither its
	// token nor its registered client.
	if err := svc.Authorize(ctx, id); err != nil {
		t.Fatalf("second Authorize: %v", err)
	}
	waitState(t, svc, id, mcpconn.StateConnected)
	if got := as.Counts(); got.Registrations != 1 || got.Authorizations != 2 || app.opened() != 2 {
		t.Fatalf("second Authorize: %+v, browser %d; want the registration reused and a second sign-in", got, app.opened())
	}
	if err := svc.SignOut(id); err != nil {
		t.Fatalf("SignOut: %v", err)
	}
	if st, ok := reachState(svc, id, mcpconn.StateNeedsAuth, 10*time.Second); !ok {
		t.Errorf("after SignOut the server is %s (%s); want %s", st.State, st.Reason, mcpconn.StateNeedsAuth)
	}
	for _, key := range []string{oauth.TokenKey(id), oauth.ClientKey(id)} {
		if _, err := app.keyring.Get(key); !errors.Is(err, secrets.ErrNotFound) {
			t.Errorf("after SignOut the keyring still has %s (%v)", key, err)
		}
	}
	if n := app.opened(); n != 2 {
		t.Errorf("the browser opened %d times; want the user's 2", n)
	}

	// (g) No token ever reached a file in the data directory (the app log,
	// the database and its journal, server logs) or an event for the UI.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	issued := as.Issued()
	if len(issued) < 6 {
		t.Fatalf("only %d tokens issued; the test did not exercise refreshes", len(issued))
	}
	files := map[string]string{}
	err := filepath.WalkDir(app.paths.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The checks below would pass vacuously on the wrong files.
	appLog := files[filepath.Join(app.paths.Logs, "app.log")]
	for _, want := range []string{"oauth sign-in complete", "oauth token refreshed", "oauth refresh refused"} {
		if !strings.Contains(appLog, want) {
			t.Errorf("app log lacks %q:\n%s", want, appLog)
		}
	}
	if db := files[app.paths.Database] + files[app.paths.Database+"-wal"]; !strings.Contains(db, app.endpoint) {
		t.Errorf("the database does not hold the server's URL; files: %v", slices.Sorted(maps.Keys(files)))
	}
	events := app.events.Events()
	if !slices.ContainsFunc(events, func(e eventtest.Event) bool {
		return e.Name == mcpconn.EventServerStatus && strings.Contains(e.Payload.(string), `"state":"connected"`)
	}) {
		t.Errorf("no %s event says connected; events: %v", mcpconn.EventServerStatus, events)
	}
	for _, tok := range issued {
		for path, data := range files {
			if strings.Contains(data, tok) {
				t.Errorf("token %.9s… in %s", tok, path)
			}
		}
		for _, e := range events {
			if strings.Contains(e.Payload.(string), tok) {
				t.Errorf("token %.9s… in the payload of %s", tok, e.Name)
			}
		}
	}
}

// TestRefusedRefreshInRunningSession: the grant is revoked while the
// server is connected. The next request's refresh is refused; the server
// then needs authorization, and no browser opens, since the user did not
// ask for a sign-in.
func TestRefusedRefreshInRunningSession(t *testing.T) {
	for _, tt := range []struct {
		name     string
		relaunch bool // whether the session is a launch's rather than Authorize's
	}{
		{"session Authorize started", false},
		{"session a launch started", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			app := newRemoteApp(t, &oauthtest.AuthServerOptions{TokenLifetime: 5 * time.Second})
			c, svc := app.start(t)
			id := app.addServer(t, svc)
			waitState(t, svc, id, mcpconn.StateNeedsAuth)
			if err := svc.Authorize(ctx, id); err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if tt.relaunch {
				c.Close()
				_, svc = app.start(t)
				waitState(t, svc, id, mcpconn.StateConnected)
			}
			echo(t, svc, id, "signed in")

			app.as.RevokeRefreshTokens()
			args, _ := json.Marshal(map[string]string{"text": "revoked"})
			res, err := svc.Manager.CallTool(ctx, id+"__echo", args, nil)
			if n := app.opened(); n != 1 {
				t.Errorf("the browser opened %d times; want only the user's 1", n)
			}
			if got := app.as.Counts(); got.Authorizations != 1 {
				t.Errorf("%+v; want no sign-in the user did not ask for", got)
			}
			if err == nil && !res.IsError {
				t.Errorf("tool call after the grant was revoked succeeded: %+v", res)
			}
			// The failed call, or the pings, must notice.
			if st, ok := reachState(svc, id, mcpconn.StateNeedsAuth, 10*time.Second); !ok {
				t.Errorf("the server is %s (%s) after its refresh was refused; want %s. The tool call returned %+v, %v",
					st.State, st.Reason, mcpconn.StateNeedsAuth, res, err)
			}
		})
	}
}

// TestAuthorizeRefusedByUser: the user says no at the authorization
// server. Authorize ends with an error that says so, the server is left
// needing authorization, and the user is not asked again.
func TestAuthorizeRefusedByUser(t *testing.T) {
	app := newRemoteApp(t, &oauthtest.AuthServerOptions{Deny: true})
	_, svc := app.start(t)
	id := app.addServer(t, svc)
	waitState(t, svc, id, mcpconn.StateNeedsAuth)

	err := svc.Authorize(t.Context(), id)
	if err == nil {
		t.Fatal("Authorize succeeded though the user refused")
	}
	if !strings.Contains(err.Error(), "sign-in refused: The user declined") {
		t.Errorf("Authorize: %q; want an error that says the sign-in was refused, and the server's reason", err)
	}
	if st, ok := reachState(svc, id, mcpconn.StateNeedsAuth, 10*time.Second); !ok {
		t.Errorf("after the refusal the server is %s (%s); want %s", st.State, st.Reason, mcpconn.StateNeedsAuth)
	}
	if n := app.opened(); n != 1 {
		t.Errorf("the browser opened %d times; want 1: the user who said no is not asked again", n)
	}
	if got := app.as.Counts(); got.Authorizations != 0 {
		t.Errorf("%+v; want no authorization", got)
	}
	if access, _ := keyringToken(t, app.keyring, id); access != "" {
		t.Error("a token is stored")
	}
}

// TestTokenDoesNotFollowServerID: the token of a server is not sent to
// another host that takes its place, by an edit of its URL or by deleting
// it and adding another server with the same ID.
func TestTokenDoesNotFollowServerID(t *testing.T) {
	app := newRemoteApp(t, nil)
	var mu sync.Mutex
	var seen []string // Authorization headers the other host got
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "sign in", http.StatusUnauthorized)
	}))
	t.Cleanup(other.Close)
	leaked := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, h := range seen {
			for _, tok := range app.as.Issued() {
				if strings.Contains(h, tok) {
					out = append(out, h)
				}
			}
		}
		return out
	}
	_, svc := app.start(t)
	id := app.addServer(t, svc)
	signIn := func(t *testing.T) serverconf.Config {
		t.Helper()
		cfg, err := svc.Servers.Save(t.Context(), serverconf.Config{ID: id, Name: "Notes", Transport: serverconf.TransportHTTP, URL: app.endpoint, Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Authorize(t.Context(), id); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		waitState(t, svc, id, mcpconn.StateConnected)
		return cfg
	}

	t.Run("URL edited", func(t *testing.T) {
		cfg := signIn(t)
		cfg.URL = other.URL + "/mcp"
		if _, err := svc.Servers.Save(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		waitState(t, svc, id, mcpconn.StateNeedsAuth)
		if got := leaked(); len(got) > 0 {
			t.Fatalf("the new host got the old token: %q", got)
		}
		if access, _ := keyringToken(t, app.keyring, id); access != "" {
			t.Error("the old token is still stored")
		}
	})
	t.Run("deleted and added again", func(t *testing.T) {
		signIn(t)
		if err := svc.Servers.Delete(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if access, _ := keyringToken(t, app.keyring, id); access != "" {
			t.Error("the deleted server's token is still stored")
		}
		if _, err := svc.Servers.Save(t.Context(), serverconf.Config{ID: id, Name: "Notes", Transport: serverconf.TransportHTTP,
			URL: other.URL + "/mcp", Enabled: true}); err != nil {
			t.Fatal(err)
		}
		waitState(t, svc, id, mcpconn.StateNeedsAuth)
		if got := leaked(); len(got) > 0 {
			t.Fatalf("the new host got the old token: %q", got)
		}
	})
}

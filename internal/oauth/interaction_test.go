package oauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// TestInteractionRemembersFailure: an Interaction is the one memory of
// how a sign-in ended, whatever the grant; under it, a refused browser
// sign-in is not asked again.
func TestInteractionRemembersFailure(t *testing.T) {
	tests := []struct {
		name    string
		opts    *oauthtest.AuthServerOptions
		cfg     *serverconf.Auth
		secret  string // stored as "cs"
		wantErr string
		browser int // times the browser opens
	}{
		{name: "authorization code refused by the user",
			opts: &oauthtest.AuthServerOptions{Deny: true}, wantErr: "sign-in refused: The user declined", browser: 1},
		{name: "client credentials rejected",
			opts:    &oauthtest.AuthServerOptions{ClientID: "svc", ClientSecret: "right"},
			cfg:     &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "cs"},
			secret:  "wrong",
			wantErr: "rejected the client (invalid_client)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t, tt.opts)
			endpoint := oauthtest.NewProtectedMCP(t, as)
			secrets := newMemSecrets()
			if tt.secret != "" {
				secrets.Set("cs", tt.secret)
			}
			opener := approvingBrowser()
			h, err := NewHandler("s", tt.cfg, Options{Store: NewStore(secrets, nil), Open: opener.Open})
			if err != nil {
				t.Fatal(err)
			}
			in := new(Interaction)
			if err := in.Err(); err != nil {
				t.Fatalf("a new Interaction has failed: %v", err)
			}
			connErr := connectAndEcho(in.Context(t.Context()), endpoint, h)
			if connErr == nil {
				t.Fatal("connected though the sign-in fails")
			}
			got := in.Err()
			if got == nil || !strings.Contains(got.Error(), tt.wantErr) {
				t.Errorf("Err() = %v, want one that says %q", got, tt.wantErr)
			}
			if got != nil && !errors.Is(connErr, got) && !strings.Contains(connErr.Error(), got.Error()) {
				t.Errorf("the connection failed with %v, not with the remembered %v", connErr, got)
			}
			if n := len(opener.Opened()); n != tt.browser {
				t.Errorf("browser opened %d times, want %d", n, tt.browser)
			}
		})
	}
}

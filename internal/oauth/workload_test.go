package oauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Workload identity federation: the platform keeps a JWT in a file;
// Switchboard, a public client, sends it as the jwt-bearer assertion, and
// reads the file again for every token, so a rotated token is used.
func TestWorkloadIdentityFederation(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "workload"})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	file := filepath.Join(t.TempDir(), "token")
	write := func(jwt string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(jwt+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		as.AcceptAssertion(jwt)
	}
	write("eyJh.first.sig")
	cfg := &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "workload", AssertionFile: file}
	opener := &oauthtest.Browser{}
	h, err := NewHandler("s", cfg, Options{Store: NewStore(newMemSecrets(), nil), Open: opener.Open})
	if err != nil {
		t.Fatal(err)
	}
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect with the workload's token: %v", err)
	}

	// The platform rotated the token and the access token expired: the
	// new one is read from the file (the old one would be refused: the
	// server accepts each assertion once).
	write("eyJh.second.sig")
	as.ExpireAccessTokens()
	if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
		t.Fatalf("connect after the token rotated: %v", err)
	}
	if diff := cmp.Diff([]string{"post", "post"}, as.ClientAuth()); diff != "" {
		t.Errorf("client authentication: a public client, its ID in the form (-want +got):\n%s", diff)
	}
	if n := len(opener.Opened()); n != 0 {
		t.Errorf("the browser opened %d times", n)
	}
}

func TestWorkloadIdentityFederationErrors(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "workload"})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	store := NewStore(newMemSecrets(), nil)
	dir := t.TempDir()
	if _, err := NewHandler("s", &serverconf.Auth{Grant: GrantJWTBearer, AssertionFile: filepath.Join(dir, "x")},
		Options{Store: store}); err == nil {
		t.Error("NewHandler without a client ID succeeded")
	}

	tests := []struct {
		name     string
		contents string // "" leaves the file missing
		wantErr  string
	}{
		{"missing file", "", "check that the platform writes it there"},
		{"empty file", "\n", "is empty"},
		{"not a JWT", "just some text", "does not hold a JWT"},
		{"too large", "a." + strings.Repeat("b", maxWorkloadTokenBytes) + ".c", "larger than 64 KiB"},
		{"a token the server refuses", "eyJh.unknown.sig", "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if tt.contents != "" {
				if err := os.WriteFile(file, []byte(tt.contents), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			h, err := NewHandler("s", &serverconf.Auth{Grant: GrantJWTBearer, ClientID: "workload", AssertionFile: file},
				Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			err = connectAndEcho(t.Context(), endpoint, h)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

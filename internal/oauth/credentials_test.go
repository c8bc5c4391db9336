package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/oauth/oauthtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func pemKey(t *testing.T, key any, blockType string) string {
	t.Helper()
	var der []byte
	var err error
	switch blockType {
	case "PRIVATE KEY":
		der, err = x509.MarshalPKCS8PrivateKey(key)
	case "RSA PRIVATE KEY":
		der = x509.MarshalPKCS1PrivateKey(key.(*rsa.PrivateKey))
	case "EC PRIVATE KEY":
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}))
}

func TestClientCredentials(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		cfg       serverconf.Auth
		methods   []string // advertised by the server
		secret    string   // stored client secret
		key       string   // stored PEM
		publicKey any
		wantSeen  []string
	}{
		{name: "client_secret_basic",
			cfg:    serverconf.Auth{ClientAuth: serverconf.ClientSecretBasic, ClientSecretRef: "cs"},
			secret: "s3cret", wantSeen: []string{"basic"}},
		{name: "client_secret_post",
			cfg:    serverconf.Auth{ClientAuth: serverconf.ClientSecretPost, ClientSecretRef: "cs"},
			secret: "s3cret", wantSeen: []string{"post"}},
		{name: "secret method from metadata: basic is the default",
			cfg: serverconf.Auth{ClientSecretRef: "cs"}, methods: []string{"client_secret_post", "client_secret_basic"},
			secret: "s3cret", wantSeen: []string{"basic"}},
		{name: "secret method from metadata: post only",
			cfg: serverconf.Auth{ClientSecretRef: "cs"}, methods: []string{"client_secret_post"},
			secret: "s3cret", wantSeen: []string{"post"}},
		{name: "secret needing URL escaping",
			cfg:    serverconf.Auth{ClientAuth: serverconf.ClientSecretBasic, ClientSecretRef: "cs"},
			secret: "a:b+c/d%", wantSeen: []string{"basic"}},
		{name: "private_key_jwt RS256 PKCS#8",
			cfg: serverconf.Auth{ClientAuth: serverconf.PrivateKeyJWT, PrivateKeyRef: "pk"},
			key: pemKey(t, rsaKey, "PRIVATE KEY"), publicKey: &rsaKey.PublicKey, wantSeen: []string{"jwt"}},
		{name: "private_key_jwt RS256 PKCS#1",
			cfg: serverconf.Auth{ClientAuth: serverconf.PrivateKeyJWT, PrivateKeyRef: "pk"},
			key: pemKey(t, rsaKey, "RSA PRIVATE KEY"), publicKey: &rsaKey.PublicKey, wantSeen: []string{"jwt"}},
		{name: "private_key_jwt ES256 SEC 1, method inferred from the key",
			cfg: serverconf.Auth{PrivateKeyRef: "pk"},
			key: pemKey(t, ecKey, "EC PRIVATE KEY"), publicKey: &ecKey.PublicKey, wantSeen: []string{"jwt"}},
		{name: "private_key_jwt ES256 PKCS#8",
			cfg: serverconf.Auth{ClientAuth: serverconf.PrivateKeyJWT, PrivateKeyRef: "pk"},
			key: pemKey(t, ecKey, "PRIVATE KEY"), publicKey: &ecKey.PublicKey, wantSeen: []string{"jwt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{
				ClientID: "svc-client", ClientSecret: tt.secret, ClientKey: tt.publicKey, AuthMethods: tt.methods})
			endpoint := oauthtest.NewProtectedMCP(t, as)
			secrets := newMemSecrets()
			secrets.Set("cs", tt.secret)
			secrets.Set("pk", tt.key)
			cfg := tt.cfg
			cfg.Grant, cfg.ClientID = serverconf.GrantClientCredentials, "svc-client"
			h, err := NewHandler("svc", &cfg, Options{Store: NewStore(secrets, nil), Open: func(context.Context, string) error {
				t.Error("browser opened for client credentials")
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			// Not interactive: client credentials never need the user.
			if err := connectAndEcho(t.Context(), endpoint, h); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSeen, as.ClientAuth()); diff != "" {
				t.Errorf("client authentication seen (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientCredentialsRenewAfterContextEnds(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "svc", ClientKey: &key.PublicKey,
		TokenLifetime: 5 * time.Second}) // inside oauth2's expiry margin: every use fetches a new token
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	secrets.Set("pk", pemKey(t, key, "PRIVATE KEY"))
	cfg := &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", PrivateKeyRef: "pk"}
	h, err := NewHandler("svc", cfg, Options{Store: NewStore(secrets, nil)})
	if err != nil {
		t.Fatal(err)
	}
	connectTwice(t, endpoint, h)
	if n := len(as.ClientAuth()); n < 3 {
		t.Errorf("%d token requests; want a new assertion for each expired token", n)
	}
}

func TestClientCredentialsRejected(t *testing.T) {
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{ClientID: "svc", ClientSecret: "right"})
	endpoint := oauthtest.NewProtectedMCP(t, as)
	secrets := newMemSecrets()
	secrets.Set("cs", "wrong")
	cfg := &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "cs"}
	h, err := NewHandler("svc", cfg, Options{Store: NewStore(secrets, nil)})
	if err != nil {
		t.Fatal(err)
	}
	err = connectAndEcho(t.Context(), endpoint, h)
	if err == nil || !strings.Contains(err.Error(), "rejected the client (invalid_client); check the client ID and its secret or key") {
		t.Errorf("err = %v", err)
	}
	if errors.Is(err, ErrNeedsAuth) {
		t.Error("a wrong secret reported as needing a sign-in")
	}

	// A secret missing from the keyring says so.
	h, _ = NewHandler("svc", &serverconf.Auth{Grant: serverconf.GrantClientCredentials, ClientID: "svc", ClientSecretRef: "missing"},
		Options{Store: NewStore(secrets, nil)})
	err = connectAndEcho(t.Context(), endpoint, h)
	if err == nil || !strings.Contains(err.Error(), "secret missing is not in the keyring") || !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v", err)
	}
}

func TestParseSigningKey(t *testing.T) {
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	tests := []struct{ name, pem, want string }{
		{"not PEM", "hello", "private key is not PEM"},
		{"certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", `PEM block "CERTIFICATE" is not a private key`},
		{"garbage DER", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "parsing private key"},
		{"small RSA", pemKey(t, small, "PRIVATE KEY"), "RSA key has 1024 bits; use at least 2048"},
		{"P-384", pemKey(t, p384, "PRIVATE KEY"), "EC key is on P-384; use P-256 (ES256)"},
		{"Ed25519", pemKey(t, ed, "PRIVATE KEY"), "unsupported private key type ed25519.PrivateKey"},
	}
	for _, tt := range tests {
		_, err := parseSigningKey(tt.pem)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

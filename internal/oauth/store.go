package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Secrets is where OAuth state is kept: the OS keyring in the app, a map in
// tests. Get and Delete of a missing key return an error that the Store's
// IsNotFound recognises.
type Secrets interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

// ErrNotFound is the not-found error a Store recognises by default. A
// Secrets with its own sentinel passes a matching IsNotFound to NewStore.
var ErrNotFound = errors.New("secret not found")

// TokenKey is the secrets key of a server's token: access and refresh
// token, expiry, and what a refresh needs (token URL, client ID).
func TokenKey(serverID string) string { return "oauth/" + serverID + "/token" }

// ClientKey is the secrets key of the client Switchboard registered
// dynamically with a server's authorization server.
func ClientKey(serverID string) string { return "oauth/" + serverID + "/client" }

// IssuerKey is the secrets key of the authorization server (issuer) a
// server's configured client credentials were first used with: the only
// one they are sent to (see pinIssuer).
func IssuerKey(serverID string) string { return "oauth/" + serverID + "/issuer" }

// DPoPKey is the secrets key of the private key (PKCS #8 PEM, P-256) that
// a server's DPoP-bound tokens are bound to (dpop.go).
func DPoPKey(serverID string) string { return "oauth/" + serverID + "/dpop" }

// Keys are every secrets key of a server's OAuth state; SignOut deletes
// them.
func Keys(serverID string) []string {
	return []string{TokenKey(serverID), ClientKey(serverID), IssuerKey(serverID), DPoPKey(serverID)}
}

// ErrIssuerChanged is matched (errors.Is) by the error of a sign-in whose
// server names another authorization server than the one its client
// credentials were pinned to.
var ErrIssuerChanged = errors.New("the server's authorization server changed")

// An IssuerChangedError refuses to send a server's configured client
// secret or key to another authorization server than the pinned one.
type IssuerChangedError struct {
	Pinned, Named string
}

func (e *IssuerChangedError) Error() string {
	return fmt.Sprintf("the server now names the authorization server %s, but its client credentials were given for %s; "+
		"Switchboard does not send them there. If the server really moved, sign out, enter the client ID and secret for the new "+
		"authorization server, and sign in again", e.Named, e.Pinned)
}

func (e *IssuerChangedError) Is(target error) bool { return target == ErrIssuerChanged }

// CanonicalResource is the form of a server URL that tokens are bound to
// (the MCP "canonical server URI"): scheme and host in lower case, no
// default port, no fragment, no trailing slash. An unparsable URL is
// returned as it is.
func CanonicalResource(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		port = ""
	}
	u.Host = host
	if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	}
	if port != "" {
		u.Host += ":" + port
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String()
}

// A Store keeps tokens and registered clients in a Secrets, as JSON.
type Store struct {
	secrets    Secrets
	isNotFound func(error) bool
}

// NewStore returns a Store over s. isNotFound recognises s's not-found
// error; nil means errors.Is(err, ErrNotFound).
func NewStore(s Secrets, isNotFound func(error) bool) *Store {
	if isNotFound == nil {
		isNotFound = func(err error) bool { return errors.Is(err, ErrNotFound) }
	}
	return &Store{secrets: s, isNotFound: isNotFound}
}

// SignOut forgets the server's token, registered client, pinned issuer
// and DPoP key, so the next connection needs a new sign-in. It does not revoke
// the token at the authorization server.
func (s *Store) SignOut(serverID string) error {
	var errs []error
	for _, key := range Keys(serverID) {
		if err := s.secrets.Delete(key); err != nil && !s.isNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// SignedIn reports whether a token is stored for the server. The token
// may have expired; a refresh or a sign-in decides at the next connection.
func (s *Store) SignedIn(serverID string) (bool, error) {
	var t storedToken
	ok, err := s.load(TokenKey(serverID), &t)
	return ok, err
}

// Secret reads the keyring entry ref (a client secret or private key named
// in serverconf.Auth).
func (s *Store) Secret(ref string) (string, error) {
	v, err := s.secrets.Get(ref)
	if err != nil {
		if s.isNotFound(err) {
			return "", fmt.Errorf("secret %s is not in the keyring; enter it in the server's settings: %w", ref, err)
		}
		return "", fmt.Errorf("reading secret %s: %w", ref, err)
	}
	return v, nil
}

// storedToken is a token and what refreshing it needs. The client secret
// is not repeated here: it comes from the registered client or the config.
// Resource and Issuer bind it to the server it was issued for: a server
// whose URL is no longer Resource does not get it.
type storedToken struct {
	Resource     string           `json:"resource"`
	Issuer       string           `json:"issuer,omitempty"`
	AccessToken  string           `json:"accessToken"`
	TokenType    string           `json:"tokenType,omitempty"`
	RefreshToken string           `json:"refreshToken,omitempty"`
	Expiry       time.Time        `json:"expiry,omitzero"`
	TokenURL     string           `json:"tokenUrl"`
	AuthURL      string           `json:"authUrl,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	ClientID     string           `json:"clientId"`
	Scopes       []string         `json:"scopes,omitempty"`
}

func (t *storedToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

// A binding is what a token and a registered client are for: the
// canonical URL of the server and the issuer of its authorization server.
type binding struct {
	Resource, Issuer string
}

func newStoredToken(conf *oauth2.Config, tok *oauth2.Token, b binding) storedToken {
	return storedToken{
		Resource: b.Resource, Issuer: b.Issuer,
		AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
		TokenURL: conf.Endpoint.TokenURL, AuthURL: conf.Endpoint.AuthURL, AuthStyle: conf.Endpoint.AuthStyle,
		ClientID: conf.ClientID, Scopes: conf.Scopes,
	}
}

// storedClient is a dynamically registered client.
type storedClient struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// RedirectURI is the loopback URI it was registered with; the next
	// sign-in listens on the same port when it can, for authorization
	// servers that compare redirect URIs exactly.
	RedirectURI string `json:"redirectUri"`
	// AuthURL is the authorization endpoint it was registered for; another
	// endpoint means another authorization server, and a new registration.
	AuthURL string `json:"authUrl"`
	// Resource and Issuer are the server and authorization server it was
	// registered for; another of either means a new registration.
	Resource string `json:"resource"`
	Issuer   string `json:"issuer,omitempty"`
}

// storedIssuer is the authorization server a configured client's
// credentials were first used with.
type storedIssuer struct {
	ClientID string `json:"clientId"`
	Issuer   string `json:"issuer"`
}

// pinIssuer is called before a configured client's secret or key is used
// with issuer. The first use records the issuer (trust on first use: the
// config has no field for it); later uses with another issuer fail with
// an IssuerChangedError, until the user signs out or changes the client ID.
func (s *Store) pinIssuer(serverID, clientID, issuer string) error {
	var p storedIssuer
	ok, err := s.load(IssuerKey(serverID), &p)
	if err != nil {
		return err
	}
	if ok && p.ClientID == clientID {
		if sameIssuer(p.Issuer, issuer) {
			return nil
		}
		return &IssuerChangedError{Pinned: p.Issuer, Named: issuer}
	}
	return s.save(IssuerKey(serverID), storedIssuer{ClientID: clientID, Issuer: issuer})
}

func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

func (s *Store) load(key string, v any) (bool, error) {
	data, err := s.secrets.Get(key)
	if err != nil {
		if s.isNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %s: %w", key, err)
	}
	if err := json.Unmarshal([]byte(data), v); err != nil {
		// A damaged entry is as good as none: the user signs in again.
		return false, nil
	}
	return true, nil
}

func (s *Store) save(key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := s.secrets.Set(key, string(data)); err != nil {
		return fmt.Errorf("saving %s: %w", key, err)
	}
	return nil
}

func (s *Store) delete(key string) error {
	if err := s.secrets.Delete(key); err != nil && !s.isNotFound(err) {
		return fmt.Errorf("deleting %s: %w", key, err)
	}
	return nil
}

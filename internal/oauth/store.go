package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
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

// SignOut forgets the server's token and registered client, so the next
// connection needs a new sign-in. It does not revoke the token at the
// authorization server.
func (s *Store) SignOut(serverID string) error {
	var errs []error
	for _, key := range []string{TokenKey(serverID), ClientKey(serverID)} {
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
type storedToken struct {
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

func newStoredToken(conf *oauth2.Config, tok *oauth2.Token) storedToken {
	return storedToken{
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

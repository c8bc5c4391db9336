package oauth

import (
	"errors"
	"testing"
)

// keyringSecrets is a Secrets with its own not-found sentinel, like the
// app's keyring store.
type keyringSecrets struct{ *memSecrets }

var errKeyringNotFound = errors.New("keyring: item not found")

func (k keyringSecrets) Get(key string) (string, error) {
	v, err := k.memSecrets.Get(key)
	if errors.Is(err, ErrNotFound) {
		return "", errKeyringNotFound
	}
	return v, err
}

func (k keyringSecrets) Delete(key string) error {
	if err := k.memSecrets.Delete(key); errors.Is(err, ErrNotFound) {
		return errKeyringNotFound
	}
	return nil
}

func TestStoreWithOwnNotFound(t *testing.T) {
	secrets := keyringSecrets{newMemSecrets()}
	store := NewStore(secrets, func(err error) bool { return errors.Is(err, errKeyringNotFound) })
	if ok, err := store.SignedIn("s"); ok || err != nil {
		t.Errorf("SignedIn on an empty keyring = %v, %v", ok, err)
	}
	if err := store.SignOut("s"); err != nil {
		t.Errorf("SignOut on an empty keyring: %v", err)
	}
	if _, err := NewHandler("s", nil, Options{Store: store}); err != nil {
		t.Errorf("NewHandler on an empty keyring: %v", err)
	}

	// Without the mapping, a missing key is an error.
	strict := NewStore(secrets, nil)
	if _, err := strict.SignedIn("s"); err == nil {
		t.Error("SignedIn with an unrecognised not-found error succeeded")
	}
}

func TestStoreDamagedEntry(t *testing.T) {
	secrets := newMemSecrets()
	secrets.Set(TokenKey("s"), "{not json")
	store := NewStore(secrets, nil)
	if ok, err := store.SignedIn("s"); ok || err != nil {
		t.Errorf("SignedIn with a damaged token = %v, %v; want false, nil", ok, err)
	}
	h, err := NewHandler("s", nil, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if ts, _ := h.TokenSource(t.Context()); ts != nil {
		t.Error("damaged token restored")
	}
}

type failingSecrets struct{ *memSecrets }

var errLocked = errors.New("keyring is locked")

func (f failingSecrets) Get(string) (string, error) { return "", errLocked }
func (f failingSecrets) Delete(string) error        { return errLocked }

func TestStoreKeyringErrors(t *testing.T) {
	store := NewStore(failingSecrets{newMemSecrets()}, nil)
	if _, err := NewHandler("s", nil, Options{Store: store}); !errors.Is(err, errLocked) {
		t.Errorf("NewHandler with a locked keyring: %v", err)
	}
	if err := store.SignOut("s"); !errors.Is(err, errLocked) {
		t.Errorf("SignOut with a locked keyring: %v", err)
	}
}

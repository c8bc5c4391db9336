// Package secrets keeps API keys, OAuth tokens and secret values of server
// configs in the OS keyring (github.com/zalando/go-keyring: Secret Service on
// Linux, Keychain on macOS, Credential Manager on Windows).
//
// When the keyring cannot be reached (Linux without a Secret Service, or no
// session bus), Open falls back to a Memory store for the session and says
// so in Status, with what to install. A secret is never written anywhere
// else: not to SQLite, not to a log, not to a config file.
package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// ErrNotFound is returned by Get and Delete when no secret has that key.
var ErrNotFound = errors.New("secret not found")

// A Store holds secrets by key. Implementations are safe for concurrent use.
type Store interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

// Service is the keyring service name Switchboard's entries are filed under.
const Service = "Switchboard"

// Status tells the user where secrets are kept.
type Status struct {
	// Backend is "keyring" or "memory".
	Backend string `json:"backend"`
	// Persistent is false when secrets last only for this session.
	Persistent bool `json:"persistent"`
	// Problem says why the keyring is not used; empty when it is.
	Problem string `json:"problem,omitempty"`
	// Advice says what to do about Problem.
	Advice string `json:"advice,omitempty"`
}

// Keyring is a Store over the OS keyring.
type Keyring struct {
	// Service names the keyring entries' service; empty means Service.
	Service string
}

func (k Keyring) service() string {
	if k.Service == "" {
		return Service
	}
	return k.Service
}

// Get returns the secret stored under key.
func (k Keyring) Get(key string) (string, error) {
	v, err := keyring.Get(k.service(), key)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("reading %q from the keyring: %w", key, err)
	}
	return v, nil
}

// Set stores value under key, replacing any earlier value.
func (k Keyring) Set(key, value string) error {
	if err := keyring.Set(k.service(), key, value); err != nil {
		return fmt.Errorf("saving %q in the keyring: %w", key, err)
	}
	return nil
}

// Delete removes the secret under key.
func (k Keyring) Delete(key string) error {
	err := keyring.Delete(k.service(), key)
	if errors.Is(err, keyring.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("deleting %q from the keyring: %w", key, err)
	}
	return nil
}

// Memory is a Store that keeps secrets in memory only; the zero value is ready.
type Memory struct {
	mu sync.Mutex
	m  map[string]string
}

// Get returns the secret stored under key.
func (m *Memory) Get(key string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

// Set stores value under key.
func (m *Memory) Set(key, value string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]string{}
	}
	m.m[key] = value
	return nil
}

// Delete removes the secret under key.
func (m *Memory) Delete(key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[key]; !ok {
		return ErrNotFound
	}
	delete(m.m, key)
	return nil
}

// Len is the number of secrets held.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

// probeKey is looked up (never written) to learn whether the keyring answers.
const probeKey = "switchboard-probe"

// Open returns the OS keyring when it answers within timeout, and otherwise
// an in-memory store with a Status that explains the fallback.
func Open(ctx context.Context, timeout time.Duration) (Store, Status) {
	k := Keyring{}
	if problem, advice := unavailable(); problem != "" {
		return &Memory{}, Status{Backend: "memory", Problem: problem, Advice: advice}
	}
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	done := make(chan error, 1)
	go func() {
		_, err := k.Get(probeKey)
		done <- err
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, ErrNotFound) {
			return k, Status{Backend: "keyring", Persistent: true}
		}
		return &Memory{}, Status{Backend: "memory", Problem: fmt.Sprintf("the OS keyring did not answer: %v", err), Advice: fallbackAdvice()}
	case <-ctx.Done():
		return &Memory{}, Status{Backend: "memory", Problem: "the OS keyring did not answer within " + timeout.String() + " (is it locked?)", Advice: fallbackAdvice()}
	}
}

// unavailable reports, without touching the keyring, a reason it cannot
// work. On Linux go-keyring talks to the Secret Service over the session
// bus; with no bus address, godbus would try to launch a bus of its own and
// leave daemons behind, so we do not let it.
func unavailable() (problem, advice string) {
	if runtime.GOOS == "linux" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so the Secret Service keyring cannot be reached", fallbackAdvice()
	}
	return "", ""
}

func fallbackAdvice() string {
	switch runtime.GOOS {
	case "linux":
		return "API keys and tokens are kept in memory for this session only and will be asked for again after a restart. To keep them, install and start a Secret Service keyring (for example: sudo apt install gnome-keyring, then log in to a desktop session, or run under dbus-run-session with gnome-keyring-daemon unlocked)."
	case "darwin":
		return "API keys and tokens are kept in memory for this session only. Check that the login keychain is unlocked (Keychain Access)."
	default:
		return "API keys and tokens are kept in memory for this session only. Check that Windows Credential Manager is available."
	}
}

// Watched wraps a Store and reports every secret value it reads or writes,
// so that a log redactor can learn the values it must never print.
type Watched struct {
	Store
	// OnValue is called with each value read or written.
	OnValue func(value string)
}

// Get returns the secret stored under key, reporting it to OnValue.
func (w Watched) Get(key string) (string, error) {
	v, err := w.Store.Get(key)
	if err == nil && w.OnValue != nil {
		w.OnValue(v)
	}
	return v, err
}

// Set stores value under key, reporting it to OnValue.
func (w Watched) Set(key, value string) error {
	if w.OnValue != nil {
		w.OnValue(value)
	}
	return w.Store.Set(key, value)
}

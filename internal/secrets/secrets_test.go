package secrets

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// storeContract checks the behaviour every Store must have.
func storeContract(t *testing.T, s Store, prefix string) {
	t.Helper()
	key := prefix + "provider/cerebras"
	if _, err := s.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v; want ErrNotFound", err)
	}
	if err := s.Delete(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of a missing key: %v; want ErrNotFound", err)
	}
	if err := s.Set(key, "csk-first"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(key, "csk-second"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(key); err != nil || got != "csk-second" {
		t.Fatalf("Get = %q, %v; want csk-second", got, err)
	}
	if err := s.Delete(key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v; want ErrNotFound", err)
	}
}

func TestMemory(t *testing.T) {
	storeContract(t, &Memory{}, "")
}

func TestOpenWithoutSessionBusFallsBackToMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the session-bus check is Linux only")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	s, st := Open(context.Background(), time.Second)
	if _, ok := s.(*Memory); !ok {
		t.Fatalf("store = %T; want *Memory", s)
	}
	if st.Backend != "memory" || st.Persistent {
		t.Errorf("status = %+v; want a non-persistent memory backend", st)
	}
	if !strings.Contains(st.Advice, "gnome-keyring") {
		t.Errorf("advice %q does not say what to install", st.Advice)
	}
	storeContract(t, s, "")
}

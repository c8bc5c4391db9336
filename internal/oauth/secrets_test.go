package oauth

import (
	"strings"
	"sync"
)

// memSecrets is a Secrets in memory.
type memSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func newMemSecrets() *memSecrets { return &memSecrets{m: map[string]string{}} }

func (s *memSecrets) Get(key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (s *memSecrets) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}

func (s *memSecrets) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; !ok {
		return ErrNotFound
	}
	delete(s.m, key)
	return nil
}

func (s *memSecrets) has(key string) bool {
	_, err := s.Get(key)
	return err == nil
}

func (s *memSecrets) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for k, v := range s.m {
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

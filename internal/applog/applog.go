// Package applog builds the app's slog logger: text lines to the rotated log
// file and to the in-memory ring the log viewer reads, with secrets redacted.
//
// Redaction works three times over: attributes whose key names a secret
// (apiKey, token, authorization, password, dsn, ...) are replaced wholesale,
// any value the Redactor has learned (every secret read from or written to
// the keyring) is masked wherever it appears in a message or attribute, and
// so is the password of any URL ("postgresql://u:pass@host").
package applog

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
)

// Mask replaces a redacted value.
const Mask = "[redacted]"

// secretKey matches attribute keys whose values are secret.
var secretKey = regexp.MustCompile(`(?i)(api[_-]?key|token|secret|password|passwd|authorization|cookie|credentials?|dsn|(^|[_-])(pat|pass))$`)

// urlPassword matches the user info of a URL with a password, up to the
// last @ before the path: "postgresql://u:" + "pass" + "@".
var urlPassword = regexp.MustCompile(`(://[^/?#@\s:]*:)[^/?#\s]+@`)

// maskURLPasswords masks the password of every URL in s
// ("postgresql://u:[redacted]@host/db"), known to the Redactor or not.
func maskURLPasswords(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlPassword.ReplaceAllString(s, "${1}"+Mask+"@")
}

// A Redactor masks known secret values; the zero value is ready and safe for
// concurrent use.
type Redactor struct {
	mu     sync.RWMutex
	values map[string]struct{}
}

// Add teaches the redactor a secret value. Values shorter than 6 characters
// are ignored: masking them would mangle ordinary words.
func (r *Redactor) Add(value string) {
	if len(value) < 6 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]struct{}{}
	}
	r.values[value] = struct{}{}
}

// Redact masks every known secret value in s, and every password written
// in a URL.
func (r *Redactor) Redact(s string) string {
	s = maskURLPasswords(s)
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for v := range r.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

// New returns a logger writing text lines to each of writers, at level and
// above, with secrets redacted.
func New(r *Redactor, level slog.Leveler, writers ...io.Writer) *slog.Logger {
	h := slog.NewTextHandler(io.MultiWriter(writers...), &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{} // the log file and ring stamp each line themselves
			}
			if secretKey.MatchString(a.Key) {
				return slog.String(a.Key, Mask)
			}
			if a.Value.Kind() == slog.KindString || a.Value.Kind() == slog.KindAny {
				if s := a.Value.String(); r.Redact(s) != s {
					return slog.String(a.Key, r.Redact(s))
				}
			}
			return a
		},
	})
	return slog.New(&redactingHandler{Handler: h, r: r})
}

// redactingHandler masks secrets in the message itself, which ReplaceAttr
// does not see.
type redactingHandler struct {
	slog.Handler
	r *Redactor
}

func (h *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	if m := h.r.Redact(rec.Message); m != rec.Message {
		nr := slog.NewRecord(rec.Time, rec.Level, m, rec.PC)
		rec.Attrs(func(a slog.Attr) bool { nr.AddAttrs(a); return true })
		rec = nr
	}
	return h.Handler.Handle(ctx, rec)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &redactingHandler{Handler: h.Handler.WithAttrs(attrs), r: h.r}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{Handler: h.Handler.WithGroup(name), r: h.r}
}

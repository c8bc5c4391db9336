package applog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretsNeverReachTheLog(t *testing.T) {
	var r Redactor
	key := "csk-4f9a8b7c6d5e"
	r.Add(key)
	r.Add("abc") // too short to mask safely
	var buf bytes.Buffer
	log := New(&r, slog.LevelDebug, &buf)

	log.Info("calling provider with "+key, "apiKey", "sk-unknown-to-redactor", "url", "https://api.cerebras.ai/v1")
	log.With("authorization", "Bearer xyz123456").Warn("retrying", "err", errors.New("401: key "+key+" refused"))
	log.Info("abc is a word", "token_count", 12)

	out := buf.String()
	for _, secret := range []string{key, "sk-unknown-to-redactor", "Bearer xyz123456"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains secret %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "https://api.cerebras.ai/v1") || !strings.Contains(out, "abc is a word") {
		t.Errorf("log lost ordinary text:\n%s", out)
	}
	if strings.Contains(out, "token_count="+Mask) {
		t.Errorf("a count was masked as a secret:\n%s", out)
	}
	if strings.Count(out, Mask) < 4 {
		t.Errorf("expected at least 4 masks:\n%s", out)
	}
}

func TestURLPasswordsAndNewSecretNamesAreMasked(t *testing.T) {
	var buf bytes.Buffer
	log := New(&Redactor{}, slog.LevelDebug, &buf) // knows no secret value
	log.Info("starting npx mcp-pg postgresql://ada:pg-pass-1@db.example/x", "args", []string{"mysql://root:p@ss-2@db:3306/y"},
		"GITHUB_PAT", "ghp_plain", "sentry_dsn", "https://k@o1.ingest.sentry.io/1", "path", "/usr/bin", "compat", "yes")
	out := buf.String()
	for _, secret := range []string{"pg-pass-1", "p@ss-2", "ss-2", "ghp_plain", "o1.ingest"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains secret %q:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"postgresql://ada:" + Mask + "@db.example/x", "path=/usr/bin", "compat=yes"} {
		if !strings.Contains(out, kept) {
			t.Errorf("log lacks %q:\n%s", kept, out)
		}
	}
}

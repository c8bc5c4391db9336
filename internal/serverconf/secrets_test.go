package serverconf

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_PAT": true, "PAT": true, "X-Pat": true, "SENTRY_DSN": true, "DSN": true, "dsn": true,
		"SMTP_PASS": true, "DB_PASSWORD": true, "MYSQL_PASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true,
		"AWS_SECRET_ACCESS_KEY": true, "SLACK_BOT_TOKEN": true, "AZURE_STORAGE_CONNECTION_STRING": true,
		"Authorization": true, "Cookie": true,
		"PATH": false, "PATTERN": false, "DSN_HOST": false, "COMPASS": false, "LOG_LEVEL": false, "HOME": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsSecretValue(t *testing.T) {
	for s, want := range map[string]bool{
		"postgresql://u:pass@host/db":         true,
		"--db=mysql://root:hunter2@db:3306/x": true,
		"redis://:only-password@cache:6379":   true,
		"http://u:p@ss@host/":                 true, // an unescaped @ in the password
		"postgresql://u@host/db":              false,
		"postgresql://u:@host/db":             false,
		"postgresql://u:${secret:arg1}@host":  false,
		"postgresql://u:${input:pw}@host":     false,
		"https://example.com/a?b=c@d:e":       false,
		"mailto:someone@example.com":          false,
		"/home/ada/notes":                     false,
	} {
		if got := IsSecretValue(s); got != want {
			t.Errorf("IsSecretValue(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestExtractSecretsMovesArgAndValuePasswords(t *testing.T) {
	typed := []string{"-y", "mcp-postgres", "postgresql://u:pass@host/db", "--other=mysql://root:hunter2@db:3306/x", "/tmp"}
	cfg := Config{ID: "pg", Transport: TransportStdio, Command: "npx", Args: slices.Clone(typed),
		Env: map[string]Value{
			"DATABASE_URL": {Plain: "postgres://a:s3cr3t-url@h/d"}, // a plain name, a secret value
			"GITHUB_PAT":   {Plain: "ghp_abc"},
			"SENTRY_DSN":   {Plain: "https://key@o1.ingest.sentry.io/1"},
			"LOG_LEVEL":    {Plain: "debug"},
		}}
	keyring := map[string]string{}
	put := func(ref, v string) error { keyring[ref] = v; return nil }
	if err := ExtractSecrets(&cfg, put); err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"-y", "mcp-postgres", "postgresql://u:${secret:arg1}@host/db", "--other=mysql://root:${secret:arg2}@db:3306/x", "/tmp"}
	if diff := cmp.Diff(wantArgs, cfg.Args); diff != "" {
		t.Errorf("stored args (-want +got):\n%s", diff)
	}
	wantKeyring := map[string]string{
		"server/pg/arg/arg1":         "pass",
		"server/pg/arg/arg2":         "hunter2",
		"server/pg/env/DATABASE_URL": "postgres://a:s3cr3t-url@h/d",
		"server/pg/env/GITHUB_PAT":   "ghp_abc",
		"server/pg/env/SENTRY_DSN":   "https://key@o1.ingest.sentry.io/1",
	}
	if diff := cmp.Diff(wantKeyring, keyring); diff != "" {
		t.Errorf("keyring (-want +got):\n%s", diff)
	}
	raw, _ := json.Marshal(cfg)
	for _, secret := range []string{"pass@", "hunter2", "s3cr3t", "ghp_abc", "key@o1"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the stored config holds %q: %s", secret, raw)
		}
	}

	// At spawn the passwords go back where they were typed.
	got, err := ResolveArgs(cfg.ID, cfg.Args, func(ref string) (string, error) { return keyring[ref], nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(typed, got); diff != "" {
		t.Errorf("resolved args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"server/pg/arg/arg1", "server/pg/arg/arg2", "server/pg/env/DATABASE_URL",
		"server/pg/env/GITHUB_PAT", "server/pg/env/SENTRY_DSN"}, SecretRefs(&cfg)); diff != "" {
		t.Errorf("SecretRefs (-want +got):\n%s", diff)
	}

	// Saving again stores nothing new; a password typed over a placeholder
	// takes the free name again, so the stored args do not change.
	clear(keyring)
	if err := ExtractSecrets(&cfg, put); err != nil || len(keyring) != 0 {
		t.Errorf("second save stored %v, %v", keyring, err)
	}
	cfg.Args[2] = "postgresql://u:rotated@host/db"
	if err := ExtractSecrets(&cfg, put); err != nil {
		t.Fatal(err)
	}
	if cfg.Args[2] != wantArgs[2] || keyring["server/pg/arg/arg1"] != "rotated" {
		t.Errorf("after rotating: args[2] = %q, keyring %v", cfg.Args[2], keyring)
	}

	// A failed put leaves the config as it was.
	cfg2 := Config{ID: "pg", Transport: TransportStdio, Command: "npx", Args: slices.Clone(typed)}
	locked := errors.New("keyring is locked")
	err = ExtractSecrets(&cfg2, func(ref, _ string) error {
		if strings.HasSuffix(ref, "arg2") {
			return locked
		}
		return nil
	})
	if !errors.Is(err, locked) || !strings.Contains(err.Error(), "args[3]") {
		t.Errorf("err = %v, want it to name args[3] and wrap the keyring's error", err)
	}
	if diff := cmp.Diff(typed, cfg2.Args); diff != "" {
		t.Errorf("args changed after a failed save (-want +got):\n%s", diff)
	}
}

func TestResolveArgsReadsOnlyOwnEntries(t *testing.T) {
	var asked []string
	get := func(ref string) (string, error) {
		asked = append(asked, ref)
		if ref == "server/pg/arg/gone" {
			return "", errors.New("not found")
		}
		return "pw", nil
	}
	// A placeholder name cannot hold a path: this stays text.
	args := []string{"x://u:${secret:../../other/env/TOKEN}@h", "${secret:a}${secret:b}"}
	got, err := ResolveArgs("pg", args, get)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{args[0], "pwpw"}, got); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"server/pg/arg/a", "server/pg/arg/b"}, asked); diff != "" {
		t.Errorf("keyring reads (-want +got):\n%s", diff)
	}
	if _, err := ResolveArgs("pg", []string{"ok", "db://u:${secret:gone}@h"}, get); err == nil ||
		!strings.Contains(err.Error(), "args[1]") || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing entry: err = %v, want it to name args[1] and the keyring's error", err)
	}
}

func TestCheckSecretRef(t *testing.T) {
	for _, ref := range []string{EnvSecretRef("gh", "TOKEN"), HeaderSecretRef("gh", "authorization"),
		ClientSecretRef("gh"), PrivateKeyRef("gh"), ArgSecretRef("gh", "arg1")} {
		if err := CheckSecretRef("gh", ref); err != nil {
			t.Errorf("CheckSecretRef(gh, %q) = %v, want nil", ref, err)
		}
	}
	for _, tt := range []struct{ id, ref string }{
		{"gh", "server/linear/env/TOKEN"},
		{"gh", "server/ghx/env/TOKEN"}, // a longer ID with the same start
		{"gh", "server/gh/../linear/env/TOKEN"},
		{"gh", "server/gh/"},
		{"gh", "provider/openai/api-key"},
		{"", "server//env/TOKEN"},
	} {
		err := CheckSecretRef(tt.id, tt.ref)
		if !errors.Is(err, ErrForeignSecret) {
			t.Errorf("CheckSecretRef(%q, %q) = %v, want ErrForeignSecret", tt.id, tt.ref, err)
		}
	}
}

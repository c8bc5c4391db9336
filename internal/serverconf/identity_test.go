package serverconf

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewID(t *testing.T) {
	taken := map[string]bool{"github": true, "github-2": true, strings.Repeat("a", 32): true}
	tests := []struct{ name, want string }{
		{"GitHub", "github-3"},
		{"My GitHub (work)", "my-github-work"},
		{"Café Crème", "cafe-creme"},
		{"  --Brave Search--  ", "brave-search"},
		{"sqlite_db", "sqlite_db"},
		{"_private", "private"},
		{"!!!", "server"},
		{"日本語", "server"},
		{"", "server"},
		{strings.Repeat("a", 40), strings.Repeat("a", 30) + "-2"},
		{"Postgres (read only)", "postgres-read-only"},
	}
	for _, tt := range tests {
		got := NewID(tt.name, func(id string) bool { return taken[id] })
		if got != tt.want {
			t.Errorf("NewID(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if !idPattern.MatchString(got) {
			t.Errorf("NewID(%q) = %q does not match the ID format", tt.name, got)
		}
	}
	if got := NewID("GitHub", nil); got != "github" {
		t.Errorf("NewID with nil taken = %q, want github", got)
	}
}

func TestFingerprint(t *testing.T) {
	base := stdioConfig()
	fp := Fingerprint(&base)
	if !strings.HasPrefix(fp, "sha256:") || len(fp) != len("sha256:")+64 {
		t.Fatalf("Fingerprint = %q", fp)
	}
	same := []func(*Config){
		func(c *Config) { c.Name = "Other" },
		func(c *Config) { c.ID = "other" },
		func(c *Config) { c.Enabled = false; c.CallTimeout = 1; c.DisabledTools = []string{"a"} },
		func(c *Config) { c.URL = "https://ignored.example.com" },
		func(c *Config) { c.Headers = map[string]Value{"X-Ignored": {Plain: "stdio has no headers"}} },
		func(c *Config) { c.Env = map[string]Value{"HOME": {Plain: "/home/ada"}} }, // a new map, same content
	}
	for i, edit := range same {
		c := stdioConfig()
		edit(&c)
		if got := Fingerprint(&c); got != fp {
			t.Errorf("edit %d changed the fingerprint", i)
		}
	}
	differ := []func(*Config){
		func(c *Config) { c.Command = "node" },
		func(c *Config) { c.Args = append(c.Args, "/tmp") },
		func(c *Config) { c.Args = []string{"-y @modelcontextprotocol/server-filesystem"} },
		func(c *Config) { c.Cwd = "/srv" },
		func(c *Config) { c.Transport = TransportHTTP; c.URL = "https://example.com" },
		func(c *Config) { c.Env = nil },
		func(c *Config) { c.Env = map[string]Value{"HOME": {Plain: "/home/eve"}} },
		func(c *Config) { c.Env["NODE_OPTIONS"] = Value{Plain: "--require /tmp/evil.js"} },
		func(c *Config) { c.Env["HOME"] = Value{SecretRef: "server/fs/env/HOME"} },
		func(c *Config) { c.InheritEnv = true },
	}
	for i, edit := range differ {
		c := stdioConfig()
		edit(&c)
		if got := Fingerprint(&c); got == fp {
			t.Errorf("edit %d kept the fingerprint", i)
		}
	}

	// A secret env value counts by its keyring reference: rotating the
	// token behind it keeps the fingerprint; pointing at another entry
	// does not.
	withRef := func(ref, leaked string) string {
		c := stdioConfig()
		c.Env["GITHUB_TOKEN"] = Value{SecretRef: ref, Plain: leaked}
		return Fingerprint(&c)
	}
	if withRef("server/fs/env/GITHUB_TOKEN", "") != withRef("server/fs/env/GITHUB_TOKEN", "old-value") {
		t.Error("a value beside a secret reference changed the fingerprint")
	}
	if withRef("server/fs/env/GITHUB_TOKEN", "") == withRef("server/other/env/GITHUB_TOKEN", "") {
		t.Error("another keyring reference kept the fingerprint")
	}

	a, b := httpConfig(), httpConfig()
	b.URL = "HTTPS://MCP.Example.com/mcp"
	b.Headers = nil
	if Fingerprint(&a) != Fingerprint(&b) {
		t.Error("URL case of scheme and host changed the fingerprint")
	}
	b.URL = "https://mcp.example.com/MCP"
	if Fingerprint(&a) == Fingerprint(&b) {
		t.Error("URL path case did not change the fingerprint")
	}
	b = httpConfig()
	b.Headers = map[string]Value{"Authorization": {SecretRef: "server/remote/header/Other"}, "X-Team": {Plain: "ops"}}
	b.Env = map[string]Value{"IGNORED": {Plain: "remote servers have no env"}}
	if Fingerprint(&a) != Fingerprint(&b) {
		t.Error("headers or env changed a remote server's fingerprint")
	}
	b = httpConfig()
	b.Transport = TransportSSE
	if Fingerprint(&a) == Fingerprint(&b) {
		t.Error("transport did not change the fingerprint")
	}
}

func TestExtractSecrets(t *testing.T) {
	cfg := Config{ID: "gh", Transport: TransportStdio, Command: "npx",
		Env: map[string]Value{
			"GITHUB_PERSONAL_ACCESS_TOKEN": {Plain: "ghp_x"},
			"api_key":                      {Plain: "k"},
			"DB_PASSWORD":                  {Plain: "p"},
			"AWS_CREDENTIALS_FILE":         {Plain: "/c"},
			"OAUTH_CLIENT":                 {Plain: "o"},
			"LOG_LEVEL":                    {Plain: "debug"},
			"EMPTY_TOKEN":                  {},
			"ALREADY_SECRET":               {SecretRef: "server/gh/env/ALREADY_SECRET"},
		},
		Headers: map[string]Value{
			"authorization": {Plain: "Bearer x"},
			"Cookie":        {Plain: "session=1"},
			"X-Team":        {Plain: "platform"},
		},
	}
	original := cfg.Env
	stored := map[string]string{}
	if err := ExtractSecrets(&cfg, func(ref, v string) error { stored[ref] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	wantEnv := map[string]Value{
		"GITHUB_PERSONAL_ACCESS_TOKEN": {SecretRef: "server/gh/env/GITHUB_PERSONAL_ACCESS_TOKEN"},
		"api_key":                      {SecretRef: "server/gh/env/api_key"},
		"DB_PASSWORD":                  {SecretRef: "server/gh/env/DB_PASSWORD"},
		"AWS_CREDENTIALS_FILE":         {SecretRef: "server/gh/env/AWS_CREDENTIALS_FILE"},
		"OAUTH_CLIENT":                 {SecretRef: "server/gh/env/OAUTH_CLIENT"},
		"LOG_LEVEL":                    {Plain: "debug"},
		"EMPTY_TOKEN":                  {},
		"ALREADY_SECRET":               {SecretRef: "server/gh/env/ALREADY_SECRET"},
	}
	if diff := cmp.Diff(wantEnv, cfg.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	wantHeaders := map[string]Value{
		"authorization": {SecretRef: "server/gh/header/Authorization"},
		"Cookie":        {SecretRef: "server/gh/header/Cookie"},
		"X-Team":        {Plain: "platform"},
	}
	if diff := cmp.Diff(wantHeaders, cfg.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	wantStored := map[string]string{
		"server/gh/env/GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x",
		"server/gh/env/api_key":                      "k",
		"server/gh/env/DB_PASSWORD":                  "p",
		"server/gh/env/AWS_CREDENTIALS_FILE":         "/c",
		"server/gh/env/OAUTH_CLIENT":                 "o",
		"server/gh/header/Authorization":             "Bearer x",
		"server/gh/header/Cookie":                    "session=1",
	}
	if diff := cmp.Diff(wantStored, stored); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	if original["api_key"].Plain != "k" {
		t.Error("ExtractSecrets modified the caller's env map in place")
	}

	for ref, want := range wantStored {
		_ = want
		got, err := ResolveValue(Value{SecretRef: ref}, func(r string) (string, error) { return stored[r], nil })
		if err != nil || got != stored[ref] {
			t.Errorf("ResolveValue(%s) = %q, %v", ref, got, err)
		}
	}
	if got, _ := ResolveValue(Value{Plain: "debug"}, nil); got != "debug" {
		t.Errorf("ResolveValue(plain) = %q", got)
	}
	notFound := errors.New("not found")
	if _, err := ResolveValue(Value{SecretRef: "x"}, func(string) (string, error) { return "", notFound }); !errors.Is(err, notFound) {
		t.Errorf("ResolveValue error = %v, want it to wrap the keyring's error", err)
	}
}

func TestExtractSecretsIsAllOrNothing(t *testing.T) {
	cfg := Config{ID: "gh", Transport: TransportStdio, Command: "npx",
		Env: map[string]Value{"A_TOKEN": {Plain: "a"}, "B_TOKEN": {Plain: "b"}}}
	locked := errors.New("keyring is locked")
	err := ExtractSecrets(&cfg, func(ref, _ string) error {
		if strings.HasSuffix(ref, "B_TOKEN") {
			return locked
		}
		return nil
	})
	if !errors.Is(err, locked) || !strings.Contains(err.Error(), "B_TOKEN") {
		t.Fatalf("err = %v, want it to name B_TOKEN and wrap the keyring error", err)
	}
	if cfg.Env["A_TOKEN"].Plain != "a" || cfg.Env["B_TOKEN"].Plain != "b" {
		t.Errorf("cfg changed after a failed ExtractSecrets: %+v", cfg.Env)
	}
}

func TestExtractSecretsMovesAuthSecrets(t *testing.T) {
	cfg := Config{ID: "corp", Transport: TransportHTTP, URL: "https://mcp.example/mcp", Auth: &Auth{
		ClientID: "switchboard", Grant: GrantClientCredentials, ClientAuth: PrivateKeyJWT,
		ClientSecret: "s3cret-value", PrivateKey: "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n"}}
	if err := Validate(&cfg); err != nil {
		t.Fatalf("a form with a new key is valid before the save moves it: %v", err)
	}
	kept := map[string]string{}
	if err := ExtractSecrets(&cfg, func(ref, v string) error { kept[ref] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	a := cfg.Auth
	if a.ClientSecret != "" || a.PrivateKey != "" {
		t.Fatalf("plain secrets left in the config: %+v", a)
	}
	if a.ClientSecretRef != ClientSecretRef("corp") || a.PrivateKeyRef != PrivateKeyRef("corp") {
		t.Errorf("refs = %q, %q", a.ClientSecretRef, a.PrivateKeyRef)
	}
	if kept[ClientSecretRef("corp")] != "s3cret-value" || !strings.Contains(kept[PrivateKeyRef("corp")], "BEGIN PRIVATE KEY") {
		t.Errorf("keyring got %v", kept)
	}
	raw, _ := json.Marshal(cfg)
	if strings.Contains(string(raw), "s3cret") || strings.Contains(string(raw), "BEGIN") {
		t.Errorf("the stored JSON holds a secret: %s", raw)
	}
}

package serverconf

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func stdioConfig() Config {
	return Config{ID: "fs", Name: "Files", Transport: TransportStdio, Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-filesystem"}, Env: map[string]Value{"HOME": {Plain: "/home/ada"}}, Enabled: true}
}

func httpConfig() Config {
	return Config{ID: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp",
		Headers: map[string]Value{"Authorization": {SecretRef: "server/remote/header/Authorization"}}, Enabled: true}
}

func TestValidateAccepts(t *testing.T) {
	sse := httpConfig()
	sse.Transport = TransportSSE
	cc := httpConfig()
	cc.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientSecretRef: "server/remote/oauth/client-secret", Scopes: []string{"mcp:read"}}
	jwt := httpConfig()
	jwt.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientAuth: PrivateKeyJWT, PrivateKeyRef: "server/remote/oauth/key"}
	pre := httpConfig()
	pre.Auth = &Auth{ClientID: "pre-registered"}
	stale := stdioConfig()
	stale.URL = "not a url" // belongs to another transport: ignored
	timeout := stdioConfig()
	timeout.CallTimeout = 5 * time.Minute
	long := stdioConfig()
	long.ID = strings.Repeat("a", 32)

	for name, cfg := range map[string]Config{
		"stdio": stdioConfig(), "http": httpConfig(), "sse": sse, "client credentials": cc,
		"private_key_jwt": jwt, "preregistered": pre, "other transport's fields": stale,
		"timeout": timeout, "32-char id": long,
	} {
		if err := Validate(&cfg); err != nil {
			t.Errorf("%s: Validate = %v, want nil", name, err)
		}
	}
}

func TestValidateMessages(t *testing.T) {
	csRef, pkRef := ClientSecretRef("remote"), PrivateKeyRef("remote")
	tests := []struct {
		name   string
		edit   func(*Config)
		remote bool
		want   []FieldError
	}{
		{"empty id", func(c *Config) { c.ID = "" }, false,
			[]FieldError{{"id", "is required"}}},
		{"uppercase id", func(c *Config) { c.ID = "GitHub" }, false,
			[]FieldError{{"id", `must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit (got "GitHub")`}}},
		{"id starting with dash", func(c *Config) { c.ID = "-x" }, false,
			[]FieldError{{"id", `must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit (got "-x")`}}},
		{"33-char id", func(c *Config) { c.ID = strings.Repeat("a", 33) }, false,
			[]FieldError{{"id", `must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit (got "` + strings.Repeat("a", 33) + `")`}}},
		{"name with newline", func(c *Config) { c.Name = "a\nb" }, false,
			[]FieldError{{"name", "must not contain control characters"}}},
		{"no transport", func(c *Config) { c.Transport = "" }, false,
			[]FieldError{{"transport", "is required: choose stdio, sse, http or command"}}},
		{"unknown transport", func(c *Config) { c.Transport = "websocket" }, false,
			[]FieldError{{"transport", `must be stdio, sse, http or command (got "websocket")`}}},
		{"no command", func(c *Config) { c.Command = " " }, false,
			[]FieldError{{"command", "is required for a stdio server (for example npx, uvx or a full path)"}}},
		{"padded command", func(c *Config) { c.Command = "npx " }, false,
			[]FieldError{{"command", "must not start or end with spaces"}}},
		{"NUL in arg", func(c *Config) { c.Args = []string{"ok", "a\x00b"} }, false,
			[]FieldError{{"args[1]", "must not contain a NUL character"}}},
		{"bad env name", func(c *Config) { c.Env = map[string]Value{"1PORT": {Plain: "1"}} }, false,
			[]FieldError{{"env.1PORT", "name must be letters, digits and _, not starting with a digit"}}},
		{"env with both values", func(c *Config) { c.Env = map[string]Value{"API_KEY": {Plain: "x", SecretRef: "server/fs/env/API_KEY"}} }, false,
			[]FieldError{{"env.API_KEY", "has both a plain value and a secret reference; keep one"}}},
		{"no url", func(c *Config) { c.URL = "" }, true,
			[]FieldError{{"url", "is required for an sse or http server"}}},
		{"relative url", func(c *Config) { c.URL = "/mcp" }, true,
			[]FieldError{{"url", `must be an absolute http:// or https:// URL (got "/mcp")`}}},
		{"websocket url", func(c *Config) { c.URL = "wss://example.com/mcp" }, true,
			[]FieldError{{"url", `must be an absolute http:// or https:// URL (got "wss://example.com/mcp")`}}},
		{"url without host", func(c *Config) { c.URL = "https:///mcp" }, true,
			[]FieldError{{"url", "must include a host name"}}},
		{"url with password", func(c *Config) { c.URL = "https://u:p@example.com/mcp" }, true,
			[]FieldError{{"url", "must not contain a user name or password; put credentials in a header"}}},
		{"unparsable url", func(c *Config) { c.URL = "http://[::1" }, true,
			[]FieldError{{"url", `is not a valid URL: missing ']' in host`}}},
		{"bad header name", func(c *Config) { c.Headers = map[string]Value{"X Team": {Plain: "a"}} }, true,
			[]FieldError{{"headers.X Team", "name must be a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"}}},
		{"header value with newline", func(c *Config) { c.Headers = map[string]Value{"X-Team": {Plain: "a\r\nInjected: 1"}} }, true,
			[]FieldError{{"headers.X-Team", "value must not contain line breaks or NUL characters"}}},
		{"negative timeout", func(c *Config) { c.CallTimeout = -time.Second }, false,
			[]FieldError{{"callTimeout", "must be between 1s and 1h0m0s, or 0 for the default (1m0s); got -1s"}}},
		{"huge timeout", func(c *Config) { c.CallTimeout = 2 * time.Hour }, false,
			[]FieldError{{"callTimeout", "must be between 1s and 1h0m0s, or 0 for the default (1m0s); got 2h0m0s"}}},
		{"empty disabled tool", func(c *Config) { c.DisabledTools = []string{""} }, false,
			[]FieldError{{"disabledTools[0]", "must not be empty"}}},
		{"auth on stdio", func(c *Config) { c.Auth = &Auth{ClientID: "x"} }, false,
			[]FieldError{{"auth", "is only used by sse and http servers; remove it or change the transport"}}},
		{"unknown grant", func(c *Config) { c.Auth = &Auth{Grant: "password"} }, true,
			[]FieldError{{"auth.grant", `must be authorization_code, client_credentials or urn:ietf:params:oauth:grant-type:jwt-bearer (got "password")`}}},
		{"unknown client auth", func(c *Config) { c.Auth = &Auth{ClientID: "x", ClientAuth: "tls_client_auth"} }, true,
			[]FieldError{{"auth.clientAuth", `must be client_secret_basic, client_secret_post or private_key_jwt (got "tls_client_auth")`}}},
		{"client credentials without client id", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientSecretRef: csRef}
		}, true, []FieldError{{"auth.clientId", "is required for the client_credentials grant"}}},
		{"client credentials without credentials", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc"}
		}, true, []FieldError{{"auth.clientSecretRef", "the client_credentials grant needs a client secret or a private key"}}},
		{"token file without the jwt-bearer grant", func(c *Config) { c.Auth = &Auth{ClientID: "w", AssertionFile: "/run/token"} }, true,
			[]FieldError{{"auth.assertionFile", "is used only with the urn:ietf:params:oauth:grant-type:jwt-bearer grant"}}},
		{"relative token file", func(c *Config) {
			c.Auth = &Auth{Grant: GrantJWTBearer, ClientID: "w", AssertionFile: "token"}
		}, true, []FieldError{{"auth.assertionFile", `must be an absolute path (got "token")`}}},
		{"workload without client id", func(c *Config) {
			c.Auth = &Auth{Grant: GrantJWTBearer, AssertionFile: "/run/token"}
		}, true, []FieldError{{"auth.clientId", "is required for the urn:ietf:params:oauth:grant-type:jwt-bearer grant"}}},
		{"secret without client id", func(c *Config) { c.Auth = &Auth{ClientSecretRef: csRef} }, true,
			[]FieldError{{"auth.clientId", "is required when a client secret is set"}}},
		{"private_key_jwt without key", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientAuth: PrivateKeyJWT}
		}, true, []FieldError{{"auth.privateKeyRef", "is required for private_key_jwt: add the PEM private key"}}},
		{"private_key_jwt with authorization code", func(c *Config) {
			c.Auth = &Auth{ClientID: "svc", ClientAuth: PrivateKeyJWT, PrivateKeyRef: pkRef}
		}, true, []FieldError{{"auth.clientAuth", "private_key_jwt is supported only with the client_credentials grant"}}},
		{"basic without secret", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientAuth: ClientSecretBasic}
		}, true, []FieldError{{"auth.clientSecretRef", "is required for client_secret_basic: add the client secret"}}},
		{"post with key", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientAuth: ClientSecretPost, ClientSecretRef: csRef, PrivateKeyRef: pkRef}
		}, true, []FieldError{{"auth.privateKeyRef", "is only used with private_key_jwt"}}},
		{"secret and key without method", func(c *Config) {
			c.Auth = &Auth{Grant: GrantClientCredentials, ClientID: "svc", ClientSecretRef: csRef, PrivateKeyRef: pkRef}
		}, true, []FieldError{{"auth.clientAuth", "set it to choose between the client secret and the private key"}}},
		{"scope with space", func(c *Config) { c.Auth = &Auth{Scopes: []string{"read write"}} }, true,
			[]FieldError{{"auth.scopes[0]", `must be a non-empty scope without spaces or quotes (got "read write")`}}},
		{"several problems", func(c *Config) { c.ID = ""; c.Command = ""; c.CallTimeout = -1 }, false,
			[]FieldError{
				{"id", "is required"},
				{"command", "is required for a stdio server (for example npx, uvx or a full path)"},
				{"callTimeout", "must be between 1s and 1h0m0s, or 0 for the default (1m0s); got -1ns"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := stdioConfig()
			if tt.remote {
				cfg = httpConfig()
			}
			tt.edit(&cfg)
			err := Validate(&cfg)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if got := ve.Message(tt.want[0].Field); got != tt.want[0].Message {
				t.Errorf("Message(%q) = %q", tt.want[0].Field, got)
			}
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	cfg := stdioConfig()
	cfg.ID, cfg.Command = "", ""
	err := Validate(&cfg)
	want := "invalid server config: id: is required; command: is required for a stdio server (for example npx, uvx or a full path)"
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant %s", err, want)
	}
}

func TestValidateRefusesAnotherServersSecrets(t *testing.T) {
	stdioCfg := stdioConfig()
	stdioCfg.Env = map[string]Value{"GITHUB_TOKEN": {SecretRef: "server/github/env/GITHUB_PERSONAL_ACCESS_TOKEN"},
		"OWN_TOKEN": {SecretRef: EnvSecretRef("fs", "OWN_TOKEN")}}
	remoteCfg := httpConfig()
	remoteCfg.Headers = map[string]Value{"Authorization": {SecretRef: "server/linear/header/Authorization"}}
	remoteCfg.Auth = &Auth{ClientID: "c", ClientAuth: ClientSecretPost, Grant: GrantClientCredentials,
		ClientSecretRef: "server/linear/oauth/client-secret"}
	for _, tt := range []struct {
		cfg  Config
		want []FieldError
	}{
		{stdioCfg, []FieldError{{"env.GITHUB_TOKEN", `refers to keyring entry "server/github/env/GITHUB_PERSONAL_ACCESS_TOKEN", which is not this server's (a server may only use entries under server/fs/); enter the value again`}}},
		{remoteCfg, []FieldError{
			{"headers.Authorization", `refers to keyring entry "server/linear/header/Authorization", which is not this server's (a server may only use entries under server/remote/); enter the value again`},
			{"auth.clientSecretRef", `refers to keyring entry "server/linear/oauth/client-secret", which is not this server's (a server may only use entries under server/remote/); enter the value again`},
		}},
	} {
		err := Validate(&tt.cfg)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: Validate = %v, want a *ValidationError", tt.cfg.ID, err)
		}
		if diff := cmp.Diff(tt.want, ve.Errors); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tt.cfg.ID, diff)
		}
	}
}

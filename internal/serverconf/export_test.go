package serverconf

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// exportable are configs every format can carry: enabled, no timeout, no
// disabled tools, no OAuth settings.
func exportable() []Config {
	return []Config{
		with(stdio("filesystem", "Filesystem", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop"),
			func(c *Config) { c.Env = plain("LOG_LEVEL", "debug") }),
		with(stdio("postgres-read-only", "Postgres (read only)", "uvx", "mcp-server-postgres"),
			func(c *Config) { c.Cwd = "/srv/db" }),
		stdio("no-args", "no-args", "/usr/local/bin/my-server"),
		// The display name does not slug to the ID, so the ID names the entry.
		stdio("gh", "GitHub CLI", "gh-mcp"),
		with(remote("sentry", "sentry", TransportHTTP, "https://mcp.sentry.dev/mcp"),
			func(c *Config) { c.Headers = plain("X-Team", "platform") }),
		remote("linear", "linear", TransportSSE, "https://mcp.linear.app/sse"),
	}
}

func withSecrets() []Config {
	return []Config{
		with(stdio("github", "github", "npx", "-y", "@modelcontextprotocol/server-github"), func(c *Config) {
			c.Env = map[string]Value{
				"GITHUB_PERSONAL_ACCESS_TOKEN": {SecretRef: EnvSecretRef("github", "GITHUB_PERSONAL_ACCESS_TOKEN")},
				"GITHUB_HOST":                  {Plain: "github.example.com"},
			}
		}),
		with(remote("api", "api", TransportHTTP, "https://api.example.com/mcp"), func(c *Config) {
			c.Headers = map[string]Value{"Authorization": {SecretRef: HeaderSecretRef("api", "Authorization")}}
		}),
	}
}

func TestExportRoundTrip(t *testing.T) {
	for _, format := range []string{"claude", "vscode", "cursor"} {
		t.Run(format, func(t *testing.T) {
			cfgs := exportable()
			data, warnings, err := ExportWithWarnings(cfgs, format)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %q", warnings)
			}
			r, err := Import(data, nil)
			if err != nil {
				t.Fatalf("Import(Export): %v\n%s", err, data)
			}
			want := cfgs
			want[3].Name = "gh" // exported under its ID
			if diff := cmp.Diff(want, r.Added); diff != "" {
				t.Errorf("Import(Export(x)) (-want +got):\n%s\n%s", diff, data)
			}
			if len(r.Skipped)+len(r.Failed)+len(r.Warnings)+len(r.NeedsInput) != 0 {
				t.Errorf("report not clean: %+v", r)
			}
			// Re-importing next to the originals skips every entry.
			r, err = Import(data, cfgs)
			if err != nil || len(r.Added) != 0 || len(r.Skipped) != len(cfgs) {
				t.Errorf("re-import next to originals: added %d, skipped %d, err %v", len(r.Added), len(r.Skipped), err)
			}
		})
	}
}

func TestExportSecretsVSCode(t *testing.T) {
	cfgs := withSecrets()
	data, warnings, err := ExportWithWarnings(cfgs, "vscode")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	var file struct {
		Servers map[string]struct {
			Env     map[string]string `json:"env"`
			Headers map[string]string `json:"headers"`
		} `json:"servers"`
		Inputs []inputEntry `json:"inputs"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if got := file.Servers["github"].Env["GITHUB_PERSONAL_ACCESS_TOKEN"]; got != "${input:github-github_personal_access_token}" {
		t.Errorf("secret env exported as %q", got)
	}
	if got := file.Servers["api"].Headers["Authorization"]; got != "${input:api-authorization}" {
		t.Errorf("secret header exported as %q", got)
	}
	wantInputs := []inputEntry{
		{Type: "promptString", ID: "github-github_personal_access_token", Description: "github: GITHUB_PERSONAL_ACCESS_TOKEN", Password: true},
		{Type: "promptString", ID: "api-authorization", Description: "api: Authorization header (the whole value)", Password: true},
	}
	if diff := cmp.Diff(wantInputs, file.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}

	// The round trip brings back the same secret references, and asks for them.
	r, err := Import(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfgs, r.Added); diff != "" {
		t.Errorf("Import(Export(x)) (-want +got):\n%s", diff)
	}
	var refs []string
	for _, in := range r.NeedsInput {
		refs = append(refs, in.Ref)
	}
	wantRefs := []string{"server/github/env/GITHUB_PERSONAL_ACCESS_TOKEN", "server/api/header/Authorization"}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("NeedsInput refs (-want +got):\n%s", diff)
	}
}

func TestExportSecretsClaudeCursor(t *testing.T) {
	for _, format := range []string{"claude", "cursor"} {
		t.Run(format, func(t *testing.T) {
			cfgs := withSecrets()
			data, warnings, err := ExportWithWarnings(cfgs, format)
			if err != nil {
				t.Fatal(err)
			}
			wantWarnings := []string{
				`server "github": env GITHUB_PERSONAL_ACCESS_TOKEN is a secret and was exported empty; fill it in`,
				`server "api": header Authorization is a secret and was exported empty; fill it in`,
			}
			if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if strings.Contains(string(data), "server/") {
				t.Errorf("a secret reference leaked into the file:\n%s", data)
			}
			r, err := Import(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := withSecrets()
			want[0].Env["GITHUB_PERSONAL_ACCESS_TOKEN"] = Value{}
			want[1].Headers["Authorization"] = Value{}
			if diff := cmp.Diff(want, r.Added); diff != "" {
				t.Errorf("Import(Export(x)) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportClaudeShape(t *testing.T) {
	data, err := Export(exportable()[4:6], "claude")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "mcpServers": {
    "sentry": {
      "type": "http",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {
        "X-Team": "platform"
      }
    },
    "linear": {
      "type": "sse",
      "url": "https://mcp.linear.app/sse"
    }
  }
}
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("claude export (-want +got):\n%s", diff)
	}
	data, err = Export(exportable()[4:6], "cursor")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"type": "http"`) || !strings.Contains(string(data), `"type": "sse"`) {
		t.Errorf("cursor export should omit type for http and keep it for sse:\n%s", data)
	}
}

func TestExportWarnings(t *testing.T) {
	cfg := with(remote("api", "API", TransportHTTP, "https://api.example.com/mcp"), func(c *Config) {
		c.Enabled = false
		c.CallTimeout = 2 * time.Minute
		c.DisabledTools = []string{"delete"}
		c.Auth = &Auth{ClientID: "client", ClientSecretRef: ClientSecretRef("api"), Scopes: []string{"read"}}
	})
	_, warnings, err := ExportWithWarnings([]Config{cfg}, "vscode")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`server "API": its OAuth client settings are not exported`,
		`server "API": is disabled in Switchboard but the vscode format has no off switch; it is exported enabled`,
		`server "API": its call timeout (2m0s) is not exported`,
		`server "API": its disabled tools are not exported`,
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	// Cursor carries the OAuth client, without its secret.
	cfg.Enabled, cfg.CallTimeout, cfg.DisabledTools = true, 0, nil
	data, warnings, err := ExportWithWarnings([]Config{cfg}, "cursor")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`server "API": its OAuth client secret was exported empty; fill it in`}, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	r, err := Import(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want2 := cfg
	want2.Auth = &Auth{ClientID: "client", Scopes: []string{"read"}}
	if diff := cmp.Diff([]Config{want2}, r.Added); diff != "" {
		t.Errorf("Import(Export(cursor)) (-want +got):\n%s", diff)
	}
}

func TestExportUnknownFormat(t *testing.T) {
	_, err := Export(nil, "windsurf")
	if err == nil || err.Error() != `unknown export format "windsurf": use claude, vscode or cursor` {
		t.Errorf("err = %v", err)
	}
}

func TestExportEmpty(t *testing.T) {
	data, err := Export(nil, "vscode")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"servers\": {},\n  \"inputs\": []\n}\n"; string(data) != want {
		t.Errorf("got %q, want %q", data, want)
	}
}

// withPlainSecrets are configs holding secrets outside the keyring: args
// with a password (as placeholder and, from an older version, written out)
// and plain values that look secret.
func withPlainSecrets() []Config {
	return []Config{
		with(stdio("pg", "pg", "uvx", "mcp-pg", "postgresql://u:${secret:arg1}@db/x", "--replica=postgresql://r:hunter2@db2/x"), func(c *Config) {
			c.Env = map[string]Value{
				"GITHUB_PAT":   {Plain: "ghp_legacy"},
				"DATABASE_URL": {Plain: "postgres://a:urlpass@h/d"},
				"LOG_LEVEL":    {Plain: "debug"},
			}
		}),
	}
}

func TestExportLeavesOutPasswords(t *testing.T) {
	for _, format := range []string{"claude", "cursor", "vscode"} {
		t.Run(format, func(t *testing.T) {
			data, warnings, err := ExportWithWarnings(withPlainSecrets(), format)
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{"hunter2", "ghp_legacy", "urlpass", "server/", "${secret:"} {
				if strings.Contains(string(data), secret) {
					t.Errorf("the file holds %q:\n%s", secret, data)
				}
			}
			var file struct {
				MCPServers map[string]struct {
					Args []string          `json:"args"`
					Env  map[string]string `json:"env"`
				} `json:"mcpServers"`
				Servers map[string]struct {
					Args []string          `json:"args"`
					Env  map[string]string `json:"env"`
				} `json:"servers"`
				Inputs []inputEntry `json:"inputs"`
			}
			if err := json.Unmarshal(data, &file); err != nil {
				t.Fatal(err)
			}
			if format == "vscode" {
				got := file.Servers["pg"]
				want := []string{"mcp-pg", "postgresql://u:${input:pg-arg1}@db/x", "--replica=postgresql://r:${input:pg-arg2}@db2/x"}
				if diff := cmp.Diff(want, got.Args); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
				if got.Env["GITHUB_PAT"] != "${input:pg-github_pat}" || got.Env["LOG_LEVEL"] != "debug" {
					t.Errorf("env = %v", got.Env)
				}
				if len(file.Inputs) != 4 || len(warnings) != 0 {
					t.Errorf("inputs %v, warnings %q", file.Inputs, warnings)
				}
				return
			}
			got := file.MCPServers["pg"]
			want := []string{"mcp-pg", "postgresql://u:@db/x", "--replica=postgresql://r:@db2/x"}
			if diff := cmp.Diff(want, got.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			wantWarnings := []string{
				`server "pg": args[1] holds a password, which was left out; fill it in`,
				`server "pg": args[2] holds a password, which was left out; fill it in`,
				`server "pg": env DATABASE_URL is a secret and was exported empty; fill it in`,
				`server "pg": env GITHUB_PAT is a secret and was exported empty; fill it in`,
			}
			if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExportWarnsAboutInheritEnv(t *testing.T) {
	cfg := with(stdio("pw", "pw", "npx", "@playwright/mcp"), func(c *Config) { c.InheritEnv = true })
	_, warnings, err := ExportWithWarnings([]Config{cfg}, "claude")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`server "pw": inherits your whole environment in Switchboard, which the claude format cannot say; add the variables it needs to its env`}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

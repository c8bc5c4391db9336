package serverconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func importFile(t *testing.T, name string, existing []Config) *ImportReport {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Import(data, existing)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	for _, cfg := range r.Added {
		if err := Validate(&cfg); err != nil {
			t.Errorf("Added config %s does not validate: %v", cfg.ID, err)
		}
	}
	return r
}

func notes(ns []ImportNote) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.String())
	}
	return out
}

func plain(kv ...string) map[string]Value {
	m := map[string]Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = Value{Plain: kv[i+1]}
	}
	return m
}

func stdio(id, name, command string, args ...string) Config {
	return Config{ID: id, Name: name, Transport: TransportStdio, Command: command, Args: args, Enabled: true}
}

func remote(id, name string, tr Transport, url string) Config {
	return Config{ID: id, Name: name, Transport: tr, URL: url, Enabled: true}
}

func with(c Config, edit func(*Config)) Config { edit(&c); return c }

func TestImportClaudeDesktop(t *testing.T) {
	r := importFile(t, "claude_desktop_config.json", nil)
	want := []Config{
		stdio("filesystem", "filesystem", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"),
		with(stdio("github", "github", "docker", "run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"),
			func(c *Config) { c.Env = plain("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_exampleexampleexampleexample0000") }),
		with(stdio("brave-search", "brave-search", "npx", "-y", "@modelcontextprotocol/server-brave-search"),
			func(c *Config) { c.Env = plain("BRAVE_API_KEY", "BSAexampleexample") }),
		stdio("sqlite", "sqlite", "uvx", "mcp-server-sqlite", "--db-path", "/Users/ada/test.db"),
		with(stdio("memory", "memory", "npx", "-y", "@modelcontextprotocol/server-memory"),
			func(c *Config) { c.Env = plain("MEMORY_FILE_PATH", "/Users/ada/.claude/memory.json") }),
		with(stdio("postgres-read-only", "Postgres (read only)", "/opt/homebrew/bin/npx", "-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"),
			func(c *Config) { c.Cwd = "/Users/ada/src/app" }),
	}
	if r.Format != FormatClaude {
		t.Errorf("Format = %q, want claude", r.Format)
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`top-level field "globalShortcut" ignored`}, notes(r.Warnings)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	if len(r.Skipped)+len(r.Failed)+len(r.NeedsInput) != 0 {
		t.Errorf("unexpected Skipped %v, Failed %v, NeedsInput %v", r.Skipped, r.Failed, r.NeedsInput)
	}
}

func TestImportClaudeWindowsPaths(t *testing.T) {
	r := importFile(t, "claude_windows.json", nil)
	want := []Config{
		stdio("filesystem", "filesystem", "cmd", "/c", "npx", "-y", "@modelcontextprotocol/server-filesystem", `C:\Users\ada\Desktop`),
		with(stdio("everything", "everything", `C:\Program Files\nodejs\npx.cmd`, "-y", "@modelcontextprotocol/server-everything"),
			func(c *Config) { c.Env = plain("APPDATA", `C:\Users\ada\AppData\Roaming\`) }),
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
}

func TestImportClaudeCodeRemote(t *testing.T) {
	r := importFile(t, "claude_code_mcp.json", nil)
	want := []Config{
		remote("sentry", "sentry", TransportHTTP, "https://mcp.sentry.dev/mcp"),
		remote("linear", "linear", TransportSSE, "https://mcp.linear.app/sse"),
		with(remote("internal-api", "internal-api", TransportHTTP, "https://api.example.com/mcp"),
			func(c *Config) {
				c.Headers = plain("Authorization", "Bearer sk-example-not-real", "X-Team", "platform")
			}),
		with(stdio("airtable", "airtable", "npx", "-y", "airtable-mcp-server"),
			func(c *Config) { c.Env = plain("AIRTABLE_API_KEY", "patExample.0000") }),
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("Warnings = %v", notes(r.Warnings))
	}
}

func TestImportVSCode(t *testing.T) {
	r := importFile(t, "vscode_mcp.json", nil)
	want := []Config{
		with(stdio("perplexity", "Perplexity", "npx", "-y", "server-perplexity-ask"),
			func(c *Config) {
				c.Env = map[string]Value{"PERPLEXITY_API_KEY": {SecretRef: "server/perplexity/env/PERPLEXITY_API_KEY"}}
			}),
		with(remote("github", "github", TransportHTTP, "https://api.githubcopilot.com/mcp/"),
			func(c *Config) {
				c.Headers = map[string]Value{"Authorization": {SecretRef: "server/github/header/Authorization"}}
			}),
		stdio("fetch", "fetch", "uvx", "mcp-server-fetch"),
		with(stdio("my-dev-server", "my-dev-server", "node", "build/index.js"), func(c *Config) { c.Cwd = "/home/ada/src/my-server" }),
		remote("legacy-sse", "legacy-sse", TransportSSE, "http://localhost:3001/sse"),
		stdio("playwright", "playwright", "npx", "@playwright/mcp@latest"),
	}
	if r.Format != FormatVSCode {
		t.Errorf("Format = %q, want vscode", r.Format)
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	wantNeeds := []SecretInput{
		{ServerID: "perplexity", Field: "env.PERPLEXITY_API_KEY", Ref: "server/perplexity/env/PERPLEXITY_API_KEY",
			Template: "${input:perplexity-key}", Inputs: []InputPrompt{{ID: "perplexity-key", Description: "Perplexity API Key", Password: true}}},
		{ServerID: "github", Field: "headers.Authorization", Ref: "server/github/header/Authorization",
			Template: "Bearer ${input:github_token}", Inputs: []InputPrompt{{ID: "github_token", Description: "GitHub Personal Access Token", Password: true}}},
	}
	if diff := cmp.Diff(wantNeeds, r.NeedsInput); diff != "" {
		t.Errorf("NeedsInput (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		`server "fetch": envFile is not supported; add its variables to env`,
		`server "my-dev-server": dev (watch and debug) settings are not supported`,
	}
	if diff := cmp.Diff(wantWarnings, notes(r.Warnings)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
}

func TestImportVSCodeSettings(t *testing.T) {
	r := importFile(t, "vscode_settings.json", nil)
	want := []Config{stdio("time", "time", "uvx", "mcp-server-time", "--local-timezone=Europe/Paris")}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	if r.Format != FormatVSCode || len(r.Warnings) != 0 {
		t.Errorf("Format = %q, Warnings = %v; want vscode and no warnings about other settings", r.Format, notes(r.Warnings))
	}
}

func TestImportCursor(t *testing.T) {
	r := importFile(t, "cursor_mcp.json", nil)
	want := []Config{
		with(remote("context7", "context7", TransportHTTP, "https://mcp.context7.com/mcp"),
			func(c *Config) { c.Headers = plain("CONTEXT7_API_KEY", "ctx7sk-example") }),
		remote("figma", "figma", TransportSSE, "http://127.0.0.1:3845/sse"),
		with(stdio("supabase", "supabase", "npx", "-y", "@supabase/mcp-server-supabase@latest", "--read-only", "--project-ref=abcdefgh"),
			func(c *Config) { c.Env = plain("SUPABASE_ACCESS_TOKEN", "${env:SUPABASE_ACCESS_TOKEN}") }),
		with(remote("oauth-server", "oauth-server", TransportHTTP, "https://mcp.example.com/mcp"),
			func(c *Config) {
				c.Auth = &Auth{ClientID: "cursor-client-123", ClientSecretRef: "server/oauth-server/oauth/client-secret", Scopes: []string{"read", "write"}}
			}),
		with(stdio("notion", "notion", "npx", "-y", "@notionhq/notion-mcp-server"),
			func(c *Config) { c.Env = plain("NOTION_TOKEN", "ntn_example"); c.Enabled = false }),
	}
	if r.Format != FormatCursor {
		t.Errorf("Format = %q, want cursor", r.Format)
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		`server "supabase": env.SUPABASE_ACCESS_TOKEN uses ${env:SUPABASE_ACCESS_TOKEN}, which Switchboard does not expand; edit the value`,
		`server "oauth-server": the OAuth client secret was not imported; enter it in the server's settings`,
		`server "notion": auto-approval lists are not imported; approve tools in Switchboard`,
	}
	if diff := cmp.Diff(wantWarnings, notes(r.Warnings)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	if len(r.NeedsInput) != 1 || r.NeedsInput[0].Ref != "server/oauth-server/oauth/client-secret" {
		t.Errorf("NeedsInput = %+v, want the OAuth client secret", r.NeedsInput)
	}
	for _, in := range r.NeedsInput {
		if strings.Contains(in.Template, "not-a-real-secret") {
			t.Error("the client secret leaked into the report")
		}
	}
}

func TestImportDuplicates(t *testing.T) {
	r := importFile(t, "duplicates.json", nil)
	want := []Config{
		stdio("memory", "memory", "npx", "-y", "@modelcontextprotocol/server-memory"),
		stdio("my-server", "My Server", "node", "a.js"),
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		`server "memory": same ID "memory" as entry "memory" earlier in this file`,
		`server "Memory Again": same command as entry "memory" earlier in this file`,
		`server "my-server": same ID "my-server" as entry "My Server" earlier in this file`,
	}
	if diff := cmp.Diff(wantSkipped, notes(r.Skipped)); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
}

func TestImportSkipsExisting(t *testing.T) {
	existing := []Config{
		stdio("fs", "My files", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"),
		stdio("github", "GitHub", "gh-mcp"),
		remote("sentry-prod", "Sentry", TransportHTTP, "HTTPS://MCP.SENTRY.DEV/mcp"),
	}
	r := importFile(t, "claude_desktop_config.json", existing)
	wantSkipped := []string{
		`server "filesystem": same command as existing server "My files"`,
		`server "github": a server with ID "github" already exists`,
	}
	if diff := cmp.Diff(wantSkipped, notes(r.Skipped)); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
	if len(r.Added) != 4 {
		t.Errorf("Added %d configs, want 4", len(r.Added))
	}

	r = importFile(t, "claude_code_mcp.json", existing)
	if diff := cmp.Diff([]string{`server "sentry": same URL as existing server "Sentry"`}, notes(r.Skipped)); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
}

func TestImportBadEntries(t *testing.T) {
	r := importFile(t, "bad_entries.json", nil)
	wantFailed := []string{
		`server "number-command": command must be a string, not number`,
		`server "args-string": args must be an array of strings, not string`,
		`server "args-mixed": args[1] must be a string, not number`,
		`server "env-array": env must be an object of names to string values, not array`,
		`server "env-object-value": env.A must be a string, not object`,
		`server "nothing": needs a command (local server) or a url (remote server)`,
		`server "both": has both a command and a url; keep one, or set type`,
		`server "not-an-object": must be an object with a command or a url, not string`,
		`server "relative-url": url: must be an absolute http:// or https:// URL (got "/mcp")`,
		`server "ftp-url": url: must be an absolute http:// or https:// URL (got "ftp://example.com/sse")`,
		"server \"bad-header\": headers.Bad Header: name must be a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)",
		`server "bad-env-name": env.1BAD: name must be letters, digits and _, not starting with a digit`,
		`server "unknown-type": type "websocket" is not supported: use stdio, sse or http`,
	}
	if diff := cmp.Diff(wantFailed, notes(r.Failed)); diff != "" {
		t.Errorf("Failed (-want +got):\n%s", diff)
	}
	want := []Config{with(stdio("good", "good", "npx", "-y", "ok"), func(c *Config) { c.Env = plain("PORT", "8080") })}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		`server "good": unknown field "color" ignored`,
		`server "good": env.PORT is a number; imported as the string "8080"`,
	}
	if diff := cmp.Diff(wantWarnings, notes(r.Warnings)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
}

func TestImportFileErrors(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct{ name, data, want string }{
		{"empty", "", "file is empty"},
		{"spaces", " \n\t", "file is empty"},
		{"syntax", read("bad_syntax.json"), `file is not valid JSON: line 5, column 21: invalid character '"' after array value (expecting ',' or ']')`},
		{"truncated", `{"mcpServers": {"a": {"command": "npx"`, "file is not valid JSON: line 1, column 39: parsing object after value: unexpected EOF"},
		{"yaml", "mcpServers:\n  a:\n    command: npx\n", "file is not valid JSON: line 1, column 1: invalid literal: mcpServers"},
		{"array", read("not_object.json"), "file must contain a JSON object at the top level, not array"},
		{"string", `"hello"`, "file must contain a JSON object at the top level, not string"},
		{"null", `null`, "file must contain a JSON object at the top level, not null"},
		{"unknown shape", read("unknown_shape.json"), `no MCP servers found: expected a "mcpServers" object (claude_desktop_config.json, ~/.cursor/mcp.json) or a "servers" object (VS Code mcp.json)`},
		{"servers not object", `{"mcpServers": ["a"]}`, `"mcpServers" must be an object mapping server names to their settings, not array`},
		{"vscode servers null", `{"servers": null}`, `"servers" must be an object mapping server names to their settings, not null`},
		{"both shapes", `{"mcpServers": {}, "servers": {}}`, `file has both "mcpServers" (Claude Desktop, Cursor) and "servers" (VS Code); keep one`},
		{"too large", `{"mcpServers": {}, "pad": "` + strings.Repeat("x", MaxImportSize) + `"}`, "file is too large"},
		{"too deep", strings.Repeat("[", MaxImportSize), "file nests objects and arrays more than 1000 deep"},
		{"long bad literal", `{"mcpServers": {}, "pad": "` + strings.Repeat("x", 1<<20) + "\n\"}", `file is not valid JSON: line 1, column 27: invalid literal: "xxx`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Import([]byte(tt.data), nil)
			if err == nil {
				t.Fatalf("Import = %+v, want error %q", r, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %.300q\nwant   %q", err, tt.want)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error is %d bytes long; want a short message", len(err.Error()))
			}
		})
	}
}

func TestImportLenientSyntax(t *testing.T) {
	data := "\xef\xbb\xbf" + `{
	  // a comment with "quotes" and a , comma
	  "servers": {
	    /* block
	       comment */
	    "a": {"command": "npx", "args": ["//not a comment", "/*nor this*/",],},
	  },
	}`
	r, err := Import([]byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Config{stdio("a", "a", "npx", "//not a comment", "/*nor this*/")}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}

	// Brackets in strings and comments do not count towards the nesting bound.
	deep := strings.Repeat("[", 2000)
	r, err = Import([]byte(`{"mcpServers": {"a": {"command": "npx", "args": ["`+deep+`"]}}} // `+deep+"\n/* \"*/ /*"+deep+"*/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Config{stdio("a", "a", "npx", deep)}, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}

	// A syntax error after a comment is still reported at its place in the file.
	_, err = Import([]byte("{\n  // comment\n  \"servers\": {\"a\" 1}\n}"), nil)
	if err == nil || !strings.Contains(err.Error(), "line 3, column 19") {
		t.Errorf("error = %v, want line 3, column 19", err)
	}
}

func TestImportEntryDetails(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     []Config
		failed   []string
		warnings []string
	}{
		{
			name: "remote without type is streamable http",
			data: `{"mcpServers": {"r": {"url": "https://example.com/mcp"}}}`,
			want: []Config{remote("r", "r", TransportHTTP, "https://example.com/mcp")},
		},
		{
			name:     "remote without type ending in /sse",
			data:     `{"mcpServers": {"r": {"url": "https://example.com/sse"}}}`,
			want:     []Config{remote("r", "r", TransportHTTP, "https://example.com/sse")},
			warnings: []string{`server "r": url ends in /sse but no type is given, so it was imported as streamable HTTP; switch the transport to SSE if the server only speaks SSE`},
		},
		{
			name: "streamable-http spellings and Cline transportType",
			data: `{"mcpServers": {"a": {"type": "streamable-http", "url": "https://a.example.com/mcp"}, "b": {"type": "streamableHttp", "url": "https://b.example.com/mcp"}, "c": {"transportType": "sse", "url": "https://c.example.com/sse", "timeout": 120}}}`,
			want: []Config{
				remote("a", "a", TransportHTTP, "https://a.example.com/mcp"),
				remote("b", "b", TransportHTTP, "https://b.example.com/mcp"),
				with(remote("c", "c", TransportSSE, "https://c.example.com/sse"), func(c *Config) { c.CallTimeout = 2 * time.Minute }),
			},
		},
		{
			name:     "type decides between command and url",
			data:     `{"mcpServers": {"a": {"type": "stdio", "command": "npx", "url": "https://example.com"}}}`,
			want:     []Config{stdio("a", "a", "npx")},
			warnings: []string{`server "a": url ignored: the server runs a command`},
		},
		{
			name: "type without what it needs",
			data: `{"servers": {"a": {"type": "stdio", "url": "https://example.com"}, "b": {"type": "http", "command": "npx"}, "c": {"type": 1, "command": "npx"}}}`,
			failed: []string{
				`server "a": type is "stdio" but there is no command`,
				`server "b": type is "http" but there is no url`,
				`server "c": type must be a string, not number`,
			},
		},
		{
			name: "null fields are absent",
			data: `{"mcpServers": {"a": {"command": "npx", "args": null, "env": null}}}`,
			want: []Config{stdio("a", "a", "npx")},
		},
		{
			name:     "remote with stdio fields",
			data:     `{"mcpServers": {"a": {"url": "https://example.com/mcp", "env": {"A": "b"}}}}`,
			want:     []Config{remote("a", "a", TransportHTTP, "https://example.com/mcp")},
			warnings: []string{`server "a": env ignored: the server is remote (http)`},
		},
		{
			name: "vscode input in args and undefined input",
			data: `{"servers": {"a": {"command": "npx", "args": ["--key=${input:k}"], "env": {"TOKEN": "${input:missing}"}}}}`,
			want: []Config{with(stdio("a", "a", "npx", "--key=${input:k}"),
				func(c *Config) { c.Env = map[string]Value{"TOKEN": {SecretRef: "server/a/env/TOKEN"}} })},
			warnings: []string{
				`server "a": args[0] uses ${input:k}, which Switchboard does not expand; edit the value`,
				`server "a": refers to input "missing", which the file does not define`,
			},
		},
		{
			name: "input syntax outside vscode is not special",
			data: `{"mcpServers": {"a": {"command": "npx", "env": {"TOKEN": "${input:x}"}}}}`,
			want: []Config{with(stdio("a", "a", "npx"), func(c *Config) { c.Env = plain("TOKEN", "${input:x}") })},
			warnings: []string{
				`server "a": env.TOKEN uses ${input:x}, which Switchboard does not expand; edit the value`,
			},
		},
		{
			name:     "no servers",
			data:     `{"mcpServers": {}}`,
			warnings: []string{"the file lists no servers"},
		},
		{
			name:   "bad timeout fails validation",
			data:   `{"mcpServers": {"a": {"command": "npx", "timeout": 7200}}}`,
			failed: []string{`server "a": callTimeout: must be between 1s and 1h0m0s, or 0 for the default (1m0s); got 2h0m0s`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Import([]byte(tt.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Added, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Added (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.failed, notes(r.Failed), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Failed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, notes(r.Warnings), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzImport checks that Import never panics and that everything it adds
// is valid, unique and new.
func FuzzImport(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	existing := []Config{stdio("memory", "memory", "npx", "-y", "@modelcontextprotocol/server-memory")}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Import(data, existing)
		if err != nil {
			if r != nil {
				t.Fatal("Import returned both a report and an error")
			}
			return
		}
		ids := map[string]bool{"memory": true}
		fps := map[string]bool{Fingerprint(&existing[0]): true}
		for _, cfg := range r.Added {
			if err := Validate(&cfg); err != nil {
				t.Fatalf("Added config does not validate: %v\n%+v", err, cfg)
			}
			if ids[cfg.ID] {
				t.Fatalf("ID %q added twice or already existing", cfg.ID)
			}
			ids[cfg.ID] = true
			fp := Fingerprint(&cfg)
			if fps[fp] {
				t.Fatalf("config %q duplicates another's fingerprint", cfg.ID)
			}
			fps[fp] = true
		}
		for _, in := range r.NeedsInput {
			if !ids[in.ServerID] {
				t.Fatalf("NeedsInput for %q, which was not added", in.ServerID)
			}
		}
	})
}

func TestImportRefusesKeyringReferences(t *testing.T) {
	data := []byte(`{"mcpServers": {
		"steal": {"command": "npx", "args": ["-y", "evil"], "env": {"T": {"secretRef": "server/github/env/GITHUB_TOKEN"}}},
		"db": {"command": "uvx", "args": ["mcp-pg", "postgresql://u:${secret:arg1}@db/x", "--verbose"]},
		"fine": {"command": "npx", "args": ["postgresql://u:typed-pw@db/x"]}
	}}`)
	r, err := Import(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantFailed := []string{`server "steal": env.T names keyring entry "server/github/env/GITHUB_TOKEN"; an imported file may not refer to keyring entries ` +
		`(it could read another server's secret), so this server was not imported: write the value itself instead`}
	if diff := cmp.Diff(wantFailed, notes(r.Failed)); diff != "" {
		t.Errorf("Failed (-want +got):\n%s", diff)
	}
	want := []Config{
		stdio("db", "db", "uvx", "mcp-pg", "postgresql://u:@db/x", "--verbose"),
		// A password typed into the file is the user's: the save moves it
		// to the keyring (ExtractSecrets).
		stdio("fine", "fine", "npx", "postgresql://u:typed-pw@db/x"),
	}
	if diff := cmp.Diff(want, r.Added); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	wantWarnings := []string{`server "db": args[1] refers to a keyring entry (${secret:arg1}), which an imported file may not do; ` +
		`it was removed: type the password into the argument in the server's settings`}
	if diff := cmp.Diff(wantWarnings, notes(r.Warnings)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	for _, cfg := range r.Added {
		for _, ref := range SecretRefs(&cfg) {
			t.Errorf("imported %s refers to keyring entry %s", cfg.ID, ref)
		}
	}
}

// TestImportErrNamesEveryBadServer: a file with one URL lacking its scheme
// among good servers is refused as a whole, and the error names the server
// and the field.
func TestImportErrNamesEveryBadServer(t *testing.T) {
	r, err := Import([]byte(`{"mcpServers": {
		"good": {"command": "mcp-good"},
		"noscheme": {"url": "example.com/mcp"},
		"badargs": {"command": "x", "args": [7]}
	}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Err()
	if err == nil {
		t.Fatalf("Err() = nil with failed entries %v", notes(r.Failed))
	}
	for _, want := range []string{`"noscheme": url`, `"badargs": args[0]`, "nothing was imported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	ok, _ := Import([]byte(`{"mcpServers": {"good": {"command": "mcp-good"}}}`), nil)
	if ok.Err() != nil {
		t.Errorf("Err() of a clean import = %v", ok.Err())
	}
}

// TestImportFileResolvesRelativePaths: a relative command and a script
// argument that exists next to the config file are made absolute against
// the file's directory, and the report says so; without a directory they
// are left alone with a warning.
func TestImportFileResolvesRelativePaths(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "build"), 0o700)
	os.WriteFile(filepath.Join(dir, "build", "index.js"), []byte("//"), 0o600)
	os.WriteFile(filepath.Join(dir, "server.js"), []byte("//"), 0o600)
	data := []byte(`{"mcpServers": {
		"node": {"command": "node", "args": ["build/index.js", "--port", "3000", "@scope/pkg", "missing.js"]},
		"local": {"command": "./server.js"},
		"withcwd": {"command": "./run.sh", "args": ["x.js"], "cwd": "sub"},
		"npx": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
	}}`)
	r, err := ImportFile(data, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Config{
		stdio("node", "node", "node", filepath.Join(dir, "build", "index.js"), "--port", "3000", "@scope/pkg", "missing.js"),
		stdio("local", "local", filepath.Join(dir, "server.js")),
		with(stdio("withcwd", "withcwd", "./run.sh", "x.js"), func(c *Config) { c.Cwd = filepath.Join(dir, "sub") }),
		stdio("npx", "npx", "npx", "-y", "@modelcontextprotocol/server-memory"),
	}
	if diff := cmp.Diff(want, r.Added, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Added (-want +got):\n%s", diff)
	}
	ws := strings.Join(notes(r.Warnings), "\n")
	for _, w := range []string{
		`server "node": args[0] "build/index.js" was resolved against the config file's directory: ` + filepath.Join(dir, "build", "index.js"),
		`server "local": command "./server.js" was resolved against the config file's directory`,
		`server "withcwd": cwd "sub" was resolved`,
	} {
		if !strings.Contains(ws, w) {
			t.Errorf("warnings lack %q:\n%s", w, ws)
		}
	}

	// Pasted text: no directory, so nothing changes, with warnings.
	r, err = Import(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Added[0].Args[0]; got != "build/index.js" {
		t.Errorf("without a directory, args[0] = %q", got)
	}
	if got := r.Added[1].Command; got != "./server.js" {
		t.Errorf("without a directory, command = %q", got)
	}
	ws = strings.Join(notes(r.Warnings), "\n")
	for _, w := range []string{`server "node": args[0] "build/index.js" looks like a relative path`, `server "local": command "./server.js" is a relative path`} {
		if !strings.Contains(ws, w) {
			t.Errorf("warnings lack %q:\n%s", w, ws)
		}
	}
	if strings.Contains(ws, "server-memory") {
		t.Errorf("an npm package was taken for a path:\n%s", ws)
	}
}

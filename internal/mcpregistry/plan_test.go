package mcpregistry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/mcpregistry"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// fakeKeyring records what Apply stores.
type fakeKeyring map[string]string

func (k fakeKeyring) put(ref, value string) error { k[ref] = value; return nil }

func (k fakeKeyring) get(ref string) (string, error) {
	v, ok := k[ref]
	if !ok {
		return "", errors.New("not found")
	}
	return v, nil
}

// entry gets one fixture entry through the client, as the app would.
func entry(t *testing.T, name string) mcpregistry.Entry {
	t.Helper()
	e, err := newRegistry(t, nil).Get(context.Background(), name, "")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func plan(t *testing.T, e mcpregistry.Entry, choice int) mcpregistry.Plan {
	t.Helper()
	p, err := mcpregistry.PlanInstall(e, choice)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fieldErrors is what Check or Apply said, field by field.
func fieldErrors(t *testing.T, err error) map[string]string {
	t.Helper()
	var ve *serverconf.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *serverconf.ValidationError", err)
	}
	out := map[string]string{}
	for _, fe := range ve.Errors {
		out[fe.Field] = fe.Message
	}
	return out
}

func TestPlanNPM(t *testing.T) {
	e := entry(t, "io.github.modelcontextprotocol/server-sequential-thinking")
	if diff := cmp.Diff([]mcpregistry.Option{{Kind: mcpregistry.KindNPM, Label: "npm @modelcontextprotocol/server-sequential-thinking 2026.8.31 (stdio)"}}, mcpregistry.Options(e)); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	p := plan(t, e, 0)
	want := mcpregistry.Plan{
		Kind: mcpregistry.KindNPM, ID: "sequential-thinking", Name: "Sequential Thinking",
		Package: "@modelcontextprotocol/server-sequential-thinking", Version: "2026.8.31",
		Config: serverconf.Config{ID: "sequential-thinking", Name: "Sequential Thinking"},
		Env: []mcpregistry.NamedValue{{Name: "DISABLE_THOUGHT_LOGGING", Template: mcpregistry.Template{
			Text: "{value}", Vars: map[string]string{"value": "env.DISABLE_THOUGHT_LOGGING"}}}},
		Fields: []mcpregistry.Field{{Key: "env.DISABLE_THOUGHT_LOGGING", Label: "DISABLE_THOUGHT_LOGGING",
			Description: "Set to true to stop the server logging each thought to stderr.", Default: "false", Format: "boolean"}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}

	// What the installer would make, then the user's values on top.
	cfg := serverconf.Config{ID: "st", Transport: serverconf.TransportStdio, Command: "${install}/node", Args: []string{"${install}/bin.js"}}
	if err := p.Apply(&cfg, nil, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]serverconf.Value{"DISABLE_THOUGHT_LOGGING": {Plain: "false"}}, cfg.Env); diff != "" {
		t.Errorf("env, the default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"${install}/bin.js"}, cfg.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	msgs := fieldErrors(t, p.Check(map[string]string{"env.DISABLE_THOUGHT_LOGGING": "yes", "env.TYPO": "1"}))
	if !strings.Contains(msgs["env.DISABLE_THOUGHT_LOGGING"], `must be true or false (got "yes")`) ||
		!strings.Contains(msgs["env.TYPO"], "is not a value this server takes; it takes env.DISABLE_THOUGHT_LOGGING") {
		t.Errorf("check = %v", msgs)
	}
	if got := p.CommandLine(); got != "<@modelcontextprotocol/server-sequential-thinking@2026.8.31>" {
		t.Errorf("command line = %q", got)
	}
}

func TestPlanSecretEnv(t *testing.T) {
	p := plan(t, entry(t, "io.github.brave/brave-search-mcp-server"), 0)
	if p.ID != "brave-search" || p.Registry != "" {
		t.Errorf("id %q, registry %q", p.ID, p.Registry)
	}
	msgs := fieldErrors(t, p.Check(map[string]string{"env.BRAVE_MCP_LOG_LEVEL": "loud"}))
	if diff := cmp.Diff(map[string]string{
		"env.BRAVE_API_KEY":       "is required",
		"env.BRAVE_MCP_LOG_LEVEL": `must be one of debug, info, notice, warning, error (got "loud")`,
	}, msgs); diff != "" {
		t.Errorf("check (-want +got):\n%s", diff)
	}
	keyring := fakeKeyring{}
	cfg := serverconf.Config{ID: "brave", Transport: serverconf.TransportStdio, Command: "node", Env: map[string]serverconf.Value{"KEEP": {Plain: "1"}}}
	if err := p.Apply(&cfg, map[string]string{"env.BRAVE_API_KEY": "BSA-secret"}, keyring.put); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]serverconf.Value{
		"KEEP":                {Plain: "1"},
		"BRAVE_API_KEY":       {SecretRef: "server/brave/env/BRAVE_API_KEY"},
		"BRAVE_MCP_LOG_LEVEL": {Plain: "info"},
	}, cfg.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fakeKeyring{"server/brave/env/BRAVE_API_KEY": "BSA-secret"}, keyring); diff != "" {
		t.Errorf("keyring (-want +got):\n%s", diff)
	}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Error(err)
	}

	// A secret is never repeated in an error, and a failing keyring
	// leaves the config as it was.
	if err := p.Check(map[string]string{"env.BRAVE_API_KEY": "x\x00y"}); err == nil || strings.Contains(err.Error(), "x\x00y") {
		t.Errorf("check = %v", err)
	}
	before := cfg
	err := p.Apply(&cfg, map[string]string{"env.BRAVE_API_KEY": "k"}, func(ref, value string) error { return errors.New("keyring locked") })
	if err == nil || !strings.Contains(err.Error(), "keyring locked") || !cmp.Equal(before, cfg) {
		t.Errorf("apply with a broken keyring: %v; cfg %+v", err, cfg)
	}
	if err := p.Apply(&cfg, map[string]string{"env.BRAVE_API_KEY": "k"}, nil); err == nil {
		t.Error("a secret was applied without a keyring")
	}
}

func TestPlanRepeatedArgument(t *testing.T) {
	p := plan(t, entry(t, "io.github.modelcontextprotocol/server-filesystem"), 0)
	if got := p.CommandLine(); got != "<@modelcontextprotocol/server-filesystem@2026.8.31> <allowed_directory>..." {
		t.Errorf("command line = %q", got)
	}
	if len(p.Fields) != 1 || !p.Fields[0].Repeated || !p.Fields[0].Required || p.Fields[0].Format != "filepath" || p.Fields[0].Key != "arg.allowed_directory" {
		t.Fatalf("fields = %+v", p.Fields)
	}
	if msgs := fieldErrors(t, p.Check(map[string]string{"arg.allowed_directory": "\n \n"})); msgs["arg.allowed_directory"] != "is required" {
		t.Errorf("check = %v", msgs)
	}
	cfg := serverconf.Config{ID: "fs", Args: []string{"${install}/index.js"}}
	if err := p.Apply(&cfg, map[string]string{"arg.allowed_directory": "/home/me/src\r\n/tmp/with space\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"${install}/index.js", "/home/me/src", "/tmp/with space"}, cfg.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

func TestPlanLocalHTTPPackageIsNotOffered(t *testing.T) {
	e := entry(t, "io.github.modelcontextprotocol/server-everything")
	opts := mcpregistry.Options(e)
	if len(opts) != 2 || opts[0].Kind != mcpregistry.KindNPM || opts[1].Kind != "" ||
		!strings.Contains(opts[1].Unsupported, "runs its own streamable-http server on this machine") ||
		opts[1].Label != "npm @modelcontextprotocol/server-everything 2026.8.31 (streamable-http)" {
		t.Errorf("options = %+v", opts)
	}
	if got := mcpregistry.Preferred(e); got != 0 {
		t.Errorf("preferred = %d", got)
	}
	p := plan(t, e, 0)
	cfg := serverconf.Config{ID: "everything"}
	if err := p.Apply(&cfg, nil, nil); err != nil || !cmp.Equal(cfg.Args, []string{"stdio"}) {
		t.Errorf("args %v, %v", cfg.Args, err)
	}
	if _, err := mcpregistry.PlanInstall(e, 1); err == nil {
		t.Error("planned a package that serves HTTP")
	}
	if _, err := mcpregistry.PlanInstall(e, 2); err == nil || !strings.Contains(err.Error(), "choose one from 0 to 1") {
		t.Errorf("choice 2: %v", err)
	}
}

func TestPlanPyPI(t *testing.T) {
	e := entry(t, "io.github.modelcontextprotocol/server-fetch")
	if o := mcpregistry.Options(e); len(o) != 1 || o[0].Label != "pypi mcp-server-fetch 0.6.3 (stdio, runs with uvx)" || o[0].Kind != mcpregistry.KindStdio {
		t.Errorf("options = %+v", o)
	}
	p := plan(t, e, 0)
	if p.Kind != mcpregistry.KindStdio || p.ID != "fetch" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "Runs with uvx, which Switchboard does not install") {
		t.Errorf("plan = %+v", p)
	}
	cfg := p.Config
	if err := p.Apply(&cfg, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := serverconf.Config{ID: "fetch", Name: "server-fetch", Transport: serverconf.TransportStdio, Command: "uvx", Args: []string{"mcp-server-fetch==0.6.3"}, Enabled: true}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Error(err)
	}
	if got := p.CommandLine(); got != "uvx mcp-server-fetch==0.6.3" {
		t.Errorf("command line = %q", got)
	}
}

func TestPlanDockerAndRemote(t *testing.T) {
	e := entry(t, "io.github.github/github-mcp-server")
	opts := mcpregistry.Options(e)
	if diff := cmp.Diff([]mcpregistry.Option{
		{Kind: mcpregistry.KindStdio, Label: "oci ghcr.io/github/github-mcp-server:0.20.2 (stdio, runs with docker)"},
		{Kind: mcpregistry.KindRemote, Label: "remote streamable-http https://api.githubcopilot.com/mcp/"},
	}, opts); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if got := mcpregistry.Preferred(e); got != 1 {
		t.Errorf("preferred = %d, want the remote over docker", got)
	}

	docker := plan(t, e, 0)
	if got := docker.CommandLine(); got != "docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN=<token> -e GITHUB_TOOLSETS ghcr.io/github/github-mcp-server:0.20.2" {
		t.Errorf("command line = %q", got)
	}
	keyring := fakeKeyring{}
	cfg := docker.Config
	cfg.ID = "gh"
	if err := docker.Apply(&cfg, map[string]string{"arg.e.token": "ghp_secret"}, keyring.put); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"run", "-i", "--rm", "-e", "${secret:token}", "-e", "GITHUB_TOOLSETS", "ghcr.io/github/github-mcp-server:0.20.2"}, cfg.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]serverconf.Value{"GITHUB_TOOLSETS": {Plain: "default"}}, cfg.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	args, err := serverconf.ResolveArgs(cfg.ID, cfg.Args, keyring.get)
	if err != nil || args[4] != "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_secret" {
		t.Errorf("resolved args %v, %v", args, err)
	}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Error(err)
	}

	remote := plan(t, e, 1)
	if diff := cmp.Diff([]mcpregistry.Field{{Key: "header.Authorization.token", Label: "token",
		Description: "GitHub personal access token or GitHub App token", Required: true, Secret: true}}, remote.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	keyring = fakeKeyring{}
	cfg = remote.Config
	if err := remote.Apply(&cfg, map[string]string{"header.Authorization.token": "ghp_secret"}, keyring.put); err != nil {
		t.Fatal(err)
	}
	want := serverconf.Config{ID: "github", Name: "GitHub", Transport: serverconf.TransportHTTP, URL: "https://api.githubcopilot.com/mcp/", Enabled: true,
		Headers: map[string]serverconf.Value{"Authorization": {SecretRef: "server/github/header/Authorization"}}}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if keyring["server/github/header/Authorization"] != "Bearer ghp_secret" {
		t.Errorf("keyring = %v", keyring)
	}
	if err := serverconf.Validate(&cfg); err != nil {
		t.Error(err)
	}
	if remote.CommandLine() != "" {
		t.Error("a remote has a command line")
	}
}

func TestPlanRemoteURLVariables(t *testing.T) {
	e := entry(t, "com.example/weather-remote")
	p := plan(t, e, 1)
	if p.Config.Transport != serverconf.TransportSSE || p.Config.URL != "https://{region}.weather.example.com/sse" {
		t.Errorf("config = %+v", p.Config)
	}
	msgs := fieldErrors(t, p.Check(map[string]string{"url.region": "mars", "header.X-Units": "furlongs"}))
	if !strings.HasPrefix(msgs["url.region"], "must be one of eu, us, ap") || !strings.HasPrefix(msgs["header.X-Units"], "must be one of metric, imperial") {
		t.Errorf("check = %v", msgs)
	}
	cfg := p.Config
	if err := p.Apply(&cfg, map[string]string{"url.region": "us"}, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.URL != "https://us.weather.example.com/sse" || !cmp.Equal(cfg.Headers, map[string]serverconf.Value{"X-Units": {Plain: "metric"}}) {
		t.Errorf("config = %+v", cfg)
	}
	cfg = p.Config
	if err := p.Apply(&cfg, nil, nil); err != nil || cfg.URL != "https://eu.weather.example.com/sse" {
		t.Errorf("the default region: %q, %v", cfg.URL, err)
	}
	if got := mcpregistry.Preferred(e); got != 0 {
		t.Errorf("preferred = %d", got)
	}
}

func TestPlanMCPBAndNuGet(t *testing.T) {
	p := plan(t, entry(t, "io.github.example/text-editor"), 0)
	if p.Kind != mcpregistry.KindMCPB || p.URL != "https://github.com/example/text-editor-mcpb/releases/download/v1.0.2/text-editor.mcpb" ||
		p.SHA256 != "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce" || p.Version != "1.0.2" || p.ID != "text-editor" {
		t.Errorf("mcpb plan = %+v", p)
	}

	p = plan(t, entry(t, "io.github.joelverhagen/knapcode-samplemcpserver"), 0)
	if got := p.CommandLine(); got != "dnx Knapcode.SampleMcpServer@0.6.0-beta --yes -- mcp start" {
		t.Errorf("command line = %q", got)
	}
	if msgs := fieldErrors(t, p.Check(nil)); msgs["env.WEATHER_CHOICES"] != "is required" {
		t.Errorf("check = %v", msgs)
	}
}

// TestPlanRefuses: what Switchboard cannot run, or should not, is
// refused with the reason.
func TestPlanRefuses(t *testing.T) {
	pkg := func(p mcpregistry.ServerPackage) mcpregistry.Entry {
		if p.Transport.Type == "" {
			p.Transport.Type = "stdio"
		}
		return mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Version: "1.0.0", Packages: []mcpregistry.ServerPackage{p}}}
	}
	for _, tt := range []struct {
		name string
		e    mcpregistry.Entry
		want string
	}{
		{"range", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "a", Version: "^1.0.0"}), "not an exact version"},
		{"latest", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "a", Version: "latest"}), "not an exact version"},
		{"npm flag", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "--registry=http://evil", Version: "1.0.0"}), "no valid identifier"},
		{"npm name", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "Bad Name", Version: "1.0.0"}), "is not an npm package name"},
		{"npm registry", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "a", Version: "1.0.0", RegistryBaseURL: "file:///etc"}), "not an http(s) URL"},
		{"mcpb no sum", pkg(mcpregistry.ServerPackage{RegistryType: "mcpb", Identifier: "https://github.com/a/b.mcpb"}), "gives no SHA-256"},
		{"mcpb http", pkg(mcpregistry.ServerPackage{RegistryType: "mcpb", Identifier: "http://github.com/a/b.mcpb", FileSHA256: strings.Repeat("a", 64)}), "not an https URL"},
		{"docker flag", pkg(mcpregistry.ServerPackage{RegistryType: "oci", Identifier: "--privileged"}), "no valid identifier"},
		{"docker ref", pkg(mcpregistry.ServerPackage{RegistryType: "oci", Identifier: "img;rm -rf /"}), "is not an image reference"},
		{"pypi name", pkg(mcpregistry.ServerPackage{RegistryType: "pypi", Identifier: "a b"}), "is not a PyPI package name"},
		{"cargo", pkg(mcpregistry.ServerPackage{RegistryType: "cargo", Identifier: "a", Version: "1.0.0"}), `registry type "cargo"`},
		{"env name", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "a", Version: "1.0.0",
			EnvironmentVariables: []mcpregistry.KeyValueInput{{Name: "BAD-NAME"}}}), `environment variable "BAD-NAME"`},
		{"websocket", pkg(mcpregistry.ServerPackage{RegistryType: "npm", Identifier: "a", Version: "1.0.0", Transport: mcpregistry.Transport{Type: "websocket"}}), `transport "websocket"`},
		{"nothing", mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y"}}, "lists no package and no remote"},
		{"secret in URL", mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Remotes: []mcpregistry.Transport{{Type: "sse",
			URL: "https://x.example.com/{key}/sse", Variables: map[string]mcpregistry.Input{"key": {IsSecret: true}}}}}}, "holds the secret {key}"},
		{"header name", mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Remotes: []mcpregistry.Transport{{Type: "sse",
			URL: "https://x.example.com/sse", Headers: []mcpregistry.KeyValueInput{{Name: "Bad Header"}}}}}}, `header "Bad Header"`},
		{"remote scheme", mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Remotes: []mcpregistry.Transport{{Type: "sse", URL: "file:///etc/passwd"}}}}, "not an http(s) URL"},
	} {
		_, err := mcpregistry.PlanInstall(tt.e, 0)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if got := mcpregistry.Preferred(tt.e); got != -1 {
			t.Errorf("%s: preferred = %d", tt.name, got)
		}
	}
}

func TestPlanDockerImage(t *testing.T) {
	for _, tt := range []struct{ base, id, version, want string }{
		{"", "ghcr.io/github/github-mcp-server:0.20.2", "", "ghcr.io/github/github-mcp-server:0.20.2"},
		{"https://docker.io", "mcp/filesystem", "1.0.2", "mcp/filesystem:1.0.2"},
		{"https://ghcr.io", "owner/img", "2.0.0", "ghcr.io/owner/img:2.0.0"},
		{"https://ghcr.io", "ghcr.io/owner/img", "2.0.0", "ghcr.io/owner/img:2.0.0"},
		{"", "localhost:5000/img", "3", "localhost:5000/img:3"},
		{"", "img@sha256:abcd", "1", "img@sha256:abcd"},
	} {
		e := mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Version: "1", Packages: []mcpregistry.ServerPackage{
			{RegistryType: "oci", RegistryBaseURL: tt.base, Identifier: tt.id, Version: tt.version, Transport: mcpregistry.Transport{Type: "stdio"}}}}}
		p, err := mcpregistry.PlanInstall(e, 0)
		if err != nil {
			t.Errorf("%s %s: %v", tt.base, tt.id, err)
			continue
		}
		if got := p.CommandLine(); got != "docker run -i --rm "+tt.want {
			t.Errorf("%s %s %s: %q", tt.base, tt.id, tt.version, got)
		}
	}
}

func TestSuggestID(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"io.github.modelcontextprotocol/server-memory", "memory"},
		{"io.github.modelcontextprotocol/server-sequential-thinking", "sequential-thinking"},
		{"io.github.github/github-mcp-server", "github"},
		{"io.github.brave/brave-search-mcp-server", "brave-search"},
		{"io.github.x/mcp-server-git", "git"},
		{"io.github.x/mcp", "mcp"},
		{"io.github.x/server", "server"},
		{"com.example/My.Weather_API", "my-weather_api"},
		{"com.example/" + strings.Repeat("long-", 20), "long-long-long-long-long-long-lo"},
	} {
		e := mcpregistry.Entry{Server: mcpregistry.Server{Name: tt.name}}
		if got := mcpregistry.SuggestID(e, nil); got != tt.want {
			t.Errorf("SuggestID(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	e := mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.modelcontextprotocol/server-memory"}}
	taken := func(id string) bool { return id == "memory" }
	if got := mcpregistry.SuggestID(e, taken); got != "memory-2" {
		t.Errorf("with memory taken: %q", got)
	}
}

func TestCommandLineOptionalNamedArgument(t *testing.T) {
	e := mcpregistry.Entry{Server: mcpregistry.Server{Name: "io.github.x/y", Version: "1", Packages: []mcpregistry.ServerPackage{{
		RegistryType: "pypi", Identifier: "y", Version: "1.0", Transport: mcpregistry.Transport{Type: "stdio"},
		PackageArguments: []mcpregistry.Argument{
			{Type: "named", Name: "--mode", Input: mcpregistry.Input{Choices: []string{"local", "proxy"}}},
			{Type: "named", Name: "--port", Input: mcpregistry.Input{Default: "8080", Format: "number"}},
			{Type: "positional", ValueHint: "db", Input: mcpregistry.Input{IsRequired: true}},
		}}}}}
	p := plan(t, e, 0)
	if got := p.CommandLine(); got != "uvx y==1.0 [--mode <value>] [--port <value>] <db>" {
		t.Errorf("command line = %q", got)
	}
	cfg := p.Config
	if err := p.Apply(&cfg, map[string]string{"arg.db": "it's mine"}, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"y==1.0", "--port", "8080", "it's mine"}, cfg.Args); diff != "" {
		t.Errorf("args: the empty optional flag is left out, the default one given (-want +got):\n%s", diff)
	}
	if msgs := fieldErrors(t, p.Check(map[string]string{"arg.db": "x", "arg.port": "eighty"})); msgs["arg.port"] != `must be a number (got "eighty")` {
		t.Errorf("check = %v", msgs)
	}
}

package mcpregistry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/mcpregistry"
	"github.com/switchboard-app/switchboard/test/registryserver/registry"
)

const fixture = "../../test/registryserver/testdata/servers.json"

// newRegistry serves the fixture through the local registry server and
// returns a client of it.
func newRegistry(t *testing.T, opts *registry.Options) *mcpregistry.Client {
	t.Helper()
	entries, err := registry.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.NewHandler(entries, opts))
	t.Cleanup(srv.Close)
	return &mcpregistry.Client{BaseURL: srv.URL + "/"}
}

// serveRaw returns a client of a server that answers every request with
// handler.
func serveRaw(t *testing.T, handler http.HandlerFunc) *mcpregistry.Client {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return &mcpregistry.Client{BaseURL: srv.URL}
}

func TestSearch(t *testing.T) {
	c := newRegistry(t, nil)
	page, err := c.Search(context.Background(), "memory", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 1 || page.NextCursor != "" {
		t.Fatalf("page = %+v", page)
	}
	e := page.Entries[0]
	want := mcpregistry.Server{
		Name:        "io.github.modelcontextprotocol/server-memory",
		Title:       "Knowledge Graph Memory",
		Description: "MCP server for enabling memory for Claude through a knowledge graph",
		Version:     "2026.8.31",
		Repository:  &mcpregistry.Repository{URL: "https://github.com/modelcontextprotocol/servers", Source: "github", Subfolder: "src/memory"},
		Packages: []mcpregistry.ServerPackage{{
			RegistryType: "npm", Identifier: "@modelcontextprotocol/server-memory", Version: "2026.8.31", RuntimeHint: "npx",
			Transport: mcpregistry.Transport{Type: "stdio"},
			EnvironmentVariables: []mcpregistry.KeyValueInput{{Name: "MEMORY_FILE_PATH", Input: mcpregistry.Input{
				Description: "Where the knowledge graph is kept (a .jsonl file); default: memory.jsonl next to the server.", Format: "filepath"}}},
		}},
	}
	if diff := cmp.Diff(want, e.Server); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if e.Meta.Official == nil || !e.Meta.Official.IsLatest || e.Status() != "active" || e.Meta.Official.PublishedAt != "2026-09-01T09:00:00Z" {
		t.Errorf("metadata = %+v", e.Meta.Official)
	}
}

// TestSearchPagesToTheEnd follows NextCursor until it is empty and gets
// the latest version of every server once.
func TestSearchPagesToTheEnd(t *testing.T) {
	c := newRegistry(t, nil)
	var got []string
	cursor := ""
	for pages := 1; ; pages++ {
		page, err := c.Search(context.Background(), "", cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entries) > 3 {
			t.Fatalf("page %d has %d entries", pages, len(page.Entries))
		}
		for _, e := range page.Entries {
			got = append(got, e.Server.Name+"@"+e.Server.Version)
		}
		if cursor = page.NextCursor; cursor == "" {
			if pages != 4 {
				t.Errorf("%d pages of 3 for 11 servers", pages)
			}
			break
		}
		if pages > 10 {
			t.Fatal("the pages never end")
		}
	}
	if len(got) != 11 || got[0] != "com.example/weather-remote@1.4.0" ||
		got[10] != "io.github.modelcontextprotocol/server-sequential-thinking@2026.8.31" {
		t.Errorf("servers = %v", got)
	}
}

func TestGet(t *testing.T) {
	c := newRegistry(t, nil)
	ctx := context.Background()
	e, err := c.Get(ctx, "io.github.modelcontextprotocol/server-sequential-thinking", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Server.Version != "2026.8.31" || e.Server.Title != "Sequential Thinking" {
		t.Errorf("latest = %+v", e.Server)
	}
	e, err = c.Get(ctx, "io.github.modelcontextprotocol/server-sequential-thinking", "0.6.2")
	if err != nil || e.Server.Version != "0.6.2" || e.Meta.Official.IsLatest {
		t.Errorf("0.6.2 = %+v, %v", e, err)
	}
	vs, err := c.Versions(ctx, "io.github.modelcontextprotocol/server-sequential-thinking")
	if err != nil || len(vs) != 2 || vs[0].Server.Version != "2026.8.31" {
		t.Errorf("versions = %v, %v", vs, err)
	}
	e, err = c.Get(ctx, "io.github.example/old-weather", "")
	if err != nil || e.Status() != "deprecated" || e.Meta.Official.StatusMessage != "Use com.example/weather-remote" {
		t.Errorf("deprecated = %+v, %v", e.Meta.Official, err)
	}

	for _, tt := range []struct{ name, version, want string }{
		{"io.github.nobody/nothing", "", "no server io.github.nobody/nothing in the registry at"},
		{"io.github.spammer/free-crypto-weather", "", "no server io.github.spammer/free-crypto-weather"},
		{"io.github.modelcontextprotocol/server-memory", "9.9.9", "no version 9.9.9 of io.github.modelcontextprotocol/server-memory"},
	} {
		_, err := c.Get(ctx, tt.name, tt.version)
		if !errors.Is(err, mcpregistry.ErrNotFound) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Get(%s, %q) = %v", tt.name, tt.version, err)
		}
	}
	for _, bad := range []string{"", "no-slash", "a/b/c", "../../etc/passwd", "io.github.x/y?z", strings.Repeat("a", 200) + "/b"} {
		if _, err := c.Get(ctx, bad, ""); err == nil || !strings.Contains(err.Error(), "not a registry server name") {
			t.Errorf("Get(%q) = %v", bad, err)
		}
	}
}

// TestFallsBackToV0 reads a registry that serves only /v0, as older
// subregistries do.
func TestFallsBackToV0(t *testing.T) {
	c := newRegistry(t, &registry.Options{Prefixes: []string{"/v0"}})
	page, err := c.Search(context.Background(), "fetch", "", 0)
	if err != nil || len(page.Entries) != 1 {
		t.Fatalf("search = %+v, %v", page, err)
	}
	if _, err := c.Get(context.Background(), "io.github.modelcontextprotocol/server-fetch", ""); err != nil {
		t.Fatal(err)
	}
	c = newRegistry(t, &registry.Options{Prefixes: []string{"/v2"}})
	_, err = c.Search(context.Background(), "fetch", "", 0)
	if err == nil || !strings.Contains(err.Error(), "no such endpoint: /v0.1/servers") {
		t.Errorf("neither version: %v", err)
	}
}

func TestErrorReplies(t *testing.T) {
	for _, tt := range []struct {
		name, ctype, body string
		status            int
		want              []string
	}{
		{"problem details", "application/problem+json", `{"title":"Internal Server Error","status":500,"detail":"Failed to get registry list"}`, 500,
			[]string{"failed: Failed to get registry list (500 Internal Server Error); try again later"}},
		{"validation", "application/problem+json", `{"title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"message":"expected number <= 100","location":"query.limit"}]}`, 422,
			[]string{"refused the request: validation failed (query.limit: expected number <= 100)", "check the registry URL setting"}},
		{"generic error", "application/json", `{"error":"Server not allowed"}`, 403,
			[]string{"refused the request: Server not allowed (403 Forbidden)"}},
		{"not JSON", "text/html", `<html>nginx</html>`, 502,
			[]string{"failed: 502 Bad Gateway"}},
		{"escape codes", "application/json", "{\"detail\":\"\\u001b[31mred\\u001b[0m\"}", 400,
			[]string{"refused the request: [31mred[0m (400 Bad Request)"}},
		{"html page", "text/html; charset=utf-8", `<!doctype html><title>Welcome</title>`, 200,
			[]string{"does not look like an MCP registry: it answered with text/html, not JSON", "check the registry URL setting", mcpregistry.DefaultURL}},
		{"malformed JSON", "application/json", `{"servers": [`, 200,
			[]string{"does not look like an MCP registry: its reply is not the registry's JSON", "check the registry URL setting"}},
		{"another API", "application/json", `{"items": []}`, 200,
			[]string{`does not look like an MCP registry: it has no "servers" list`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := serveRaw(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := c.Search(context.Background(), "x", "", 0)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("error %q carries an escape code to the terminal", err)
			}
		})
	}
}

func TestOversizedReply(t *testing.T) {
	c := serveRaw(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"servers": [{"server": {"name": "a.b/c", "version": "1", "description": "`)
		chunk := strings.Repeat("x", 64<<10)
		for range 100 { // 6.4 MB
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}}]}`)
	})
	_, err := c.Search(context.Background(), "", "", 0)
	if err == nil || !strings.Contains(err.Error(), "its reply is larger than 4 MB") || !strings.Contains(err.Error(), "check the registry URL setting") {
		t.Errorf("err = %v", err)
	}
}

// TestHostileEntries: entries that are not valid are left out and
// counted, text is cleaned of control characters and cut, and a reply
// with more entries than asked for is cut to the limit.
func TestHostileEntries(t *testing.T) {
	long := strings.Repeat("é", 5000)
	var servers []string
	servers = append(servers,
		`{"server": {"name": "io.github.evil/ansi", "version": "1.0.0", "description": "line\u001b[2J\u001b[31m one\nline two\u202e reversed", "title": "`+long+`"}}`,
		`{"server": {"name": "not a name", "version": "1.0.0", "description": "x"}}`,
		`{"server": {"name": "io.github.evil/noversion", "description": "x"}}`,
		`{"server": {"name": "io.github.evil/nul", "version": "1.0.0", "description": "x", "packages": [{"registryType": "npm", "identifier": "a\u0000b", "version": "1.0.0", "transport": {"type": "stdio"}}]}}`,
		`{"server": {"name": "io.github.evil/env", "version": "1.0.0", "description": "x", "packages": [{"registryType": "npm", "identifier": "a", "version": "1.0.0", "transport": {"type": "stdio"}, "environmentVariables": [`+strings.Repeat(`{"name": "A"},`, 100)+`{"name": "B"}]}]}}`,
		`"not an object"`,
	)
	for i := range 150 {
		servers = append(servers, fmt.Sprintf(`{"server": {"name": "io.github.many/s%d", "version": "1.0.0", "description": "x"}}`, i))
	}
	body := `{"servers": [` + strings.Join(servers, ",") + `], "metadata": {"nextCursor": "io.github.many/s149:1.0.0"}}`
	var limit atomic.Value
	c := serveRaw(t, func(w http.ResponseWriter, r *http.Request) {
		limit.Store(r.URL.Query().Get("limit"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	page, err := c.Search(context.Background(), "", "", 500)
	if err != nil {
		t.Fatal(err)
	}
	if limit.Load() != "100" {
		t.Errorf("asked for limit %v, want the registry's maximum, 100", limit.Load())
	}
	if len(page.Entries) != 95 || page.Skipped != 5+56 {
		t.Errorf("%d entries, %d skipped", len(page.Entries), page.Skipped)
	}
	e := page.Entries[0].Server
	if e.Description != "line[2J[31m one line two reversed" {
		t.Errorf("description = %q", e.Description)
	}
	if n := len([]rune(e.Title)); n != 101 || !strings.HasSuffix(e.Title, "…") {
		t.Errorf("title of %d runes: %q…", n, e.Title[:20])
	}
	if page.NextCursor != "io.github.many/s149:1.0.0" {
		t.Errorf("cursor = %q", page.NextCursor)
	}
}

func TestBaseURL(t *testing.T) {
	for _, bad := range []string{"ftp://registry.example.com", "registry.example.com", "https://user:pw@registry.example.com", "https://r.example.com/?x=1", "http://"} {
		c := &mcpregistry.Client{BaseURL: bad}
		_, err := c.Search(context.Background(), "", "", 0)
		if err == nil || !strings.Contains(err.Error(), "is not an http:// or https:// URL") {
			t.Errorf("BaseURL %q: %v", bad, err)
		}
	}
	var path atomic.Value
	c := serveRaw(t, func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.RawPath + " " + r.URL.RawQuery)
		http.NotFound(w, r)
	})
	c.BaseURL += "/sub/"
	c.Get(context.Background(), "io.github.a/b", "1.0.0+build")
	if got := path.Load(); got != "/sub/v0/servers/io.github.a%2Fb/versions/1.0.0+build " {
		t.Errorf("last request: %q", got)
	}
	c.Search(context.Background(), "a b&c", "x:1", 0)
	if got := path.Load(); got != " cursor=x%3A1&limit=30&search=a+b%26c&version=latest" {
		t.Errorf("last request: %q", got)
	}
}

func TestCancel(t *testing.T) {
	release := make(chan struct{})
	c := serveRaw(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Search(ctx, "", "", 0)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

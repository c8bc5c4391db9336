package registry_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/test/registryserver/registry"
)

func serve(t *testing.T) *httptest.Server {
	t.Helper()
	entries, err := registry.Load("../testdata/servers.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.NewHandler(entries, nil))
	t.Cleanup(srv.Close)
	return srv
}

type listReply struct {
	Servers []struct {
		Server map[string]any `json:"server"`
		Meta   map[string]struct {
			Status   string `json:"status"`
			IsLatest bool   `json:"isLatest"`
		} `json:"_meta"`
	} `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

func get(t *testing.T, rawURL string, wantStatus int, out any) http.Header {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s: status %d, want %d", rawURL, resp.StatusCode, wantStatus)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", rawURL, err)
		}
	}
	return resp.Header
}

func names(r listReply) []string {
	var out []string
	for _, s := range r.Servers {
		out = append(out, s.Server["name"].(string)+"@"+s.Server["version"].(string))
	}
	return out
}

// TestPagesToTheEnd walks the latest versions two at a time with the
// cursors the server hands out, as the official registry pages, and sees
// every server once, sorted by name, without the deleted one.
func TestPagesToTheEnd(t *testing.T) {
	srv := serve(t)
	var all []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("the cursors never end")
		}
		q := url.Values{"version": {"latest"}, "limit": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var r listReply
		get(t, srv.URL+"/v0.1/servers?"+q.Encode(), 200, &r)
		if r.Metadata.Count != len(r.Servers) || len(r.Servers) > 2 {
			t.Fatalf("page %d: count %d with %d servers", pages, r.Metadata.Count, len(r.Servers))
		}
		all = append(all, names(r)...)
		for _, s := range r.Servers {
			if o := s.Meta["io.modelcontextprotocol.registry/official"]; !o.IsLatest || o.Status == "deleted" {
				t.Errorf("%v: %+v", s.Server["name"], o)
			}
		}
		if cursor = r.Metadata.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{
		"com.example/weather-remote@1.4.0",
		"io.github.brave/brave-search-mcp-server@2.0.58",
		"io.github.example/old-weather@0.9.5",
		"io.github.example/text-editor@1.0.2",
		"io.github.github/github-mcp-server@0.20.2",
		"io.github.joelverhagen/knapcode-samplemcpserver@0.6.0-beta",
		"io.github.modelcontextprotocol/server-everything@2026.8.31",
		"io.github.modelcontextprotocol/server-fetch@0.6.3",
		"io.github.modelcontextprotocol/server-filesystem@2026.8.31",
		"io.github.modelcontextprotocol/server-memory@2026.8.31",
		"io.github.modelcontextprotocol/server-sequential-thinking@2026.8.31",
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestSearchMatchesNameAndDescription(t *testing.T) {
	srv := serve(t)
	for _, tt := range []struct {
		search string
		want   []string
	}{
		{"MEMORY", []string{"io.github.modelcontextprotocol/server-memory@2026.8.31"}},
		{"knowledge graph", []string{"io.github.modelcontextprotocol/server-memory@2026.8.31"}},
		{"free-crypto", nil}, // deleted
		{"nothing-like-this", nil},
	} {
		var r listReply
		get(t, srv.URL+"/v0/servers?version=latest&search="+url.QueryEscape(tt.search), 200, &r)
		if diff := cmp.Diff(tt.want, names(r)); diff != "" {
			t.Errorf("search %q (-want +got):\n%s", tt.search, diff)
		}
	}
	var r listReply
	get(t, srv.URL+"/v0.1/servers?search=free-crypto&include_deleted=true", 200, &r)
	if len(r.Servers) != 1 {
		t.Errorf("include_deleted: %v", names(r))
	}
	get(t, srv.URL+"/v0.1/servers?search=sequential", 200, &r)
	if diff := cmp.Diff([]string{
		"io.github.modelcontextprotocol/server-sequential-thinking@0.6.2",
		"io.github.modelcontextprotocol/server-sequential-thinking@2026.8.31",
	}, names(r)); diff != "" {
		t.Errorf("without version=latest every version is listed (-want +got):\n%s", diff)
	}
}

func TestVersionsAndOneVersion(t *testing.T) {
	srv := serve(t)
	name := url.PathEscape("io.github.modelcontextprotocol/server-sequential-thinking")
	if !strings.Contains(name, "%2F") {
		t.Fatalf("PathEscape(%q) kept the slash", name)
	}
	var r listReply
	get(t, srv.URL+"/v0.1/servers/"+name+"/versions", 200, &r)
	if diff := cmp.Diff([]string{
		"io.github.modelcontextprotocol/server-sequential-thinking@2026.8.31",
		"io.github.modelcontextprotocol/server-sequential-thinking@0.6.2",
	}, names(r)); diff != "" {
		t.Errorf("versions, newest first (-want +got):\n%s", diff)
	}
	for version, want := range map[string]string{"latest": "2026.8.31", "0.6.2": "0.6.2"} {
		var one struct {
			Server map[string]any            `json:"server"`
			Meta   map[string]map[string]any `json:"_meta"`
		}
		get(t, srv.URL+"/v0.1/servers/"+name+"/versions/"+version, 200, &one)
		if one.Server["version"] != want {
			t.Errorf("version %s: got %v", version, one.Server["version"])
		}
		if latest := one.Meta["io.modelcontextprotocol.registry/official"]["isLatest"]; latest != (version == "latest") {
			t.Errorf("version %s: isLatest %v", version, latest)
		}
	}
}

func TestErrorsAreProblemDetails(t *testing.T) {
	srv := serve(t)
	for _, tt := range []struct {
		path, detail string
		status       int
	}{
		{"/v0.1/servers/" + url.PathEscape("io.github.nobody/nothing") + "/versions/latest", "Server not found", 404},
		{"/v0.1/servers/" + url.PathEscape("io.github.modelcontextprotocol/server-memory") + "/versions/9.9.9", "Server not found", 404},
		{"/v0.1/servers/" + url.PathEscape("io.github.spammer/free-crypto-weather") + "/versions/latest", "Server not found", 404},
		{"/v0.1/servers?cursor=bogus", "Invalid cursor parameter", 400},
		{"/v0.1/servers?limit=1000", "validation failed", 422},
		{"/v0.1/servers?updated_since=yesterday", "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)", 400},
		{"/v2/servers", "no such endpoint: /v2/servers", 404},
		// Not escaped: the name's slash splits the path, as on the real registry.
		{"/v0.1/servers/io.github.modelcontextprotocol/server-memory/versions/latest", "no such endpoint: /v0.1/servers/io.github.modelcontextprotocol/server-memory/versions/latest", 404},
	} {
		var p struct {
			Title  string `json:"title"`
			Status int    `json:"status"`
			Detail string `json:"detail"`
		}
		h := get(t, srv.URL+tt.path, tt.status, &p)
		if p.Status != tt.status || p.Detail != tt.detail || p.Title != http.StatusText(tt.status) {
			t.Errorf("%s: %+v", tt.path, p)
		}
		if ct := h.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", tt.path, ct)
		}
	}
}

func TestUpdatedSince(t *testing.T) {
	srv := serve(t)
	var r listReply
	get(t, srv.URL+"/v0.1/servers?updated_since=2026-01-01T00:00:00Z", 200, &r)
	want := []string{
		"io.github.modelcontextprotocol/server-everything@2026.8.31",
		"io.github.modelcontextprotocol/server-filesystem@2026.8.31",
		"io.github.modelcontextprotocol/server-memory@2026.8.31",
		"io.github.modelcontextprotocol/server-sequential-thinking@2026.8.31",
	}
	if diff := cmp.Diff(want, names(r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParse(t *testing.T) {
	entries, err := registry.Parse([]byte(`{"servers": [
		{"server": {"name": "a.b/c", "version": "1.0.0", "description": "x"}},
		{"server": {"name": "a.b/c", "version": "1.1.0", "description": "x"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if entries[0].IsLatest || !entries[1].IsLatest || entries[0].Status != "active" {
		t.Errorf("without metadata the last version is the latest and all are active: %+v", entries)
	}
	for _, bad := range []string{
		`{"servers": [{"server": {"name": "a.b/c"}}]}`,
		`{"servers": [{"server": {"name": "a.b/c", "version": "1"}}, {"server": {"name": "a.b/c", "version": "1"}}]}`,
		`[]`,
	} {
		if _, err := registry.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) took it", bad)
		}
	}
}

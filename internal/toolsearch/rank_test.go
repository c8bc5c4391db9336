package toolsearch

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/toolsearch/toolsearchtest"
)

func catalog() []Tool {
	var out []Tool
	for _, t := range toolsearchtest.Catalog() {
		out = append(out, Tool{Name: t.Exposed(), OriginalName: t.Name, Server: t.ServerName, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

func names(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Tool.Name)
	}
	return out
}

// Each of the catalog's 300 tools is among the five a search returns for
// the first four words of its description, and nearly always first.
func TestSearchFindsEveryCatalogTool(t *testing.T) {
	tools := catalog()
	if len(tools) != 300 {
		t.Fatalf("catalog has %d tools, want 300", len(tools))
	}
	ix := NewIndex(tools)
	first := 0
	for _, tl := range toolsearchtest.Catalog() {
		q := toolsearchtest.QueryFor(tl, 4)
		got := names(ix.Search(q, DefaultResults))
		i := slices.Index(got, tl.Exposed())
		if i < 0 {
			t.Errorf("%s: search %q found %v", tl.Exposed(), q, got)
		}
		if i == 0 {
			first++
		}
	}
	if first < 285 {
		t.Errorf("%d of 300 tools ranked first for their own words, want at least 285", first)
	}
}

func TestSearchRanking(t *testing.T) {
	ix := NewIndex(catalog())
	tests := []struct {
		query string
		limit int
		// want are the first results, in order; in, results that must be
		// among the first limit.
		want, in []string
	}{
		// The name counts most: the three list_issues come before tools
		// that only mention issues.
		{query: "list issues", limit: 3, in: []string{"github__list_issues", "jira__list_issues", "linear__list_issues"}},
		// A server's name picks among them.
		{query: "list issues on jira", limit: 1, want: []string{"jira__list_issues"}},
		// Stemming: inflected words meet the name's.
		{query: "listing the pull requests", limit: 1, want: []string{"github__list_pull_requests"}},
		{query: "deleting a deployment", limit: 1, want: []string{"k8s__delete_deployment"}},
		// Argument names count.
		{query: "thread_ts", limit: 3, in: []string{"slack__create_message"}},
		// An exact name comes first, whatever else the query says.
		{query: "gmail__delete_label", limit: 1, want: []string{"gmail__delete_label"}},
		{query: "please run stripe__create_refund now", limit: 1, want: []string{"stripe__create_refund"}},
		{query: "update_working_location", limit: 1, want: []string{"gcal__update_working_location"}},
		// camelCase in a query splits as in names.
		{query: "getCronJob", limit: 1, want: []string{"k8s__get_cron_job"}},
		// Words no tool has, and stopwords only, find nothing.
		{query: "zebra quantum xylophone", limit: 5, want: nil},
		{query: "the of a to", limit: 5, want: nil},
	}
	for _, tt := range tests {
		got := names(ix.Search(tt.query, tt.limit))
		if tt.in != nil {
			for _, w := range tt.in {
				if !slices.Contains(got, w) {
					t.Errorf("Search(%q, %d) = %v, want %s among them", tt.query, tt.limit, got, w)
				}
			}
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q, %d) (-want +got):\n%s", tt.query, tt.limit, diff)
		}
	}
}

func TestSearchBounds(t *testing.T) {
	ix := NewIndex(catalog())
	if n := len(ix.Search("list", 0)); n != 1 {
		t.Errorf("limit 0 returned %d, want 1", n)
	}
	if n := len(ix.Search("list get create update delete", 1000)); n != MaxResults {
		t.Errorf("limit 1000 returned %d, want %d", n, MaxResults)
	}
	// A huge query is read up to its bounds, and fast.
	huge := strings.Repeat("kubernetes pod ", 100_000)
	if got := names(ix.Search(huge, 1)); len(got) != 1 || !strings.HasPrefix(got[0], "k8s__") {
		t.Errorf("huge query found %v", got)
	}
	if got := NewIndex(nil).Search("anything", 5); len(got) != 0 {
		t.Errorf("empty index found %v", got)
	}
	// A tool with a hostile schema and a huge description is indexed.
	odd := []Tool{{Name: "x__odd", Description: strings.Repeat("word ", 100_000) + "needle", InputSchema: json.RawMessage(`[1,2`)},
		{Name: "x__plain", Description: "needle in a haystack", InputSchema: json.RawMessage(`{"properties":{"needle":{}}}`)}}
	if got := names(NewIndex(odd).Search("needle", 5)); !cmp.Equal(got, []string{"x__plain"}) {
		t.Errorf("odd tools: found %v, want only x__plain (the other's needle is past the indexed bytes)", got)
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"github__list_pull_requests", []string{"github", "list", "pull", "request"}},
		{"listPullRequests", []string{"list", "pull", "request"}},
		{"HTTPServer v2", []string{"http", "server", "v", "2"}},
		{"Creates, creating and created issues", []string{"creat", "creat", "creat", "issu"}},
		{"the tool to use for a query", []string{"use", "query"}},
		{"Büro-Öffnungszeiten", []string{"büro", "öffnungszeiten"}},
		{"stopped running addresses classes", []string{"stop", "run", "address", "class"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, terms(tt.in)); diff != "" {
			t.Errorf("terms(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestArgNames(t *testing.T) {
	got := argNames(json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"object","properties":{"inner":{}}}}}`))
	if diff := cmp.Diff([]string{"zeta", "alpha"}, got); diff != "" {
		t.Errorf("argNames (-want +got):\n%s", diff)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"properties":[]}`, `{"properties":{"a":`} {
		if got := argNames(json.RawMessage(bad)); len(got) > 0 {
			t.Errorf("argNames(%s) = %v", bad, got)
		}
	}
}

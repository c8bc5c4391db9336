package toolsearch

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// What a model sends (search_tools' and call_tool's arguments) never
// panics, a search returns at most MaxResults of the tools it ran over,
// and the result is JSON.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{`{"query":"list issues"}`, `{"query":"github__get_issue","limit":3}`, `{"query":"ÄÖ__x_y-z.w","limit":"9"}`, `{}`, `[`, `{"query":"` + strings.Repeat("a", 2000) + `"}`} {
		f.Add(s)
	}
	ix := NewIndex(catalog())
	f.Fuzz(func(t *testing.T, raw string) {
		ParseCall(raw)
		a, err := ParseSearch(raw)
		if err != nil {
			return
		}
		if len(a.Query) > MaxQueryBytes || !utf8.ValidString(a.Query) && utf8.ValidString(raw) {
			t.Fatalf("query kept as %d bytes", len(a.Query))
		}
		ms := ix.Search(a.Query, a.Limit)
		if len(ms) > MaxResults {
			t.Fatalf("%d results", len(ms))
		}
		if out := Format(a.Query, ms, 300, []string{"GitHub"}, 0); !json.Valid([]byte(out)) {
			t.Fatalf("Format is not JSON: %s", out)
		}
	})
}

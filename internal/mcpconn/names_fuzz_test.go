package mcpconn

import (
	"regexp"
	"strings"
	"testing"
)

var providerSafe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// FuzzExposedNames checks the tool-name mapping for any set of server IDs
// and tool names: every exposed name is provider-safe, names are unique,
// the mapping back to (server, tool) is exact, and a key's name does not
// depend on the order the tools were listed in.
func FuzzExposedNames(f *testing.F) {
	f.Add("everything", "echo", "memory", "read_graph", "fs", "read.file")
	f.Add("a__b", "c", "a", "b__c", "x", strings.Repeat("long-name", 12))
	f.Add("srv", "a.b", "srv", "a_b", "srv", "a_b_00000000")
	f.Add("", "", "ünï", "çødé", "spaces here", "tab\there")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string) {
		keys := []toolKey{{s1, t1}, {s2, t2}, {s3, t3}}
		// Keys are unique in a real registry.
		seen := map[toolKey]bool{}
		var uniq []toolKey
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				uniq = append(uniq, k)
			}
		}
		names := exposedNames(uniq)
		back := map[string]toolKey{}
		for _, k := range uniq {
			n := names[k]
			if !providerSafe.MatchString(n) {
				t.Fatalf("name %q for %+v is not provider-safe", n, k)
			}
			if other, dup := back[n]; dup {
				t.Fatalf("name %q given to both %+v and %+v", n, other, k)
			}
			back[n] = k
		}
		// The same set in another order gives the same names.
		rev := make([]toolKey, len(uniq))
		for i, k := range uniq {
			rev[len(uniq)-1-i] = k
		}
		again := exposedNames(rev)
		for _, k := range uniq {
			if again[k] != names[k] {
				t.Fatalf("name of %+v depends on order: %q vs %q", k, names[k], again[k])
			}
		}
	})
}

package mcpconn

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestExposedNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	keys := []toolKey{
		{"github", "create_issue"},
		{"github", "search.code"}, // sanitized: gets a hash
		{"fs", "read_file"},
		{"fs", "read-file"},                        // valid and distinct
		{"web", "fetch url/ñ"},                     // spaces, slash, non-ASCII
		{"web", long},                              // too long: cut, with a hash
		{"web", long + "y"},                        // same prefix: a different hash
		{"a__b", "c"},                              // "a__b__c" ...
		{"a", "b__c"},                              // ... collides with this one
		{"x", "q_r_" + hashSuffix("x", "q.r")[1:]}, // collides with the hashed form of "q.r"
		{"x", "q.r"},
	}
	names := exposedNames(keys)

	seen := map[string]toolKey{}
	for _, k := range keys {
		n := names[k]
		if !validName.MatchString(n) {
			t.Errorf("%v: %q is not a valid name", k, n)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%v and %v both named %q", k, other, n)
		}
		seen[n] = k
	}
	want := map[toolKey]string{
		{"github", "create_issue"}: "github__create_issue",
		{"fs", "read_file"}:        "fs__read_file",
		{"fs", "read-file"}:        "fs__read-file",
	}
	for k, n := range want {
		if names[k] != n {
			t.Errorf("%v: got %q, want %q", k, names[k], n)
		}
	}
	if n := names[toolKey{"github", "search.code"}]; !strings.HasPrefix(n, "github__search_code_") {
		t.Errorf("search.code -> %q", n)
	}
	if n := names[toolKey{"web", long}]; len(n) != 64 {
		t.Errorf("long name -> %q (%d chars)", n, len(n))
	}

	// Stable: the same set gives the same names, in any order.
	reversed := make([]toolKey, len(keys))
	for i, k := range keys {
		reversed[len(keys)-1-i] = k
	}
	if diff := cmp.Diff(names, exposedNames(reversed)); diff != "" {
		t.Errorf("names depend on order (-first +second):\n%s", diff)
	}
}

func hashSuffix(server, tool string) string {
	n := hashedName(toolKey{server, tool})
	return n[strings.LastIndexByte(n, '_'):]
}

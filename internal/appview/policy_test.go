package appview

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// With nothing declared, a view gets the extension's restrictive default
// (without 'self', see BuildPolicy), and reaches nothing outside.
func TestDefaultPolicy(t *testing.T) {
	p := BuildPolicy(Domains{})
	want := "default-src 'none'; script-src 'unsafe-inline' data: blob:; style-src 'unsafe-inline'; img-src data: blob:; " +
		"media-src data: blob:; font-src data:; worker-src blob:; connect-src 'none'; frame-src 'none'; object-src 'none'; " +
		"base-uri 'none'; form-action 'none'"
	if p.Meta != want {
		t.Errorf("Meta =\n%s\nwant\n%s", p.Meta, want)
	}
	if p.Header != want+"; frame-ancestors 'self'; sandbox allow-scripts" {
		t.Errorf("Header = %s", p.Header)
	}
	if len(p.External) != 0 || len(p.Dropped) != 0 {
		t.Errorf("External %q, Dropped %q; want none", p.External, p.Dropped)
	}
	if strings.Contains(p.Header, "'self'") && strings.Count(p.Header, "'self'") != 1 {
		t.Errorf("'self' outside frame-ancestors: %s", p.Header)
	}
}

// Each declared origin goes to its directives only.
func TestDeclaredOrigins(t *testing.T) {
	p := BuildPolicy(Domains{
		Connect:  []string{"https://api.example.com", "wss://live.example.com:8443", "HTTPS://API.example.com/"},
		Resource: []string{"https://unpkg.com", "https://*.cdn.example.org"},
		Frame:    []string{"https://www.youtube.com"},
		BaseURI:  []string{"https://base.example.net"},
	})
	dir := directives(p.Meta)
	want := map[string]string{
		"default-src": "'none'",
		"script-src":  "'unsafe-inline' data: blob: https://unpkg.com https://*.cdn.example.org",
		"style-src":   "'unsafe-inline' https://unpkg.com https://*.cdn.example.org",
		"img-src":     "data: blob: https://unpkg.com https://*.cdn.example.org",
		"media-src":   "data: blob: https://unpkg.com https://*.cdn.example.org",
		"font-src":    "data: https://unpkg.com https://*.cdn.example.org",
		"worker-src":  "blob: https://unpkg.com https://*.cdn.example.org",
		"connect-src": "https://api.example.com wss://live.example.com:8443",
		"frame-src":   "https://www.youtube.com",
		"object-src":  "'none'",
		"base-uri":    "https://base.example.net",
		"form-action": "'none'",
	}
	if d := cmp.Diff(want, dir); d != "" {
		t.Errorf("directives (-want +got):\n%s", d)
	}
	wantExt := []string{"https://*.cdn.example.org", "https://api.example.com", "https://base.example.net", "https://unpkg.com",
		"https://www.youtube.com", "wss://live.example.com:8443"}
	if d := cmp.Diff(wantExt, p.External); d != "" {
		t.Errorf("External (-want +got):\n%s", d)
	}
}

// Whatever could widen the policy is dropped, with why: other schemes,
// keywords, paths, separators and quotes (which would start a new source
// or directive), wildcards anywhere but the first label, IP addresses and
// this machine.
func TestHostileOrigins(t *testing.T) {
	hostile := []string{
		"", "*", "https://*", "https://", "http://example.com", "ws://example.com", "data:", "blob:", "javascript:alert(1)",
		"'self'", "'unsafe-eval'", "'none'", "https:", "https://example.com; script-src *", "https://example.com;",
		"https://a.example.com https://b.example.com", "https://example.com,https://evil.com", "https://example.com'",
		"https://example.com\"", "https://example.com\nscript-src *", "https://example.com\r", "https://exa mple.com",
		"https://example.com/path", "https://example.com/?q", "https://example.com#x", "https://user@example.com",
		"https://example.com:0", "https://example.com:99999", "https://example.com:ab", "https://example.com:",
		"https://*.com", "https://a.*.example.com", "https://*example.com", "https://ex*ample.com", "https://**.example.com",
		"https://127.0.0.1", "https://10.0.0.1:8080", "https://[::1]", "https://0x7f000001", "https://localhost", "https://a.localhost",
		"https://printer.local", "https://x.internal", "https://1.0.0.127.in-addr.arpa", "https://-bad.example.com",
		"https://bad-.example.com", "https://exämple.com", "https://example.com\\@evil.com", "https://example..com",
		"https://" + strings.Repeat("a", 64) + ".com", "https://" + strings.Repeat("a.", 140) + "com", "https://example.com\x00",
		"https://example.com`", "https://example.com//",
	}
	for _, h := range hostile {
		p := BuildPolicy(Domains{Connect: []string{h}, Resource: []string{h}, Frame: []string{h}, BaseURI: []string{h}})
		if len(p.External) != 0 {
			t.Errorf("%q: kept as %q", h, p.External)
		}
		if len(p.Dropped) != 4 {
			t.Errorf("%q: %d drop notes; want 4: %q", h, len(p.Dropped), p.Dropped)
		}
		if p.Meta != BuildPolicy(Domains{}).Meta {
			t.Errorf("%q changed the policy: %s", h, p.Meta)
		}
	}
	// wss:// only where a connection goes.
	p := BuildPolicy(Domains{Resource: []string{"wss://example.com"}, Frame: []string{"wss://example.com"}})
	if len(p.External) != 0 {
		t.Errorf("wss:// kept outside connect-src: %q", p.External)
	}
}

// Each kind keeps at most MaxOrigins entries, saying how many it dropped.
func TestOriginCap(t *testing.T) {
	var many []string
	for i := range MaxOrigins + 7 {
		many = append(many, fmt.Sprintf("https://h%d.example.com", i))
	}
	p := BuildPolicy(Domains{Connect: many})
	if n := len(strings.Fields(directives(p.Meta)["connect-src"])); n != MaxOrigins {
		t.Errorf("connect-src has %d origins; want %d", n, MaxOrigins)
	}
	if !slices.Contains(p.Dropped, "connect: 7 entries past the first 32") {
		t.Errorf("Dropped = %q", p.Dropped)
	}
}

// Whatever the declaration, the policy keeps its shape: the same
// directives once each, every source a keyword of the default or a plain
// origin, and nothing that ends a directive inside a source.
func FuzzBuildPolicy(f *testing.F) {
	for _, s := range []string{"https://example.com", "https://example.com; script-src *", "wss://x.io:1", "'unsafe-eval'",
		"https://*.a.b", "https://a.b/c", "https://a.b\n", "data:"} {
		f.Add(s, s)
	}
	base := directives(BuildPolicy(Domains{}).Meta)
	f.Fuzz(func(t *testing.T, a, b string) {
		p := BuildPolicy(Domains{Connect: []string{a, b}, Resource: []string{b, a}, Frame: []string{a}, BaseURI: []string{b}})
		dir := directives(p.Meta)
		if len(dir) != len(base) || strings.Count(p.Meta, ";") != len(base)-1 {
			t.Fatalf("directives changed: %s", p.Meta)
		}
		for name := range base {
			if _, ok := dir[name]; !ok {
				t.Fatalf("%s missing: %s", name, p.Meta)
			}
		}
		for name, v := range dir {
			for _, src := range strings.Fields(v) {
				if slices.Contains(strings.Fields(base[name]), src) {
					continue
				}
				if _, err := checkOrigin(src, name == "connect-src"); err != nil || src != strings.ToLower(src) {
					t.Fatalf("%s has source %q not a checked origin (%v)", name, src, err)
				}
				if !slices.Contains(p.External, src) {
					t.Fatalf("%q allowed but not listed as External", src)
				}
			}
		}
		if strings.ContainsAny(p.Header, "\r\n\"") {
			t.Fatalf("header holds a line break or a double quote: %q", p.Header)
		}
	})
}

// directives splits a policy into its directives' values, by name.
func directives(policy string) map[string]string {
	out := map[string]string{}
	for _, d := range strings.Split(policy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		out[name] = value
	}
	return out
}

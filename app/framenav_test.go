package app

import "testing"

// A frame may navigate within the app's origin and to the frame origins
// views declared; nowhere else, in the release window (wails://) and the
// dev one (http on loopback).
func TestNavigationAllowed(t *testing.T) {
	declared := func(uri string) bool { return uri == "https://maps.example.com/embed" }
	for _, c := range []struct {
		target, page string
		want         bool
	}{
		{"wails://wails/", "", true},
		{"wails://wails/index.html", "wails://wails/", true},
		{"wails://wails/mcp-view/0123", "wails://wails/", true},
		{"about:blank", "wails://wails/", true},
		{"about:srcdoc", "wails://wails/", true},
		{"https://maps.example.com/embed", "wails://wails/", true},
		{"https://evil.example/x?d=secret", "wails://wails/", false},
		{"https://evil.example/204?d=secret", "wails://wails/", false},
		{"http://maps.example.com/embed", "wails://wails/", false},
		{"data:text/html,<script>fetch('https://evil.example')</script>", "wails://wails/", false},
		{"blob:wails://wails/1234", "wails://wails/", false},
		{"file:///etc/passwd", "wails://wails/", false},
		{"wails://other/", "wails://wails/", false},
		{"wails://user@wails/", "wails://wails/", false},
		{"http://127.1.2.3:4567/", "http://127.1.2.3:4567/", true},
		{"http://127.1.2.3:4568/", "http://127.1.2.3:4567/", false},
		{"javascript:alert(1)", "wails://wails/", false},
		{"", "wails://wails/", false},
	} {
		if got := navigationAllowed(c.target, c.page, declared); got != c.want {
			t.Errorf("navigationAllowed(%q, %q) = %v; want %v", c.target, c.page, got, c.want)
		}
	}
}

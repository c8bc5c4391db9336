package appview

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// endings records what OnEnd hears.
type endings struct {
	mu  sync.Mutex
	got []string // "<serverID>: <reason>"
}

func (e *endings) on(v View, reason string) {
	e.mu.Lock()
	e.got = append(e.got, v.ServerID+": "+reason)
	e.mu.Unlock()
}

func (e *endings) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// A live view is served under its policy, the <meta> tag before any of
// its bytes, with headers that keep it from being sniffed, cached, framed
// by others or leaking a referrer.
func TestServeView(t *testing.T) {
	r := NewRegistry(nil)
	p := BuildPolicy(Domains{Connect: []string{"https://api.example.com"}})
	const doc = "<!DOCTYPE html>\n<html><head><title>t</title></head><body><script>go()</script></body></html>"
	v, err := r.Add(View{ServerID: "s", Document: doc, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.ID) != 32 || v.URL() != "/mcp-view/"+v.ID {
		t.Fatalf("id %q, url %q", v.ID, v.URL())
	}
	res := get(t, r, "GET", v.URL(), "Sec-Fetch-Dest", "iframe")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	want := map[string]string{
		"Content-Type":                 "text/html; charset=utf-8",
		"Content-Security-Policy":      p.Header,
		"X-Content-Type-Options":       "nosniff",
		"Cache-Control":                "no-store",
		"Referrer-Policy":              "no-referrer",
		"X-Frame-Options":              "SAMEORIGIN",
		"Cross-Origin-Resource-Policy": "same-origin",
	}
	for k, v := range want {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s = %q; want %q", k, got, v)
		}
	}
	meta := `<meta http-equiv="Content-Security-Policy" content="` + strings.ReplaceAll(p.Meta, "'", "&#39;") + `">`
	if wantBody := "<!DOCTYPE html>" + meta + "\n<html><head><title>t</title></head><body><script>go()</script></body></html>"; string(body) != wantBody {
		t.Errorf("body =\n%s\nwant\n%s", body, wantBody)
	}
	if res.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length %d for %d bytes", res.ContentLength, len(body))
	}
}

// The <meta> tag comes before anything of the view's: after a doctype,
// else first (after a byte-order mark), whatever the view puts before its
// <head>.
func TestMetaCut(t *testing.T) {
	tests := []struct{ doc, before string }{
		{"<!doctype html><html><head></head></html>", "<!doctype html>"},
		{"  \n<!DOCTYPE html>\n<head>", "  \n<!DOCTYPE html>"},
		{"<script>evil()</script><head></head>", ""},
		{"<html><head><script>x</script>", ""},
		{"\ufeff<!doctype html><p>", "\ufeff<!doctype html>"},
		{"\ufeff<p>", "\ufeff"},
		{"<!-- c --><!doctype html>", ""},
		{"<!doctype html", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := tt.doc[:metaCut(tt.doc)]; got != tt.before {
			t.Errorf("%q: meta after %q; want after %q", tt.doc, got, tt.before)
		}
	}
}

// Everything but GET of a live view's exact path is refused.
func TestServeRefuses(t *testing.T) {
	r := NewRegistry(nil)
	v, _ := r.Add(View{ServerID: "s", Document: "<p>x</p>", Policy: BuildPolicy(Domains{})})
	other := strings.Repeat("0", 32)
	tests := []struct {
		method, path string
		hdr          []string
		status       int
	}{
		{"GET", v.URL(), nil, 200},
		{"GET", v.URL(), []string{"Sec-Fetch-Dest", "frame"}, 200},
		{"HEAD", v.URL(), nil, 405},
		{"POST", v.URL(), nil, 405},
		{"GET", v.URL(), []string{"Sec-Fetch-Dest", "document"}, 404},
		{"GET", v.URL(), []string{"Sec-Fetch-Dest", "script"}, 404},
		{"GET", v.URL() + "?x=1", nil, 404},
		{"GET", v.URL() + "/", nil, 404},
		{"GET", v.URL() + "/index.html", nil, 404},
		{"GET", "/mcp-view/" + other, nil, 404},
		{"GET", "/mcp-view/" + strings.ToUpper(v.ID), nil, 404},
		{"GET", "/mcp-view/", nil, 404},
		{"GET", "/mcp-view/../index.html", nil, 404},
		{"GET", "/index.html", nil, 404},
	}
	for _, tt := range tests {
		if res := get(t, r, tt.method, tt.path, tt.hdr...); res.StatusCode != tt.status {
			t.Errorf("%s %s %v: %d; want %d", tt.method, tt.path, tt.hdr, res.StatusCode, tt.status)
		}
	}
	if !r.Close(v.ID) || r.Close(v.ID) {
		t.Error("Close did not report the view live once")
	}
	if res := get(t, r, "GET", v.URL()); res.StatusCode != 404 {
		t.Errorf("a closed view is served: %d", res.StatusCode)
	}
}

// At most MaxViews live at once, and MaxBytes of documents: opening one
// more ends the least recently used, saying so; ids are never reused.
func TestRegistryLimits(t *testing.T) {
	var ends endings
	r := NewRegistry(&Options{MaxViews: 3, MaxBytes: 100, OnEnd: ends.on})
	add := func(server string, size int) View {
		t.Helper()
		v, err := r.Add(View{ServerID: server, Document: strings.Repeat("x", size)})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := add("a", 10)
	time.Sleep(time.Millisecond)
	b := add("b", 10)
	time.Sleep(time.Millisecond)
	c := add("c", 10)
	time.Sleep(time.Millisecond)
	r.Get(a.ID) // a is used again: b is now the oldest
	add("d", 10)
	if _, ok := r.Get(b.ID); ok {
		t.Error("the least recently used view outlived the count limit")
	}
	for _, v := range []View{a, c} {
		if _, ok := r.Get(v.ID); !ok {
			t.Errorf("view %s was ended", v.ServerID)
		}
	}
	// Used in the order d (added), a, c; 90 more bytes need two of them
	// to go.
	add("e", 90)
	if _, ok := r.Get(c.ID); !ok {
		t.Error("the most recently used view was ended for bytes")
	}
	if d := cmp.Diff([]string{"b: " + ReasonLimit, "d: " + ReasonLimit, "a: " + ReasonLimit}, ends.list()); d != "" {
		t.Errorf("endings (-want +got):\n%s", d)
	}
	if _, err := r.Add(View{Document: strings.Repeat("x", 101)}); err != ErrTooLarge {
		t.Errorf("a view past MaxBytes: %v", err)
	}
	seen := map[string]bool{}
	for range 100 {
		v := add("x", 1)
		if seen[v.ID] {
			t.Fatal("an id was reused")
		}
		seen[v.ID] = true
	}
}

// A view unused for TTL is gone (and OnEnd hears it); each use restarts
// its clock. CloseServer ends one server's views.
func TestRegistryTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ends endings
		r := NewRegistry(&Options{TTL: time.Hour, OnEnd: ends.on})
		kept, _ := r.Add(View{ServerID: "kept", Document: "k"})
		idle, _ := r.Add(View{ServerID: "idle", Document: "i"})
		time.Sleep(50 * time.Minute)
		get(t, r, "GET", kept.URL()) // a use
		time.Sleep(20 * time.Minute)
		if _, ok := r.Get(idle.ID); ok {
			t.Error("a view unused for the TTL is still live")
		}
		if _, ok := r.Get(kept.ID); !ok {
			t.Error("a view used 20 minutes ago expired")
		}
		if d := cmp.Diff([]string{"idle: " + ReasonExpired}, ends.list()); d != "" {
			t.Errorf("endings (-want +got):\n%s", d)
		}

		other, _ := r.Add(View{ServerID: "other", Document: "o"})
		r.Add(View{ServerID: "kept", Document: "k2"})
		if n := r.CloseServer("kept", "the server disconnected"); n != 2 {
			t.Errorf("CloseServer ended %d views; want 2", n)
		}
		if _, ok := r.Get(other.ID); !ok || len(r.List()) != 1 {
			t.Error("CloseServer ended another server's view")
		}
		if !r.End(other.ID, "changed") || r.End(other.ID, "changed") {
			t.Error("End did not report the view live once")
		}
		want := []string{"idle: " + ReasonExpired, "kept: the server disconnected", "kept: the server disconnected", "other: changed"}
		if d := cmp.Diff(want, ends.list()); d != "" {
			t.Errorf("endings (-want +got):\n%s", d)
		}
	})
}

func TestViewID(t *testing.T) {
	good := "/mcp-view/0123456789abcdef0123456789abcdef"
	for path, ok := range map[string]bool{
		good: true, good + "0": false, good[:len(good)-1]: false, "/mcp-view/0123456789ABCDEF0123456789abcdef": false,
		"/mcp-view/0123456789abcdef0123456789abcdeg": false, "/x" + good: false, "": false,
	} {
		if _, got := ViewID(path); got != ok {
			t.Errorf("ViewID(%q) = %v; want %v", path, got, ok)
		}
	}
}

// A frame may navigate off the app's origin only to an origin a live view
// declared for frames; ending the views takes that away.
func TestFrameAllowed(t *testing.T) {
	var ends endings
	r := NewRegistry(&Options{OnEnd: ends.on})
	if _, err := r.Add(View{ServerID: "s", Document: "<p>x</p>", Policy: BuildPolicy(Domains{Frame: []string{"https://maps.example.com", "https://*.video.example"}})}); err != nil {
		t.Fatal(err)
	}
	r.Add(View{ServerID: "t", Document: "<p>y</p>", Policy: BuildPolicy(Domains{Connect: []string{"https://api.example.org"}})})
	for u, want := range map[string]bool{
		"https://maps.example.com/embed?x=1":  true,
		"https://MAPS.example.com/":           true,
		"https://a.video.example/v":           true,
		"https://video.example/v":             false,
		"https://maps.example.com:8443/":      false,
		"http://maps.example.com/":            false,
		"https://evil.example/?d=secret":      false,
		"https://api.example.org/":            false, // connect, not frame
		"https://u:p@maps.example.com/":       false,
		"data:text/html,<script>x</script>":   false,
		"https://maps.example.com.evil.test/": false,
		"https://evilvideo.example/":          false,
	} {
		if got := r.FrameAllowed(u); got != want {
			t.Errorf("FrameAllowed(%q) = %v; want %v", u, got, want)
		}
	}
	if n := r.EndAll("a view tried the app's bindings"); n != 2 {
		t.Errorf("EndAll ended %d views; want 2", n)
	}
	if r.FrameAllowed("https://maps.example.com/") || len(r.List()) != 0 {
		t.Error("a view's frame origin outlived the view")
	}
	if len(ends.list()) != 2 {
		t.Errorf("OnEnd heard of %d ends; want 2", len(ends.list()))
	}
}

package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
)

// The asset server's middleware sends view paths to the open views (none
// here: 404, never the app's page) and every other path to the app's
// assets; the window advertises views.
func TestViewMiddleware(t *testing.T) {
	p := paths.In(t.TempDir())
	c, err := core.Open(t.Context(), &core.Options{Paths: &p, Secrets: &secrets.Memory{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := New(c)
	assets := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app page")) })
	h := a.viewMiddleware(assets)
	for path, want := range map[string]string{
		"/":                                    "app page",
		"/index.html":                          "app page",
		"/assets/index.js":                     "app page",
		"/mcp-view/" + strings.Repeat("a", 32): "404 page not found\n",
		"/mcp-view/":                           "404 page not found\n",
		"/mcp-view/../index.html":              "404 page not found\n",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Body.String() != want {
			t.Errorf("%s: %q; want %q", path, rec.Body.String(), want)
		}
	}
	svc, err := a.services()
	if err != nil {
		t.Fatal(err)
	}
	if svc.Manager.AppViews() != appViewsSupported() {
		t.Errorf("the window advertises views: %v; appViewsSupported says %v", svc.Manager.AppViews(), appViewsSupported())
	}
}

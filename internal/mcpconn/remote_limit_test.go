package mcpconn

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// endless writes chunk until the client goes away.
func endless(w http.ResponseWriter, r *http.Request, contentType, prefix string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(prefix))
	chunk := []byte(strings.Repeat("x", 64<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestEndlessResponseBodyBounded: a server whose answer never ends makes
// the connection fail with a clear reason once the bound is reached,
// instead of being buffered forever.
func TestEndlessResponseBodyBounded(t *testing.T) {
	tests := []struct {
		name, contentType, prefix, want string
	}{
		{"json", "application/json", `{"jsonrpc":"2.0","id":1,"result":"`, "larger than 16 MiB"},
		{"event stream", "text/event-stream", "data: ", "exceeded 16777216 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					http.Error(w, "no", http.StatusMethodNotAllowed)
					return
				}
				endless(w, r, tt.contentType, tt.prefix)
			}))
			t.Cleanup(srv.Close)
			m, _ := newTestManager(t, &Options{MaxReconnects: -1})
			m.Add(serverconf.Config{ID: "e", Transport: serverconf.TransportHTTP, URL: srv.URL + "/mcp", Enabled: true})
			st := waitState(t, m, "e", 30*time.Second, StateFailed, StateConnected, StateNeedsAuth)
			if st.State != StateFailed || !strings.Contains(st.Reason, tt.want) {
				t.Errorf("state %s, reason %q; want failed with %q", st.State, st.Reason, tt.want)
			}
		})
	}
}

func TestLimitedBody(t *testing.T) {
	read := func(body string, limit int64) (string, error) {
		b := &limitedBody{rc: io.NopCloser(strings.NewReader(body)), left: limit}
		var sb strings.Builder
		buf := make([]byte, 3)
		for {
			n, err := b.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				return sb.String(), err
			}
		}
	}
	if got, err := read("hello", 5); got != "hello" || err.Error() != "EOF" {
		t.Errorf("at the limit: %q, %v", got, err)
	}
	if got, err := read("hello!", 5); got != "hello" || err != ErrResponseTooLarge {
		t.Errorf("past the limit: %q, %v", got, err)
	}
}

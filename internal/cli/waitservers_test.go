package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// TestWaitForServers: ask waits for servers while they connect, up to
// --wait-servers, and no longer than that; then it names each that did not
// make it.
func TestWaitForServers(t *testing.T) {
	// A server that never answers: it stays connecting.
	hang := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(hang); hung.Close() })
	missing := filepath.Join(t.TempDir(), "no-such-server")

	for _, tt := range []struct {
		name    string
		cfgs    []serverconf.Config
		wait    time.Duration
		want    []string // lines printed
		atLeast time.Duration
	}{
		{name: "fails at once: no wait",
			cfgs: []serverconf.Config{{ID: "gone", Transport: serverconf.TransportStdio, Command: missing, Enabled: true}},
			wait: time.Minute,
			want: []string{"[server gone is failed: "}},
		{name: "still connecting at the deadline",
			cfgs:    []serverconf.Config{{ID: "slow", Transport: serverconf.TransportHTTP, URL: hung.URL, Enabled: true}},
			wait:    300 * time.Millisecond,
			want:    []string{"[server slow is connecting: ]"},
			atLeast: 300 * time.Millisecond},
		{name: "disabled: nothing to wait for or say",
			cfgs: []serverconf.Config{{ID: "off", Transport: serverconf.TransportStdio, Command: missing}},
			wait: time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := mcpconn.NewManager(&mcpconn.Options{ShellPATH: func() string { return os.Getenv("PATH") }, MaxReconnects: -1})
			defer m.Close()
			if err := m.SetServers(tt.cfgs); err != nil {
				t.Fatal(err)
			}
			if err := m.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			start := time.Now()
			waitForServers(t.Context(), m, tt.wait, &out)
			took := time.Since(start)
			if took < tt.atLeast || took > tt.atLeast+10*time.Second {
				t.Errorf("waited %s; want %s or a little more", took, tt.atLeast)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if out.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("printed %q; want lines starting %q", out.String(), tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("line %d = %q; want it to start %q", i, lines[i], w)
				}
			}
		})
	}
}

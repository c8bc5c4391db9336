package mcpconn

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// TestStderrHint: the headline of a failed stdio server is the stderr line
// that says what went wrong, never npm's noise, with the likely fix.
func TestStderrHint(t *testing.T) {
	tests := []struct {
		name   string
		stderr string
		want   string
	}{
		{name: "npm 404 (npm 10)", stderr: `npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nope - Not found
npm error 404
npm error 404  '@modelcontextprotocol/server-nope@*' is not in this registry.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git remote protocol.
npm error A complete log of this run can be found in: /home/u/.npm/_logs/2026-11-20T10_00_00_000Z-debug-0.log`,
			want: "npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nope - Not found (check the package name in the server's arguments)"},
		{name: "npm 404 (npm 8)", stderr: `npm ERR! code E404
npm ERR! 404 Not Found - GET https://registry.npmjs.org/server-nope - Not found
npm ERR! 404
npm ERR! A complete log of this run can be found in:
npm ERR!     /root/.npm/_logs/2026-11-20T10_00_00_000Z-debug-0.log`,
			want: "npm ERR! 404 Not Found - GET https://registry.npmjs.org/server-nope - Not found (check the package name in the server's arguments)"},
		{name: "offline npx", stderr: `npm warn Unknown user config "nodedir". This will stop working in the next major version of npm.
npm error code ENOTFOUND
npm error syscall getaddrinfo
npm error errno ENOTFOUND
npm error network request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org
npm error network This is a problem related to network connectivity.
npm error network In most cases you are behind a proxy or have bad network settings.
npm error network
npm error network If you are behind a proxy, please make sure that the
npm error network 'proxy' config is set properly.  See: 'npm help config'
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-20T10_00_00_000Z-debug-0.log`,
			want: "npm error network request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org (the server may need network access: npx and uvx download it on first use)"},
		{name: "npm noise only", stderr: `npm warn Unknown user config "nodedir". This will stop working in the next major version of npm.
npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log`, want: ""},
		{name: "python traceback", stderr: `Traceback (most recent call last):
  File "/usr/lib/python3/server.py", line 3, in <module>
    import mcp
ModuleNotFoundError: No module named 'mcp'`, want: "ModuleNotFoundError: No module named 'mcp'"},
		{name: "node error", stderr: `Starting server...
Error: SQLITE_CANTOPEN: unable to open database file
    at Database.open (/app/node_modules/sqlite3/lib/sqlite3.js:10:5)`, want: "Error: SQLITE_CANTOPEN: unable to open database file"},
		{name: "plain last line", stderr: "starting\nlistening on stdio", want: "listening on stdio"},
		{name: "go fatal", stderr: "fault server starting\nfatal: cannot read config /etc/x.json: permission denied",
			want: "fatal: cannot read config /etc/x.json: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stderrHint(strings.Split(tt.stderr, "\n")); got != tt.want {
				t.Errorf("stderrHint =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestRemoteHeadlines: a remote server that cannot be reached, or is
// reached the wrong way, fails with the likely fix in its reason.
func TestRemoteHeadlines(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "h", Version: "1"}, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	// A black hole: accepts connections, never answers.
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hole.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String() + "/mcp"
	closed.Close()

	tests := []struct {
		name      string
		transport serverconf.Transport
		url       string
		want      []string
	}{
		{"wrong path, http", serverconf.TransportHTTP, srv.URL + "/mpc", []string{"Not Found", "check the URL's path (/mpc)"}},
		{"wrong path, sse", serverconf.TransportSSE, srv.URL + "/mpc", []string{"Not Found", "check the URL's path (/mpc)"}},
		{"sse at an http endpoint", serverconf.TransportSSE, srv.URL + "/mcp", []string{"Bad Request", "this may be a streamable HTTP server: try the http transport"}},
		{"http at an sse endpoint", serverconf.TransportHTTP, srv.URL + "/sse", []string{"this may be an SSE server: try the sse transport"}},
		{"black hole", serverconf.TransportHTTP, "http://" + hole.Addr().String() + "/mcp", []string{"did not finish connecting in time", "is it running", "reach it"}},
		{"nothing listening", serverconf.TransportHTTP, closedURL, []string{"connection refused", "is the server running"}},
	}
	m, _ := newTestManager(t, &Options{MaxReconnects: -1, ConnectTimeout: time.Second})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := strings.ReplaceAll(tt.name, " ", "-")
			m.Add(serverconf.Config{ID: id, Transport: tt.transport, URL: tt.url, Enabled: true})
			st := waitState(t, m, id, 20*time.Second, StateFailed, StateConnected)
			t.Logf("reason: %s", st.Reason)
			for _, w := range tt.want {
				if !strings.Contains(st.Reason, w) {
					t.Errorf("reason %q lacks %q", st.Reason, w)
				}
			}
		})
	}
}

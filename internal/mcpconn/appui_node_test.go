package mcpconn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// MinimalPDF is a one-page PDF with no text, enough for server-pdf to list.
const minimalPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// The MCP Apps example servers from npm (test/node), over stdio (always
// --stdio: by default they listen on every interface), with the extension
// advertised: each declares its view, the view reads as one
// text/html;profile=mcp-app document with the declared policy, and an
// app-only tool is marked so.
func TestAppServersNode(t *testing.T) {
	e := mcptest.Node(t, "mcp-server-basic-vanillajs", "mcp-server-basic-svelte", "mcp-system-monitor-server", "mcp-pdf-server")
	pdf := filepath.Join(t.TempDir(), "sample.pdf")
	if err := os.WriteFile(pdf, []byte(minimalPDF), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, command string
		args        []string
		tool, uri   string
		minHTML     int
		csp         UICSP
		perms       UIPermissions
		appOnly     []string // tools kept from models
	}{
		{id: "vanilla", command: "mcp-server-basic-vanillajs", tool: "get-time", uri: "ui://get-time/mcp-app.html", minHTML: 100 << 10},
		{id: "svelte", command: "mcp-server-basic-svelte", tool: "get-time", uri: "ui://get-time/mcp-app.html", minHTML: 100 << 10},
		{id: "monitor", command: "mcp-system-monitor-server", tool: "get-system-info", uri: "ui://system-monitor/mcp-app.html",
			minHTML: 200 << 10, appOnly: []string{"poll-system-stats"}},
		{id: "pdf", command: "mcp-pdf-server", args: []string{pdf}, tool: "display_pdf", uri: "ui://pdf-viewer/mcp-app.html",
			minHTML: 4 << 20, csp: UICSP{ConnectDomains: []string{"https://unpkg.com"}, ResourceDomains: []string{"https://unpkg.com"}},
			perms: UIPermissions{ClipboardWrite: true}, appOnly: []string{"read_pdf_bytes", "save_pdf"}},
	}
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH, AppViews: true})
	for _, tt := range tests {
		m.Add(serverconf.Config{ID: tt.id, Transport: serverconf.TransportStdio, Command: tt.command,
			Args: append([]string{"--stdio"}, tt.args...), Enabled: true})
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			st := waitState(t, m, tt.id, 60*time.Second, StateConnected, StateFailed)
			if st.State != StateConnected {
				t.Fatalf("%s: %s\n%s", st.State, st.Reason, strings.Join(st.LastStderr, "\n"))
			}
			var viewTool *Tool
			var appOnly []string
			for _, tool := range m.Tools() {
				if tool.ServerID != tt.id {
					continue
				}
				if tool.OriginalName == tt.tool {
					viewTool = &tool
				}
				if tool.AppOnly {
					appOnly = append(appOnly, tool.OriginalName)
					if !tool.ForApp() {
						t.Errorf("%s is app-only but not callable by its view (visibility %v)", tool.OriginalName, tool.Visibility)
					}
				}
			}
			if viewTool == nil || viewTool.UI == nil || viewTool.UI.ResourceURI != tt.uri {
				t.Fatalf("%s: tool %s has view %+v; want %s", tt.id, tt.tool, viewTool, tt.uri)
			}
			for _, want := range tt.appOnly {
				if !slices.Contains(appOnly, want) {
					t.Errorf("%s is not app-only (app-only: %v)", want, appOnly)
				}
			}

			start := time.Now()
			res, err := m.ReadUIResource(t.Context(), tt.id, tt.uri)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: read %s (%d KB) in %s", tt.id, tt.uri, len(res.HTML)>>10, time.Since(start).Round(time.Millisecond))
			if len(res.HTML) < tt.minHTML || !strings.Contains(strings.ToLower(res.HTML[:min(len(res.HTML), 4096)]), "<html") {
				t.Errorf("the view is %d bytes and starts %.80q; want an HTML document of at least %d", len(res.HTML), res.HTML, tt.minHTML)
			}
			if d := cmp.Diff(tt.csp, res.CSP); d != "" {
				t.Errorf("csp (-want +got):\n%s", d)
			}
			if res.Permissions != tt.perms {
				t.Errorf("permissions = %+v; want %+v", res.Permissions, tt.perms)
			}
			if len(res.Notes) > 0 {
				t.Errorf("notes: %q", res.Notes)
			}
		})
	}
}

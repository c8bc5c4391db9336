package mcpconn

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Item 3 of issue 13: a tool the server marks for its own view
// (_meta.ui.visibility without "model", the MCP Apps extension) is marked
// AppOnly, so chat never offers it to a model.
func TestAppOnlyTools(t *testing.T) {
	f := newMemServer()
	ui := func(vis ...any) mcp.Meta {
		return mcp.Meta{"ui": map[string]any{"resourceUri": "ui://view", "visibility": vis}}
	}
	f.tools = []*mcp.Tool{
		{Name: "plain", InputSchema: anyObject()},
		{Name: "view_only", InputSchema: anyObject(), Meta: ui("app")},
		{Name: "both", InputSchema: anyObject(), Meta: ui("model", "app")},
		{Name: "model_only", InputSchema: anyObject(), Meta: ui("model")},
		{Name: "no_visibility", InputSchema: anyObject(), Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://view"}}},
		{Name: "empty_visibility", InputSchema: anyObject(), Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{}}}},
	}
	m, _ := f.start(t, Options{Logger: testLogger(t)}, serverconf.Config{Name: "Apps"})
	waitState(t, m, "x", 10*time.Second, StateConnected)

	got := map[string]bool{}
	for _, tool := range m.Tools() {
		got[tool.OriginalName] = tool.AppOnly
	}
	want := map[string]bool{"plain": false, "view_only": true, "both": false, "model_only": false,
		"no_visibility": false, "empty_visibility": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("AppOnly by tool (-want +got):\n%s", d)
	}
	if tool, ok := m.Lookup("x__view_only"); !ok || !tool.AppOnly {
		t.Errorf("Lookup(x__view_only) = %+v, %v; want the app-only tool, still callable by its view", tool, ok)
	}
}

package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

const png = "data:image/png;base64,iVBORw0KGgo="

func TestKeepIcons(t *testing.T) {
	tests := []struct {
		name string
		in   []mcp.Icon
		want []Icon
	}{
		{"none", nil, nil},
		{"data png", []mcp.Icon{{Source: png, MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}},
			[]Icon{{Src: png, MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}}},
		{"svg", []mcp.Icon{{Source: "data:image/svg+xml;utf8,<svg/>"}}, []Icon{{Src: "data:image/svg+xml;utf8,<svg/>"}}},
		{"https is never fetched", []mcp.Icon{{Source: "https://example.com/i.png"}}, nil},
		{"http", []mcp.Icon{{Source: "http://example.com/i.png"}}, nil},
		{"not an image", []mcp.Icon{{Source: "data:text/html;base64,PHNjcmlwdD4="}}, nil},
		{"javascript", []mcp.Icon{{Source: "javascript:alert(1)"}}, nil},
		{"too large", []mcp.Icon{{Source: png + strings.Repeat("A", maxIconBytes)}}, nil},
		{"unknown theme", []mcp.Icon{{Source: png, Theme: "sepia"}}, []Icon{{Src: png}}},
		{"at most three", []mcp.Icon{{Source: png}, {Source: png}, {Source: png}, {Source: png}}, []Icon{{Src: png}, {Src: png}, {Src: png}}},
		{"sizes bounded", []mcp.Icon{{Source: png, Sizes: []string{"1", "2", "3", "4", "5", strings.Repeat("9", 40)}}}, []Icon{{Src: png, Sizes: []string{"1", "2", "3", "4"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, keepIcons(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A tool's title, annotations and icons reach the registry.
func TestToolTitleHintsIcons(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "pics", Version: "1"}, nil)
	noop := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "look", Title: "Look around", Icons: []mcp.Icon{{Source: "https://tracker.example/p.png"}, {Source: png, MIMEType: "image/png"}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), OpenWorldHint: new(true)}}, noop)
	mcp.AddTool(srv, &mcp.Tool{Name: "plain", Annotations: &mcp.ToolAnnotations{Title: "From annotations"}}, noop)
	m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1})
	connectInProcess(m, srv)
	defer m.Close()
	m.Start(t.Context())
	m.Add(serverconf.Config{ID: "p", Enabled: true})
	waitState(t, m, "p", 10*time.Second, StateConnected)
	look, _ := m.Lookup("p__look")
	if look.Title != "Look around" || !cmp.Equal(look.Icons, []Icon{{Src: png, MIMEType: "image/png"}}) {
		t.Errorf("look: title %q, icons %+v", look.Title, look.Icons)
	}
	var a map[string]any
	json.Unmarshal(look.Annotations, &a)
	if a["readOnlyHint"] != true || a["destructiveHint"] != false || a["openWorldHint"] != true {
		t.Errorf("annotations %s", look.Annotations)
	}
	if plain, _ := m.Lookup("p__plain"); plain.Title != "From annotations" || plain.Icons != nil {
		t.Errorf("plain: %+v", plain)
	}
}

package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

func TestToolSelection(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c")}, nil)
	ctx := context.Background()
	off := tool("web", "off")
	off.Enabled = false
	h.tools.tools = append(h.tools.tools, off)

	offered := func() []string {
		var out []string
		for _, tl := range last(h.srv.ChatRequests()).Tools {
			out = append(out, tl.Function.Name)
		}
		return out
	}
	h.send("default")
	if diff := cmp.Diff([]string{"fs__read", "web__get"}, offered()); diff != "" {
		t.Errorf("default offer (-want +got):\n%s", diff)
	}
	h.e.SetTools(ctx, h.conv.ID, &ToolSelection{Only: []string{"web__get", "web__off"}})
	h.send("only")
	if diff := cmp.Diff([]string{"web__get"}, offered()); diff != "" {
		t.Errorf("only (-want +got):\n%s", diff)
	}
	h.e.SetTools(ctx, h.conv.ID, &ToolSelection{Only: []string{}})
	h.send("none")
	if got := offered(); len(got) != 0 {
		t.Errorf("empty Only offered %v", got)
	}

	set, err := h.e.ToolsFor(ctx, h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if set.Offered != 0 || len(set.Tools) != 3 || set.Tools[2].Enabled || set.Warning != "" {
		t.Errorf("tool set %+v", set)
	}
	h.e.SetTools(ctx, h.conv.ID, nil)
	set, _ = h.e.ToolsFor(ctx, h.conv.ID)
	if set.Offered != 2 || !set.Tools[0].Selected || set.EstimatedTokens == 0 {
		t.Errorf("after reset %+v", set)
	}
}

func TestToolWarnings(t *testing.T) {
	many := make([]Tool, 130)
	for i := range many {
		many[i] = tool("s", fmt.Sprint("t", i))
	}
	big := tool("s", "big")
	big.InputSchema = json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", 40_000) + `"}`)

	tests := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"few", []Tool{tool("s", "a")}, ""},
		{"more than 128", many, "130 tools are on"},
		{"schemas past a quarter of the context", []Tool{big}, "more than a quarter of a 32768-token context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// With tool search on (the default), these tools would go behind
			// it; TestToolSearchReplacesWarnings checks that.
			h := newHarness(t, []llmtest.Reply{llmtest.Text("ok")}, func(o *Options) { o.ToolSearch.Mode = toolsearch.ModeOff })
			h.tools.tools = tt.tools
			set, err := h.e.ToolsFor(context.Background(), h.conv.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(set.Warning, tt.want) || (tt.want == "") != (set.Warning == "") {
				t.Errorf("warning %q; want %q", set.Warning, tt.want)
			}
			h.send("hi")
			warnings := h.rec.all(EventWarning)
			if (tt.want != "") != (len(warnings) == 1) {
				t.Errorf("warning events %+v", warnings)
			}
		})
	}
}

package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// refBomb is an output schema of n levels of $defs, each an anyOf of two
// $refs to the next.
func refBomb(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
	return `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/d0"}`
}

func TestCheckStructured(t *testing.T) {
	tree := `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`
	var fetched atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Write([]byte(`{"type":"object"}`))
	}))
	defer remote.Close()
	weather := `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature"]}`
	tests := []struct {
		name, schema, structured string
		isError                  bool
		want                     string // in the warning; "" for none
	}{
		{"matches", weather, `{"temperature":21.5,"conditions":"sunny"}`, false, ""},
		{"integer as number", weather, `{"temperature":21}`, false, ""},
		{"wrong type", weather, `{"temperature":"hot"}`, false, "does not match the tool's output schema"},
		{"missing required", weather, `{"conditions":"sunny"}`, false, "temperature"},
		{"none sent", weather, ``, false, "declares an output schema but sent no structured content"},
		{"error results are not checked", weather, ``, true, ""},
		{"no schema", ``, `{"x":1}`, false, ""},
		{"schema unreadable", `{"type":5}`, `{}`, false, "cannot be read"},
		{"remote ref is not fetched", `{"$ref":"` + remote.URL + `/s.json"}`, `{}`, false, "cannot be used"},
		{"2020-12 with defs", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"t":{"type":"integer","minimum":0}},"type":"object","properties":{"n":{"$ref":"#/$defs/t"}}}`, `{"n":-1}`, false, "minimum"},
		{"recursive schema is checked", tree, `{"name":"a","children":[{"name":"b","children":[{"name":5}]}]}`, false, "does not match"},
		// 1 KB whose refs each name two more: the validator's work and its
		// error grow as 2ⁿ (at n=24, gigabytes), so it is not run.
		{"ref bomb is not checked", refBomb(16), `42`, false, "not checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Result{IsError: tt.isError, StructuredContent: json.RawMessage(tt.structured)}
			r.checkStructured(json.RawMessage(tt.schema))
			switch {
			case tt.want == "" && r.StructuredWarning != "":
				t.Errorf("warning %q, want none", r.StructuredWarning)
			case !strings.Contains(r.StructuredWarning, tt.want):
				t.Errorf("warning %q, want it to say %q", r.StructuredWarning, tt.want)
			case len(r.StructuredWarning) > maxStructuredWarning+len("…"):
				t.Errorf("warning of %d bytes", len(r.StructuredWarning))
			}
		})
	}
	if fetched.Load() != 0 {
		t.Errorf("a remote $ref was fetched %d times", fetched.Load())
	}
}

func TestForModelStructured(t *testing.T) {
	text := func(s string) []Content { return []Content{{Type: ContentText, Text: s}} }
	tests := []struct {
		name string
		r    *Result
		want string
	}{
		{"text is the JSON", &Result{Content: text(`{"a": 1}`), StructuredContent: json.RawMessage(`{"a":1}`)}, `{"a": 1}`},
		{"text says something else", &Result{Content: text("It is 21°C."), StructuredContent: json.RawMessage(`{"t":21}`)},
			"It is 21°C.\n[structured content]\n{\"t\":21}"},
		{"strings all in the text", &Result{Content: text("line one\nline two"), StructuredContent: json.RawMessage(`{"content":"line one\nline two","parts":["two"]}`)},
			"line one\nline two"},
		{"a string not in the text", &Result{Content: text("line one"), StructuredContent: json.RawMessage(`{"content":"line one","path":"/x"}`)},
			"line one\n[structured content]\n{\"content\":\"line one\",\"path\":\"/x\"}"},
		{"warning told", &Result{Content: text(`{"t":"hot"}`), StructuredContent: json.RawMessage(`{"t":"hot"}`), StructuredWarning: "the structured content does not match the tool's output schema: t: not a number"},
			"{\"t\":\"hot\"}\n[warning: the structured content does not match the tool's output schema: t: not a number]"},
	}
	for _, tt := range tests {
		if got := tt.r.ForModel(0); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A tool whose structured content breaks its output schema: the call
// returns the content with a warning; one that keeps it, none.
func TestCallChecksStructured(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "wx", Version: "1"}, nil)
	out := map[string]any{"type": "object", "properties": map[string]any{"temperature": map[string]any{"type": "number"}}, "required": []any{"temperature"}}
	in := map[string]any{"type": "object"}
	// The raw handler: the SDK's server does not check what it returns.
	srv.AddTool(&mcp.Tool{Name: "good", InputSchema: in, OutputSchema: out}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"temperature":21}`}}, StructuredContent: map[string]any{"temperature": 21}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "bad", InputSchema: in, OutputSchema: out}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Too warm."}}, StructuredContent: map[string]any{"temperature": "hot"}}, nil
	})
	m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1})
	connectInProcess(m, srv)
	defer m.Close()
	m.Start(t.Context())
	m.Add(serverconf.Config{ID: "wx", Enabled: true})
	waitState(t, m, "wx", 10*time.Second, StateConnected)
	if tool, _ := m.Lookup("wx__good"); !strings.Contains(string(tool.OutputSchema), `"required":["temperature"]`) {
		t.Errorf("output schema %s", tool.OutputSchema)
	}
	good, err := m.CallTool(t.Context(), "wx__good", nil, nil)
	if err != nil || good.StructuredWarning != "" || good.ForModel(0) != `{"temperature":21}` {
		t.Errorf("good: %+v, %v", good, err)
	}
	bad, err := m.CallTool(t.Context(), "wx__bad", nil, nil)
	if err != nil || !strings.Contains(bad.StructuredWarning, "does not match") || !strings.Contains(bad.ForModel(0), "[warning: the structured content does not match") ||
		!strings.Contains(bad.ForModel(0), `[structured content]`) {
		t.Errorf("bad: %+v (%q), %v", bad, bad.ForModel(0), err)
	}
}

// server-everything's get-structured-content keeps its output schema.
func TestEverythingStructured(t *testing.T) {
	e := requireNode(t)
	m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
	m.Add(everythingStdio("ev"))
	waitState(t, m, "ev", 30*time.Second, StateConnected)
	res, err := m.CallTool(t.Context(), "ev__get-structured-content", json.RawMessage(`{"location":"Chicago"}`), nil)
	if err != nil || res.StructuredWarning != "" || !strings.Contains(string(res.StructuredContent), "drizzle") {
		t.Fatalf("%+v, %v", res, err)
	}
	if got := res.ForModel(0); strings.Count(got, "drizzle") != 1 {
		t.Errorf("the model gets the weather %d times: %q", strings.Count(got, "drizzle"), got)
	}
}

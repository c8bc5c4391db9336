package cli

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

// A script turns tool search on with settings set and runs ask: the model
// gets only the pair, searches, and calls the tool it found through
// call_tool; --allow of the real tool lets it run (the approval names the
// real tool), and stderr shows the search and the call. ask --tool-search
// off sends the tools themselves for that run.
func TestAskToolSearch(t *testing.T) {
	var forecasts atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	type city struct {
		City string `json:"city"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "weather_forecast", Description: "Get the weather forecast for a city for the next days."},
		func(_ context.Context, _ *mcp.CallToolRequest, in city) (*mcp.CallToolResult, any, error) {
			forecasts.Add(1)
			return textResult("rain in " + in.City), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "notes", Description: "Read the user's notes."},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return textResult("notes"), nil, nil
		})
	dir := t.TempDir()
	importHTTP(t, dir, "web", serveMCP(t, srv))

	if code, stdout, _ := run(t, dir, "", "settings"); code != 0 || !regexpLine(stdout, `^tool-search\s+auto$`) ||
		!regexpLine(stdout, `^tool-search-tools\s+64$`) || !regexpLine(stdout, `^tool-search-kb\s+24$`) {
		t.Errorf("settings: %d\n%s", code, stdout)
	}
	for _, set := range [][]string{{"tool-search", "always"}, {"tool-search-tools", "100"}, {"tool-search-kb", "48"}} {
		if code, stdout, stderr := run(t, dir, "", "settings", "set", set[0], set[1]); code != 0 || !strings.Contains(stdout, set[0]+" = "+set[1]) {
			t.Fatalf("settings set %v: %d %q %q", set, code, stdout, stderr)
		}
	}
	for _, bad := range [][]string{{"tool-search", "sometimes"}, {"tool-search-tools", "0"}, {"tool-search-kb", "x"}, {"tool-search-kb", "100000"}} {
		if code, _, stderr := run(t, dir, "", "settings", "set", bad[0], bad[1]); code != 1 || stderr == "" {
			t.Errorf("settings set %v: %d %q", bad, code, stderr)
		}
	}

	llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "s", Name: toolsearch.SearchName, Arguments: []string{`{"query":"weather forecast for a city"}`}}),
		llmtest.Calls(llmtest.ToolCall{ID: "c", Name: toolsearch.CallName, Arguments: []string{`{"name":"web__weather_forecast","arguments":{"city":"Oslo"}}`}}),
		llmtest.Text("It rains."),
		llmtest.Text("Still."),
	}})
	code, stdout, stderr := run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--allow", "web/weather_forecast", "--wait-servers", "20s", "weather in Oslo?")
	if code != 0 || forecasts.Load() != 1 || stdout != "It rains.\n" {
		t.Fatalf("ask: %d, %d forecasts, stdout %q\n%s", code, forecasts.Load(), stdout, stderr)
	}
	for _, want := range []string{
		`[tool search "weather forecast for a city": web__weather_forecast`,
		"[tool web__weather_forecast on web (through tool search): running]",
		"[tool web__weather_forecast: done in ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	reqs := llm.ChatRequests()
	if got := requestNames(reqs[0]); got != "search_tools,call_tool" {
		t.Errorf("with tool search always, the request carried %s", got)
	}

	code, _, stderr = run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--tool-search", "off", "--wait-servers", "20s", "and now?")
	if code != 0 {
		t.Fatalf("ask --tool-search off: %d %s", code, stderr)
	}
	reqs = llm.ChatRequests()
	if got := requestNames(reqs[len(reqs)-1]); got != "web__notes,web__weather_forecast" && got != "web__weather_forecast,web__notes" {
		t.Errorf("with --tool-search off, the request carried %s", got)
	}
	if code, _, stderr := run(t, dir, "", "ask", "--tool-search", "maybe", "hi"); code != 2 || !strings.Contains(stderr, "choose auto, always or off") {
		t.Errorf("--tool-search maybe: %d %q", code, stderr)
	}
}

func requestNames(r llmtest.ChatRequest) string {
	var n []string
	for _, t := range r.Tools {
		n = append(n, t.Function.Name)
	}
	return strings.Join(n, ",")
}

package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

func requestToolNames(req llmtest.ChatRequest) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Item 3 of issue 13: a tool the server meant for its own view is not
// offered, not in the picker, and a model's call of it is refused as of an
// unknown tool, without asking the user or running it.
func TestAppOnlyToolsAreNotOffered(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "view__draw", Arguments: []string{"{}"}}),
		llmtest.Text("ok"),
	}, nil)
	view := tool("view", "draw")
	view.AppOnly = true
	h.tools.tools = append(h.tools.tools, view)

	set, err := h.e.ToolsFor(context.Background(), h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var picker []string
	for _, c := range set.Tools {
		picker = append(picker, c.Name)
	}
	if diff := cmp.Diff([]string{"fs__read", "web__get"}, picker); diff != "" || set.Offered != 2 {
		t.Errorf("picker (-want +got):\n%s; offered %d", diff, set.Offered)
	}

	if res := h.send("draw"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	reqs := h.srv.ChatRequests()
	if diff := cmp.Diff([]string{"fs__read", "web__get"}, requestToolNames(reqs[0])); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	ms := h.messages()
	if len(ms) < 3 || !strings.Contains(ms[2].Content, `no tool named "view__draw"`) {
		t.Errorf("messages %+v; want the call refused as of an unknown tool", ms)
	}
	if n, m := len(h.approver.asked()), len(h.tools.called()); n != 0 || m != 0 {
		t.Errorf("approver asked %d times, tool ran %d times", n, m)
	}
}

// Item 4 of issue 13: the same exposed name is never sent twice (a
// provider refuses the whole request); the first tool that has it is the
// one offered and the one a call runs on.
func TestOfferNamesEachToolOnce(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("ok"),
	}, nil)
	second := tool("fs", "read")
	second.ServerID, second.OriginalName, second.Description = "fs2", "read2", "the second read"
	h.tools.tools = append(h.tools.tools, second)
	if res := h.send("read"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	req := h.srv.ChatRequests()[0]
	if diff := cmp.Diff([]string{"fs__read", "web__get"}, requestToolNames(req)); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	if req.Tools[0].Function.Description != "does read" {
		t.Errorf("fs__read offered as %q; want the first one", req.Tools[0].Function.Description)
	}
	if asked := h.approver.asked(); len(asked) != 1 || asked[0].ServerID != "fs" || asked[0].Tool != "read" {
		t.Errorf("approval requests %+v; want one, for the first fs__read", asked)
	}
	if calls := h.tools.called(); len(calls) != 1 {
		t.Errorf("calls %+v; want one", calls)
	}
}

// Item 2 of issue 13: the warning names the provider's own limit and the
// servers that cost the most.
func TestToolWarningByProvider(t *testing.T) {
	var tools []Tool
	add := func(server string, n, descBytes int) {
		for i := range n {
			t := tool(server, fmt.Sprint("t", i))
			t.ServerName = server
			t.Description = strings.Repeat("d", descBytes)
			tools = append(tools, t)
		}
	}
	add("desktop-commander", 41, 900)
	add("playwright", 21, 600)
	add("context7", 100, 10)
	add("sqlite", 2, 10)
	e := NewEngine(&Options{ContextTokens: 1 << 20})

	_, got := e.offer(tools, ToolSelection{}, llm.ToolLimitsFor("https://api.openai.com/v1"))
	want := "164 tools are on, more than OpenAI accepts (128); the largest: desktop-commander (41 tools, 38 KB), " +
		"playwright (21 tools, 13 KB), context7 (100 tools, 5 KB). Switch off the ones this conversation does not need."
	if got != want {
		t.Errorf("OpenAI warning\n got %q\nwant %q", got, want)
	}
	if _, got := e.offer(tools, ToolSelection{}, llm.ToolLimitsFor("https://api.groq.com/openai/v1")); !strings.HasPrefix(got,
		"164 tools are on; Groq may accept no more than 128") {
		t.Errorf("Groq warning %q", got)
	}
	if _, got := e.offer(tools, ToolSelection{}, llm.ToolLimitsFor("http://localhost:11434/v1")); got != "" {
		t.Errorf("Ollama (no count limit, a large context) warning %q; want none", got)
	}
	small := NewEngine(&Options{ContextTokens: 8192})
	if _, got := small.offer(tools, ToolSelection{}, llm.ToolLimitsFor("http://localhost:11434/v1")); !strings.Contains(got,
		"more than a quarter of a 8192-token context; the largest: desktop-commander (41 tools, 38 KB)") {
		t.Errorf("Ollama, small context: warning %q", got)
	}
}

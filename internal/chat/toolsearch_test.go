package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
	"github.com/switchboard-app/switchboard/internal/toolsearch/toolsearchtest"
)

// catalogTools are toolsearchtest's 300 tools of ten servers as chat
// gets them.
func catalogTools() []Tool {
	var out []Tool
	for _, t := range toolsearchtest.Catalog() {
		out = append(out, Tool{Name: t.Exposed(), ServerID: t.ServerID, ServerName: t.ServerName, OriginalName: t.Name,
			Description: t.Description, InputSchema: t.InputSchema, Enabled: true,
			Fingerprint: "fp-" + t.ServerID, DefinitionHash: "def-" + t.Exposed()})
	}
	return out
}

func searchCall(id, query string) llmtest.ToolCall {
	args, _ := json.Marshal(map[string]string{"query": query})
	return llmtest.ToolCall{ID: id, Name: toolsearch.SearchName, Arguments: llmtest.Split(string(args), 7)}
}

func metaCall(id, name, args string) llmtest.ToolCall {
	raw := `{"name":` + jsonString(name) + `,"arguments":` + args + `}`
	return llmtest.ToolCall{ID: id, Name: toolsearch.CallName, Arguments: llmtest.Split(raw, 7)}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// requestTools is the raw "tools" of a recorded request, as sent.
func requestTools(t *testing.T, r llmtest.Request) []byte {
	t.Helper()
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Tools
}

func chatRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Chat != nil {
			out = append(out, r)
		}
	}
	return out
}

// Past the threshold, every request carries the pair and nothing else,
// byte for byte the same across turns and across conversations with other
// tools behind it; below it, the tools themselves.
func TestToolSearchPairIsByteIdentical(t *testing.T) {
	replies := []llmtest.Reply{
		llmtest.Calls(searchCall("s1", "list pods")), llmtest.Text("a"),
		llmtest.Text("b"),
	}
	h := newHarness(t, replies, nil)
	h.tools.setTools(catalogTools())
	h.send("one")
	h.send("two")

	// Another conversation with 70 other tools (past the default 64).
	h2 := newHarness(t, []llmtest.Reply{llmtest.Text("c")}, nil)
	h2.tools.setTools(catalogTools()[100:170])
	h2.send("three")

	reqs := append(chatRequests(h.srv), chatRequests(h2.srv)...)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	first := requestTools(t, reqs[0])
	for i, r := range reqs {
		if got := requestTools(t, r); !bytes.Equal(first, got) {
			t.Errorf("request %d's tools differ from the first's:\n%s\n%s", i, first, got)
		}
		if diff := cmp.Diff([]string{toolsearch.SearchName, toolsearch.CallName}, requestToolNames(*r.Chat)); diff != "" {
			t.Errorf("request %d's tools (-want +got):\n%s", i, diff)
		}
	}
	if len(first) > 2048 {
		t.Errorf("the pair takes %d bytes of a request", len(first))
	}

	// 64 tools are not past the count: they go as themselves (when their
	// bytes are under that threshold, here raised).
	h3 := newHarness(t, []llmtest.Reply{llmtest.Text("d")}, func(o *Options) { o.ToolSearch.MaxBytes = 1 << 20 })
	h3.tools.setTools(catalogTools()[:64])
	h3.send("four")
	if n := len(h3.srv.ChatRequests()[0].Tools); n != 64 {
		t.Errorf("64 tools: the request carried %d tools", n)
	}
}

// A call through call_tool is the real tool's call everywhere: the
// approval request, the audit record, the events and the tool that runs
// name the real tool and carry its own arguments; the result answers the
// meta call. The search before it returns the tool's full definition.
func TestToolSearchCallIsTheRealTool(t *testing.T) {
	args := `{"owner":"octo","repo":"hello","title":"Crash on start"}`
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(searchCall("s1", "create a github issue")),
		llmtest.Calls(metaCall("c1", "github__create_issue", args)),
		llmtest.Text("filed"),
	}, nil)
	h.tools.setTools(catalogTools())
	if res := h.send("file a bug"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}

	// The search's answer: the tool's definition, whole.
	reqs := h.srv.ChatRequests()
	found := last(reqs[1].Messages)
	if found.Role != "tool" || found.ToolCallID != "s1" {
		t.Fatalf("second request ends with %+v", found)
	}
	var result struct {
		Tools []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(found.Content), &result); err != nil || len(result.Tools) == 0 {
		t.Fatalf("search result %q (%v)", found.Content, err)
	}
	if result.Tools[0].Name != "github__create_issue" || !strings.Contains(string(result.Tools[0].Parameters), `"title"`) {
		t.Errorf("search's best match %+v", result.Tools[0])
	}

	// Approval: the real server and tool, its arguments.
	asked := h.approver.asked()
	if len(asked) != 1 {
		t.Fatalf("approver asked %d times", len(asked))
	}
	r := asked[0]
	if r.ServerID != "github" || r.Tool != "create_issue" || r.ServerName != "GitHub" || string(r.Arguments) != args ||
		r.DefinitionHash != "def-github__create_issue" || !strings.Contains(string(r.InputSchema), `"title"`) {
		t.Errorf("approval request %+v", r)
	}
	// The tool that ran, and with what.
	if diff := cmp.Diff([]fakeCall{{"github__create_issue", args}}, h.tools.called(), cmp.AllowUnexported(fakeCall{})); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	// Audit: one record, of the real tool; the search has none.
	a := h.audit()
	if len(a) != 1 || a[0].Tool != "github__create_issue" || a[0].ServerID != "github" || a[0].ServerName != "GitHub" ||
		a[0].Arguments != args || a[0].CallID != "c1" || a[0].Status != store.CallDone {
		t.Errorf("audit %+v", a)
	}
	// Events: the real tool, marked as through tool search.
	for _, ev := range h.rec.toolEvents() {
		if ev.Tool != "github__create_issue" || ev.ServerID != "github" || ev.Via != toolsearch.CallName || ev.CallID != "c1" {
			t.Errorf("tool event %+v", ev)
		}
	}
	// The result answers the meta call.
	ms := h.messages()
	want := []string{"user: file a bug", "assistant: ", "tool: " + found.Content, "assistant: ", "tool: ran github__create_issue with " + args, "assistant: filed"}
	if diff := cmp.Diff(want, contents(ms)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if ms[4].ToolCallID != "c1" {
		t.Errorf("the result answers %q, want c1", ms[4].ToolCallID)
	}
}

// A meta call of a tool the conversation does not offer (unknown, off
// for the conversation, switched off, for views only, a meta name) or
// with bad arguments is refused with a message that says to search,
// without asking or running anything; a search does not find those tools.
func TestToolSearchRefusals(t *testing.T) {
	tools := catalogTools()
	off, disabled, view := tools[0], tools[1], tools[2] // github__list_issues, get_issue, create_issue
	disabled.Enabled = false
	view.AppOnly = true
	tools[1], tools[2] = disabled, view
	calls := []struct{ name, args, want string }{
		{"nope__missing", `{}`, `no tool named "nope__missing" is available in this conversation. Search with search_tools first`},
		{off.Name, `{}`, `no tool named "github__list_issues" is available`},
		{disabled.Name, `{}`, `no tool named "github__get_issue" is available`},
		{view.Name, `{}`, `no tool named "github__create_issue" is available`},
		{toolsearch.CallName, `{}`, `no tool named "call_tool" is available`},
		{"github__update_issue", `[1]`, `"arguments" of call_tool must be a JSON object`},
	}
	var replies []llmtest.Reply
	for i, c := range calls {
		replies = append(replies, llmtest.Calls(metaCall(string(rune('a'+i)), c.name, c.args)))
	}
	replies = append(replies,
		llmtest.Calls(llmtest.ToolCall{ID: "x", Name: toolsearch.CallName, Arguments: []string{`{"arguments":{}}`}}),
		llmtest.Calls(llmtest.ToolCall{ID: "y", Name: "github__nothing", Arguments: []string{`{}`}}),
		llmtest.Calls(searchCall("s", "github issue list get create")),
		llmtest.Text("gave up"))
	h := newHarness(t, replies, func(o *Options) { o.MaxToolRounds = 20 })
	h.tools.setTools(tools)
	sel, _ := json.Marshal(ToolSelection{Off: []string{off.Key()}})
	if err := h.st.SetConversationTools(context.Background(), h.conv.ID, sel); err != nil {
		t.Fatal(err)
	}
	if res := h.send("go"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	var results []string
	for _, m := range h.messages() {
		if m.Role == store.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != len(calls)+3 {
		t.Fatalf("%d results: %q", len(results), results)
	}
	for i, c := range calls {
		if !strings.Contains(results[i], c.want) {
			t.Errorf("call of %s: %q, want %q", c.name, results[i], c.want)
		}
	}
	if !strings.Contains(results[len(calls)], `needs the "name"`) || !strings.Contains(results[len(calls)+1], "Search with search_tools first") {
		t.Errorf("a call without a name: %q; a direct call of an unknown tool: %q", results[len(calls)], results[len(calls)+1])
	}
	search := results[len(calls)+2]
	for _, hidden := range []string{off.Name, disabled.Name, view.Name} {
		if strings.Contains(search, `"`+hidden+`"`) {
			t.Errorf("the search found %s, which the conversation does not offer: %s", hidden, search)
		}
	}
	if !strings.Contains(search, "github__") {
		t.Errorf("the search found no GitHub tool: %s", search)
	}
	if n, m := len(h.approver.asked()), len(h.tools.called()); n != 0 || m != 0 {
		t.Errorf("approver asked %d times, tools ran %d times", n, m)
	}
	// The refused calls are in the audit as refused, under the meta name
	// when the tool they named is not there.
	for _, a := range h.audit() {
		if a.Status != store.CallFailed || a.ServerID != "" {
			t.Errorf("audit %+v", a)
		}
	}
}

// Approval outcomes and the lethal-trifecta guard apply to calls through
// call_tool as to direct ones; a found tool called by its own name runs
// too.
func TestToolSearchGuardAndDenial(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(metaCall("r", "fs__read", `{}`)),
		llmtest.Calls(llmtest.ToolCall{ID: "g", Name: "web__get", Arguments: []string{`{}`}}), // direct
		llmtest.Calls(metaCall("s", "send", `{"to":"x"}`)),                                    // the server's own name
		llmtest.Text("done"),
	}, func(o *Options) {
		o.ToolSearch = toolsearch.Settings{Mode: toolsearch.ModeAlways}
		o.TrifectaGuard = func(context.Context) bool { return true }
	})
	h.tools.setTools(trifectaTools())
	h.approver.decide = func(r approval.Request) approval.Outcome {
		if r.Tool == "send" {
			return approval.Outcome{Decision: approval.Deny, DecidedBy: approval.ByUser}
		}
		return approval.Outcome{Allowed: true, Decision: approval.AllowOnce, DecidedBy: approval.ByUser, Arguments: r.Arguments}
	}
	if res := h.send("go"); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	if n := len(h.srv.ChatRequests()[0].Tools); n != 2 {
		t.Fatalf("always: the request carried %d tools, want the pair", n)
	}
	asked := h.approver.asked()
	if len(asked) != 3 {
		t.Fatalf("approver asked %d times", len(asked))
	}
	want := approval.NewGuard("mail__send", []string{"fs__read"}, []string{"web__get"}, false, false)
	if diff := cmp.Diff(want, asked[2].Guard); diff != "" || asked[2].ServerID != "mail" || string(asked[2].Arguments) != `{"to":"x"}` {
		t.Errorf("the send's request %+v; guard (-want +got):\n%s", asked[2], diff)
	}
	a := h.audit()
	got := map[string]string{}
	for _, c := range a {
		got[c.Tool] = c.Status
	}
	if diff := cmp.Diff(map[string]string{"fs__read": store.CallDone, "web__get": store.CallDone, "mail__send": store.CallDenied}, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	if ms := h.messages(); !strings.Contains(ms[len(ms)-2].Content, "The user declined this call of mail__send") {
		t.Errorf("the denial reads %q", ms[len(ms)-2].Content)
	}
	var via []string
	for _, ev := range h.rec.toolEvents() {
		if ev.Status == ToolDone || ev.Status == ToolDenied {
			via = append(via, ev.Tool+":"+ev.Via)
		}
	}
	if diff := cmp.Diff([]string{"fs__read:call_tool", "web__get:", "mail__send:call_tool"}, via); diff != "" {
		t.Errorf("ended events (-want +got):\n%s", diff)
	}
}

// The result limit cuts a search's answer and a found tool's result, as
// it does a direct call's.
func TestToolSearchResultLimit(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(searchCall("s", "list get create update delete issues")),
		llmtest.Calls(metaCall("c", "github__get_issue", `{"issue_number":1}`)),
		llmtest.Text("ok"),
	}, func(o *Options) { o.ResultLimit = 500 })
	h.tools.setTools(catalogTools())
	h.tools.handlers = map[string]func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error){
		"github__get_issue": func(context.Context, json.RawMessage, func(Progress)) (ToolResult, error) {
			return ToolResult{Text: strings.Repeat("y", 2000)}, nil
		},
	}
	h.send("go")
	ms := h.messages()
	for _, i := range []int{2, 4} {
		if !strings.Contains(ms[i].Content, "[Result truncated") || len(ms[i].Content) > 700 {
			t.Errorf("message %d (%d bytes) is not cut: %.100q", i, len(ms[i].Content), ms[i].Content)
		}
	}
}

// ToolsFor says when tool search is on, and the composer's warning about
// too many tools gives way to it; off, the warning is back.
func TestToolSearchToolSet(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.tools.setTools(catalogTools())
	set, err := h.e.ToolsFor(context.Background(), h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !set.ToolSearch || set.Offered != 300 || set.Warning != "" || set.EstimatedTokens > 500 || len(set.Tools) != 300 {
		t.Errorf("auto, 300 tools: toolSearch %v, offered %d, tokens %d, warning %q", set.ToolSearch, set.Offered, set.EstimatedTokens, set.Warning)
	}
	h.e.SetToolSearch(toolsearch.Settings{Mode: toolsearch.ModeOff})
	set, _ = h.e.ToolsFor(context.Background(), h.conv.ID)
	if set.ToolSearch || set.Offered != 300 || !strings.Contains(set.Warning, "300 tools are on") {
		t.Errorf("off: toolSearch %v, offered %d, warning %q", set.ToolSearch, set.Offered, set.Warning)
	}
	// SetLimits sets it too, and a threshold of the user's.
	h.e.SetLimits(Limits{ToolSearch: toolsearch.Settings{MaxTools: 400, MaxBytes: 1 << 20}})
	if set, _ = h.e.ToolsFor(context.Background(), h.conv.ID); set.ToolSearch {
		t.Errorf("300 tools under a threshold of 400: tool search on")
	}
	h.e.SetToolSearch(toolsearch.Settings{Mode: toolsearch.ModeAlways})
	if l := h.e.currentLimits(); l.MaxToolRounds != DefaultMaxToolRounds || l.ToolSearch.Mode != toolsearch.ModeAlways {
		t.Errorf("SetToolSearch left %+v", l)
	}
	h.tools.setTools(catalogTools()[:1])
	if set, _ = h.e.ToolsFor(context.Background(), h.conv.ID); !set.ToolSearch || set.Offered != 1 {
		t.Errorf("always, one tool: %+v", set)
	}
}

// A call through call_tool that the server runs as a task is followed as
// the real tool's task.
func TestToolSearchTask(t *testing.T) {
	h, ft := taskHarness(t, []llmtest.Reply{
		llmtest.Calls(metaCall("c", "fs__read", `{}`)),
		llmtest.Text("the answer is 42"),
	})
	h.e.SetToolSearch(toolsearch.Settings{Mode: toolsearch.ModeAlways})
	if _, err := h.e.Send(context.Background(), h.conv.ID, "q"); err != nil {
		t.Fatal(err)
	}
	s := <-ft.started
	if s.Tool != "fs__read" || s.Handle.ServerID != "fs" || s.ServerName != "fs server" {
		t.Errorf("task start %+v", s)
	}
	ft.end(t, s, TaskEnd{Status: store.CallDone, Text: "42"})
	if res := h.wait(); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	if ms := h.messages(); ms[2].Content != "42" || ms[2].ToolCallID != "c" {
		t.Errorf("tool message %+v", ms[2])
	}
}

package sampling

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/llm"
)

func params(msgs ...*mcp.SamplingMessageV2) *mcp.CreateMessageWithToolsParams {
	return &mcp.CreateMessageWithToolsParams{Messages: msgs, MaxTokens: 100, SystemPrompt: "You are a helpful test server.", Temperature: 0.7,
		ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "claude-3-sonnet"}}}}
}

func user(c ...mcp.Content) *mcp.SamplingMessageV2 {
	return &mcp.SamplingMessageV2{Role: "user", Content: c}
}

var png = []byte("\x89PNG fake")

func TestRequestShowsWhatTheServerAsked(t *testing.T) {
	p := params(user(&mcp.TextContent{Text: "Describe this"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}),
		&mcp.SamplingMessageV2{Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "A cat."}}},
		user(&mcp.TextContent{Text: "Shorter"}))
	p.MaxTokens = 1 << 20
	p.StopSequences = []string{"END"}
	r, err := NewRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.7
	want := &Request{
		Messages: []Message{
			{Role: "user", Parts: []Part{{Type: "text", Text: "Describe this"}, {Type: "image", MIMEType: "image/png", Data: png}}},
			{Role: "assistant", Parts: []Part{{Type: "text", Text: "A cat."}}},
			{Role: "user", Parts: []Part{{Type: "text", Text: "Shorter"}}},
		},
		SystemPrompt: "You are a helpful test server.", MaxTokens: 1 << 20, AllowedTokens: MaxTokens, Temperature: &temp,
		StopSequences: []string{"END"}, ModelHints: []string{"claude-3-sonnet"},
	}
	if diff := cmp.Diff(want, r, cmpopts.IgnoreTypes(asks.Meta{})); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if s := r.Summary(); s != `a completion of 3 message(s), up to 16384 tokens, ending "Shorter"` {
		t.Errorf("summary = %s", s)
	}

	// Approved with the system prompt and the last message edited, on
	// another model.
	sys := "Be terse."
	d := Decision{Approve: true, SystemPrompt: &sys, Texts: []string{"", "", "One word"}, Model: "m2"}
	if err := r.Check(d); err != nil {
		t.Fatal(err)
	}
	got := r.LLMRequest(d, "m2")
	wantReq := llm.Request{Model: "m2", MaxTokens: MaxTokens, Temperature: &temp, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "Be terse."},
		{Role: llm.RoleUser, Content: "Describe this", Attachments: []llm.Attachment{{Name: "image 1", MIME: "image/png", Data: png, Image: true}}},
		{Role: llm.RoleAssistant, Content: "A cat."},
		{Role: llm.RoleUser, Content: "One word"},
	}}
	if diff := cmp.Diff(wantReq, got); diff != "" {
		t.Errorf("llm request (-want +got):\n%s", diff)
	}
	if err := r.Check(Decision{Approve: true, Texts: []string{"x", "", ""}}); err == nil {
		t.Error("an edit of a message with an image was taken")
	}
	if err := r.Check(Decision{Approve: true, Texts: []string{"x"}}); err == nil {
		t.Error("edits of the wrong length were taken")
	}
}

func assistant(c ...mcp.Content) *mcp.SamplingMessageV2 {
	return &mcp.SamplingMessageV2{Role: "assistant", Content: c}
}

func TestRequestsThatCannotBePutToTheUser(t *testing.T) {
	tooMany := params()
	for range MaxMessages + 1 {
		tooMany.Messages = append(tooMany.Messages, user(&mcp.TextContent{Text: "x"}))
	}
	noTokens := params(user(&mcp.TextContent{Text: "x"}))
	noTokens.MaxTokens = 0
	big := params(user(&mcp.TextContent{Text: strings.Repeat("x", MaxTextBytes)}))
	withTools := func(tools []*mcp.Tool, choice string, msgs ...*mcp.SamplingMessageV2) *mcp.CreateMessageWithToolsParams {
		p := params(msgs...)
		if len(msgs) == 0 {
			p = params(user(&mcp.TextContent{Text: "x"}))
		}
		p.Tools = tools
		if choice != "" {
			p.ToolChoice = &mcp.ToolChoice{Mode: choice}
		}
		return p
	}
	weather := []*mcp.Tool{{Name: "get_weather", InputSchema: map[string]any{"type": "object"}}}
	var manyTools []*mcp.Tool
	for i := range MaxTools + 1 {
		manyTools = append(manyTools, &mcp.Tool{Name: fmt.Sprint("t", i)})
	}
	bigSchema := []*mcp.Tool{{Name: "big", InputSchema: map[string]any{"type": "object", "description": strings.Repeat("x", MaxToolSchemaBytes)}}}
	use := func(id string) *mcp.ToolUseContent {
		return &mcp.ToolUseContent{ID: id, Name: "get_weather", Input: map[string]any{"city": "Paris"}}
	}
	result := func(id string) *mcp.ToolResultContent {
		return &mcp.ToolResultContent{ToolUseID: id, Content: []mcp.Content{&mcp.TextContent{Text: "18°C"}}}
	}
	ask := user(&mcp.TextContent{Text: "Weather?"})
	for _, tt := range []struct {
		name string
		p    *mcp.CreateMessageWithToolsParams
		want string
	}{
		{"audio", params(user(&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("x")})), "holds audio"},
		{"assistant image", params(&mcp.SamplingMessageV2{Role: "assistant", Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: png}}}), "assistant message with an image"},
		{"no messages", params(), "no messages"},
		{"too many messages", tooMany, "101 messages"},
		{"no tokens", noTokens, "maxTokens must be positive"},
		{"too much text", big, "KiB of text"},
		{"system role", params(&mcp.SamplingMessageV2{Role: "system", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}), `role "system"`},
		{"too many tools", withTools(manyTools, ""), "65 tools, more than the 64"},
		{"schema too big", withTools(bigSchema, ""), `the input schema of tool "big" is 64 KiB, more than the 64 KiB`},
		{"unnamed tool", withTools([]*mcp.Tool{{Description: "x"}}, ""), "tool 1 of the sampling request has no name"},
		{"two tools of one name", withTools(append(weather, weather...), ""), `two tools named "get_weather"`},
		{"unknown choice", withTools(weather, "sometimes"), `toolChoice mode is "sometimes"`},
		{"required without tools", withTools(nil, "required"), "requires the model to use a tool but offers none"},
		{"result without a use", withTools(weather, "", ask, user(result("c1"))), "message 2 of the sampling request does not answer the tool uses of the message before it: it has results for c1; the uses were none"},
		{"a use unanswered", withTools(weather, "", ask, assistant(use("c1"), use("c2")), user(result("c1"))), "message 3 of the sampling request does not answer the tool uses of the message before it: it has results for c1; the uses were c1, c2"},
		{"a use not followed", withTools(weather, "", ask, assistant(use("c1")), user(&mcp.TextContent{Text: "go on"})), "it has results for none; the uses were c1"},
		{"ends with a use", withTools(weather, "", ask, assistant(use("c1"))), "ends with the model's tool uses (message 2)"},
		{"results mixed with text", withTools(weather, "", ask, assistant(use("c1")), user(result("c1"), &mcp.TextContent{Text: "and"})), "mixes tool results with other content"},
		{"use by the user", withTools(weather, "", user(use("c1"))), "user message with a tool use"},
		{"result by the model", withTools(weather, "", ask, assistant(result("c1"))), "assistant message with a tool result"},
		{"two uses of one id", withTools(weather, "", ask, assistant(use("c1"), use("c1")), user(result("c1"), result("c1"))), "two tool uses with one id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequest(tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewRequest = %v; want an error with %q", err, tt.want)
			}
		})
	}
}

// TestToolsGoToTheModel: a follow-up request of a tool loop (the server
// ran the model's earlier calls) is shown with its tools and choice, and
// reaches the model as chat completions take it: the tools, the earlier
// calls on the assistant message, one tool message per result.
func TestToolsGoToTheModel(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}, "$schema": "https://json-schema.org/draft/2020-12/schema"}
	p := params(
		user(&mcp.TextContent{Text: "Weather in Paris and London?"}),
		assistant(&mcp.TextContent{Text: "Let me look."},
			&mcp.ToolUseContent{ID: "c1", Name: "get_weather", Input: map[string]any{"city": "Paris"}},
			&mcp.ToolUseContent{ID: "c2", Name: "get_weather", Input: map[string]any{"city": "London"}}),
		user(&mcp.ToolResultContent{ToolUseID: "c2", Content: []mcp.Content{&mcp.TextContent{Text: "15°C, rain"}}},
			&mcp.ToolResultContent{ToolUseID: "c1", IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no station"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}}}),
	)
	p.Tools = []*mcp.Tool{{Name: "get_weather", Description: "Current weather for a city", InputSchema: schema}, {Name: "now"}}
	p.ToolChoice = &mcp.ToolChoice{Mode: "required"}
	r, err := NewRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	wantTools := []Tool{
		{Name: "get_weather", Description: "Current weather for a city", Schema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
		{Name: "now"},
	}
	if diff := cmp.Diff(wantTools, r.Tools, cmpopts.IgnoreUnexported(Tool{})); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if r.ToolChoice != "required" {
		t.Errorf("tool choice %q", r.ToolChoice)
	}
	wantMsgs := []Message{
		{Role: "user", Parts: []Part{{Type: "text", Text: "Weather in Paris and London?"}}},
		{Role: "assistant", Parts: []Part{{Type: "text", Text: "Let me look."},
			{Type: "tool_use", ToolUseID: "c1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)},
			{Type: "tool_use", ToolUseID: "c2", Name: "get_weather", Input: json.RawMessage(`{"city":"London"}`)}}},
		{Role: "user", Parts: []Part{{Type: "tool_result", ToolUseID: "c2", Text: "15°C, rain"},
			{Type: "tool_result", ToolUseID: "c1", Text: "no station\n\n[an image (image/png), not passed to the model]", IsError: true}}},
	}
	if diff := cmp.Diff(wantMsgs, r.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if s := r.Summary(); s != `a completion of 3 message(s) with 2 tool(s), up to 100 tokens, ending "[result of c2][result of c1]"` {
		t.Errorf("summary = %s", s)
	}

	got := r.LLMRequest(Decision{Approve: true}, "m1")
	temp := 0.7
	want := llm.Request{Model: "m1", MaxTokens: 100, Temperature: &temp, ToolChoice: "required",
		Tools: []llm.Tool{
			// The schema as providers take it: no $schema.
			{Name: "get_weather", Description: "Current weather for a city", Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
			{Name: "now", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a helpful test server."},
			{Role: llm.RoleUser, Content: "Weather in Paris and London?"},
			{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "c2", Name: "get_weather", Arguments: `{"city":"London"}`}}},
			{Role: llm.RoleTool, ToolCallID: "c2", Content: "15°C, rain"},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: "Error: no station\n\n[an image (image/png), not passed to the model]"},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("llm request (-want +got):\n%s", diff)
	}
	// Tool results are not text the user edits.
	if err := r.Check(Decision{Approve: true, Texts: []string{"", "", "sunny"}}); err == nil {
		t.Error("an edit of the tool results was taken")
	}
}

func TestResultCarriesTheModelAndStopReason(t *testing.T) {
	for _, tt := range []struct{ finish, want string }{{"stop", "endTurn"}, {"length", "maxTokens"}, {"content_filter", "content_filter"}} {
		r, err := Result(llm.Reply{Content: "hi", Model: "served-model", FinishReason: tt.finish}, "asked-model")
		if err != nil {
			t.Fatal(err)
		}
		want := &mcp.CreateMessageWithToolsResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}, Model: "served-model", Role: "assistant", StopReason: tt.want}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.finish, diff)
		}
	}
	if r, _ := Result(llm.Reply{Content: "hi", FinishReason: "stop"}, "asked-model"); r.Model != "asked-model" {
		t.Errorf("model = %q; want the one asked when the provider names none", r.Model)
	}
}

// TestResultCarriesTheModelsToolCalls: calls go back as tool_use blocks
// with stopReason toolUse, for the server to run; a call whose arguments
// are not an object cannot be carried.
func TestResultCarriesTheModelsToolCalls(t *testing.T) {
	r, err := Result(llm.Reply{Model: "m1", FinishReason: "tool_calls", ToolCalls: []llm.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "call_b", Name: "now"}}}, "m1")
	if err != nil {
		t.Fatal(err)
	}
	want := &mcp.CreateMessageWithToolsResult{Model: "m1", Role: "assistant", StopReason: "toolUse", Content: []mcp.Content{
		&mcp.ToolUseContent{ID: "call_a", Name: "get_weather", Input: map[string]any{"city": "Paris"}},
		&mcp.ToolUseContent{ID: "call_b", Name: "now"},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	raw, _ := json.Marshal(r)
	if got := string(raw); got != `{"content":[{"type":"tool_use","id":"call_a","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"call_b","name":"now","input":{}}],"model":"m1","role":"assistant","stopReason":"toolUse"}` {
		t.Errorf("wire: %s", got)
	}
	// Text before a call is kept; a stop reason other than tool_calls
	// (some providers say "stop") still reads toolUse.
	r, _ = Result(llm.Reply{Content: "Checking.", FinishReason: "stop", ToolCalls: []llm.ToolCall{{ID: "c", Name: "now", Arguments: "{}"}}}, "m1")
	if len(r.Content) != 2 || r.StopReason != "toolUse" {
		t.Errorf("text and a call: %+v", r)
	}
	if _, err := Result(llm.Reply{ToolCalls: []llm.ToolCall{{ID: "c", Name: "now", Arguments: `[1,2]`}}}, "m1"); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("arguments not an object: %v", err)
	}
}

package sampling

import (
	"errors"
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

func TestRequestsThatCannotBePutToTheUser(t *testing.T) {
	tooMany := params()
	for range MaxMessages + 1 {
		tooMany.Messages = append(tooMany.Messages, user(&mcp.TextContent{Text: "x"}))
	}
	withTools := params(user(&mcp.TextContent{Text: "x"}))
	withTools.Tools = []*mcp.Tool{{Name: "get_weather"}}
	noTokens := params(user(&mcp.TextContent{Text: "x"}))
	noTokens.MaxTokens = 0
	big := params(user(&mcp.TextContent{Text: strings.Repeat("x", MaxTextBytes)}))
	for _, tt := range []struct {
		name string
		p    *mcp.CreateMessageWithToolsParams
		want string
	}{
		{"tools", withTools, "does not offer tool use in sampling (it does not declare sampling.tools); send the request without tools (it offered the model get_weather)"},
		{"tool result", params(user(&mcp.ToolResultContent{ToolUseID: "1"})), ErrToolsUnsupported.Error()},
		{"audio", params(user(&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("x")})), "holds audio"},
		{"assistant image", params(&mcp.SamplingMessageV2{Role: "assistant", Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: png}}}), "assistant message with an image"},
		{"no messages", params(), "no messages"},
		{"too many messages", tooMany, "101 messages"},
		{"no tokens", noTokens, "maxTokens must be positive"},
		{"too much text", big, "KiB of text"},
		{"system role", params(&mcp.SamplingMessageV2{Role: "system", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}), `role "system"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequest(tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewRequest = %v; want an error with %q", err, tt.want)
			}
		})
	}
	if _, err := NewRequest(withTools); !errors.Is(err, ErrToolsUnsupported) {
		t.Errorf("tools: %v is not ErrToolsUnsupported", err)
	}
}

func TestResultCarriesTheModelAndStopReason(t *testing.T) {
	for _, tt := range []struct{ finish, want string }{{"stop", "endTurn"}, {"length", "maxTokens"}, {"content_filter", "content_filter"}} {
		r := Result(llm.Reply{Content: "hi", Model: "served-model", FinishReason: tt.finish}, "asked-model")
		want := &mcp.CreateMessageWithToolsResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}, Model: "served-model", Role: "assistant", StopReason: tt.want}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.finish, diff)
		}
	}
	if r := Result(llm.Reply{Content: "hi", FinishReason: "stop"}, "asked-model"); r.Model != "asked-model" {
		t.Errorf("model = %q; want the one asked when the provider names none", r.Model)
	}
}

package llm

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// Item 2 of issue 13: a provider's error body shows as a sentence naming
// the provider and the fix, never as raw (escaped) JSON.
func TestRejectedRequestIsASentence(t *testing.T) {
	tools := "tools"
	tooMany := "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 162 instead."
	tests := []struct {
		name  string
		reply llmtest.Reply
		has   []string
	}{
		{"openai shape", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: tooMany, Type: "invalid_request_error", Param: &tools}},
			[]string{"rejected the request (HTTP 400): " + strings.TrimSuffix(tooMany, "."), "Switch off the tools"}},
		{"escaped json in the message (openrouter)", llmtest.Reply{Status: 400,
			RawBody: `{"error":{"message":"{\"error\":{\"message\":\"Invalid 'tools': array too long.\",\"type\":\"invalid_request_error\",\"param\":\"tools\",\"code\":null}}","code":400}}`},
			[]string{"rejected the request (HTTP 400): Invalid 'tools': array too long. Switch off the tools"}},
		{"upstream body in metadata.raw (openrouter)", llmtest.Reply{Status: 400,
			RawBody: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"tools[3].function.name is invalid\"}}","provider_name":"OpenAI"}}}`},
			[]string{"(HTTP 400): tools[3].function.name is invalid. Switch off the tools"}},
		{"plain text", llmtest.Reply{Status: 400, RawBody: "model does not support tools\n"},
			[]string{"(HTTP 400): model does not support tools. ", "Settings → Providers"}},
		{"html", llmtest.Reply{Status: 400, RawBody: "<html><body><h1>400 Bad Request</h1></body></html>"},
			[]string{"(HTTP 400): the server answered with an HTML page. "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{tt.reply}})
			_, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), func(Event) {})
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("err = %v, want ErrBadRequest", err)
			}
			msg := err.Error()
			u, _ := url.Parse(srv.URL)
			host := u.Host
			if !strings.HasPrefix(msg, "the provider at "+host+" rejected") {
				t.Errorf("err = %q, want it to name the provider", msg)
			}
			for _, h := range tt.has {
				if !strings.Contains(msg, h) {
					t.Errorf("err = %q\nwant it to contain %q", msg, h)
				}
			}
			if strings.ContainsAny(msg, `{}\<`) {
				t.Errorf("err = %q has JSON or HTML in it", msg)
			}
		})
	}
}

func TestToolLimitsByPreset(t *testing.T) {
	tests := []struct {
		base     string
		name     string
		maxTools int
	}{
		{"https://api.openai.com/v1", "OpenAI", 128},
		{"https://api.groq.com/openai/v1", "Groq", 128},
		{"http://localhost:11434/v1", "Ollama", 0},
		{"https://llm.example.com/v1", "the provider at llm.example.com", 128},
	}
	for _, tt := range tests {
		l := ToolLimitsFor(tt.base)
		if l.Provider != tt.name || l.MaxTools != tt.maxTools || ProviderName(tt.base) != tt.name {
			t.Errorf("ToolLimitsFor(%s) = %+v, ProviderName %q; want %q, %d tools", tt.base, l, ProviderName(tt.base), tt.name, tt.maxTools)
		}
	}
}

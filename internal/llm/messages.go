package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// A Role is who wrote a message.
type Role string

// The roles of the chat-completions API.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one entry of the conversation sent to the model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID names the call a tool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Attachments are the files and images of a user message (see
	// Attachment for how each is sent).
	Attachments []Attachment `json:"attachments,omitempty"`
}

// A ToolCall is one complete call the model asked for.
type ToolCall struct {
	// ID is the provider's call ID; when the provider sent none it is
	// "call_<index>", so that the tool result can still refer to it.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON arguments text exactly as streamed; it may be
	// empty or invalid JSON if the model produced that.
	Arguments string `json:"arguments"`
}

// A Tool is a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON schema; empty means an object with no properties.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// A Request is one chat completion.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool
	// Temperature is sent when non-nil, including an explicit 0 (which
	// go-openai would drop; see exchange.go). Nil uses the provider default.
	Temperature *float64
	// MaxTokens caps the completion; zero means the provider default. It is
	// sent as max_completion_tokens to OpenAI reasoning models (o1, o3, o4,
	// gpt-5 and later) and as max_tokens elsewhere, which every compatible
	// server understands.
	MaxTokens int
	// ToolChoice is sent as tool_choice when Tools are: "auto", "required"
	// or "none". Empty sends none (the provider's default, auto).
	ToolChoice string
}

// emptyToolResult replaces an empty tool result: go-openai omits an empty
// content, and providers refuse a tool message without one.
const emptyToolResult = "(no output)"

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest converts r to go-openai's request, and says whether an
// explicit temperature 0 must be patched in.
func chatRequest(r Request) (openai.ChatCompletionRequest, bool, error) {
	if strings.TrimSpace(r.Model) == "" {
		return openai.ChatCompletionRequest{}, false, fmt.Errorf("%w: no model chosen; pick one in Settings → Providers", ErrBadRequest)
	}
	out := openai.ChatCompletionRequest{
		Model:         r.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range r.Messages {
		msg, keep := chatMessage(m)
		if keep {
			out.Messages = append(out.Messages, msg)
		}
	}
	for _, t := range r.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = emptySchema
		}
		out.Tools = append(out.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	if r.ToolChoice != "" && len(out.Tools) > 0 {
		out.ToolChoice = r.ToolChoice
	}
	if r.MaxTokens > 0 {
		if usesMaxCompletionTokens(r.Model) {
			out.MaxCompletionTokens = r.MaxTokens
		} else {
			out.MaxTokens = r.MaxTokens
		}
	}
	zero := false
	if r.Temperature != nil {
		out.Temperature = float32(*r.Temperature)
		zero = out.Temperature == 0
	}
	return out, zero, nil
}

// chatMessage converts one message. An assistant message with neither text
// nor tool calls (a reply stopped before its first token) is dropped, since
// providers refuse it.
func chatMessage(m Message) (openai.ChatCompletionMessage, bool) {
	msg := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case RoleUser:
		if len(m.Attachments) > 0 {
			msg = userMessage(m)
		}
	case RoleAssistant:
		if m.Content == "" && len(m.ToolCalls) == 0 {
			return msg, false
		}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
	case RoleTool:
		msg.ToolCallID = m.ToolCallID
		if msg.Content == "" {
			msg.Content = emptyToolResult
		}
	}
	return msg, true
}

// usesMaxCompletionTokens reports whether the model is an OpenAI reasoning
// model, which refuses max_tokens (go-openai checks the same prefixes).
func usesMaxCompletionTokens(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The streaming wire format of chat completions, as OpenAI documents it and
// Cerebras, Groq, Ollama and LM Studio send it.

type chunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"` // "chat.completion.chunk"
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []choice        `json:"choices"` // [] (never null) in the usage chunk
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type choice struct {
	Index        int             `json:"index"`
	Delta        delta           `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type wireUsage struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	TotalTokens             int `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
}

var jsonNull = json.RawMessage("null")

// ChatRequest is a chat-completions request body as the fake decoded it.
type ChatRequest struct {
	Model               string         `json:"model"`
	Messages            []Message      `json:"messages"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	MaxTokens           *int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int           `json:"max_completion_tokens,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
}

// StreamOptions is the stream_options object.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// A Message is one request message. Its content is a string, or an array
// of parts; then Parts holds them and Content the text of its text parts,
// joined.
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Parts      []ContentPart  `json:"-"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

// A ContentPart is one part of an array content: {"type":"text","text":…}
// or {"type":"image_url","image_url":{"url":…,"detail":…}}.
type ContentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// An ImageURL is an image part's image: a URL or a data: URL.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// UnmarshalJSON reads a message whose content is a string or parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	c := bytes.TrimSpace(raw.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '[':
		if err := json.Unmarshal(c, &m.Parts); err != nil {
			return fmt.Errorf("content parts: %w", err)
		}
		var texts []string
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				texts = append(texts, p.Text)
			case "image_url":
				if p.ImageURL == nil || p.ImageURL.URL == "" {
					return fmt.Errorf("an image_url part without image_url.url")
				}
			default:
				return fmt.Errorf("unknown content part type %q", p.Type)
			}
		}
		m.Content = strings.Join(texts, "\n")
	default:
		if err := json.Unmarshal(c, &m.Content); err != nil {
			return fmt.Errorf("content: %w", err)
		}
	}
	return nil
}

// Images returns the URLs of the message's image parts.
func (m Message) Images() []string {
	var out []string
	for _, p := range m.Parts {
		if p.Type == "image_url" && p.ImageURL != nil {
			out = append(out, p.ImageURL.URL)
		}
	}
	return out
}

// A WireToolCall is a tool call in an assistant request message.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// A Tool is a request tool.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelInfo `json:"data"`
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

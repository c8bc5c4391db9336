// Package sampling turns a server's sampling/createMessage into what the
// window shows the user (Request) and, once the user approves it
// (Decision), into a completion request for the model (LLMRequest), whose
// reply goes back to the server with the model's name (Result).
//
// Tool use in sampling is not offered: Switchboard does not declare
// sampling.tools, and a request that carries tools, tool uses or tool
// results anyway is refused with an error saying so (NewRequest). So is
// audio, and an image in an assistant message, which no chat-completions
// model takes. Every size a server sends is bounded.
package sampling

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/llm"
)

// Bounds on a sampling request.
const (
	// MaxMessages bounds the messages of one request.
	MaxMessages = 100
	// MaxTextBytes bounds the text of all messages and the system prompt.
	MaxTextBytes = 1 << 20
	// MaxImageBytes bounds the images of one request, decoded.
	MaxImageBytes = 10 << 20
	// MaxTokens is the most tokens a completion may produce, whatever the
	// server asks.
	MaxTokens = 16384
	// maxHints bounds the model hints shown.
	maxHints = 8
)

// Events of sampling: a request starts waiting (payload *Request) and
// stops (asks.Ended).
const (
	EventRequested = "sampling:requested"
	EventEnded     = "sampling:ended"
)

// A Part is one piece of a message: text, or an image (Data, shown by the
// window as an image).
type Part struct {
	Type     string `json:"type"` // "text" or "image"
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty" ts_type:"string"` // base64 in JSON
}

// A Message is one message of the conversation the server wants completed.
type Message struct {
	Role  string `json:"role"` // "user" or "assistant"
	Parts []Part `json:"parts"`
}

// A Request is one sampling request as the window shows it.
type Request struct {
	asks.Meta
	Messages     []Message `json:"messages"`
	SystemPrompt string    `json:"systemPrompt"`
	// MaxTokens is what the server asked for; the completion gets at most
	// AllowedTokens (MaxTokens held to the app's bound).
	MaxTokens     int64    `json:"maxTokens"`
	AllowedTokens int      `json:"allowedTokens"`
	Temperature   *float64 `json:"temperature,omitempty"`
	// StopSequences are shown but not sent: the completion runs to its
	// end and the server gets the whole of it.
	StopSequences []string `json:"stopSequences,omitempty"`
	// ModelHints are the models the server would prefer, by name; the
	// user's choice (ProviderID, Model) decides.
	ModelHints []string `json:"modelHints,omitempty"`
	// IncludeContext is what context the server asked to include
	// ("thisServer", "allServers"); Switchboard includes none.
	IncludeContext string `json:"includeContext,omitempty"`
	// ProviderID, ProviderName and Model are the model the completion will
	// use unless the user picks another: the conversation's that called
	// the server, else the default.
	ProviderID   string `json:"providerId"`
	ProviderName string `json:"providerName"`
	Model        string `json:"model"`
	// ConversationID is the conversation whose tool call the request came
	// from, when known.
	ConversationID string `json:"conversationId,omitempty"`
}

// A Decision is the user's answer to a Request.
type Decision struct {
	Approve bool `json:"approve"`
	// SystemPrompt, when not nil, replaces the server's system prompt.
	SystemPrompt *string `json:"systemPrompt,omitempty" ts_type:"string | null"`
	// Texts, when not empty, has one entry per message: the new text of a
	// message that is one text part (an edit), and "" for any other.
	Texts []string `json:"texts,omitempty"`
	// ProviderID and Model pick the model; empty means the Request's.
	ProviderID string `json:"providerId,omitempty"`
	Model      string `json:"model,omitempty"`
}

// ErrToolsUnsupported is the error of a request that involves tools.
var ErrToolsUnsupported = errors.New("Switchboard does not offer tool use in sampling (it does not declare sampling.tools); send the request without tools")

// NewRequest reads a sampling/createMessage. An error says why it cannot
// be put to the user at all; the server gets it as is.
func NewRequest(p *mcp.CreateMessageWithToolsParams) (*Request, error) {
	if p == nil {
		return nil, errors.New("the sampling request has no parameters")
	}
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		names := make([]string, 0, len(p.Tools))
		for i, t := range p.Tools {
			if i == 10 {
				names = append(names, "…")
				break
			}
			if t != nil {
				names = append(names, clip(t.Name, 64))
			}
		}
		return nil, fmt.Errorf("%w (it offered the model %s)", ErrToolsUnsupported, strings.Join(names, ", "))
	}
	if len(p.Messages) == 0 {
		return nil, errors.New("the sampling request has no messages")
	}
	if len(p.Messages) > MaxMessages {
		return nil, fmt.Errorf("the sampling request has %d messages, more than the %d Switchboard takes", len(p.Messages), MaxMessages)
	}
	if p.MaxTokens <= 0 {
		return nil, errors.New("the sampling request's maxTokens must be positive")
	}
	r := &Request{SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens, AllowedTokens: int(min(p.MaxTokens, MaxTokens)),
		IncludeContext: p.IncludeContext, Messages: make([]Message, 0, len(p.Messages))}
	if p.Temperature != 0 {
		t := p.Temperature
		r.Temperature = &t
	}
	text, images := len(p.SystemPrompt), 0
	for i, s := range p.StopSequences {
		if i == 8 {
			break
		}
		r.StopSequences = append(r.StopSequences, clip(s, 100))
	}
	if mp := p.ModelPreferences; mp != nil {
		for _, h := range mp.Hints {
			if h != nil && h.Name != "" && len(r.ModelHints) < maxHints {
				r.ModelHints = append(r.ModelHints, clip(h.Name, 100))
			}
		}
	}
	for i, m := range p.Messages {
		if m == nil {
			return nil, fmt.Errorf("message %d of the sampling request is empty", i+1)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return nil, fmt.Errorf("message %d of the sampling request has role %q (user or assistant)", i+1, clip(string(m.Role), 30))
		}
		msg := Message{Role: string(m.Role), Parts: make([]Part, 0, len(m.Content))}
		for _, c := range m.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				text += len(c.Text)
				msg.Parts = append(msg.Parts, Part{Type: "text", Text: c.Text})
			case *mcp.ImageContent:
				if m.Role != "user" {
					return nil, fmt.Errorf("message %d of the sampling request is an assistant message with an image, which chat-completions models do not take", i+1)
				}
				images += len(c.Data)
				msg.Parts = append(msg.Parts, Part{Type: "image", MIMEType: clip(c.MIMEType, 100), Data: c.Data})
			case *mcp.AudioContent:
				return nil, fmt.Errorf("message %d of the sampling request holds audio, which Switchboard cannot send to a model", i+1)
			case *mcp.ToolUseContent, *mcp.ToolResultContent:
				return nil, ErrToolsUnsupported
			default:
				return nil, fmt.Errorf("message %d of the sampling request holds content of type %T, which Switchboard cannot send to a model", i+1, c)
			}
		}
		if len(msg.Parts) == 0 {
			return nil, fmt.Errorf("message %d of the sampling request has no content", i+1)
		}
		r.Messages = append(r.Messages, msg)
	}
	if text > MaxTextBytes {
		return nil, fmt.Errorf("the sampling request holds %d KiB of text, more than the %d KiB Switchboard takes", text>>10, MaxTextBytes>>10)
	}
	if images > MaxImageBytes {
		return nil, fmt.Errorf("the sampling request holds %d MiB of images, more than the %d MiB Switchboard takes", images>>20, MaxImageBytes>>20)
	}
	return r, nil
}

// Summary is the request in a line, for logs and the CLI: the start of its
// last message.
func (r *Request) Summary() string {
	last := r.Messages[len(r.Messages)-1]
	var b strings.Builder
	for _, p := range last.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		} else {
			b.WriteString("[image]")
		}
	}
	return fmt.Sprintf("a completion of %d message(s), up to %d tokens, ending %q", len(r.Messages), r.AllowedTokens, clip(b.String(), 200))
}

// Check returns an error unless d is a valid decision on r.
func (r *Request) Check(d Decision) error {
	if !d.Approve {
		return nil
	}
	if len(d.Texts) > 0 && len(d.Texts) != len(r.Messages) {
		return fmt.Errorf("the edits name %d messages; the request has %d", len(d.Texts), len(r.Messages))
	}
	n := 0
	if d.SystemPrompt != nil {
		n += len(*d.SystemPrompt)
	}
	for i, t := range d.Texts {
		if t != "" && !r.Messages[i].editable() {
			return fmt.Errorf("message %d is not only text, so it cannot be edited", i+1)
		}
		n += len(t)
	}
	if n > MaxTextBytes {
		return fmt.Errorf("the edited text is over %d KiB", MaxTextBytes>>10)
	}
	if d.Model != "" && utf8.RuneCountInString(d.Model) > 200 {
		return errors.New("the model name is too long")
	}
	return nil
}

// editable reports whether m is one text part, which the user may edit.
func (m Message) editable() bool { return len(m.Parts) == 1 && m.Parts[0].Type == "text" }

// LLMRequest is the completion d asks of model: the system prompt and the
// messages, as edited, with at most AllowedTokens.
func (r *Request) LLMRequest(d Decision, model string) llm.Request {
	system := r.SystemPrompt
	if d.SystemPrompt != nil {
		system = *d.SystemPrompt
	}
	req := llm.Request{Model: model, MaxTokens: r.AllowedTokens, Temperature: r.Temperature}
	if strings.TrimSpace(system) != "" {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	for i, m := range r.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		var text []string
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				text = append(text, p.Text)
			case "image":
				msg.Attachments = append(msg.Attachments, llm.Attachment{Name: fmt.Sprintf("image %d", len(msg.Attachments)+1), MIME: p.MIMEType, Data: p.Data, Image: true})
			}
		}
		msg.Content = strings.Join(text, "\n\n")
		if i < len(d.Texts) && d.Texts[i] != "" && m.editable() {
			msg.Content = d.Texts[i]
		}
		req.Messages = append(req.Messages, msg)
	}
	return req
}

// Result is what the server gets for the model's reply.
func Result(reply llm.Reply, model string) *mcp.CreateMessageWithToolsResult {
	return &mcp.CreateMessageWithToolsResult{
		Content:    []mcp.Content{&mcp.TextContent{Text: reply.Content}},
		Model:      cmp.Or(reply.Model, model),
		Role:       "assistant",
		StopReason: stopReason(reply.FinishReason),
	}
}

// stopReason names a chat-completions finish reason as MCP does.
func stopReason(finish string) string {
	switch finish {
	case "stop", "":
		return "endTurn"
	case "length":
		return "maxTokens"
	case "tool_calls":
		return "toolUse"
	}
	return clip(finish, 50)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

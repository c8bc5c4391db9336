// Package sampling turns a server's sampling/createMessage into what the
// window shows the user (Request) and, once the user approves it
// (Decision), into a completion request for the model (LLMRequest), whose
// reply goes back to the server with the model's name (Result).
//
// Tool use (sampling.tools, MCP 2025-11-25) is offered: the request's tools
// go to the model, and a call the model makes goes back to the server as
// tool_use content with stopReason "toolUse". Switchboard never runs a
// sampling tool itself; the server does, and sends the result in its next
// request as tool_result content, which reaches the model as a tool
// message. Audio is refused, and so is an image in an assistant message,
// which no chat-completions model takes. Every size and count a server
// sends is bounded.
package sampling

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
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
	// MaxTools bounds the tools a request offers the model.
	MaxTools = 64
	// MaxToolSchemaBytes bounds one tool's input schema, as JSON;
	// MaxToolBytes all tools' names, descriptions and schemas.
	MaxToolSchemaBytes = 64 << 10
	MaxToolBytes       = 1 << 20
	// MaxParts bounds the content blocks of one message (parallel tool
	// uses and their results among them).
	MaxParts = 64
	// maxToolName bounds a tool's name, in bytes (MCP's 128).
	maxToolName = 128
)

// The tool choices of a request (toolChoice.mode).
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceRequired = "required"
	ToolChoiceNone     = "none"
)

// Events of sampling: a request starts waiting (payload *Request) and
// stops (asks.Ended).
const (
	EventRequested = "sampling:requested"
	EventEnded     = "sampling:ended"
)

// A Part is one piece of a message: text, an image (Data, shown by the
// window as an image), a tool use of an assistant message (the model's
// earlier call: ToolUseID, Name, Input) or a tool result of a user message
// (what the server's tool returned for ToolUseID, as Text).
type Part struct {
	Type     string `json:"type"` // "text", "image", "tool_use" or "tool_result"
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty" ts_type:"string"` // base64 in JSON
	// ToolUseID is a tool use's ID, or the ID of the use a result answers.
	ToolUseID string `json:"toolUseId,omitempty"`
	// Name is the tool a tool use calls.
	Name string `json:"name,omitempty"`
	// Input is a tool use's arguments, a JSON object.
	Input json.RawMessage `json:"input,omitempty" ts_type:"Record<string, unknown>"`
	// IsError marks a tool result that reports an error.
	IsError bool `json:"isError,omitempty"`
}

// A Tool is one tool a request offers the model. The model may call it;
// the call goes back to the server, which runs it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Schema is the tool's input schema as the server sent it.
	Schema json.RawMessage `json:"schema,omitempty" ts_type:"unknown"`

	// parameters is the schema as the model gets it (mcpconn.CleanSchema).
	parameters json.RawMessage
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
	// Tools are the tools the server offers the model, in its order, and
	// ToolChoice how the model may use them: auto, required or none
	// (empty: the server said nothing, which means auto).
	Tools      []Tool `json:"tools,omitempty"`
	ToolChoice string `json:"toolChoice,omitempty"`
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

// NewRequest reads a sampling/createMessage. An error says why it cannot
// be put to the user at all; the server gets it as is.
func NewRequest(p *mcp.CreateMessageWithToolsParams) (*Request, error) {
	if p == nil {
		return nil, errors.New("the sampling request has no parameters")
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
	if err := r.readTools(p.Tools, p.ToolChoice); err != nil {
		return nil, err
	}
	for i, m := range p.Messages {
		if m == nil {
			return nil, fmt.Errorf("message %d of the sampling request is empty", i+1)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return nil, fmt.Errorf("message %d of the sampling request has role %q (user or assistant)", i+1, clip(string(m.Role), 30))
		}
		if len(m.Content) > MaxParts {
			return nil, fmt.Errorf("message %d of the sampling request has %d parts, more than the %d Switchboard takes", i+1, len(m.Content), MaxParts)
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
			case *mcp.ToolUseContent:
				if m.Role != "assistant" {
					return nil, fmt.Errorf("message %d of the sampling request is a user message with a tool use; only the model's (assistant) messages call tools", i+1)
				}
				if c.ID == "" || c.Name == "" || len(c.ID) > maxToolName || len(c.Name) > maxToolName {
					return nil, fmt.Errorf("message %d of the sampling request has a tool use without a proper id and name", i+1)
				}
				input := c.Input
				if input == nil {
					input = map[string]any{}
				}
				raw, err := json.Marshal(input)
				if err != nil {
					return nil, fmt.Errorf("message %d of the sampling request has a tool use whose input cannot be encoded: %v", i+1, err)
				}
				text += len(raw)
				msg.Parts = append(msg.Parts, Part{Type: "tool_use", ToolUseID: c.ID, Name: c.Name, Input: raw})
			case *mcp.ToolResultContent:
				if m.Role != "user" {
					return nil, fmt.Errorf("message %d of the sampling request is an assistant message with a tool result; results come in user messages", i+1)
				}
				if c.ToolUseID == "" || len(c.ToolUseID) > maxToolName {
					return nil, fmt.Errorf("message %d of the sampling request has a tool result without a proper toolUseId", i+1)
				}
				out := toolResultText(c)
				text += len(out)
				msg.Parts = append(msg.Parts, Part{Type: "tool_result", ToolUseID: c.ToolUseID, Text: out, IsError: c.IsError})
			default:
				return nil, fmt.Errorf("message %d of the sampling request holds content of type %T, which Switchboard cannot send to a model", i+1, c)
			}
			if text > MaxTextBytes {
				return nil, fmt.Errorf("the sampling request holds over %d KiB of text, more than Switchboard takes", MaxTextBytes>>10)
			}
		}
		if len(msg.Parts) == 0 {
			return nil, fmt.Errorf("message %d of the sampling request has no content", i+1)
		}
		r.Messages = append(r.Messages, msg)
	}
	if text > MaxTextBytes {
		return nil, fmt.Errorf("the sampling request holds over %d KiB of text, more than Switchboard takes", MaxTextBytes>>10)
	}
	if images > MaxImageBytes {
		return nil, fmt.Errorf("the sampling request holds %d MiB of images, more than the %d MiB Switchboard takes", images>>20, MaxImageBytes>>20)
	}
	if err := r.checkToolTurns(); err != nil {
		return nil, err
	}
	return r, nil
}

// readTools reads the tools a request offers and its tool choice.
func (r *Request) readTools(tools []*mcp.Tool, choice *mcp.ToolChoice) error {
	if len(tools) > MaxTools {
		return fmt.Errorf("the sampling request offers the model %d tools, more than the %d Switchboard takes", len(tools), MaxTools)
	}
	size := 0
	for i, t := range tools {
		if t == nil || t.Name == "" {
			return fmt.Errorf("tool %d of the sampling request has no name", i+1)
		}
		if len(t.Name) > maxToolName {
			return fmt.Errorf("tool %d of the sampling request has a name longer than %d bytes", i+1, maxToolName)
		}
		if slices.ContainsFunc(r.Tools, func(x Tool) bool { return x.Name == t.Name }) {
			return fmt.Errorf("the sampling request offers two tools named %q", t.Name)
		}
		tool := Tool{Name: t.Name, Description: t.Description}
		if t.InputSchema != nil {
			raw, err := json.Marshal(t.InputSchema)
			if err != nil {
				return fmt.Errorf("the input schema of tool %q cannot be encoded: %v", t.Name, err)
			}
			if len(raw) > MaxToolSchemaBytes {
				return fmt.Errorf("the input schema of tool %q is %d KiB, more than the %d KiB Switchboard takes", t.Name, len(raw)>>10, MaxToolSchemaBytes>>10)
			}
			tool.Schema = raw
			size += len(raw)
		}
		// A schema the cleaner gives up on becomes "any object"; the
		// window still shows the one sent.
		tool.parameters, _ = mcpconn.CleanSchema(t.InputSchema)
		size += len(t.Name) + len(t.Description)
		if size > MaxToolBytes {
			return fmt.Errorf("the tools of the sampling request take more than the %d KiB Switchboard takes", MaxToolBytes>>10)
		}
		r.Tools = append(r.Tools, tool)
	}
	if choice != nil {
		switch choice.Mode {
		case "", ToolChoiceAuto:
			r.ToolChoice = ToolChoiceAuto
		case ToolChoiceRequired:
			if len(r.Tools) == 0 {
				return errors.New("the sampling request requires the model to use a tool but offers none")
			}
			r.ToolChoice = ToolChoiceRequired
		case ToolChoiceNone:
			r.ToolChoice = ToolChoiceNone
		default:
			return fmt.Errorf("the sampling request's toolChoice mode is %q (auto, required or none)", clip(choice.Mode, 30))
		}
	}
	return nil
}

// checkToolTurns checks that tool uses and results pair up as MCP
// requires and chat-completions models need: a message with tool results
// holds nothing else, and follows the assistant message whose tool uses
// it answers, every one of them.
func (r *Request) checkToolTurns() error {
	var open []string // the tool uses of the message before, unanswered
	for i, m := range r.Messages {
		var uses, results []string
		for _, p := range m.Parts {
			switch p.Type {
			case "tool_use":
				uses = append(uses, p.ToolUseID)
			case "tool_result":
				results = append(results, p.ToolUseID)
			}
		}
		if len(results) > 0 && len(results) != len(m.Parts) {
			return fmt.Errorf("message %d of the sampling request mixes tool results with other content; a message of tool results holds only those", i+1)
		}
		if len(open) > 0 || len(results) > 0 {
			a, b := slices.Sorted(slices.Values(open)), slices.Sorted(slices.Values(results))
			if !slices.Equal(a, b) {
				return fmt.Errorf("message %d of the sampling request does not answer the tool uses of the message before it: it has results for %s; the uses were %s", i+1, idList(b), idList(a))
			}
		}
		if len(uses) > 0 {
			if i == len(r.Messages)-1 {
				return fmt.Errorf("the sampling request ends with the model's tool uses (message %d); send their results in a user message after it", i+1)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(uses)))) != len(uses) {
				return fmt.Errorf("message %d of the sampling request has two tool uses with one id", i+1)
			}
		}
		open = uses
	}
	return nil
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > 8 {
		ids = append(ids[:8:8], "…")
	}
	for i, id := range ids {
		ids[i] = clip(id, 40)
	}
	return strings.Join(ids, ", ")
}

// toolResultText is a tool result as the model gets it: its text, what
// stands for each other block, and its structured content when it has no
// text. A chat-completions tool message is text only.
func toolResultText(c *mcp.ToolResultContent) string {
	var parts []string
	n := 0
	for _, x := range c.Content {
		var s string
		switch x := x.(type) {
		case *mcp.TextContent:
			s = x.Text
		case *mcp.ImageContent:
			s = fmt.Sprintf("[an image (%s), not passed to the model]", clip(x.MIMEType, 50))
		case *mcp.AudioContent:
			s = fmt.Sprintf("[audio (%s), not passed to the model]", clip(x.MIMEType, 50))
		case *mcp.ResourceLink:
			s = fmt.Sprintf("[resource %s]", clip(x.URI, 500))
		case *mcp.EmbeddedResource:
			if x.Resource != nil && x.Resource.Text != "" {
				s = x.Resource.Text
			} else if x.Resource != nil {
				s = fmt.Sprintf("[resource %s]", clip(x.Resource.URI, 500))
			}
		default:
			s = fmt.Sprintf("[content of type %T]", x)
		}
		n += len(s)
		parts = append(parts, s)
		if n > MaxTextBytes {
			break
		}
	}
	if len(parts) == 0 && c.StructuredContent != nil {
		if raw, err := json.Marshal(c.StructuredContent); err == nil {
			parts = append(parts, string(raw))
		}
	}
	return strings.Join(parts, "\n\n")
}

// Summary is the request in a line, for logs and the CLI: the start of its
// last message.
func (r *Request) Summary() string {
	last := r.Messages[len(r.Messages)-1]
	var b strings.Builder
	for _, p := range last.Parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "tool_result":
			fmt.Fprintf(&b, "[result of %s]", clip(p.ToolUseID, 40))
		default:
			b.WriteString("[image]")
		}
	}
	tools := ""
	if len(r.Tools) > 0 {
		tools = fmt.Sprintf(" with %d tool(s)", len(r.Tools))
	}
	return fmt.Sprintf("a completion of %d message(s)%s, up to %d tokens, ending %q", len(r.Messages), tools, r.AllowedTokens, clip(b.String(), 200))
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
	for _, t := range r.Tools {
		req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.parameters})
	}
	if len(req.Tools) > 0 {
		req.ToolChoice = r.ToolChoice
	}
	if strings.TrimSpace(system) != "" {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	for i, m := range r.Messages {
		if len(m.Parts) > 0 && m.Parts[0].Type == "tool_result" {
			// Only results (checkToolTurns): one tool message each.
			for _, p := range m.Parts {
				content := p.Text
				if p.IsError {
					content = "Error: " + content
				}
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: p.ToolUseID, Content: content})
			}
			continue
		}
		msg := llm.Message{Role: llm.Role(m.Role)}
		var text []string
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				text = append(text, p.Text)
			case "image":
				msg.Attachments = append(msg.Attachments, llm.Attachment{Name: fmt.Sprintf("image %d", len(msg.Attachments)+1), MIME: p.MIMEType, Data: p.Data, Image: true})
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: p.ToolUseID, Name: p.Name, Arguments: string(p.Input)})
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

// Result is what the server gets for the model's reply: its text, and a
// tool_use block for each tool the model called, with stopReason
// "toolUse". The server runs the tools. An error says the model called a
// tool with arguments that are not a JSON object, which MCP cannot carry.
func Result(reply llm.Reply, model string) (*mcp.CreateMessageWithToolsResult, error) {
	res := &mcp.CreateMessageWithToolsResult{
		Model:      cmp.Or(reply.Model, model),
		Role:       "assistant",
		StopReason: stopReason(reply.FinishReason),
	}
	if reply.Content != "" || len(reply.ToolCalls) == 0 {
		res.Content = append(res.Content, &mcp.TextContent{Text: reply.Content})
	}
	for _, tc := range reply.ToolCalls {
		var input map[string]any
		if strings.TrimSpace(tc.Arguments) != "" {
			if err := json.Unmarshal([]byte(tc.Arguments), &input); err != nil {
				return nil, fmt.Errorf("the model called %s with arguments that are not a JSON object (%s)", clip(tc.Name, 64), clip(tc.Arguments, 100))
			}
		}
		res.Content = append(res.Content, &mcp.ToolUseContent{ID: tc.ID, Name: tc.Name, Input: input})
	}
	if len(reply.ToolCalls) > 0 {
		res.StopReason = "toolUse"
	}
	return res, nil
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

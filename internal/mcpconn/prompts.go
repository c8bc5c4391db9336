package mcpconn

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds on prompts and completions.
const (
	// maxArguments bounds the arguments of a prompt or the variables of a
	// resource template; one with more is left out.
	maxArguments = 32
	// maxArgumentBytes bounds one argument value the user sends.
	maxArgumentBytes = 64 << 10
	// maxPromptMessages bounds the messages of one prompts/get.
	maxPromptMessages = 64
	// maxCompletions bounds the values of one completion, each at most
	// maxNameBytes*4 bytes (a longer one is left out).
	maxCompletions = 100
)

// A Prompt is a template of messages a server offers, filled in with
// string arguments.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments"`
}

// A PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// A PromptList is the prompts of one server.
type PromptList struct {
	ServerID string   `json:"serverId"`
	Prompts  []Prompt `json:"prompts"`
	// Notes say what was left out; empty when nothing was.
	Notes []string `json:"notes,omitempty"`
}

// Message roles of a prompt's messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// A PromptMessage is one message of a filled-in prompt. Its Content is a
// block as in a tool result: text, image, audio, a resource link or an
// embedded resource.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// A PromptResult is a filled-in prompt.
type PromptResult struct {
	ServerID    string          `json:"serverId"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// A CompletionRef names what a completion is for: a prompt's argument
// (Type "ref/prompt", Name) or a resource template's variable (Type
// "ref/resource", URI the template).
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Kinds of CompletionRef.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// A Completion is a server's suggestions for an argument's value.
type Completion struct {
	Values []string `json:"values"`
	// Total is how many values the server has, when it says; zero
	// otherwise.
	Total int `json:"total,omitempty"`
	// HasMore is set when there are more values than Values.
	HasMore bool `json:"hasMore,omitempty"`
}

// ListPrompts lists the prompts of a connected server (every page, up to
// maxListed). Listings the server says may be kept come from the SDK's
// cache.
func (m *Manager) ListPrompts(ctx context.Context, id string) (*PromptList, error) {
	out := &PromptList{ServerID: id, Prompts: []Prompt{}}
	err := m.request(ctx, id, "listing prompts", m.promptsOffered(id), func(ctx context.Context, sess *session) error {
		more, bad := 0, 0
		params := &mcp.ListPromptsParams{}
		for page := 1; ; page++ {
			res, err := sess.cs.ListPrompts(ctx, params)
			if err != nil {
				return err
			}
			for _, p := range res.Prompts {
				switch {
				case p == nil:
				case p.Name == "" || len(p.Name) > maxNameBytes || len(p.Arguments) > maxArguments:
					bad++
				case len(out.Prompts) >= maxListed:
					more++
				default:
					out.Prompts = append(out.Prompts, newPrompt(p))
				}
			}
			if res.NextCursor == "" {
				break
			}
			if page >= maxListPages || len(out.Prompts) >= maxListed {
				out.Notes = append(out.Notes, fmt.Sprintf("the server lists more prompts than the %d shown", len(out.Prompts)))
				break
			}
			params = &mcp.ListPromptsParams{Cursor: res.NextCursor}
		}
		if more > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d more left out: Switchboard shows at most %d prompts", more, maxListed))
		}
		if bad > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d left out: a name empty or longer than %d bytes, or more than %d arguments", bad, maxNameBytes, maxArguments))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func newPrompt(p *mcp.Prompt) Prompt {
	out := Prompt{Name: p.Name, Title: clipName(p.Title), Description: clipDesc(p.Description), Arguments: []PromptArgument{}}
	for _, a := range p.Arguments {
		if a == nil || a.Name == "" {
			continue
		}
		out.Arguments = append(out.Arguments, PromptArgument{Name: clipName(a.Name), Title: clipName(a.Title),
			Description: clipDesc(a.Description), Required: a.Required})
	}
	return out
}

// GetPrompt fills in a server's prompt with args and returns its messages
// (at most maxPromptMessages; the message carrying them is bounded by
// MaxMessageBytes).
func (m *Manager) GetPrompt(ctx context.Context, id, name string, args map[string]string) (*PromptResult, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	out := &PromptResult{ServerID: id, Name: name, Messages: []PromptMessage{}}
	err := m.request(ctx, id, "getting prompt "+name, m.promptsOffered(id), func(ctx context.Context, sess *session) error {
		res, err := sess.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		if len(res.Messages) > maxPromptMessages {
			return fmt.Errorf("the prompt has %d messages; Switchboard takes at most %d", len(res.Messages), maxPromptMessages)
		}
		out.Description = clipDesc(res.Description)
		for _, msg := range res.Messages {
			if msg == nil || msg.Content == nil {
				continue
			}
			role := string(msg.Role)
			if role != RoleAssistant {
				role = RoleUser
			}
			out.Messages = append(out.Messages, PromptMessage{Role: role, Content: newContent(msg.Content)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Complete asks a connected server for values of one argument: arg of
// the prompt or resource template ref names, as typed so far (value),
// with the arguments already filled in (filled) for the server to narrow
// its suggestions. At most maxCompletions values are kept.
func (m *Manager) Complete(ctx context.Context, id string, ref CompletionRef, arg, value string, filled map[string]string) (*Completion, error) {
	switch ref.Type {
	case RefPrompt:
		if ref.Name == "" {
			return nil, fmt.Errorf("completing a prompt's argument needs the prompt's name")
		}
	case RefResource:
		if ref.URI == "" || len(ref.URI) > maxURIBytes {
			return nil, fmt.Errorf("completing a template's variable needs its URI template, of up to %d bytes", maxURIBytes)
		}
	default:
		return nil, fmt.Errorf("unknown completion reference %q (want %s or %s)", ref.Type, RefPrompt, RefResource)
	}
	if err := checkArgs(filled); err != nil {
		return nil, err
	}
	if len(value) > maxArgumentBytes {
		return nil, fmt.Errorf("the value is longer than %d bytes", maxArgumentBytes)
	}
	out := &Completion{Values: []string{}}
	params := &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: ref.Type, Name: ref.Name, URI: ref.URI},
		Argument: mcp.CompleteParamsArgument{Name: arg, Value: value},
	}
	if len(filled) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: filled}
	}
	err := m.request(ctx, id, "completing "+arg, m.completionsOffered(id), func(ctx context.Context, sess *session) error {
		res, err := sess.cs.Complete(ctx, params)
		if err != nil {
			return err
		}
		c := res.Completion
		for _, v := range c.Values {
			if len(out.Values) == maxCompletions {
				out.HasMore = true
				break
			}
			if len(v) <= maxNameBytes*4 && !strings.ContainsAny(v, "\x00") {
				out.Values = append(out.Values, v)
			}
		}
		out.Total = max(c.Total, 0)
		out.HasMore = out.HasMore || c.HasMore
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkArgs bounds the arguments a user sends with a prompt or completion.
func checkArgs(args map[string]string) error {
	if len(args) > maxArguments {
		return fmt.Errorf("%d arguments; a prompt takes at most %d", len(args), maxArguments)
	}
	for k, v := range args {
		if len(v) > maxArgumentBytes {
			return fmt.Errorf("argument %s is longer than %d bytes", k, maxArgumentBytes)
		}
	}
	return nil
}

func (m *Manager) promptsOffered(id string) func(*Offers) error {
	return func(o *Offers) error {
		if !o.Prompts {
			return notOffered(m.displayName(id), "prompts")
		}
		return nil
	}
}

func (m *Manager) completionsOffered(id string) func(*Offers) error {
	return func(o *Offers) error {
		if !o.Completions {
			return notOffered(m.displayName(id), "completion of arguments")
		}
		return nil
	}
}

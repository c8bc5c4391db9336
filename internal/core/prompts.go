package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// How a prompt's messages are used (PromptUse.Mode).
const (
	// PromptComposer: every message is the user's, so they become the
	// next message: their text goes into the composer and their embedded
	// resources and images are attached, for the user to read, change
	// and send.
	PromptComposer = "composer"
	// PromptConversation: the prompt speaks for the assistant too, so its
	// messages are added to the conversation as they are (AppendPrompt),
	// and the user goes on from there.
	PromptConversation = "conversation"
)

// A PromptUse is a filled-in prompt, ready for the window.
type PromptUse struct {
	// Mode is PromptComposer or PromptConversation.
	Mode string `json:"mode"`
	// Text is the composer's text (PromptComposer): the messages' text
	// blocks, in order, a blank line apart.
	Text string `json:"text,omitempty"`
	// Attachments are the messages' resources and images, attached
	// (PromptComposer).
	Attachments []store.Attachment `json:"attachments"`
	// Prompt is the prompt as the server filled it in.
	Prompt *mcpconn.PromptResult `json:"prompt"`
}

// UsePrompt fills in a server's prompt and decides how it is used: a
// prompt of user messages only goes into the composer (its resources and
// images attached now); one with assistant messages goes into the
// conversation, by AppendPrompt. A resource link is attached by reading
// the resource it names.
func (s *Services) UsePrompt(ctx context.Context, serverID, name string, args map[string]string) (PromptUse, error) {
	p, err := s.Manager.GetPrompt(ctx, serverID, name, args)
	if err != nil {
		return PromptUse{}, err
	}
	use := PromptUse{Mode: PromptComposer, Prompt: p, Attachments: []store.Attachment{}}
	for _, m := range p.Messages {
		if m.Role != mcpconn.RoleUser {
			use.Mode = PromptConversation
			return use, nil
		}
	}
	if len(p.Messages) == 0 {
		return PromptUse{}, fmt.Errorf("the prompt %s has no messages", name)
	}
	var texts []string
	for _, m := range p.Messages {
		text, atts, err := s.userContent(ctx, serverID, m.Content)
		if err != nil {
			return PromptUse{}, err
		}
		if text != "" {
			texts = append(texts, text)
		}
		use.Attachments = append(use.Attachments, atts...)
	}
	use.Text = strings.Join(texts, "\n\n")
	return use, nil
}

// userContent is what a block of a user's prompt message becomes: text,
// or attachments.
func (s *Services) userContent(ctx context.Context, serverID string, c mcpconn.Content) (string, []store.Attachment, error) {
	switch c.Type {
	case mcpconn.ContentText:
		return c.Text, nil, nil
	case mcpconn.ContentResource, mcpconn.ContentImage:
		a, err := s.AttachContent(ctx, serverID, c)
		if err != nil {
			return "", nil, err
		}
		return "", []store.Attachment{a}, nil
	case mcpconn.ContentResourceLink:
		atts, err := s.AttachResource(ctx, serverID, c.URI)
		if err != nil {
			return "", nil, fmt.Errorf("attaching the resource the prompt links to: %w", err)
		}
		return "", atts, nil
	default:
		return "", nil, fmt.Errorf("%w: the prompt has a %s block, which Switchboard cannot attach", ErrAttachmentType, c.Type)
	}
}

// AppendPrompt adds a filled-in prompt's messages (UsePrompt's Prompt) to
// a conversation as they are, without a reply: user messages with their
// text and attachments, assistant messages with their text (other blocks
// described in words). The user goes on from there.
func (s *Services) AppendPrompt(ctx context.Context, convID string, p *mcpconn.PromptResult) ([]store.Message, error) {
	if p == nil || len(p.Messages) == 0 {
		return nil, errors.New("the prompt has no messages")
	}
	msgs := make([]store.Message, 0, len(p.Messages))
	for _, m := range p.Messages {
		var msg store.Message
		if m.Role == mcpconn.RoleAssistant {
			msg = store.Message{Role: store.RoleAssistant, Content: describe(m.Content)}
		} else {
			text, atts, err := s.userContent(ctx, p.ServerID, m.Content)
			if err != nil {
				return nil, err
			}
			msg = store.Message{Role: store.RoleUser, Content: text, Attachments: atts}
		}
		// Consecutive blocks of one side make one message.
		if n := len(msgs); n > 0 && msgs[n-1].Role == msg.Role {
			prev := &msgs[n-1]
			if msg.Content != "" {
				prev.Content = strings.TrimPrefix(prev.Content+"\n\n"+msg.Content, "\n\n")
			}
			prev.Attachments = append(prev.Attachments, msg.Attachments...)
			continue
		}
		msgs = append(msgs, msg)
	}
	return s.Chat.Append(ctx, convID, msgs)
}

// describe is a block of an assistant's prompt message as text.
func describe(c mcpconn.Content) string {
	r := mcpconn.Result{Content: []mcpconn.Content{c}}
	return r.ForModel(MaxTextBytes)
}

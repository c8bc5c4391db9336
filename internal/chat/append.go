package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/store"
)

// MaxAppended bounds the messages one Append adds.
const MaxAppended = 64

// Append adds messages to the end of a conversation as they are, with no
// reply: the messages of an MCP prompt that speaks for both sides (a user
// message and the assistant's answer to it), which the user then goes on
// from. Only user and assistant messages with text or attachments are
// taken; each is stored done and sent as EventMessage. It fails with
// ErrBusy while a reply is being written.
func (e *Engine) Append(ctx context.Context, convID string, msgs []store.Message) ([]store.Message, error) {
	if e.opts.Store == nil {
		return nil, errors.New("chat engine has no store")
	}
	if len(msgs) == 0 {
		return nil, ErrEmptyMessage
	}
	if len(msgs) > MaxAppended {
		return nil, fmt.Errorf("%d messages; at most %d can be added at once", len(msgs), MaxAppended)
	}
	for _, m := range msgs {
		if m.Role != store.RoleUser && m.Role != store.RoleAssistant {
			return nil, fmt.Errorf("a message to add must be the user's or the assistant's, not %q", m.Role)
		}
		if m.Content == "" && len(m.Attachments) == 0 {
			return nil, ErrEmptyMessage
		}
		if m.Role == store.RoleAssistant && len(m.Attachments) > 0 {
			return nil, errors.New("only the user's messages carry attachments")
		}
	}
	// Reserved like a run, so that nothing is written in between.
	r, _, err := e.reserve(ctx, convID)
	if err != nil {
		return nil, err
	}
	defer func() {
		r.cancel()
		e.release(r)
	}()
	conv, err := e.opts.Store.Conversation(ctx, convID)
	if err != nil {
		return nil, err
	}
	out := make([]store.Message, 0, len(msgs))
	for _, m := range msgs {
		saved, err := e.opts.Store.AppendMessage(ctx, store.Message{ConversationID: convID, Role: m.Role,
			Content: m.Content, Attachments: m.Attachments, Status: store.StatusDone})
		if err != nil {
			return out, fmt.Errorf("saving the messages: %w", err)
		}
		e.emit.Emit(EventMessage, saved)
		out = append(out, saved)
	}
	if conv.Title == "" {
		if t := Title(msgs[0].Content); t != "" {
			if err := e.opts.Store.RenameConversation(ctx, convID, t); err != nil {
				e.log.Warn("setting title", "conversationId", convID, "err", err)
			} else if c, err := e.opts.Store.Conversation(ctx, convID); err == nil {
				e.emit.Emit(EventConversation, c)
			}
		}
	}
	return out, nil
}

package app

import (
	"fmt"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/store"
)

// ListConversations returns the conversations not archived, pinned first,
// then the most recently updated.
func (a *App) ListConversations() ([]store.Conversation, error) {
	if a.core.Store == nil {
		return nil, errNoStore
	}
	list, err := a.core.Store.ListShelf(a.life, store.ShelfActive, 500, 0)
	return orEmpty(list), err
}

// ListArchivedConversations returns the archived conversations, most
// recently updated first.
func (a *App) ListArchivedConversations() ([]store.Conversation, error) {
	if a.core.Store == nil {
		return nil, errNoStore
	}
	list, err := a.core.Store.ListShelf(a.life, store.ShelfArchived, 500, 0)
	return orEmpty(list), err
}

// PinConversation pins (true) or unpins a conversation.
func (a *App) PinConversation(id string, pinned bool) error {
	if a.core.Store == nil {
		return errNoStore
	}
	return a.core.Store.PinConversation(a.life, id, pinned)
}

// ArchiveConversation archives (true) or unarchives a conversation.
func (a *App) ArchiveConversation(id string, archived bool) error {
	if a.core.Store == nil {
		return errNoStore
	}
	return a.core.Store.ArchiveConversation(a.life, id, archived)
}

// SearchMessages finds messages across all conversations.
func (a *App) SearchMessages(query string) ([]store.SearchHit, error) {
	if a.core.Store == nil {
		return nil, errNoStore
	}
	hits, err := a.core.Store.Search(a.life, query, 50)
	return orEmpty(hits), err
}

// NewConversation starts an empty conversation with a provider and model
// ("" for the defaults).
func (a *App) NewConversation(providerID, model string) (store.Conversation, error) {
	if a.core.Store == nil {
		return store.Conversation{}, errNoStore
	}
	return a.core.Store.CreateConversation(a.life, store.Conversation{ProviderID: providerID, Model: model})
}

// RenameConversation sets a conversation's title.
func (a *App) RenameConversation(id, title string) error {
	if a.core.Store == nil {
		return errNoStore
	}
	return a.core.Store.RenameConversation(a.life, id, title)
}

// DeleteConversation stops its run, cancels its pending approvals, and
// deletes it.
func (a *App) DeleteConversation(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.DeleteConversation(a.life, id)
}

// GetMessages returns up to limit messages before beforeSeq (0 = the end).
func (a *App) GetMessages(conversationID string, beforeSeq int64, limit int) ([]store.Message, error) {
	if a.core.Store == nil {
		return nil, errNoStore
	}
	msgs, err := a.core.Store.Messages(a.life, conversationID, store.MessagePage{BeforeSeq: beforeSeq, Limit: limit})
	return orEmpty(msgs), err
}

// GetToolCalls returns the audit records of a conversation's tool calls
// (arguments, full results, decisions) for its tool-call cards.
func (a *App) GetToolCalls(conversationID string) ([]store.ToolCall, error) {
	if a.core.Store == nil {
		return nil, errNoStore
	}
	calls, err := a.core.Store.ToolCalls(a.life, conversationID, 0)
	return orEmpty(calls), err
}

// Send stores the user's message, with the attachments AddAttachment
// returned, and starts the reply; progress arrives as chat:* events.
func (a *App) Send(conversationID, text string, attachments []store.Attachment) (string, error) {
	svc, err := a.services()
	if err != nil {
		return "", err
	}
	return svc.Chat.Send(a.life, conversationID, text, attachments...)
}

// Stop cancels the conversation's run at once; the partial reply is kept.
func (a *App) Stop(conversationID string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	svc.Stop(conversationID)
	return nil
}

// Regenerate answers the last user message again.
func (a *App) Regenerate(conversationID string) (string, error) {
	svc, err := a.services()
	if err != nil {
		return "", err
	}
	return svc.Chat.Regenerate(a.life, conversationID)
}

// EditAndResend replaces the user message at seq and answers it anew.
// attachments replace the message's (an empty list removes them); null
// keeps them.
func (a *App) EditAndResend(conversationID string, seq int64, text string, attachments []store.Attachment) (string, error) {
	svc, err := a.services()
	if err != nil {
		return "", err
	}
	if attachments == nil {
		return svc.Chat.EditAndResend(a.life, conversationID, seq, text)
	}
	return svc.Chat.EditAndResendWith(a.life, conversationID, seq, text, attachments)
}

// ExportConversation renders a conversation as "markdown" or "json".
func (a *App) ExportConversation(id, format string) (string, error) {
	if a.core.Store == nil {
		return "", errNoStore
	}
	switch format {
	case "markdown":
		return chat.ExportMarkdown(a.life, a.core.Store, id)
	case "json":
		b, err := chat.ExportJSON(a.life, a.core.Store, id)
		return string(b), err
	}
	return "", fmt.Errorf("unknown export format %q: use markdown or json", format)
}

// SetConversationModel picks who answers in a conversation.
func (a *App) SetConversationModel(id, providerID, model string) error {
	if a.core.Store == nil {
		return errNoStore
	}
	return a.core.Store.SetConversationModel(a.life, id, providerID, model)
}

// SetConversationTools sets which tools a conversation offers (nil = all
// enabled).
func (a *App) SetConversationTools(id string, sel *chat.ToolSelection) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Chat.SetTools(a.life, id, sel)
}

// ConversationTools returns the tools a conversation offers and warnings
// (too many for the provider, schemas too large for the context).
func (a *App) ConversationTools(id string) (chat.ToolSet, error) {
	svc, err := a.services()
	if err != nil {
		return chat.ToolSet{}, err
	}
	return svc.Chat.ToolsFor(a.life, id)
}

// SetSystemPrompt overrides a conversation's system prompt (nil = default).
func (a *App) SetSystemPrompt(id string, prompt *string) error {
	if a.core.Store == nil {
		return errNoStore
	}
	return a.core.Store.SetSystemPrompt(a.life, id, prompt)
}

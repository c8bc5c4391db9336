package app

import (
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// ListPrompts returns a connected server's prompts.
func (a *App) ListPrompts(serverID string) (*mcpconn.PromptList, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.Manager.ListPrompts(a.life, serverID)
}

// UsePrompt fills in a server's prompt: user messages only go into the
// composer (mode "composer": the text, and the resources and images
// attached); a prompt with assistant messages is for the conversation
// (mode "conversation": pass its Prompt to AppendPrompt).
func (a *App) UsePrompt(serverID, name string, args map[string]string) (core.PromptUse, error) {
	svc, err := a.services()
	if err != nil {
		return core.PromptUse{}, err
	}
	return svc.UsePrompt(a.life, serverID, name, args)
}

// AppendPrompt adds a filled-in prompt's messages to a conversation as
// they are, without a reply.
func (a *App) AppendPrompt(conversationID string, p mcpconn.PromptResult) ([]store.Message, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	list, err := svc.AppendPrompt(a.life, conversationID, &p)
	return orEmpty(list), err
}

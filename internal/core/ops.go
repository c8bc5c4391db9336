package core

import (
	"context"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/servers"
)

// Stop cancels a conversation's run at once (the partial reply is kept)
// and the tool calls it left waiting for approval.
func (s *Services) Stop(conversationID string) {
	s.Chat.Stop(conversationID)
	s.Broker.CancelConversation(conversationID)
}

// DeleteConversation stops the conversation's run and its pending
// approvals, then deletes it with its messages.
func (s *Services) DeleteConversation(ctx context.Context, id string) error {
	s.Stop(id)
	return s.store.DeleteConversation(ctx, id)
}

// SaveServer stores a new or edited server, (re)connects it when enabled,
// and returns it as the tools panel shows it.
func (s *Services) SaveServer(ctx context.Context, cfg serverconf.Config) (servers.View, error) {
	saved, err := s.Servers.Save(ctx, cfg)
	if err != nil {
		return servers.View{}, err
	}
	views, err := s.Servers.List(ctx)
	if err != nil {
		return servers.View{}, err
	}
	for _, v := range views {
		if v.Config.ID == saved.ID {
			return v, nil
		}
	}
	return servers.View{Config: saved}, nil
}

// SaveSettings validates and stores the settings, and the chat engine
// uses them from its next round.
func (s *Services) SaveSettings(ctx context.Context, set Settings) error {
	if err := SaveSettings(ctx, s.store, set); err != nil {
		return err
	}
	s.Chat.SetLimits(chat.Limits{MaxToolRounds: set.MaxToolRounds, ResultLimit: set.ToolResultLimit, DefaultSystemPrompt: set.DefaultSystemPrompt,
		ToolSearch: set.ToolSearchSettings()})
	return nil
}

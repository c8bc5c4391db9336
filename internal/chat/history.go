package chat

import (
	"encoding/json"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// noResult is the tool result given to the model for a call that has none
// stored: the run was stopped or the app closed while it ran.
const noResult = "No result: the call did not finish (the reply was stopped or the app closed)."

// buildHistory turns stored messages into the request's messages, made
// valid for providers: every tool call of an assistant message is answered
// by one tool message before the next message (missing ones get
// noResult), tool messages that answer no call are dropped, and replies
// that failed before any text (and notes) are left out.
func buildHistory(system string, stored []store.Message) []llm.Message {
	var out []llm.Message
	if system != "" {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	var open []string // call IDs of the last assistant message not yet answered
	answer := func() {
		for _, id := range open {
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: noResult})
		}
		open = nil
	}
	for _, m := range stored {
		switch m.Role {
		case store.RoleTool:
			for i, id := range open {
				if id == m.ToolCallID {
					out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: m.Content})
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
		case store.RoleAssistant:
			answer()
			var calls []llm.ToolCall
			if len(m.ToolCalls) > 0 {
				_ = json.Unmarshal(m.ToolCalls, &calls) // written by this package; bad JSON means none
			}
			if m.Content == "" && len(calls) == 0 {
				continue
			}
			out = append(out, llm.Message{Role: llm.RoleAssistant, Content: m.Content, ToolCalls: calls})
			for _, c := range calls {
				open = append(open, c.ID)
			}
		case store.RoleUser, store.RoleSystem:
			answer()
			out = append(out, llm.Message{Role: llm.Role(m.Role), Content: m.Content})
		}
	}
	answer()
	return out
}

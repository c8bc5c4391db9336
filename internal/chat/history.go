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
// by one tool message, in the calls' order (tool messages are stored in
// the order the calls ended), before the next message (missing ones get
// noResult); tool messages that answer no call are dropped, and replies
// that failed before any text (and notes) are left out. Attachments get
// their bytes from blobs, by blob ID (Engine.blobs); one without them is
// named as missing.
func buildHistory(system string, stored []store.Message, blobs map[string][]byte) []llm.Message {
	var out []llm.Message
	if system != "" {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	var open []string               // call IDs of the last assistant message
	answers := map[string]*string{} // their results, as they are found
	answer := func() {
		for _, id := range open {
			text := noResult
			if a := answers[id]; a != nil {
				text = *a
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: text})
		}
		open = nil
		clear(answers)
	}
	for _, m := range stored {
		switch m.Role {
		case store.RoleTool:
			if a, ok := answers[m.ToolCallID]; ok && a == nil {
				answers[m.ToolCallID] = &m.Content
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
				if _, dup := answers[c.ID]; !dup {
					open = append(open, c.ID)
					answers[c.ID] = nil
				}
			}
		case store.RoleUser, store.RoleSystem:
			answer()
			out = append(out, llm.Message{Role: llm.Role(m.Role), Content: m.Content, Attachments: llmAttachments(m.Attachments, blobs)})
		}
	}
	answer()
	return out
}

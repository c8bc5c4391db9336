package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Limits past which the tools a conversation offers draw a warning.
const (
	// MaxOfferedTools is the most tools many providers accept (OpenAI: 128).
	MaxOfferedTools = 128
	// ToolContextShare is the share of the context the tools' names,
	// descriptions and schemas may take (estimated at 4 bytes a token).
	ToolContextShare = 0.25
)

// A ToolSelection picks the tools a conversation offers, stored as the
// conversation's tools JSON. The zero value offers every enabled tool.
type ToolSelection struct {
	// Only, when not nil, offers just these tools (exposed names); an empty
	// list offers none.
	Only []string `json:"only"`
	// Off lists tools switched off for this conversation.
	Off []string `json:"off,omitempty"`
}

func (s ToolSelection) allows(name string) bool {
	if s.Only != nil && !slices.Contains(s.Only, name) {
		return false
	}
	return !slices.Contains(s.Off, name)
}

// A ToolChoice is one tool as a conversation's tool picker shows it.
type ToolChoice struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description"`
	// Enabled is false when the tool is switched off everywhere.
	Enabled bool `json:"enabled"`
	// Selected is whether this conversation offers it (if Enabled).
	Selected bool `json:"selected"`
}

// A ToolSet is the tools of a conversation.
type ToolSet struct {
	Selection ToolSelection `json:"selection"`
	Tools     []ToolChoice  `json:"tools"`
	// Offered counts the tools sent to the model.
	Offered int `json:"offered"`
	// EstimatedTokens is what the offered tools take of the context.
	EstimatedTokens int `json:"estimatedTokens"`
	// Warning is set when Offered or EstimatedTokens is past its limit.
	Warning string `json:"warning,omitempty"`
}

// ToolsFor returns every tool with whether the conversation offers it, and
// a warning when the offered ones are too many or too large.
func (e *Engine) ToolsFor(ctx context.Context, convID string) (ToolSet, error) {
	conv, err := e.opts.Store.Conversation(ctx, convID)
	if err != nil {
		return ToolSet{}, err
	}
	sel := e.selection(conv)
	set := ToolSet{Selection: sel, Tools: []ToolChoice{}}
	for _, t := range e.allTools() {
		set.Tools = append(set.Tools, ToolChoice{Name: t.Name, Server: t.ServerName, Description: t.Description,
			Enabled: t.Enabled, Selected: sel.allows(t.Name)})
	}
	offered, warning := e.offer(conv)
	set.Offered, set.EstimatedTokens, set.Warning = len(offered), toolTokens(offered), warning
	return set, nil
}

// SetTools stores the conversation's tool selection; nil restores the
// default (every enabled tool).
func (e *Engine) SetTools(ctx context.Context, convID string, sel *ToolSelection) error {
	var raw json.RawMessage
	if sel != nil {
		var err error
		if raw, err = json.Marshal(sel); err != nil {
			return err
		}
	}
	return e.opts.Store.SetConversationTools(ctx, convID, raw)
}

func (e *Engine) allTools() []Tool {
	if e.opts.Tools == nil {
		return nil
	}
	return e.opts.Tools.Tools()
}

func (e *Engine) selection(conv store.Conversation) ToolSelection {
	var sel ToolSelection
	if len(conv.Tools) > 0 {
		if err := json.Unmarshal(conv.Tools, &sel); err != nil {
			e.log.Warn("unreadable tool selection; offering every tool", "conversationId", conv.ID, "err", err)
			return ToolSelection{}
		}
	}
	return sel
}

// offer returns the tools to send with the conversation's requests and a
// warning if they are too many or too large.
func (e *Engine) offer(conv store.Conversation) ([]llm.Tool, string) {
	sel := e.selection(conv)
	var out []llm.Tool
	for _, t := range e.allTools() {
		if t.Enabled && sel.allows(t.Name) {
			out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		}
	}
	tokens, budget := toolTokens(out), int(float64(e.opts.ContextTokens)*ToolContextShare)
	switch {
	case len(out) > MaxOfferedTools:
		return out, fmt.Sprintf("%d tools are on for this conversation; many providers accept at most %d. Switch off the ones it does not need.", len(out), MaxOfferedTools)
	case tokens > budget:
		return out, fmt.Sprintf("The tools' descriptions take about %d tokens, more than a quarter of a %d-token context. Switch off the ones this conversation does not need.", tokens, e.opts.ContextTokens)
	}
	return out, ""
}

// toolTokens estimates the tokens tools take: bytes / 4.
func toolTokens(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n / 4
}

// runTools runs one reply's calls concurrently. Each call, as it ends,
// appends its result as a tool message (so they are stored in the order the
// calls end; the history puts them back in the calls' order for the model).
func (e *Engine) runTools(ctx, save context.Context, conv store.Conversation, msg store.Message, calls []llm.ToolCall) {
	byName := map[string]Tool{}
	for _, t := range e.allTools() {
		byName[t.Name] = t
	}
	sel := e.selection(conv)
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Go(func() {
			tc := &toolCall{e: e, ctx: ctx, save: save, conv: conv, msg: msg, call: c}
			tc.run(byName, sel)
		})
	}
	wg.Wait()
}

package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
//
// Tools are named by ToolKey ("serverId/tool", the server's own tool name),
// not by exposed names: those change when names collide, which would let a
// server turn back on a tool the user switched off. A selection stored
// before keys held exposed names (they have no "/"); the engine maps them
// through the current tools each time it reads the selection.
type ToolSelection struct {
	// Only, when not nil, offers just these tools; an empty list offers
	// none.
	Only []string `json:"only"`
	// Off lists tools switched off for this conversation.
	Off []string `json:"off,omitempty"`
}

func (s ToolSelection) allows(key string) bool { return s.set().allows(key) }

// set returns s as sets, to check many tools against a long selection.
func (s ToolSelection) set() selectionSet {
	set := selectionSet{off: make(map[string]bool, len(s.Off))}
	if s.Only != nil {
		set.only = make(map[string]bool, len(s.Only))
		for _, k := range s.Only {
			set.only[k] = true
		}
	}
	for _, k := range s.Off {
		set.off[k] = true
	}
	return set
}

// A selectionSet is a ToolSelection as sets; only is nil when every tool
// not off is allowed.
type selectionSet struct{ only, off map[string]bool }

func (s selectionSet) allows(key string) bool {
	return (s.only == nil || s.only[key]) && !s.off[key]
}

// keyed returns s with every exposed name (an entry without "/") replaced
// by the key of the tool that has it now; a name no tool has is kept, and
// matches nothing.
func (s ToolSelection) keyed(tools []Tool) ToolSelection {
	legacy := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return !strings.Contains(n, "/") })
	}
	if !legacy(s.Only) && !legacy(s.Off) {
		return s
	}
	byName := make(map[string]string, len(tools))
	for _, t := range tools {
		byName[t.Name] = t.Key()
	}
	keyed := func(names []string) []string {
		if names == nil {
			return nil
		}
		out := make([]string, 0, len(names))
		for _, n := range names {
			if k, ok := byName[n]; ok && !strings.Contains(n, "/") { // an exposed name
				n = k
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	return ToolSelection{Only: keyed(s.Only), Off: keyed(s.Off)}
}

// A ToolChoice is one tool as a conversation's tool picker shows it.
type ToolChoice struct {
	// Key names the tool in a ToolSelection.
	Key         string `json:"key"`
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
	tools := e.allTools()
	sel := e.selection(conv, tools)
	set, allowed := ToolSet{Selection: sel, Tools: []ToolChoice{}}, sel.set()
	for _, t := range tools {
		set.Tools = append(set.Tools, ToolChoice{Key: t.Key(), Name: t.Name, Server: t.ServerName, Description: t.Description,
			Enabled: t.Enabled, Selected: allowed.allows(t.Key())})
	}
	offered, warning := e.offer(tools, sel)
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

// selection is the conversation's tool selection, keyed through tools.
func (e *Engine) selection(conv store.Conversation, tools []Tool) ToolSelection {
	var sel ToolSelection
	if len(conv.Tools) > 0 {
		if err := json.Unmarshal(conv.Tools, &sel); err != nil {
			e.log.Warn("unreadable tool selection; offering every tool", "conversationId", conv.ID, "err", err)
			return ToolSelection{}
		}
	}
	return sel.keyed(tools)
}

// currentSelection reads the conversation's selection as stored now, so a
// change the user makes while a run goes on applies from its next step; if
// the store cannot be read it is conv's.
func (e *Engine) currentSelection(ctx context.Context, conv store.Conversation, tools []Tool) ToolSelection {
	now, err := e.opts.Store.Conversation(ctx, conv.ID)
	if err != nil {
		e.log.Warn("reading the tool selection; using the one the run started with", "conversationId", conv.ID, "err", err)
		now = conv
	}
	return e.selection(now, tools)
}

// offer returns the tools to send with a request and a warning if they are
// too many or too large.
func (e *Engine) offer(tools []Tool, sel ToolSelection) ([]llm.Tool, string) {
	var out []llm.Tool
	allowed := sel.set()
	for _, t := range tools {
		if t.Enabled && allowed.allows(t.Key()) {
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

// MaxToolCallsPerReply is the most tool calls of one reply that run; the
// model is told that the calls past it did not run. It bounds the work
// (approvals, processes, network) one reply can set off.
const MaxToolCallsPerReply = 16

// runTools runs one reply's calls concurrently, at most
// MaxToolCallsPerReply of them. tools are the tools as the model was
// offered them: a call runs on the tool its name had then. Each call, as it
// ends, appends its result as a tool message (so they are stored in the
// order the calls end; the history puts them back in the calls' order for
// the model).
func (e *Engine) runTools(ctx, save context.Context, conv store.Conversation, msg store.Message, calls []llm.ToolCall, tools []Tool) {
	byName := make(map[string]Tool, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
	}
	sel := e.currentSelection(save, conv, tools).set()
	run, over := calls, []llm.ToolCall(nil)
	if len(calls) > MaxToolCallsPerReply {
		run, over = calls[:MaxToolCallsPerReply], calls[MaxToolCallsPerReply:]
	}
	var wg sync.WaitGroup
	for _, c := range run {
		wg.Go(func() {
			tc := &toolCall{e: e, ctx: ctx, save: save, conv: conv, msg: msg, call: c}
			tc.run(byName, sel)
		})
	}
	for _, c := range over { // answered one by one, while the others run
		tc := &toolCall{e: e, ctx: ctx, save: save, conv: conv, msg: msg, call: c, over: len(calls)}
		tc.run(byName, sel)
	}
	wg.Wait()
}

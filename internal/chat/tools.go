package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

// Limits past which the tools a conversation offers draw a warning. The
// most tools a request may carry is the provider's (llm.ToolLimits).
const (
	// MaxOfferedTools is the tool count warned about when the provider's
	// own limit is unknown (OpenAI's: 128).
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
	Only []string `json:"only" ts_type:"string[] | null"`
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
	// Offered counts the tools the conversation offers the model: sent
	// with each request, or, with ToolSearch, found through the pair.
	Offered int `json:"offered"`
	// EstimatedTokens is what the tools sent with a request take of the
	// context (with ToolSearch, the pair's).
	EstimatedTokens int `json:"estimatedTokens"`
	// ToolSearch is set when the tools are past the tool-search threshold
	// (or it is always on): requests carry the search pair instead, and
	// the model finds the Offered tools through it.
	ToolSearch bool `json:"toolSearch,omitempty"`
	// Warning is set when Offered or EstimatedTokens is past its limit.
	Warning string `json:"warning,omitempty"`
}

// ToolsFor returns every tool with whether the conversation offers it, and
// a warning when the offered ones are more than the conversation's
// provider takes or too large. Tools a server meant for its own view
// (Tool.AppOnly) are not listed: they are never offered to a model.
func (e *Engine) ToolsFor(ctx context.Context, convID string) (ToolSet, error) {
	conv, err := e.opts.Store.Conversation(ctx, convID)
	if err != nil {
		return ToolSet{}, err
	}
	tools := e.allTools()
	sel := e.selection(conv, tools)
	set, allowed := ToolSet{Selection: sel, Tools: []ToolChoice{}}, sel.set()
	for _, t := range tools {
		if t.AppOnly {
			continue
		}
		set.Tools = append(set.Tools, ToolChoice{Key: t.Key(), Name: t.Name, Server: t.ServerName, Description: t.Description,
			Enabled: t.Enabled, Selected: allowed.allows(t.Key())})
	}
	offered, warning, searched := e.roundTools(tools, sel, e.toolLimits(ctx, conv))
	set.Offered, set.EstimatedTokens, set.Warning = len(offered), toolTokens(offered), warning
	if searched > 0 {
		set.Offered, set.ToolSearch = searched, true
	}
	return set, nil
}

// toolLimits are the limits of the conversation's provider; when it cannot
// be resolved, those of an unknown provider.
func (e *Engine) toolLimits(ctx context.Context, conv store.Conversation) llm.ToolLimits {
	if e.opts.ToolLimits != nil {
		return e.opts.ToolLimits(ctx, conv.ProviderID)
	}
	if e.opts.Provider != nil {
		if client, _, err := e.opts.Provider(ctx, conv.ProviderID); err == nil && client != nil {
			return client.ToolLimits()
		}
	}
	return llm.ToolLimitsFor("")
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

// ViewMayCall reports whether conversation convID lets a server's view
// call the tool key names (ToolKey). A tool switched off for the
// conversation (ToolSelection.Off) is off for its views too. Only does not
// hold a tool meant for views alone (appOnly): the tool picker never lists
// those, so the user never had the chance to pick one.
func (e *Engine) ViewMayCall(ctx context.Context, convID, key string, appOnly bool) (bool, error) {
	conv, err := e.opts.Store.Conversation(ctx, convID)
	if err != nil {
		return false, err
	}
	sel := e.selection(conv, e.allTools()).set()
	if appOnly {
		return !sel.off[key], nil
	}
	return sel.allows(key), nil
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
// more than limits allow or too large for the context. A tool the server
// meant for its own view (AppOnly) is never offered, and each exposed name
// is offered once, the first tool that has it winning: a provider refuses
// a request that names a tool twice.
func (e *Engine) offer(tools []Tool, sel ToolSelection, limits llm.ToolLimits) ([]llm.Tool, string) {
	from := offerable(tools, sel.set())
	var out []llm.Tool
	for _, t := range from {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	tokens, budget := toolTokens(out), int(float64(e.opts.ContextTokens)*ToolContextShare)
	max, provider := limits.MaxTools, cmp.Or(limits.Provider, "the provider")
	switch {
	case max > 0 && len(out) > max && limits.Documented:
		return out, fmt.Sprintf("%d tools are on, more than %s accepts (%d); the largest: %s. Switch off the ones this conversation does not need.",
			len(out), provider, max, largestServers(from))
	case max > 0 && len(out) > max:
		return out, fmt.Sprintf("%d tools are on; %s may accept no more than %d (OpenAI's limit, which many providers share); the largest: %s. Switch off the ones this conversation does not need.",
			len(out), provider, max, largestServers(from))
	case tokens > budget:
		return out, fmt.Sprintf("The tools' descriptions take about %d tokens, more than a quarter of a %d-token context; the largest: %s. Switch off the ones this conversation does not need.",
			tokens, e.opts.ContextTokens, largestServers(from))
	}
	return out, ""
}

// offerable returns the tools a model may be offered, in order: enabled,
// selected, not AppOnly, and each exposed name once, the first tool that
// has it winning.
func offerable(tools []Tool, allowed selectionSet) []Tool {
	var out []Tool
	seen := make(map[string]bool)
	for _, t := range tools {
		if t.Enabled && !t.AppOnly && !seen[t.Name] && allowed.allows(t.Key()) {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	return out
}

// largestServers names the (at most three) servers whose offered tools
// take the most bytes: "desktop-commander (41 tools, 38 KB), playwright
// (21 tools, 20 KB)".
func largestServers(tools []Tool) string {
	type cost struct {
		name         string
		tools, bytes int
	}
	var costs []*cost
	byServer := map[string]*cost{}
	for _, t := range tools {
		c := byServer[t.ServerID]
		if c == nil {
			c = &cost{name: cmp.Or(t.ServerName, t.ServerID)}
			byServer[t.ServerID] = c
			costs = append(costs, c)
		}
		c.tools++
		c.bytes += toolSize(t.Name, t.Description, t.InputSchema)
	}
	slices.SortStableFunc(costs, func(a, b *cost) int { return cmp.Compare(b.bytes, a.bytes) })
	var parts []string
	for _, c := range costs[:min(3, len(costs))] {
		n := "tools"
		if c.tools == 1 {
			n = "tool"
		}
		size := fmt.Sprintf("%d bytes", c.bytes)
		if c.bytes >= 1024 {
			size = fmt.Sprintf("%d KB", (c.bytes+512)/1024)
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s, %s)", c.name, c.tools, n, size))
	}
	return strings.Join(parts, ", ")
}

// toolTokens estimates the tokens tools take: bytes / 4.
func toolTokens(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		n += toolSize(t.Name, t.Description, t.Parameters)
	}
	return n / 4
}

// toolSize is what one tool's definition takes of a request, in bytes.
func toolSize(name, description string, schema []byte) int {
	return len(name) + len(description) + len(schema)
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
// the model). meta says the request carried the tool-search pair
// (toolsearch.go): its calls are answered, or resolved to the real tool.
func (e *Engine) runTools(ctx, save context.Context, conv store.Conversation, msg store.Message, calls []llm.ToolCall, tools []Tool, meta bool) {
	// As offer does: a tool meant for the server's view is unknown to the
	// model, and of two tools with one name the first is the one offered.
	byName := make(map[string]Tool, len(tools))
	for _, t := range tools {
		if _, dup := byName[t.Name]; !t.AppOnly && !dup {
			byName[t.Name] = t
		}
	}
	sel := e.currentSelection(save, conv, tools).set()
	run, over := calls, []llm.ToolCall(nil)
	if len(calls) > MaxToolCallsPerReply {
		run, over = calls[:MaxToolCallsPerReply], calls[MaxToolCallsPerReply:]
	}
	var avail []Tool // what a search of this reply runs over
	if meta {
		avail = offerable(tools, sel)
	}
	var wg sync.WaitGroup
	for _, c := range run {
		wg.Go(func() {
			if meta && c.Name == toolsearch.SearchName {
				e.searchTools(save, conv, c, avail)
				return
			}
			tc := &toolCall{e: e, ctx: ctx, save: save, conv: conv, msg: msg, call: c}
			if meta {
				tc.throughSearch(byName, sel)
			}
			tc.run(byName, sel)
		})
	}
	for _, c := range over { // answered one by one, while the others run
		tc := &toolCall{e: e, ctx: ctx, save: save, conv: conv, msg: msg, call: c, over: len(calls)}
		tc.run(byName, sel)
	}
	wg.Wait()
}

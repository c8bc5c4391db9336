package chat

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
)

// Tool search (package toolsearch): when the tools a request would carry
// are past the user's threshold, it carries the search pair instead.
//
//   - search_tools is answered here, at once: it reads only the tool list
//     the engine has (no server is asked), so it needs no approval and
//     has no audit record; its answer is a tool message like any other.
//   - call_tool is resolved, before anything else, to the tool it names
//     among those the conversation offers (enabled, selected, not for
//     views only); from there it is that tool's call: the same checks,
//     approval, trifecta guard, audit record, events and result limit,
//     all naming the real tool and its own arguments. Only the model's
//     call ID stays the meta call's, so the result answers it.
//   - A model that calls a found tool by its name directly is served too.

// MetaTools are the pair's names, search first (the frontend's contract is
// generated from it: a card shows a call of these as tool search's).
var MetaTools = []string{toolsearch.SearchName, toolsearch.CallName}

// roundTools returns what a request carries: the tools offer gives and
// its warning, or, when tool search is on for them, the pair, no warning,
// and searched, how many tools are behind it (zero otherwise).
func (e *Engine) roundTools(tools []Tool, sel ToolSelection, limits llm.ToolLimits) (offered []llm.Tool, warning string, searched int) {
	offered, warning = e.offer(tools, sel, limits)
	if !e.currentLimits().ToolSearch.Use(len(offered), toolBytes(offered)) {
		return offered, warning, 0
	}
	return pairTools(), "", len(offered)
}

// pairTools is the search pair as a request carries it.
func pairTools() []llm.Tool {
	var out []llm.Tool
	for _, d := range toolsearch.Pair() {
		out = append(out, llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return out
}

// toolBytes is what tools' definitions take of a request, in bytes.
func toolBytes(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		n += toolSize(t.Name, t.Description, t.Parameters)
	}
	return n
}

// searchTools answers a search_tools call: the best matches among avail
// (the tools the conversation offers), cut to the result limit, stored as
// the tool message that answers c.
func (e *Engine) searchTools(ctx context.Context, conv store.Conversation, c llm.ToolCall, avail []Tool) {
	text := e.searchResult(c.Arguments, avail)
	m, err := e.opts.Store.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleTool, Content: text, ToolCallID: c.ID})
	if err != nil {
		e.log.Error("saving a tool search result", "conversationId", conv.ID, "err", err)
		return
	}
	e.emit.Emit(EventMessage, m)
}

// searchResult is the text a search_tools call with args gets.
func (e *Engine) searchResult(args string, avail []Tool) string {
	a, err := toolsearch.ParseSearch(args)
	if err != nil {
		return "Error: " + err.Error() + "."
	}
	docs := make([]toolsearch.Tool, len(avail))
	var servers []string
	for i, t := range avail {
		docs[i] = toolsearch.Tool{Name: t.Name, OriginalName: t.OriginalName, Title: t.Title, Server: t.ServerName,
			Description: t.Description, InputSchema: t.InputSchema}
		if s := t.ServerName; s != "" && !slices.Contains(servers, s) {
			servers = append(servers, s)
		}
	}
	limit := a.Limit
	if limit == 0 {
		limit = toolsearch.DefaultResults
	}
	matches := toolsearch.NewIndex(docs).Search(a.Query, limit)
	text := toolsearch.Format(a.Query, matches, len(avail), servers, 0)
	return truncate(text, e.currentLimits().ResultLimit)
}

// throughSearch prepares a call of a reply to a request that carried the
// search pair. A call_tool call becomes a call of the tool it names (its
// exposed name, or the server's own name when only one offered tool has
// it), with the arguments it gives that tool; a call naming no tool the
// conversation offers is refused, telling the model to search first.
func (tc *toolCall) throughSearch(tools map[string]Tool, sel selectionSet) {
	c := tc.call
	if c.Name != toolsearch.CallName {
		if _, known := tools[c.Name]; !known {
			tc.refusal = searchFirst(c.Name)
		}
		return
	}
	args, err := toolsearch.ParseCall(c.Arguments)
	if err != nil {
		tc.refusal = "Error: " + err.Error() + "."
		return
	}
	t, ok := offeredTool(tools, sel, args.Name)
	if !ok {
		tc.refusal = searchFirst(args.Name)
		return
	}
	tc.call = llm.ToolCall{ID: c.ID, Name: t.Name, Arguments: string(args.Arguments)}
	tc.via = toolsearch.CallName
}

// offeredTool finds the offered tool name names: by exposed name, else by
// the server's own name if only one offered tool has it.
func offeredTool(tools map[string]Tool, sel selectionSet, name string) (Tool, bool) {
	offered := func(t Tool) bool { return t.Enabled && !t.AppOnly && sel.allows(t.Key()) }
	if t, ok := tools[name]; ok {
		return t, offered(t)
	}
	var found []Tool
	for _, t := range tools {
		if t.OriginalName == name && offered(t) {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return Tool{}, false
	}
	return found[0], true
}

// searchFirst is the refusal of a call of a tool the conversation does
// not offer, made while tool search is on.
func searchFirst(name string) string {
	return fmt.Sprintf("Error: no tool named %q is available in this conversation. Search with %s first, then call one of the names it returns with %s.",
		clip(name, 100), toolsearch.SearchName, toolsearch.CallName)
}

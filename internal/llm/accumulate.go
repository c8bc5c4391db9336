package llm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// toolCallAccumulator rebuilds tool calls from stream deltas. Per the
// chat-completions format, each delta names its call by Index; the first
// delta of a call carries id and name, later ones pieces of the arguments,
// and deltas of parallel calls may interleave.
//
// Providers that omit Index (some older local servers) get a fallback: a
// delta with an ID other than the last call's starts a new call, anything
// else continues the last call.
type toolCallAccumulator struct {
	calls   []*accCall
	byIndex map[int]*accCall
}

type accCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

// add folds one delta in. It returns started=true when the delta opened a
// new call, and the call's index.
func (a *toolCallAccumulator) add(d openai.ToolCall) (index int, started bool) {
	if a.byIndex == nil {
		a.byIndex = make(map[int]*accCall)
	}
	var call *accCall
	switch {
	case d.Index != nil:
		call = a.byIndex[*d.Index]
		if call == nil {
			call = a.open(*d.Index)
			started = true
		}
	case len(a.calls) > 0 && (d.ID == "" || d.ID == a.calls[len(a.calls)-1].id):
		call = a.calls[len(a.calls)-1]
	default:
		next := 0
		for idx := range a.byIndex {
			next = max(next, idx+1)
		}
		call = a.open(next)
		started = true
	}
	if call.id == "" {
		call.id = d.ID
	}
	// The name arrives whole in the first delta; a provider that repeats it
	// must not double it, one that splits it gets the pieces joined.
	if d.Function.Name != "" && d.Function.Name != call.name {
		call.name += d.Function.Name
	}
	call.args.WriteString(d.Function.Arguments)
	return call.index, started
}

func (a *toolCallAccumulator) open(index int) *accCall {
	c := &accCall{index: index}
	a.calls = append(a.calls, c)
	a.byIndex[index] = c
	return c
}

// call returns the call at index as it stands.
func (a *toolCallAccumulator) call(index int) ToolCall {
	c := a.byIndex[index]
	if c == nil {
		return ToolCall{}
	}
	return c.toolCall()
}

// result returns the calls in index order.
func (a *toolCallAccumulator) result() []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	sorted := slices.Clone(a.calls)
	slices.SortFunc(sorted, func(x, y *accCall) int { return cmp.Compare(x.index, y.index) })
	out := make([]ToolCall, len(sorted))
	for i, c := range sorted {
		out[i] = c.toolCall()
	}
	return out
}

func (c *accCall) toolCall() ToolCall {
	id := c.id
	if id == "" {
		id = fmt.Sprintf("call_%d", c.index)
	}
	return ToolCall{ID: id, Name: c.name, Arguments: c.args.String()}
}

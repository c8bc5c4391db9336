package chat

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// summaryLength is how much of a result a chat:toolcall event carries.
const summaryLength = 200

// A toolCall is one call of a reply on its way through checks, approval
// and the tool; its events and audit updates come from its goroutine
// (progress aside, which is dropped once the call ended).
type toolCall struct {
	e         *Engine
	ctx, save context.Context
	conv      store.Conversation
	msg       store.Message
	call      llm.ToolCall
	id        string // audit record ID
	server    string
	mu        sync.Mutex
	ended     bool
}

// run takes the call to its end and returns the tool message text for the
// model.
func (tc *toolCall) run(tools map[string]Tool, sel ToolSelection) string {
	e, c := tc.e, tc.call
	tool, known := tools[c.Name]
	tc.server = tool.ServerName
	rec, err := e.opts.Store.InsertToolCall(tc.save, store.ToolCall{CallID: c.ID, ConversationID: tc.conv.ID,
		MessageID: tc.msg.ID, ServerID: tool.ServerID, ServerName: tool.ServerName, Tool: c.Name, Arguments: c.Arguments,
		RequestedAt: e.opts.Now()})
	if err != nil {
		e.log.Error("recording a tool call", "conversationId", tc.conv.ID, "tool", c.Name, "err", err)
		rec.ID = store.NewID() // keep going: the user's call matters more than its audit line
	}
	tc.id = rec.ID
	tc.event(ToolCallEvent{Status: ToolPending})

	args := bytes.TrimSpace([]byte(c.Arguments))
	if len(args) == 0 {
		args = []byte("{}")
	}
	switch {
	case !known:
		return tc.refuse(fmt.Sprintf("Error: there is no tool named %q. Call only the tools listed in this request.", c.Name))
	case !tool.Enabled:
		return tc.refuse(fmt.Sprintf("Error: the tool %q is switched off by the user. Do not call it again; go on without it.", c.Name))
	case !sel.allows(c.Name):
		return tc.refuse(fmt.Sprintf("Error: the tool %q is switched off for this conversation. Do not call it again; go on without it.", c.Name))
	case !json.Valid(args):
		return tc.refuse(fmt.Sprintf("Error: the arguments of %s are not valid JSON: %s. Call it again with a JSON object that matches its input schema.", c.Name, clip(c.Arguments, 200)))
	case args[0] != '{':
		return tc.refuse(fmt.Sprintf("Error: the arguments of %s must be a JSON object, not %s. Call it again with a JSON object that matches its input schema.", c.Name, clip(c.Arguments, 200)))
	case e.opts.Approver == nil:
		return tc.refuse(fmt.Sprintf("Error: tool calls cannot be approved right now, so %s did not run.", c.Name))
	}

	tc.event(ToolCallEvent{Status: ToolWaitingApproval})
	out, err := e.opts.Approver.Request(tc.ctx, ApprovalRequest{ID: tc.id, ConversationID: tc.conv.ID,
		ServerID: tool.ServerID, Tool: cmp.Or(tool.OriginalName, tool.Name), ServerName: tool.ServerName, Description: tool.Description,
		Fingerprint: tool.Fingerprint, Arguments: json.RawMessage(args)})
	if err != nil && !out.Allowed {
		if tc.ctx.Err() != nil {
			return tc.cancelled(out, 0)
		}
		return tc.refuse(fmt.Sprintf("Error: the call of %s could not be put to the user (%v), so it did not run.", c.Name, err))
	}
	if err != nil {
		e.log.Warn("approval", "conversationId", tc.conv.ID, "tool", c.Name, "err", err)
	}
	switch {
	case !out.Allowed && (out.Decision == DecisionCancelled || tc.ctx.Err() != nil):
		return tc.cancelled(out, 0)
	case !out.Allowed:
		tc.decide(store.CallDenied, out)
		text := fmt.Sprintf("The user declined this call of %s, so it did not run. Go on without it, or ask the user what to do instead.", c.Name)
		tc.finish(store.ToolCallEnd{Status: store.CallDenied}, ToolCallEvent{Status: ToolDenied, Result: text})
		return text
	}
	start := e.opts.Now()
	if err := e.opts.Store.StartToolCall(tc.save, tc.id, start, out.Decision, out.DecidedBy); err != nil {
		e.log.Warn("recording a tool call start", "id", tc.id, "err", err)
	}
	tc.event(ToolCallEvent{Status: ToolRunning})
	res, err := e.opts.Tools.CallTool(tc.ctx, c.Name, out.Arguments, tc.progress)
	took := e.opts.Now().Sub(start)
	switch {
	case err != nil && tc.ctx.Err() != nil:
		return tc.cancelled(out, took)
	case err != nil:
		text := fmt.Sprintf("Error: the call of %s failed: %v", c.Name, err)
		tc.finish(store.ToolCallEnd{Status: store.CallError, IsError: true, Error: err.Error(), Duration: took},
			ToolCallEvent{Status: ToolFailed, Error: err.Error(), DurationMs: took.Milliseconds()})
		return text
	}
	full := res.Full
	if full == nil {
		full, _ = json.Marshal(res.Text)
	}
	text := truncate(res.Text, e.currentLimits().ResultLimit)
	status := ToolDone
	if res.IsError {
		status = ToolFailed
	}
	tc.finish(store.ToolCallEnd{Status: store.CallDone, Result: full, IsError: res.IsError, Duration: took},
		ToolCallEvent{Status: status, Result: clip(res.Text, summaryLength), DurationMs: took.Milliseconds()})
	if text == "" {
		text = "(no output)"
	}
	return text
}

// refuse ends a call that did not pass a check; text goes to the model.
func (tc *toolCall) refuse(text string) string {
	tc.finish(store.ToolCallEnd{Status: store.CallError, IsError: true, Error: text},
		ToolCallEvent{Status: ToolFailed, Error: text})
	return text
}

func (tc *toolCall) cancelled(out ApprovalOutcome, took time.Duration) string {
	if out.Decision == "" {
		out.Decision, out.DecidedBy = DecisionCancelled, "system"
	}
	tc.decide(store.CallCancelled, out)
	text := fmt.Sprintf("The call of %s was cancelled before it finished: the user stopped the reply.", tc.call.Name)
	tc.finish(store.ToolCallEnd{Status: store.CallCancelled, Error: "cancelled", Duration: took},
		ToolCallEvent{Status: ToolCancelled, DurationMs: took.Milliseconds()})
	return text
}

func (tc *toolCall) decide(status string, out ApprovalOutcome) {
	if err := tc.e.opts.Store.DecideToolCall(tc.save, tc.id, status, out.Decision, out.DecidedBy); err != nil {
		tc.e.log.Warn("recording a tool call decision", "id", tc.id, "err", err)
	}
}

func (tc *toolCall) finish(end store.ToolCallEnd, ev ToolCallEvent) {
	if err := tc.e.opts.Store.FinishToolCall(tc.save, tc.id, end); err != nil {
		tc.e.log.Warn("recording a tool call end", "id", tc.id, "err", err)
	}
	tc.mu.Lock()
	tc.ended = true
	tc.mu.Unlock()
	tc.event(ev)
}

// progress forwards a progress report while the call runs. The tool source
// may call it from another goroutine; reports after the end are dropped.
func (tc *toolCall) progress(p Progress) {
	tc.mu.Lock()
	ended := tc.ended
	tc.mu.Unlock()
	if !ended {
		tc.event(ToolCallEvent{Status: ToolRunning, Progress: &p})
	}
}

func (tc *toolCall) event(ev ToolCallEvent) {
	ev.ConversationID, ev.MessageID, ev.ID, ev.ToolCallID = tc.conv.ID, tc.msg.ID, tc.id, tc.call.ID
	ev.Tool, ev.Server = tc.call.Name, tc.server
	tc.e.emit.Emit(EventToolCall, ev)
}

// truncate cuts s to limit characters and says so, for the model.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	cut, i := len(s), 0
	for pos := range s {
		if i == limit {
			cut = pos
			break
		}
		i++
	}
	return s[:cut] + fmt.Sprintf("\n\n[Result truncated: %d characters, only the first %d are shown. Ask for a smaller part if you need more.]", n, limit)
}

// clip shortens s to about n characters for display.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

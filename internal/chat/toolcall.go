package chat

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-app/switchboard/internal/approval"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// errUnrecorded stands for the audit write finish skips when the call has
// no audit record.
var errUnrecorded = errors.New("the call has no audit record")

// summaryLength is how much of a result a chat:toolcall event carries.
const summaryLength = 200

// A toolCall is one call of a reply on its way through checks, approval
// and the tool; its events and audit updates come from its goroutine
// (progress aside, which is dropped once the call ended).
type toolCall struct {
	e                *Engine
	ctx, save        context.Context
	conv             store.Conversation
	msg              store.Message
	call             llm.ToolCall
	id               string // audit record ID
	serverID, server string
	// unrecorded is set when the audit record could not be written; the
	// call goes on without updating it.
	unrecorded bool
	// over, when not zero, is how many calls the reply made: this one is
	// past MaxToolCallsPerReply and does not run.
	over int
	// refusal, when set, is why the call does not run, decided before run
	// (throughSearch); via is toolsearch.CallName when the call came
	// through tool search.
	refusal, via string

	mu    sync.Mutex
	ended bool
}

// run takes the call to its end; finish stores the tool message that
// answers it for the model.
func (tc *toolCall) run(tools map[string]Tool, sel selectionSet) {
	e, c := tc.e, tc.call
	tool, known := tools[c.Name]
	tc.serverID, tc.server = tool.ServerID, tool.ServerName
	args := bytes.TrimSpace([]byte(c.Arguments))
	if len(args) == 0 {
		args = []byte("{}")
	}
	var refusal string
	switch {
	case tc.refusal != "" && tc.over == 0:
		refusal = tc.refusal
	case tc.over > 0:
		refusal = fmt.Sprintf("Error: this reply asked for %d tool calls; at most %d run per reply, so %s did not run. Call it again in your next reply if you still need it.", tc.over, MaxToolCallsPerReply, c.Name)
	case !known:
		refusal = fmt.Sprintf("Error: there is no tool named %q. Call only the tools listed in this request.", c.Name)
	case !tool.Enabled:
		refusal = fmt.Sprintf("Error: the tool %q is switched off by the user. Do not call it again; go on without it.", c.Name)
	case !sel.allows(tool.Key()):
		refusal = fmt.Sprintf("Error: the tool %q is switched off for this conversation. Do not call it again; go on without it.", c.Name)
	case !json.Valid(args):
		refusal = fmt.Sprintf("Error: the arguments of %s are not valid JSON: %s. Call it again with a JSON object that matches its input schema.", c.Name, clip(c.Arguments, 200))
	case args[0] != '{':
		refusal = fmt.Sprintf("Error: the arguments of %s must be a JSON object, not %s. Call it again with a JSON object that matches its input schema.", c.Name, clip(c.Arguments, 200))
	case e.opts.Approver == nil:
		refusal = fmt.Sprintf("Error: tool calls cannot be approved right now, so %s did not run.", c.Name)
	}
	rec := store.ToolCall{ID: store.NewID(), CallID: c.ID, ConversationID: tc.conv.ID, MessageID: tc.msg.ID,
		ServerID: tool.ServerID, ServerName: tool.ServerName, Tool: c.Name, Arguments: c.Arguments, RequestedAt: e.opts.Now(),
		Legs: legBits(tool.Legs)}
	tc.id = rec.ID
	req := approval.Request{ID: tc.id, ConversationID: tc.conv.ID, ServerID: tool.ServerID, Tool: cmp.Or(tool.OriginalName, tool.Name),
		ServerName: tool.ServerName, Description: tool.Description, Fingerprint: tool.Fingerprint, Arguments: json.RawMessage(args),
		DefinitionHash: tool.DefinitionHash, InputSchema: tool.InputSchema, Title: tool.Title, Hints: tool.Hints}
	if refusal == "" {
		req.Guard = tc.guardFor(tool)
	}
	if cl, ok := ClientOf(tc.ctx); ok {
		req.RequestedBy, req.Client = approval.RequestedByClient, cl.Name
		rec.RequestedBy = store.RequestedByClientPrefix + cl.Name
	}

	// A call a standing policy allows is recorded as requested, decided
	// and started in one write; any other is recorded before it is checked
	// or put to the user.
	var out approval.Outcome
	decided := false
	if pa, ok := e.opts.Approver.(PolicyApprover); ok && refusal == "" {
		out, decided = pa.Decided(tc.ctx, req)
		decided = decided && out.Allowed
	}
	if decided {
		rec.Status, rec.Decision, rec.DecidedBy, rec.StartedAt = store.CallRunning, string(out.Decision), string(out.DecidedBy), rec.RequestedAt
	}
	if _, err := e.opts.Store.InsertToolCall(tc.save, rec); err != nil {
		e.log.Error("recording a tool call", "conversationId", tc.conv.ID, "tool", c.Name, "err", err)
		tc.unrecorded = true // keep going: the user's call matters more than its audit line
	}
	if !decided {
		tc.event(ToolCallEvent{Status: ToolPending})
	}
	if refusal != "" {
		tc.refuse(refusal)
		return
	}
	start := rec.StartedAt
	if !decided {
		tc.decide(store.CallWaitingApproval, approval.Outcome{})
		tc.event(ToolCallEvent{Status: ToolWaitingApproval})
		var err error
		out, err = e.opts.Approver.Request(tc.ctx, req)
		if err != nil && !out.Allowed {
			if tc.ctx.Err() != nil {
				tc.cancelled(out, 0)
				return
			}
			tc.refuse(fmt.Sprintf("Error: the call of %s could not be put to the user (%v), so it did not run.", c.Name, err))
			return
		}
		if err != nil {
			e.log.Warn("approval", "conversationId", tc.conv.ID, "tool", c.Name, "err", err)
		}
		switch {
		case !out.Allowed && (out.Decision == approval.Cancelled || tc.ctx.Err() != nil):
			tc.cancelled(out, 0)
			return
		case !out.Allowed:
			tc.decide(store.CallDenied, out)
			text := fmt.Sprintf("The user declined this call of %s, so it did not run. Go on without it, or ask the user what to do instead.", c.Name)
			if out.Reason != "" { // refused with nobody to ask
				text = fmt.Sprintf("This call of %s was refused and did not run. %s Go on without it, or tell the user to run it where they can approve it.", c.Name, out.Reason)
			}
			tc.finish(store.ToolCallEnd{Status: store.CallDenied, Error: out.Reason}, ToolCallEvent{Status: ToolDenied, ResultText: text}, text)
			return
		}
		start = e.opts.Now()
		if err := e.opts.Store.StartToolCall(tc.save, tc.id, start, string(out.Decision), string(out.DecidedBy)); err != nil {
			e.log.Warn("recording a tool call start", "id", tc.id, "err", err)
		}
	}
	tc.event(ToolCallEvent{Status: ToolRunning})
	// The call runs on the server and the definition that were approved,
	// or not at all.
	octx := withOrigin(tc.ctx, CallOrigin{ConversationID: tc.conv.ID, ProviderID: tc.conv.ProviderID, Model: tc.conv.Model})
	res, err := e.opts.Tools.CallTool(octx, tool.Ref(), out.Arguments, tc.progress)
	took := e.opts.Now().Sub(start)
	switch {
	case err != nil && tc.ctx.Err() != nil:
		tc.cancelled(out, took)
		return
	case errors.Is(err, ErrToolChanged):
		text := fmt.Sprintf("Error: the server changed the tool %s after this call was approved, so it did not run. Tell the user; calling it again asks them about the changed tool.", c.Name)
		shown := "The server changed this tool after you approved the call, so it did not run."
		e.log.Warn("tool changed after approval", "conversationId", tc.conv.ID, "tool", c.Name, "err", err)
		tc.finish(store.ToolCallEnd{Status: store.CallFailed, IsError: true, Error: shown, Duration: took},
			ToolCallEvent{Status: ToolFailed, IsError: true, Error: shown, DurationMs: took.Milliseconds()}, text)
		return
	case err != nil:
		text := fmt.Sprintf("Error: the call of %s failed: %v", c.Name, err)
		tc.finish(store.ToolCallEnd{Status: store.CallFailed, IsError: true, Error: err.Error(), Duration: took},
			ToolCallEvent{Status: ToolFailed, IsError: true, Error: err.Error(), DurationMs: took.Milliseconds()}, text)
		return
	}
	if res.Task != nil {
		tc.runTask(*res.Task)
		return
	}
	full := res.Full
	if full == nil {
		full, _ = json.Marshal(res.Text)
	}
	text := truncate(res.Text, e.currentLimits().ResultLimit)
	if text == "" {
		text = "(no output)"
	}
	status := store.CallDone
	if res.IsError {
		status = store.CallFailed
	}
	tc.finish(store.ToolCallEnd{Status: status, Result: full, IsError: res.IsError, Duration: took},
		ToolCallEvent{Status: status, ResultText: clip(res.Text, summaryLength), IsError: res.IsError, DurationMs: took.Milliseconds()}, text)
}

// guardFor returns the Guard of this call of tool, or nil when the
// lethal-trifecta guard is off or does not hold. It holds when tool can
// send data out and the results of the conversation's earlier calls (of
// other messages: the model made this call before this reply's results
// came) brought both private data and outside content. When those cannot
// be read it holds too, saying so: a guard that cannot see fails closed.
func (tc *toolCall) guardFor(tool Tool) *approval.Guard {
	e := tc.e
	if !tool.Legs.Outbound || e.opts.TrifectaGuard == nil || !e.opts.TrifectaGuard(tc.ctx) {
		return nil
	}
	src, err := e.opts.Store.ConversationLegs(tc.ctx, tc.conv.ID, tc.msg.ID, approval.MaxGuardNames)
	if err != nil {
		e.log.Warn("reading a conversation's trifecta legs", "conversationId", tc.conv.ID, "err", err)
		return &approval.Guard{Tool: tc.call.Name, Reason: fmt.Sprintf("Switchboard could not read this conversation's earlier tool calls to check whether it read private data and took in outside content; %s can send data out.", tc.call.Name)}
	}
	if len(src.Private) == 0 || len(src.Untrusted) == 0 {
		return nil
	}
	return approval.NewGuard(tc.call.Name, src.Private, src.Untrusted, src.MorePrivate, src.MoreUntrusted)
}

// legBits is l as the audit record keeps it.
func legBits(l approval.Legs) int {
	n := 0
	if l.Private {
		n |= store.LegPrivate
	}
	if l.Untrusted {
		n |= store.LegUntrusted
	}
	if l.Outbound {
		n |= store.LegOutbound
	}
	return n
}

// refuse ends a call that did not pass a check; text goes to the model.
func (tc *toolCall) refuse(text string) {
	tc.finish(store.ToolCallEnd{Status: store.CallFailed, IsError: true, Error: text},
		ToolCallEvent{Status: ToolFailed, IsError: true, Error: text}, text)
}

func (tc *toolCall) cancelled(out approval.Outcome, took time.Duration) {
	if out.Decision == "" {
		out.Decision, out.DecidedBy = approval.Cancelled, approval.BySystem
	}
	tc.decide(store.CallCancelled, out)
	text := fmt.Sprintf("The call of %s was cancelled before it finished: the user stopped the reply.", tc.call.Name)
	shown := "cancelled"
	if tc.ctx.Err() == nil { // not Stop: the approver says why
		shown = cmp.Or(out.Reason, "cancelled before a decision")
		text = fmt.Sprintf("The call of %s was cancelled and did not run: %s.", tc.call.Name, shown)
	}
	tc.finish(store.ToolCallEnd{Status: store.CallCancelled, Error: shown, Duration: took},
		ToolCallEvent{Status: ToolCancelled, Error: out.Reason, DurationMs: took.Milliseconds()}, text)
}

func (tc *toolCall) decide(status string, out approval.Outcome) {
	if tc.unrecorded {
		return
	}
	if err := tc.e.opts.Store.DecideToolCall(tc.save, tc.id, status, string(out.Decision), string(out.DecidedBy)); err != nil {
		tc.e.log.Warn("recording a tool call decision", "id", tc.id, "err", err)
	}
}

// finish records how the call ended together with text, the tool message
// that answers the call for the model, and tells the UI both.
func (tc *toolCall) finish(end store.ToolCallEnd, ev ToolCallEvent, text string) {
	e := tc.e
	reply := store.Message{ConversationID: tc.conv.ID, Role: store.RoleTool, Content: text, ToolCallID: tc.call.ID}
	saved, err := store.Message{}, errUnrecorded
	if !tc.unrecorded {
		if saved, err = e.opts.Store.FinishToolCallWithReply(tc.save, tc.id, end, reply); err != nil {
			e.log.Warn("recording a tool call end", "id", tc.id, "err", err)
		}
	}
	if err != nil { // the result still reaches the model, audit or not
		if saved, err = e.opts.Store.AppendMessage(tc.save, reply); err != nil {
			e.log.Error("saving a tool result", "conversationId", tc.conv.ID, "tool", tc.call.Name, "err", err)
		}
	}
	tc.mu.Lock()
	tc.ended = true
	tc.mu.Unlock()
	e.progress.end(tc) // its last progress report, if any, goes out first
	tc.event(ev)
	if err == nil {
		e.emit.Emit(EventMessage, saved)
	}
}

// progress forwards a progress report while the call runs, paced by the
// engine's progressPacer. The tool source may call it from another
// goroutine; reports after the end are dropped.
func (tc *toolCall) progress(p Progress) {
	p.Message = clip(p.Message, summaryLength)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if !tc.ended {
		tc.e.progress.add(tc, tc.stamp(ToolCallEvent{Status: ToolRunning, Progress: &p}))
	}
}

func (tc *toolCall) event(ev ToolCallEvent) {
	tc.e.emit.Emit(EventToolCall, tc.stamp(ev))
}

// stamp fills in which call ev is about.
func (tc *toolCall) stamp(ev ToolCallEvent) ToolCallEvent {
	ev.ConversationID, ev.MessageID, ev.ID, ev.CallID = tc.conv.ID, tc.msg.ID, tc.id, tc.call.ID
	ev.Tool, ev.ServerID, ev.ServerName = tc.call.Name, tc.serverID, tc.server
	ev.Via = tc.via
	return ev
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

package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-app/switchboard/internal/store"
)

// runTask follows a call the server runs as a task. The call's tool
// message is stored at once, saying the task runs, so the conversation
// stays valid for the model whatever happens next; the task's result
// replaces it when the task ends (LandTask). The reply waits for that
// unless it is stopped: then the task goes on, followed in the
// background, even across a restart of the app.
func (tc *toolCall) runTask(h TaskHandle) {
	e := tc.e
	text := fmt.Sprintf("%s runs this call as a task (%s); its result replaces this message when the task ends.", tc.server, h.TaskID)
	saved, err := e.opts.Store.AppendMessage(tc.save, store.Message{ConversationID: tc.conv.ID, Role: store.RoleTool, Content: text, ToolCallID: tc.call.ID})
	if err != nil {
		e.log.Error("saving a tool result", "conversationId", tc.conv.ID, "tool", tc.call.Name, "err", err)
	} else {
		e.emit.Emit(EventMessage, saved)
	}
	tc.mu.Lock()
	tc.ended = true // progress comes from the task now
	tc.mu.Unlock()
	e.progress.end(tc)

	fail := func(why string) {
		end := TaskEnd{ToolCallID: tc.id, Status: store.CallFailed, IsError: true, Error: why,
			Text: fmt.Sprintf("Error: %s ran %s as a task, but %s", tc.server, tc.call.Name, why)}
		if err := e.LandTask(tc.save, end); err != nil {
			e.log.Warn("ending a task call", "id", tc.id, "err", err)
		}
	}
	switch {
	case e.opts.Tasks == nil:
		fail("this Switchboard cannot follow tasks.")
		return
	case tc.unrecorded:
		fail("its audit record could not be written, so the task cannot be followed.")
		return
	}
	id, err := e.opts.Tasks.Follow(tc.save, TaskStart{Handle: h, ToolCallID: tc.id, ConversationID: tc.conv.ID, ServerName: tc.server, Tool: tc.call.Name})
	if err != nil {
		fail(fmt.Sprintf("following the task failed: %v.", err))
		return
	}
	if err := e.opts.Tasks.Wait(tc.ctx, id); err != nil && tc.ctx.Err() == nil {
		e.log.Warn("waiting for a task", "id", id, "err", err)
	}
}

// errLanded is the error of LandTask for a call that already ended.
var errLanded = errors.New("the call already ended")

// LandTask puts how a task ended into its conversation: the call's tool
// message gets the result (cut to the result limit), the audit record its
// end, and the UI both. The tasks follower calls it once per task, while
// the reply that made the call waits, or long after (the reply stopped,
// the app restarted).
func (e *Engine) LandTask(ctx context.Context, end TaskEnd) error {
	rec, err := e.opts.Store.ToolCallRecord(ctx, end.ToolCallID)
	if err != nil {
		return err
	}
	switch rec.Status {
	case store.CallDone, store.CallFailed, store.CallDenied, store.CallCancelled:
		return fmt.Errorf("landing task of call %s: %w", rec.ID, errLanded)
	}
	text := truncate(end.Text, e.currentLimits().ResultLimit)
	if text == "" {
		text = "(no output)"
	}
	var took time.Duration
	if !rec.StartedAt.IsZero() {
		took = e.opts.Now().Sub(rec.StartedAt)
	}
	if err := e.opts.Store.FinishToolCall(ctx, rec.ID, store.ToolCallEnd{Status: end.Status, Result: end.Full, IsError: end.IsError, Error: end.Error, Duration: took}); err != nil {
		return err
	}
	if rec.MessageID != 0 {
		msg, err := e.opts.Store.ToolReply(ctx, rec.ConversationID, rec.MessageID, rec.CallID)
		switch {
		case errors.Is(err, store.ErrNotFound): // the conversation was cut since: the audit record is all there is
		case err != nil:
			return err
		default:
			msg.Content = text
			if msg, err = e.opts.Store.UpdateMessage(ctx, msg); err != nil {
				return err
			}
			e.emit.Emit(EventMessage, msg)
		}
	}
	shown := end.Text
	if end.Status != store.CallDone {
		shown = ""
	}
	e.emit.Emit(EventToolCall, ToolCallEvent{ConversationID: rec.ConversationID, MessageID: rec.MessageID, ID: rec.ID, CallID: rec.CallID,
		ServerID: rec.ServerID, ServerName: rec.ServerName, Tool: rec.Tool, Status: end.Status, ResultText: clip(shown, summaryLength),
		IsError: end.IsError, Error: end.Error, DurationMs: took.Milliseconds()})
	return nil
}

package core

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/tasks"
)

// taskFollower adapts the tasks tracker to chat.Tasks.
type taskFollower struct{ t *tasks.Tracker }

func (f taskFollower) Follow(ctx context.Context, s chat.TaskStart) (string, error) {
	first, _ := s.Handle.State.(*mcpconn.Task)
	rec, err := f.t.Track(ctx, store.Task{ServerID: s.Handle.ServerID, ServerName: s.ServerName, TaskID: s.Handle.TaskID,
		ToolCallID: s.ToolCallID, ConversationID: s.ConversationID, Tool: s.Tool, Status: s.Handle.Status,
		StatusMessage: s.Handle.StatusMessage}, first)
	return rec.ID, err
}

func (f taskFollower) Wait(ctx context.Context, id string) error {
	_, err := f.t.Wait(ctx, id)
	return err
}

// landTask is the tracker's OnEnd: how a task ended goes into the
// conversation of the call that started it.
func landTask(engine func() *chat.Engine, log *slog.Logger) func(context.Context, store.Task) {
	return func(ctx context.Context, t store.Task) {
		e := engine()
		if t.ToolCallID == "" || e == nil {
			return
		}
		if err := e.LandTask(ctx, taskEnd(t)); err != nil {
			log.Warn("landing a task's result", "taskId", t.ID, "toolCallId", t.ToolCallID, "err", err)
		}
	}
}

// taskEnd says how task t ended, for the model and the audit record.
func taskEnd(t store.Task) chat.TaskEnd {
	end := chat.TaskEnd{ToolCallID: t.ToolCallID}
	switch t.Status {
	case mcpconn.TaskCompleted:
		var r mcpconn.Result
		if err := json.Unmarshal(t.Result, &r); err != nil {
			end.Status, end.IsError, end.Error = store.CallFailed, true, "the task's stored result is unreadable"
			end.Text = "Error: the task completed, but its result could not be read."
			return end
		}
		end.Status, end.Text, end.Full, end.IsError = store.CallDone, r.ForModel(1<<30), t.Result, r.IsError
		if r.IsError {
			end.Status = store.CallFailed
		}
	case mcpconn.TaskCancelled:
		end.Status, end.Error = store.CallCancelled, cmp.Or(t.StatusMessage, "the task was cancelled")
		end.Text = fmt.Sprintf("The task of %s was cancelled before it finished: %s.", t.Tool, end.Error)
	default: // failed, lost, expired
		end.Status, end.IsError, end.Error = store.CallFailed, true, cmp.Or(t.Error, t.StatusMessage, "the task failed")
		end.Text = fmt.Sprintf("Error: the task of %s failed: %s", t.Tool, end.Error)
	}
	if end.Full == nil && t.Status != mcpconn.TaskCompleted {
		// The text carries the server's words: kept as the result, the
		// call counts as the content it is (the lethal-trifecta guard
		// reads results).
		end.Full, _ = json.Marshal(mcpconn.Result{Content: []mcpconn.Content{{Type: mcpconn.ContentText, Text: end.Text}}, IsError: true})
	}
	return end
}

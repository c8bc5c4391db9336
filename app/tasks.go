package app

import (
	"github.com/switchboard-app/switchboard/internal/store"
)

// ListTasks returns the tasks servers run for calls (the Tasks
// extension), newest first: one conversation's when conversationID is
// set, only unfinished ones when active.
func (a *App) ListTasks(conversationID string, active bool) ([]store.Task, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	list, err := svc.Tasks.List(a.life, store.TaskFilter{ConversationID: conversationID, Active: active})
	return orEmpty(list), err
}

// CancelTask asks the server to cancel a task and stops following it.
func (a *App) CancelTask(id string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Tasks.Cancel(a.life, id)
}

package core

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// TestTaskSurvivesRestart: a tool call the server runs as a task is
// approved and started; the app quits while the task runs; the task
// completes meanwhile; the app starts again, follows the task from its
// handle in SQLite, and the result lands in the conversation, in the
// place of the call's tool message.
func TestTaskSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	ts := mcptest.NewTaskServer(nil)
	t.Cleanup(ts.Close)
	hs := httptest.NewServer(ts.Handler()) // outlives both runs of the app, as a remote server does
	t.Cleanup(hs.Close)
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "jobs__slow_task", Arguments: []string{`{"label":"report"}`}}),
	}})
	dir := t.TempDir()

	// First run of the app: the call is allowed and becomes a task.
	user := &userAtUI{decision: approval.AllowOnce}
	c1, svc := startServices(t, dir, provider.URL, user, &mcpconn.Options{PingInterval: -1})
	user.broker = func() *approval.Broker { return svc.Broker }
	if _, err := svc.Servers.Save(ctx, serverconf.Config{ID: "jobs", Name: "Jobs", Transport: serverconf.TransportHTTP, URL: hs.URL, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx, c1.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "jobs", mcpconn.StateConnected)
	conv, err := c1.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Chat.Send(ctx, conv.ID, "make the report"); err != nil {
		t.Fatal(err)
	}
	var taskID string
	select {
	case taskID = <-ts.Created():
	case <-time.After(20 * time.Second):
		t.Fatal("no task was created")
	}
	var rec store.Task
	timetest.WaitFor(t, 20*time.Second, "the task's record", func() bool {
		list, _ := svc.Tasks.List(ctx, store.TaskFilter{Active: true})
		if len(list) == 1 {
			rec = list[0]
		}
		return len(list) == 1
	})
	if rec.TaskID != taskID || rec.ServerID != "jobs" || rec.ConversationID != conv.ID || rec.Tool != "jobs__slow_task" || rec.ToolCallID == "" {
		t.Fatalf("task record %+v", rec)
	}

	// The app quits mid-task; the task completes while it is closed.
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ts.Complete(taskID, "done: report"); err != nil {
		t.Fatal(err)
	}

	// Second run: the task is followed again and its result lands.
	c2, svc2 := startServices(t, dir, provider.URL, &userAtUI{}, &mcpconn.Options{PingInterval: -1})
	if err := svc2.Start(ctx, c2.Log); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ended, err := svc2.Tasks.Wait(wctx, rec.ID)
	if err != nil {
		t.Fatalf("waiting for the task after the restart: %v", err)
	}
	if ended.Status != mcpconn.TaskCompleted || !strings.Contains(string(ended.Result), "done: report") {
		t.Fatalf("task ended %+v", ended)
	}
	msgs, err := c2.Store.Messages(ctx, conv.ID, store.MessagePage{})
	if err != nil {
		t.Fatal(err)
	}
	var tool *store.Message
	for i := range msgs {
		if msgs[i].Role == store.RoleTool {
			tool = &msgs[i]
		}
	}
	if tool == nil || tool.Content != "done: report" || tool.ToolCallID != "call_1" {
		t.Fatalf("tool message %+v", tool)
	}
	call, err := c2.Store.ToolCallRecord(ctx, rec.ToolCallID)
	if err != nil || call.Status != store.CallDone || !strings.Contains(string(call.Result), "done: report") {
		t.Fatalf("audit record %+v, %v", call, err)
	}
}

// TestEndedTaskLandsAtStart: the app stopped after a task's end was saved
// but before its result reached the conversation; at the next start the
// result lands, and the call is not marked as cut off by the stop.
func TestEndedTaskLandsAtStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, svc := startServices(t, dir, "http://127.0.0.1:9", &userAtUI{}, &mcpconn.Options{PingInterval: -1})
	st := c.Store
	conv, err := st.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	asst, err := st.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleAssistant,
		ToolCalls: []byte(`[{"id":"call_1","name":"jobs__slow_task","arguments":"{}"}]`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleTool, ToolCallID: "call_1", Content: "Jobs runs this call as a task (t1)."}); err != nil {
		t.Fatal(err)
	}
	call, err := st.InsertToolCall(ctx, store.ToolCall{CallID: "call_1", ConversationID: conv.ID, MessageID: asst.ID, ServerID: "jobs",
		Tool: "jobs__slow_task", Arguments: "{}", Status: store.CallRunning, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	task, err := st.InsertTask(ctx, store.Task{ServerID: "jobs", ServerName: "Jobs", TaskID: "t1", ToolCallID: call.ID, ConversationID: conv.ID,
		Tool: "jobs__slow_task", Status: mcpconn.TaskCompleted, Result: []byte(`{"content":[{"type":"text","text":"done: report"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	task.EndedAt = time.Now()
	if err := st.UpdateTask(ctx, task); err != nil {
		t.Fatal(err)
	}

	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	rec, err := st.ToolCallRecord(ctx, call.ID)
	if err != nil || rec.Status != store.CallDone {
		t.Fatalf("call %+v, %v", rec, err)
	}
	msgs, _ := st.Messages(ctx, conv.ID, store.MessagePage{})
	if got := msgs[1].Content; got != "done: report" {
		t.Errorf("tool message %q", got)
	}
}

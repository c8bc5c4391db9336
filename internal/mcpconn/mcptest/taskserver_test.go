package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskClient is one way of reaching a TaskServer: a transport and a
// protocol version.
type taskClient struct {
	name      string
	http      bool
	version   string // asked for and expected to be negotiated
	newClient func(declare bool) *mcp.Client
}

var taskClients = []taskClient{
	{name: "memory-2026", version: "2026-07-28"},
	{name: "memory-2025", version: "2025-11-25"},
	{name: "http-2026", http: true, version: "2026-07-28"},
	{name: "http-2025", http: true, version: "2025-11-25"},
}

// forEachClient runs f once per transport and protocol version.
func forEachClient(t *testing.T, f func(t *testing.T, tc taskClient)) {
	for _, tc := range taskClients {
		t.Run(tc.name, func(t *testing.T) { f(t, tc) })
	}
}

// connect connects a go-sdk client to s, declaring the Tasks extension or
// not, with the extension's methods registered as custom methods.
func (tc taskClient) connect(t *testing.T, s *TaskServer, declare bool) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	if declare {
		caps.AddExtension(TasksExtension, nil)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	for _, err := range []error{
		mcp.AddSendingCustomMethod[*taskParams, *detailedTask](c, methodTasksGet),
		mcp.AddSendingCustomMethod[*updateTaskParams, *ackResult](c, methodTasksUpdate),
		mcp.AddSendingCustomMethod[*taskParams, *ackResult](c, methodTasksCancel),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	var transport mcp.Transport
	if tc.http {
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		transport = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	} else {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.MCPServer().Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		transport = ct
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != tc.version {
		t.Fatalf("negotiated protocol %q, want %q", got, tc.version)
	}
	if _, ok := cs.InitializeResult().Capabilities.Extensions[TasksExtension]; !ok {
		t.Errorf("server capabilities %+v do not name the extension", cs.InitializeResult().Capabilities)
	}
	return cs
}

func newTaskServer(t *testing.T, opts *TaskServerOptions) *TaskServer {
	s := NewTaskServer(opts)
	t.Cleanup(s.Close)
	return s
}

// callTask calls a task tool and returns the ID of the task it was
// answered with.
func callTask(t *testing.T, s *TaskServer, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	// The SDK's CallToolResult keeps resultType but drops the task's
	// fields: its JSON says whether it was a task, Created gives the ID.
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.ResultType != "task" || len(res.Content) != 0 {
		t.Fatalf("%s answered %s, want a task", tool, data)
	}
	select {
	case id := <-s.Created():
		if len(id) != 32 {
			t.Errorf("task ID %q: want 32 hex digits", id)
		}
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("no task created")
		return ""
	}
}

func getTask(t *testing.T, cs *mcp.ClientSession, id string) *detailedTask {
	t.Helper()
	task, err := mcp.CallCustomMethod[*taskParams, *detailedTask](t.Context(), cs, methodTasksGet, &taskParams{TaskID: id})
	if err != nil {
		t.Fatalf("tasks/get: %v", err)
	}
	if task.ResultType != "complete" || task.TaskID != id {
		t.Errorf("tasks/get = resultType %q, taskId %q; want complete, %q", task.ResultType, task.TaskID, id)
	}
	return task
}

// text returns the single text of a result.
func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 {
		t.Fatalf("result %+v: want one content", r)
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T: want text", r.Content[0])
	}
	return tc.Text
}

// wantCode checks that err is a JSON-RPC error of code and returns it.
func wantCode(t *testing.T, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var jerr *jsonrpc.Error
	if !errors.As(err, &jerr) || jerr.Code != code {
		t.Fatalf("error %v: want JSON-RPC error %d", err, code)
	}
	return jerr
}

func TestTaskServerSlowTask(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, &TaskServerOptions{TTL: time.Minute})
		cs := tc.connect(t, s, true)
		id := callTask(t, s, cs, "slow_task", map[string]any{"label": "a"})

		task := getTask(t, cs, id)
		if task.Status != TaskWorking || task.Result != nil || task.PollIntervalMs != 500 || task.TTLMs == nil || *task.TTLMs != 60000 {
			t.Errorf("tasks/get = %+v, want working, pollIntervalMs 500, ttlMs 60000", task)
		}
		for _, ts := range []string{task.CreatedAt, task.LastUpdatedAt} {
			if _, err := time.Parse(time.RFC3339, ts); err != nil {
				t.Errorf("timestamp: %v", err)
			}
		}

		if err := s.Complete(id, "finished"); err != nil {
			t.Fatal(err)
		}
		task = getTask(t, cs, id)
		if task.Status != TaskCompleted || text(t, task.Result) != "finished" || task.Result.IsError {
			t.Errorf("tasks/get = %+v, want completed with \"finished\"", task)
		}
		if err := s.Complete(id, "again"); !errors.Is(err, ErrTaskFinished) {
			t.Errorf("Complete again: %v, want ErrTaskFinished", err)
		}
		want := []TaskSnapshot{{ID: id, Tool: "slow_task", Status: TaskCompleted, Args: map[string]any{"label": "a"}}}
		if diff := cmp.Diff(want, s.Tasks(), ignoreCreatedAt); diff != "" {
			t.Errorf("Tasks (-want +got):\n%s", diff)
		}
	})
}

var ignoreCreatedAt = cmp.Transformer("noCreatedAt", func(s TaskSnapshot) TaskSnapshot {
	s.CreatedAt = time.Time{}
	return s
})

func TestTaskServerAskTask(t *testing.T) {
	tests := []struct {
		name      string
		response  *mcp.ElicitResult
		wantText  string
		wantError bool
	}{
		{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, "Hello, Ada!", false},
		{"decline", &mcp.ElicitResult{Action: "decline"}, "the user declined", true},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, "the user declined", true},
	}
	forEachClient(t, func(t *testing.T, tc taskClient) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := newTaskServer(t, nil)
				cs := tc.connect(t, s, true)
				id := callTask(t, s, cs, "ask_task", nil)

				task := getTask(t, cs, id)
				if task.Status != TaskInputRequired || len(task.InputRequests) != 1 {
					t.Fatalf("tasks/get = %+v, want input_required with one request", task)
				}
				ep, ok := task.InputRequests["name"].(*mcp.ElicitParams)
				if !ok || ep.Mode != "form" || ep.Message != "What is your name?" {
					t.Fatalf("inputRequests[name] = %#v, want the form asking for a name", task.InputRequests["name"])
				}
				wantSchema := map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required":   []any{"name"},
				}
				if diff := cmp.Diff(wantSchema, ep.RequestedSchema); diff != "" {
					t.Errorf("requestedSchema (-want +got):\n%s", diff)
				}

				resp, _ := json.Marshal(tt.response)
				stray := json.RawMessage(`{"action":"accept","content":{"name":"Eve"}}`)
				ack, err := mcp.CallCustomMethod[*updateTaskParams, *ackResult](t.Context(), cs, methodTasksUpdate,
					&updateTaskParams{TaskID: id, InputResponses: map[string]json.RawMessage{"name": resp, "other": stray}})
				if err != nil || ack.ResultType != "complete" {
					t.Fatalf("tasks/update = %+v, %v", ack, err)
				}
				task = getTask(t, cs, id)
				if task.Status != TaskCompleted || text(t, task.Result) != tt.wantText || task.Result.IsError != tt.wantError || task.InputRequests != nil {
					t.Errorf("tasks/get = %+v, want completed with %q (isError %v)", task, tt.wantText, tt.wantError)
				}
				got := s.Tasks()[0].InputResponses
				if len(got) != 2 || string(got["other"]) != string(stray) {
					t.Errorf("snapshot inputResponses = %s, want both keys kept", got)
				}
			})
		}
	})
}

func TestTaskServerCancelAndFail(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, nil)
		cs := tc.connect(t, s, true)
		cancelled := callTask(t, s, cs, "slow_task", map[string]any{"label": "c"})
		failed := callTask(t, s, cs, "needs_tasks", nil)

		ack, err := mcp.CallCustomMethod[*taskParams, *ackResult](t.Context(), cs, methodTasksCancel, &taskParams{TaskID: cancelled})
		if err != nil || ack.ResultType != "complete" {
			t.Fatalf("tasks/cancel = %+v, %v", ack, err)
		}
		if task := getTask(t, cs, cancelled); task.Status != TaskCancelled || task.Result != nil {
			t.Errorf("tasks/get = %+v, want cancelled", task)
		}
		if err := s.Complete(cancelled, "late"); !errors.Is(err, ErrTaskFinished) {
			t.Errorf("Complete after cancel: %v, want ErrTaskFinished", err)
		}

		if err := s.Fail(failed, -32603, "rate limited"); err != nil {
			t.Fatal(err)
		}
		task := getTask(t, cs, failed)
		if task.Status != TaskFailed || task.Error == nil || task.Error.Code != -32603 || task.Error.Message != "rate limited" || task.StatusMessage != "rate limited" {
			t.Errorf("tasks/get = %+v (error %+v), want failed with -32603", task, task.Error)
		}

		snaps := s.Tasks()
		if len(snaps) != 2 || !snaps[0].CancelRequested || snaps[1].CancelRequested {
			t.Errorf("Tasks = %+v, want the first cancelled only", snaps)
		}
		if err := s.Fail("nope", 1, "x"); !errors.Is(err, ErrNoTask) {
			t.Errorf("Fail of no task: %v, want ErrNoTask", err)
		}
	})
}

func TestTaskServerUnknownTask(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, nil)
		cs := tc.connect(t, s, true)
		ctx := t.Context()
		_, err := mcp.CallCustomMethod[*taskParams, *detailedTask](ctx, cs, methodTasksGet, &taskParams{TaskID: "nope"})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		_, err = mcp.CallCustomMethod[*updateTaskParams, *ackResult](ctx, cs, methodTasksUpdate, &updateTaskParams{TaskID: "nope"})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		_, err = mcp.CallCustomMethod[*taskParams, *ackResult](ctx, cs, methodTasksCancel, &taskParams{TaskID: "nope"})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		// The session still works after the errors.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quick"}); err != nil {
			t.Errorf("quick after errors: %v", err)
		}
	})
}

func TestTaskServerWithoutExtension(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, nil)
		cs := tc.connect(t, s, false)
		ctx := t.Context()

		for _, tool := range []string{"needs_tasks", "ask_task"} {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
			jerr := wantCode(t, err, mcp.CodeMissingRequiredClientCapabilities)
			var data any
			if err := json.Unmarshal(jerr.Data, &data); err != nil {
				t.Fatalf("%s: error data %s: %v", tool, jerr.Data, err)
			}
			want := map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}}
			if diff := cmp.Diff(want, data); diff != "" {
				t.Errorf("%s: error data (-want +got):\n%s", tool, diff)
			}
		}

		// slow_task answers directly, without a task.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"label": "x"}})
		if err != nil || text(t, res) != "done: x" {
			t.Errorf("slow_task = %+v, %v; want \"done: x\"", res, err)
		}
		if n := len(s.Tasks()); n != 0 {
			t.Errorf("%d tasks created for a client without the extension", n)
		}

		// Nor may it use the task methods.
		_, err = mcp.CallCustomMethod[*taskParams, *detailedTask](ctx, cs, methodTasksGet, &taskParams{TaskID: "nope"})
		wantCode(t, err, mcp.CodeMissingRequiredClientCapabilities)
	})
}

func TestTaskServerQuick(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, nil)
		cs := tc.connect(t, s, true)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "quick"})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(res)
		var probe struct {
			ResultType string `json:"resultType"`
		}
		json.Unmarshal(data, &probe)
		if text(t, res) != "quick" || probe.ResultType == "task" {
			t.Errorf("quick = %s, want a plain result", data)
		}
		if n := len(s.Tasks()); n != 0 {
			t.Errorf("quick created %d tasks", n)
		}
	})
}

// TestTaskServerReconnect checks that tasks outlive the client that made
// them: a new client (an app restarted) polls and finds them.
func TestTaskServerReconnect(t *testing.T) {
	forEachClient(t, func(t *testing.T, tc taskClient) {
		s := newTaskServer(t, nil)
		first := tc.connect(t, s, true)
		id := callTask(t, s, first, "slow_task", map[string]any{"label": "r"})
		first.Close()
		if err := s.Complete(id, "while away"); err != nil {
			t.Fatal(err)
		}
		second := tc.connect(t, s, true)
		if task := getTask(t, second, id); task.Status != TaskCompleted || text(t, task.Result) != "while away" {
			t.Errorf("tasks/get after reconnect = %+v, want completed", task)
		}
	})
}

// TestTaskServerTimers checks the tasks that complete by themselves, on
// synctest's clock.
func TestTaskServerTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewTaskServer(&TaskServerOptions{CompleteAfter: 5 * time.Second})
		defer s.Close()
		mustCreate := func(tool string, args string) string {
			t.Helper()
			if _, err := s.createTask(tool, json.RawMessage(args)); err != nil {
				t.Fatal(err)
			}
			return <-s.Created()
		}
		seconds := mustCreate("slow_task", `{"label":"s","seconds":2}`)
		after := mustCreate("needs_tasks", `{"label":"n"}`)
		ask := mustCreate("ask_task", `{}`)
		if _, err := s.createTask("slow_task", json.RawMessage(`{"seconds":61}`)); err == nil {
			t.Error("seconds 61 accepted")
		}

		status := func() map[string]string {
			m := map[string]string{}
			for _, snap := range s.Tasks() {
				m[snap.ID] = snap.Status
			}
			return m
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		want := map[string]string{seconds: TaskCompleted, after: TaskWorking, ask: TaskInputRequired}
		if diff := cmp.Diff(want, status()); diff != "" {
			t.Errorf("after 3s (-want +got):\n%s", diff)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		want[after] = TaskCompleted
		if diff := cmp.Diff(want, status()); diff != "" {
			t.Errorf("after 6s (-want +got):\n%s", diff)
		}
		s.mu.Lock()
		got := text(t, s.tasks[seconds].result)
		s.mu.Unlock()
		if got != "done: s" {
			t.Errorf("result %q, want \"done: s\"", got)
		}
	})
}

package mcptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The task server is the server side of the MCP Tasks extension
// (io.modelcontextprotocol/tasks), built on go-sdk's own server, which
// does not implement the extension:
//
//   - a receiving middleware answers tools/call of a task tool with a
//     CreateTaskResult (resultType "task") when the client declared the
//     extension on that request: in its _meta under 2026-07-28, in
//     initialize under 2025-11-25 (ServerRequest.ClientCapabilities reads
//     both);
//   - tasks/get, tasks/update and tasks/cancel are custom methods
//     (mcp.AddReceivingCustomMethod);
//   - Handler serves 2026-07-28 requests (Mcp-Protocol-Version header) with a
//     stateless StreamableHTTPHandler and the rest with a stateful one: the
//     SDK serves the new protocol only statelessly, and a stateless handler
//     forgets what a 2025-11-25 client declared in initialize.
//
// Tasks live in the TaskServer, not in a session, so a client that
// reconnects (an app restarted mid-task) finds them again.

// TasksExtension is the identifier of the MCP Tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses, as the extension names them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Method names of the extension.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// Sentinel errors of TaskServer.Complete and TaskServer.Fail.
var (
	// ErrNoTask means no task has the ID given.
	ErrNoTask = errors.New("no such task")
	// ErrTaskFinished means the task is already completed, failed or
	// cancelled.
	ErrTaskFinished = errors.New("task already finished")
)

// maxTaskSeconds bounds the "seconds" argument of slow_task and
// needs_tasks.
const maxTaskSeconds = 60

// createdBuffer is the buffer of the channel Created returns.
const createdBuffer = 64

// TaskServerOptions configures a TaskServer; nil means defaults.
type TaskServerOptions struct {
	// PollInterval is the advertised pollIntervalMs; zero means 500ms.
	PollInterval time.Duration
	// TTL is the advertised ttlMs; zero means null (unlimited). It is only
	// advertised: tasks are never discarded.
	TTL time.Duration
	// CompleteAfter, if positive, completes every slow_task and needs_tasks
	// task called without "seconds" by itself this long after its creation,
	// with text "done: <label>"; zero means such tasks wait for Complete,
	// Fail or tasks/cancel.
	CompleteAfter time.Duration
}

// A TaskServer is an MCP server whose tools answer with tasks of the
// Tasks extension, for tests of a task-capable client. Its tools:
//
//   - slow_task {label, seconds?}: a task that stays working until
//     Complete, Fail or tasks/cancel, or, given "seconds" (at most 60),
//     completes by itself after that long with text "done: <label>". A
//     client that did not declare the extension gets that text directly
//     (after "seconds", if given).
//   - ask_task: a task that goes to input_required with one input request,
//     "name", an elicitation/create form asking "What is your name?". A
//     tasks/update answering it with action "accept" completes it with
//     "Hello, <name>!"; "decline" or "cancel" completes it with isError and
//     "the user declined".
//   - needs_tasks {label, seconds?}: like slow_task, but a client that did
//     not declare the extension gets error -32021 (missing required client
//     capability).
//   - quick: no task; text "quick".
//
// Tests drive tasks with Complete and Fail, wait for them on Created, and
// inspect them with Tasks.
type TaskServer struct {
	opts    TaskServerOptions
	server  *mcp.Server
	handler http.Handler
	created chan string

	mu     sync.Mutex
	tasks  map[string]*serverTask
	order  []string // task IDs by creation
	closed bool
}

// A serverTask is the state of one task; its fields are guarded by
// TaskServer.mu.
type serverTask struct {
	id, tool      string
	args          map[string]any
	status        string
	statusMessage string
	created       time.Time
	updated       time.Time
	// result is set when completed, rpcErr when failed.
	result *mcp.CallToolResult
	rpcErr *jsonrpc.Error
	// inputRequests are the outstanding input requests; nil if none.
	inputRequests mcp.InputRequestMap
	// inputResponses are every response received by tasks/update, by key.
	inputResponses  map[string]json.RawMessage
	cancelRequested bool
	// timer completes the task by itself; nil if none.
	timer *time.Timer
}

// A TaskSnapshot is a copy of one task's state, for tests to inspect.
type TaskSnapshot struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Status string `json:"status"`
	// Args are the tool call's arguments; nil if none.
	Args map[string]any `json:"args,omitempty"`
	// CancelRequested reports whether a tasks/cancel arrived, whatever the
	// task's status was then.
	CancelRequested bool `json:"cancelRequested"`
	// InputResponses are the responses of every tasks/update, by key, the
	// last one for a key winning, unknown keys included; nil if none.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	CreatedAt      time.Time                  `json:"createdAt"`
}

// taskArgs are the arguments of slow_task and needs_tasks.
type taskArgs struct {
	Label   string  `json:"label,omitempty" jsonschema:"a label echoed in the result"`
	Seconds float64 `json:"seconds,omitempty" jsonschema:"if positive (at most 60), the task completes by itself after that many seconds"`
}

// taskWire is the Task shape of the extension.
type taskWire struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is null for unlimited.
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// createTaskResult answers tools/call with a task; ResultType is "task".
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskWire
}

// detailedTask answers tasks/get; ResultType is "complete".
type detailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskWire
	Result        *mcp.CallToolResult `json:"result,omitempty"`
	Error         *jsonrpc.Error      `json:"error,omitempty"`
	InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// ackResult answers tasks/update and tasks/cancel; ResultType is
// "complete".
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskParams are the params of tasks/get and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// updateTaskParams are the params of tasks/update. Responses stay raw:
// one the server cannot read is ignored, not a failed request.
type updateTaskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

func (p *taskParams) taskID() string       { return p.TaskID }
func (p *updateTaskParams) taskID() string { return p.TaskID }

// NewTaskServer returns a TaskServer with no tasks.
func NewTaskServer(opts *TaskServerOptions) *TaskServer {
	s := &TaskServer{
		created: make(chan string, createdBuffer),
		tasks:   map[string]*serverTask{},
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PollInterval <= 0 {
		s.opts.PollInterval = 500 * time.Millisecond
	}

	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(TasksExtension, nil)
	s.server = mcp.NewServer(&mcp.Implementation{Name: "taskserver", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	mcp.AddTool(s.server, &mcp.Tool{Name: "slow_task", Description: "Works until finished from outside, or for the seconds given."}, s.slowTask)
	mcp.AddTool(s.server, &mcp.Tool{Name: "ask_task", Description: "Asks for the user's name, then greets them."}, requireTasks[any])
	mcp.AddTool(s.server, &mcp.Tool{Name: "needs_tasks", Description: "Like slow_task, for task-capable clients only."}, requireTasks[taskArgs])
	mcp.AddTool(s.server, &mcp.Tool{Name: "quick", Description: "Answers at once, without a task."},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return textResult("quick"), nil, nil
		})
	s.server.AddReceivingMiddleware(s.taskMiddleware)
	// These fail only if a method were a standard one.
	must(mcp.AddReceivingCustomMethod(s.server, methodTasksGet, onTask(s, s.getTask)))
	must(mcp.AddReceivingCustomMethod(s.server, methodTasksUpdate, onTask(s, s.updateTask)))
	must(mcp.AddReceivingCustomMethod(s.server, methodTasksCancel, onTask(s, s.cancelTask)))

	getServer := func(*http.Request) *mcp.Server { return s.server }
	stateful := mcp.NewStreamableHTTPHandler(getServer, nil)
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	return s
}

// MCPServer returns the server, for in-memory transports.
func (s *TaskServer) MCPServer() *mcp.Server { return s.server }

// Handler returns the streamable HTTP handler of the server, for clients
// of protocol 2026-07-28 and of earlier versions alike.
func (s *TaskServer) Handler() http.Handler { return s.handler }

// Created returns the IDs of tasks as they are created, so tests wait on
// it instead of sleeping. Its buffer holds 64; an ID that finds it full is
// dropped.
func (s *TaskServer) Created() <-chan string { return s.created }

// Close stops the timers of tasks that would complete by themselves; they
// stay as they are. Close is safe to call twice.
func (s *TaskServer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, t := range s.tasks {
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
	}
}

// Complete completes task taskID with a text result. It returns ErrNoTask
// or ErrTaskFinished if there is no such task or it is finished.
func (s *TaskServer) Complete(taskID, text string) error {
	return s.finish(taskID, TaskCompleted, textResult(text), nil, "")
}

// Fail fails task taskID with the JSON-RPC error code and msg. It returns
// ErrNoTask or ErrTaskFinished if there is no such task or it is finished.
func (s *TaskServer) Fail(taskID string, code int64, msg string) error {
	return s.finish(taskID, TaskFailed, nil, &jsonrpc.Error{Code: code, Message: msg}, msg)
}

// Tasks returns a snapshot of every task, oldest first.
func (s *TaskServer) Tasks() []TaskSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TaskSnapshot, 0, len(s.order))
	for _, id := range s.order {
		t := s.tasks[id]
		out = append(out, TaskSnapshot{
			ID:              t.id,
			Tool:            t.tool,
			Status:          t.status,
			Args:            maps.Clone(t.args),
			CancelRequested: t.cancelRequested,
			InputResponses:  maps.Clone(t.inputResponses),
			CreatedAt:       t.created,
		})
	}
	return out
}

// finish moves a task that is not finished to status, with result or
// rpcErr.
func (s *TaskServer) finish(taskID, status string, result *mcp.CallToolResult, rpcErr *jsonrpc.Error, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[taskID]
	if !ok {
		return fmt.Errorf("finishing task %q: %w", taskID, ErrNoTask)
	}
	if t.finished() {
		return fmt.Errorf("finishing task %q (%s): %w", taskID, t.status, ErrTaskFinished)
	}
	t.finishLocked(status, result, rpcErr, msg)
	return nil
}

func (t *serverTask) finished() bool {
	return t.status == TaskCompleted || t.status == TaskFailed || t.status == TaskCancelled
}

// finishLocked moves t to a finished status; TaskServer.mu is held.
func (t *serverTask) finishLocked(status string, result *mcp.CallToolResult, rpcErr *jsonrpc.Error, msg string) {
	t.status, t.result, t.rpcErr, t.statusMessage = status, result, rpcErr, msg
	t.inputRequests = nil
	t.updated = time.Now().UTC()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}

// taskMiddleware answers tools/call of a task tool with a task when the
// client declared the extension on the request; otherwise the call goes on
// to the tool's handler.
func (s *TaskServer) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		switch call.Params.Name {
		case "slow_task", "ask_task", "needs_tasks":
		default:
			return next(ctx, method, req)
		}
		if !declaresTasks(call.Session, call.Params) {
			return next(ctx, method, req)
		}
		return s.createTask(call.Params.Name, call.Params.Arguments)
	}
}

// declaresTasks reports whether the client declared the extension for the
// request with params p: in p's _meta under the 2026-07-28 protocol, in
// the session's initialize before it (ServerRequest.ClientCapabilities
// looks in that order).
func declaresTasks[P mcp.Params](ss *mcp.ServerSession, p P) bool {
	caps := (&mcp.ServerRequest[P]{Session: ss, Params: p}).ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasksError is error -32021 naming the extension as required.
func missingTasksError() error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "missing required client capability: declare the " + TasksExtension + " extension",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtension + `":{}}}}`),
	}
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// errorResult is a tool result with isError; textResult (fault.go) is
// without.
func errorResult(text string) *mcp.CallToolResult {
	r := textResult(text)
	r.IsError = true
	return r
}

// parseTaskArgs reads raw arguments, as a map for snapshots and as
// taskArgs.
func parseTaskArgs(raw json.RawMessage) (map[string]any, taskArgs, error) {
	var m map[string]any
	var a taskArgs
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, a, invalidParams("arguments: %v", err)
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, a, invalidParams("arguments: %v", err)
		}
	}
	if a.Seconds < 0 || a.Seconds > maxTaskSeconds {
		return nil, a, invalidParams("seconds must be between 0 and %d, not %v", maxTaskSeconds, a.Seconds)
	}
	return m, a, nil
}

// newTaskID returns 32 random hex digits.
func newTaskID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails
	return hex.EncodeToString(b[:])
}

// createTask creates a task for tool and returns its CreateTaskResult,
// once tasks/get can find it.
func (s *TaskServer) createTask(tool string, rawArgs json.RawMessage) (mcp.Result, error) {
	args, a, err := parseTaskArgs(rawArgs)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	t := &serverTask{
		id:      newTaskID(),
		tool:    tool,
		args:    args,
		status:  TaskWorking,
		created: now,
		updated: now,
	}
	res := &createTaskResult{ResultType: "task", taskWire: s.wire(t)}
	if tool == "ask_task" {
		// The seed says working; the first tasks/get already asks.
		t.status = TaskInputRequired
		t.statusMessage = "waiting for the user's name"
		t.inputRequests = mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Mode:    "form",
			Message: "What is your name?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}},
				"required":   []string{"name"},
			},
		}}
	}

	s.mu.Lock()
	s.tasks[t.id] = t
	s.order = append(s.order, t.id)
	after := time.Duration(a.Seconds * float64(time.Second))
	if after == 0 {
		after = s.opts.CompleteAfter
	}
	if after > 0 && tool != "ask_task" && !s.closed {
		id, text := t.id, "done: "+a.Label
		t.timer = time.AfterFunc(after, func() { s.finish(id, TaskCompleted, textResult(text), nil, "") })
	}
	s.mu.Unlock()

	select {
	case s.created <- t.id:
	default:
	}
	return res, nil
}

// wire returns t's Task shape; TaskServer.mu is held or t is not shared
// yet.
func (s *TaskServer) wire(t *serverTask) taskWire {
	w := taskWire{
		TaskID:         t.id,
		Status:         t.status,
		StatusMessage:  t.statusMessage,
		CreatedAt:      t.created.Format(time.RFC3339Nano),
		LastUpdatedAt:  t.updated.Format(time.RFC3339Nano),
		PollIntervalMs: s.opts.PollInterval.Milliseconds(),
	}
	if s.opts.TTL > 0 {
		ttl := s.opts.TTL.Milliseconds()
		w.TTLMs = &ttl
	}
	return w
}

// onTask makes handle, which runs with TaskServer.mu held on the task
// that p names, a handler of a tasks/ method: a client that did not
// declare the extension gets error -32021, an unknown task -32602.
func onTask[P interface {
	mcp.Params
	taskID() string
}, R any](s *TaskServer, handle func(*serverTask, P) (R, error)) func(context.Context, *mcp.ServerSession, P) (R, error) {
	return func(_ context.Context, ss *mcp.ServerSession, p P) (R, error) {
		var none R
		if !declaresTasks(ss, p) {
			return none, missingTasksError()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		t, err := s.lookup(p.taskID())
		if err != nil {
			return none, err
		}
		return handle(t, p)
	}
}

// lookup returns the task of taskID, or error -32602; TaskServer.mu is
// held.
func (s *TaskServer) lookup(taskID string) (*serverTask, error) {
	t, ok := s.tasks[taskID]
	if !ok {
		return nil, invalidParams("task not found: %q", taskID)
	}
	return t, nil
}

// getTask serves tasks/get of t.
func (s *TaskServer) getTask(t *serverTask, _ *taskParams) (*detailedTask, error) {
	// The results and requests are never changed once set, so sharing
	// them with the encoder after unlocking is safe.
	return &detailedTask{
		ResultType:    "complete",
		taskWire:      s.wire(t),
		Result:        t.result,
		Error:         t.rpcErr,
		InputRequests: t.inputRequests,
	}, nil
}

// cancelTask serves tasks/cancel of t: a task not finished is cancelled
// at once.
func (s *TaskServer) cancelTask(t *serverTask, _ *taskParams) (*ackResult, error) {
	t.cancelRequested = true
	if !t.finished() {
		t.finishLocked(TaskCancelled, nil, nil, "cancelled by the client")
	}
	return &ackResult{ResultType: "complete"}, nil
}

// updateTask serves tasks/update. Only an outstanding request's response
// is acted on; the others are kept for Tasks and otherwise ignored.
func (s *TaskServer) updateTask(t *serverTask, p *updateTaskParams) (*ackResult, error) {
	for key, raw := range p.InputResponses {
		if t.inputResponses == nil {
			t.inputResponses = map[string]json.RawMessage{}
		}
		t.inputResponses[key] = raw
	}
	raw, ok := p.InputResponses["name"]
	if _, outstanding := t.inputRequests["name"]; !ok || !outstanding {
		return &ackResult{ResultType: "complete"}, nil
	}
	var r mcp.ElicitResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, invalidParams("inputResponses[\"name\"]: %v", err)
	}
	switch name, _ := r.Content["name"].(string); {
	case r.Action == "accept" && name != "":
		t.finishLocked(TaskCompleted, textResult("Hello, "+name+"!"), nil, "")
	case r.Action == "accept":
		t.finishLocked(TaskCompleted, errorResult("no name given"), nil, "")
	default: // decline, cancel
		t.finishLocked(TaskCompleted, errorResult("the user declined"), nil, "")
	}
	return &ackResult{ResultType: "complete"}, nil
}

// slowTask serves slow_task to a client that did not declare the
// extension: it waits the seconds given, if any, and answers.
func (s *TaskServer) slowTask(ctx context.Context, _ *mcp.CallToolRequest, a taskArgs) (*mcp.CallToolResult, any, error) {
	if a.Seconds < 0 || a.Seconds > maxTaskSeconds {
		return nil, nil, invalidParams("seconds must be between 0 and %d, not %v", maxTaskSeconds, a.Seconds)
	}
	if a.Seconds > 0 {
		timer := time.NewTimer(time.Duration(a.Seconds * float64(time.Second)))
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	return textResult("done: " + a.Label), nil, nil
}

// requireTasks serves ask_task and needs_tasks to a client that did not
// declare the extension: error -32021.
func requireTasks[In any](context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error) {
	return nil, nil, missingTasksError()
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

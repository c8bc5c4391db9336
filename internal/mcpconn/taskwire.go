package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client side of the Tasks extension (io.modelcontextprotocol/tasks).
//
// go-sdk v1.8.0 does not implement it, and two of its gaps are filled here:
//
//   - CallToolResult keeps no task fields: a tools/call answered with a
//     CreateTaskResult (resultType "task") loses its taskId on decoding. A
//     taskSink in the call's context catches the raw result on its way in:
//     a taskConn under stdio and in-memory connections, and the HTTP
//     client's RoundTripper (teeing the POST's response) under streamable
//     HTTP, whose connection cannot be wrapped (the SDK asserts unexported
//     interfaces on it). A task field on CallToolResult, or the raw result
//     kept beside it, would let both go.
//   - The standard Mcp-Name header names only tools, prompts and resources
//     (extractName in mcp/streamable_headers.go); the extension asks for the
//     task ID on tasks/get, tasks/update and tasks/cancel, which
//     httpRecorder adds (taskNameHeader).
//
// tasks/get, tasks/update and tasks/cancel go through the SDK's generic
// request path (AddSendingCustomMethod, CallCustomMethod), so they carry
// the per-request _meta and standard headers like any other request.

// Method names of the extension.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// taskSinkKey is the context key of a call's taskSink.
type taskSinkKey struct{}

// A taskSink catches the task handle a tools/call is answered with, if
// any: the raw result from a connection that sees messages, or the raw
// response body of an HTTP exchange.
type taskSink struct {
	mu sync.Mutex
	// raw is the last tools/call result seen that is a task; nil if none.
	raw json.RawMessage
	// body and contentType are the last HTTP response to the call's POST.
	body        *bytes.Buffer
	contentType string
}

func withTaskSink(ctx context.Context) (context.Context, *taskSink) {
	s := &taskSink{}
	return context.WithValue(ctx, taskSinkKey{}, s), s
}

func sinkOf(ctx context.Context) *taskSink {
	s, _ := ctx.Value(taskSinkKey{}).(*taskSink)
	return s
}

// offer keeps result if it is a task; a later answer (a multi-round-trip
// retry) replaces an earlier one.
func (s *taskSink) offer(result json.RawMessage) {
	task := isTaskResult(result)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = nil
	if task {
		s.raw = result
	}
}

// isTaskResult reports whether a result is a CreateTaskResult.
func isTaskResult(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte(`"task"`)) { // cheap check first: results can be large
		return false
	}
	var probe struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &probe) == nil && probe.ResultType == "task"
}

// capture starts keeping an HTTP response body of the call, forgetting
// the previous one.
func (s *taskSink) capture(resp *http.Response) {
	s.mu.Lock()
	s.body, s.contentType = &bytes.Buffer{}, resp.Header.Get("Content-Type")
	buf := s.body
	s.mu.Unlock()
	resp.Body = &teeBody{rc: resp.Body, s: s, buf: buf}
}

// maxTaskCapture bounds how much of a call's HTTP response is kept to look
// for a task handle: a handle is a few hundred bytes, so a response past
// this is a result, and copying it all would double a large result's
// memory.
const maxTaskCapture = 1 << 20

// A teeBody copies what the SDK reads of a response body into the sink,
// up to maxTaskCapture.
type teeBody struct {
	rc  io.ReadCloser
	s   *taskSink
	buf *bytes.Buffer
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.s.mu.Lock()
		if b.buf.Len()+n <= maxTaskCapture {
			b.buf.Write(p[:n])
		}
		b.s.mu.Unlock()
	}
	return n, err
}

func (b *teeBody) Close() error { return b.rc.Close() }

// task returns the task the call was answered with, or nil if it was not.
func (s *taskSink) task(serverID string, limit int) (*Task, error) {
	s.mu.Lock()
	raw := s.raw
	var body []byte
	if s.body != nil {
		body = bytes.Clone(s.body.Bytes())
	}
	ct := s.contentType
	s.mu.Unlock()
	if raw == nil && body != nil {
		raw = taskInBody(body, ct)
	}
	if raw == nil {
		return nil, nil
	}
	return parseTask(serverID, raw, limit)
}

// taskInBody finds a task result among the JSON-RPC responses of an HTTP
// response body: one JSON message, or the data of server-sent events.
func taskInBody(body []byte, contentType string) json.RawMessage {
	var msgs [][]byte
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/event-stream") {
		msgs = eventData(body)
	} else {
		msgs = [][]byte{body}
	}
	for _, m := range msgs {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			continue
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && isTaskResult(resp.Result) {
			return resp.Result
		}
	}
	return nil
}

// eventData returns the data of each event of an event stream the SDK
// already read and parsed (text/event-stream: "data:" lines, joined by
// newlines, an empty line ending the event). The SDK's parser is not
// exported; this only re-reads what it accepted.
func eventData(body []byte) [][]byte {
	var out [][]byte
	var cur []byte
	has := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), MaxMessageBytes+1024)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if has {
				out = append(out, cur)
			}
			cur, has = nil, false
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			if has {
				cur = append(cur, '\n')
			}
			cur, has = append(cur, d...), true
		}
	}
	if has {
		out = append(out, cur)
	}
	return out
}

// taskConn is a Connection that shows each tools/call answer to the
// call's taskSink. It wraps connections the SDK uses only through the
// Connection interface (stdio, in-memory).
type taskConn struct {
	mcp.Connection
	mu    sync.Mutex
	calls map[jsonrpc.ID]*taskSink
}

// taskTransport wraps a Transport's connections in taskConns.
type taskTransport struct{ mcp.Transport }

func (t taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, calls: map[jsonrpc.ID]*taskSink{}}, nil
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.IsCall() {
		if s := sinkOf(ctx); s != nil {
			c.mu.Lock()
			c.calls[req.ID] = s
			c.mu.Unlock()
			// A call that ends without an answer (cancelled, timed out)
			// must not stay in the map.
			context.AfterFunc(ctx, func() {
				c.mu.Lock()
				if c.calls[req.ID] == s {
					delete(c.calls, req.ID)
				}
				c.mu.Unlock()
			})
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		s := c.calls[resp.ID]
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		if s != nil && resp.Error == nil {
			s.offer(resp.Result)
		}
	}
	return msg, err
}

// taskWire is a task as the extension sends it: a CreateTaskResult, a
// tasks/get answer (DetailedTask).
type taskWire struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *float64        `json:"ttlMs"`
	PollIntervalMs *float64        `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	InputRequests map[string]TaskInputRequest `json:"inputRequests"`
}

// parseTask checks and bounds a server's task; limit is the result limit
// of its Result.
func parseTask(serverID string, raw json.RawMessage, limit int) (*Task, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedTask, err)
	}
	switch {
	case w.TaskID == "":
		return nil, fmt.Errorf("%w: no taskId", ErrMalformedTask)
	case len(w.TaskID) > MaxTaskIDBytes || !utf8.ValidString(w.TaskID) || strings.ContainsFunc(w.TaskID, isControl):
		return nil, fmt.Errorf("%w: the taskId is longer than %d bytes or not printable", ErrMalformedTask, MaxTaskIDBytes)
	case !knownTaskStatus(w.Status):
		return nil, fmt.Errorf("%w: unknown status %.40q", ErrMalformedTask, w.Status)
	case len(w.InputRequests) > MaxTaskInputRequests:
		return nil, fmt.Errorf("%w: %d input requests (at most %d)", ErrMalformedTask, len(w.InputRequests), MaxTaskInputRequests)
	}
	t := &Task{ServerID: serverID, TaskID: w.TaskID, Status: w.Status}
	msg, cut := clipBytes(w.StatusMessage, maxTaskMessage)
	if cut {
		msg += "…"
	}
	t.StatusMessage = msg
	t.CreatedAt, _ = time.Parse(time.RFC3339Nano, w.CreatedAt)
	t.LastUpdatedAt, _ = time.Parse(time.RFC3339Nano, w.LastUpdatedAt)
	if w.TTLMs != nil && *w.TTLMs > 0 {
		t.TTLMs = int64(min(*w.TTLMs, float64(1<<53)))
	}
	if w.PollIntervalMs != nil && *w.PollIntervalMs > 0 {
		p := time.Duration(min(*w.PollIntervalMs, float64(MaxTaskPoll/time.Millisecond))) * time.Millisecond
		t.PollIntervalMs = int64(min(max(p, MinTaskPoll), MaxTaskPoll) / time.Millisecond)
	}
	switch t.Status {
	case TaskCompleted:
		var r mcp.CallToolResult
		if len(w.Result) == 0 || json.Unmarshal(w.Result, &r) != nil {
			return nil, fmt.Errorf("%w: a completed task without a tool result", ErrMalformedTask)
		}
		t.Result = newResult(&r, limit)
	case TaskFailed:
		t.Error = &TaskError{Code: -32603, Message: "the task failed without saying why"}
		if w.Error != nil {
			m, _ := clipBytes(w.Error.Message, maxTaskMessage)
			t.Error = &TaskError{Code: w.Error.Code, Message: m}
		}
	case TaskInputRequired:
		t.InputRequests = w.InputRequests
	}
	return t, nil
}

func knownTaskStatus(s string) bool {
	for _, k := range TaskStatuses {
		if s == k {
			return true
		}
	}
	return false
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// taskIDParams are the params of tasks/get and tasks/cancel.
type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskUpdateParams are the params of tasks/update.
type taskUpdateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// taskResult is a tasks/get answer, kept raw for parseTask.
type taskResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *taskResult) UnmarshalJSON(b []byte) error {
	r.raw = bytes.Clone(b)
	return nil
}

// ackResult is the empty answer of tasks/update and tasks/cancel.
type ackResult struct{ mcp.ResultBase }

// addTaskMethods registers the extension's requests on a client.
func addTaskMethods(c *mcp.Client) error {
	return errors.Join(
		mcp.AddSendingCustomMethod[*taskIDParams, *taskResult](c, methodTasksGet),
		mcp.AddSendingCustomMethod[*taskUpdateParams, *ackResult](c, methodTasksUpdate),
		mcp.AddSendingCustomMethod[*taskIDParams, *ackResult](c, methodTasksCancel),
	)
}

// GetTask asks server serverID for the state of a task (tasks/get). The
// server must be connected (a reconnecting one is waited for, as calls
// are); a task it does not know gives ErrTaskNotFound.
func (m *Manager) GetTask(ctx context.Context, serverID, taskID string) (*Task, error) {
	var raw json.RawMessage
	err := m.taskRequest(ctx, serverID, methodTasksGet, func(ctx context.Context, cs *mcp.ClientSession) error {
		res, err := mcp.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, methodTasksGet, &taskIDParams{TaskID: taskID})
		if err == nil {
			raw = res.raw
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	t, err := parseTask(serverID, raw, m.opts.ResultLimit)
	if err != nil {
		return nil, err
	}
	if t.TaskID != taskID {
		return nil, fmt.Errorf("%w: asked for task %s, got %s", ErrMalformedTask, taskID, t.TaskID)
	}
	return t, nil
}

// UpdateTask answers input requests of a task in input_required
// (tasks/update); responses are keyed as the task's InputRequests.
func (m *Manager) UpdateTask(ctx context.Context, serverID, taskID string, responses map[string]json.RawMessage) error {
	return m.taskRequest(ctx, serverID, methodTasksUpdate, func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := mcp.CallCustomMethod[*taskUpdateParams, *ackResult](ctx, cs, methodTasksUpdate,
			&taskUpdateParams{TaskID: taskID, InputResponses: responses})
		return err
	})
}

// CancelTask asks the server to cancel a task (tasks/cancel). Cancelling
// is cooperative: the task may still end otherwise.
func (m *Manager) CancelTask(ctx context.Context, serverID, taskID string) error {
	return m.taskRequest(ctx, serverID, methodTasksCancel, func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := mcp.CallCustomMethod[*taskIDParams, *ackResult](ctx, cs, methodTasksCancel, &taskIDParams{TaskID: taskID})
		return err
	})
}

// taskRequest runs one of the extension's requests on server serverID's
// live session, within the server's timeout.
func (m *Manager) taskRequest(ctx context.Context, serverID, method string, do func(context.Context, *mcp.ClientSession) error) error {
	m.mu.Lock()
	s := m.servers[serverID]
	m.mu.Unlock()
	if s == nil {
		return fmt.Errorf("%w: %s", ErrUnknownServer, serverID)
	}
	sess, cfg, _, err := s.liveSession(ctx, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout())
	defer cancel()
	return taskErr(cfg.DisplayName(), method, do(ctx, sess.cs))
}

// taskErr says which request failed; a JSON-RPC "invalid params" answer
// means the server does not know the task.
func taskErr(server, method string, err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams {
		return fmt.Errorf("%w (%s: %s)", ErrTaskNotFound, server, rpcErr.Message)
	}
	return fmt.Errorf("%s to %s: %w", method, server, err)
}

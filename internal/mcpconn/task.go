package mcpconn

import (
	"encoding/json"
	"errors"
	"time"
)

// TasksExtension is the identifier of the MCP Tasks extension
// (modelcontextprotocol/ext-tasks): a server may answer tools/call with a
// task handle, and the client polls tasks/get for the result.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses, as the extension names them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskStatuses lists every task status (the frontend's contract is
// generated from it).
var TaskStatuses = []string{TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled}

// TaskEnded reports whether status is terminal: completed, failed or
// cancelled (or one this client does not know, which it cannot wait on).
func TaskEnded(status string) bool {
	return status != TaskWorking && status != TaskInputRequired
}

// Bounds on what a server's task may carry.
const (
	// MaxTaskIDBytes bounds a task ID; a longer one is refused.
	MaxTaskIDBytes = 256
	// maxTaskMessage bounds a status message, in bytes; a longer one is
	// clipped and ends with "…".
	maxTaskMessage = 500
	// MaxTaskInputRequests bounds the input requests of one poll; past it
	// the task is refused as malformed.
	MaxTaskInputRequests = 16
	// MinTaskPoll and MaxTaskPoll bound the interval a server may ask for
	// between two polls.
	MinTaskPoll = 500 * time.Millisecond
	MaxTaskPoll = 5 * time.Minute
)

// ErrTaskNotFound is the error of a task the server no longer knows (it
// expired, or the server restarted and lost it).
var ErrTaskNotFound = errors.New("the server no longer knows this task")

// ErrMalformedTask is the error of a task handle or state that breaks the
// extension's rules (no ID, a huge ID, an unknown status, too many input
// requests).
var ErrMalformedTask = errors.New("malformed task from the server")

// A Task is the state of a call the server runs as a task
// (io.modelcontextprotocol/tasks): its handle, when tools/call answers
// with one, or a tasks/get answer.
type Task struct {
	ServerID string `json:"serverId"`
	TaskID   string `json:"taskId"`
	// Status is one of the Task* statuses.
	Status string `json:"status" ts_type:"TaskStatus"`
	// StatusMessage is the server's word on the state, clipped to 500
	// bytes; empty for none.
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt" ts_type:"string"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt" ts_type:"string"`
	// TTLMs is how long after CreatedAt the server may drop the task, in
	// milliseconds; zero means no limit.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// PollIntervalMs is how often the server asks to be polled, clamped to
	// [MinTaskPoll, MaxTaskPoll]; zero when it did not say.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// Result is the call's result once Status is completed.
	Result *Result `json:"result,omitempty"`
	// Error is the JSON-RPC error of a failed task.
	Error *TaskError `json:"error,omitempty"`
	// InputRequests are what the server waits for while Status is
	// input_required, by the server's keys.
	InputRequests map[string]TaskInputRequest `json:"inputRequests,omitempty"`
}

// A TaskError is the JSON-RPC error a failed task carries.
type TaskError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// A TaskInputRequest is one server-to-client request a task waits on
// (elicitation/create, sampling/createMessage, roots/list).
type TaskInputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty" ts_type:"unknown"`
}

// PollInterval is how long to wait before the next poll: the server's
// interval, or def when it gave none.
func (t *Task) PollInterval(def time.Duration) time.Duration {
	if t.PollIntervalMs <= 0 {
		return def
	}
	return time.Duration(t.PollIntervalMs) * time.Millisecond
}

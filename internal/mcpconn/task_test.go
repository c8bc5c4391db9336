package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// taskTransports are the ways a task server is reached: streamable HTTP
// in both eras (the RoundTripper catches the task handle) and in memory
// (the taskConn does).
var taskTransports = []struct {
	name     string
	protocol string // "" = the newest, 2026-07-28
	inMemory bool
}{
	{name: "http-2026", protocol: ""},
	{name: "http-2025", protocol: "2025-11-25"},
	{name: "memory-2025", protocol: "2025-11-25", inMemory: true},
}

// headerLog records the Mcp-Name header of tasks/* requests.
type headerLog struct {
	next http.Handler
	mu   sync.Mutex
	seen map[string][]string // method -> Mcp-Name values
}

func (l *headerLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m := r.Header.Get("Mcp-Method"); strings.HasPrefix(m, "tasks/") {
		l.mu.Lock()
		l.seen[m] = append(l.seen[m], r.Header.Get("Mcp-Name"))
		l.mu.Unlock()
	}
	l.next.ServeHTTP(w, r)
}

// taskServer connects a manager to a fresh task server the given way.
func taskServer(t *testing.T, way string, protocol string, inMemory bool) (*Manager, *mcptest.TaskServer, *headerLog) {
	t.Helper()
	ts := mcptest.NewTaskServer(nil)
	t.Cleanup(ts.Close)
	hl := &headerLog{next: ts.Handler(), seen: map[string][]string{}}
	var opts Options
	if protocol != "" {
		opts.ProtocolHints = map[string]string{"tasks": protocol}
	}
	m, _ := newTestManager(t, &opts)
	cfg := serverconf.Config{ID: "tasks", Enabled: true}
	if inMemory {
		m.testTransport = func(serverconf.Config) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := ts.MCPServer().Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}
	} else {
		srv := httptest.NewServer(hl)
		t.Cleanup(srv.Close)
		cfg.Transport, cfg.URL = serverconf.TransportHTTP, srv.URL
	}
	m.Add(cfg)
	st := waitState(t, m, "tasks", 20*time.Second, StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("%s: %s", way, st.Reason)
	}
	if protocol != "" && st.ProtocolVersion != protocol {
		t.Fatalf("%s: protocol %s, want %s", way, st.ProtocolVersion, protocol)
	}
	return m, ts, hl
}

func callRef(t *testing.T, m *Manager, tool, args string) *Result {
	t.Helper()
	res, err := m.CallToolRef(t.Context(), ToolRef{ServerID: "tasks", Tool: tool}, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// A tool the server runs as a task gives its handle; tasks/get follows it
// to the result, tasks/update answers its input requests, tasks/cancel
// ends it, in both eras and over both kinds of connection.
func TestTaskLifecycle(t *testing.T) {
	for _, tt := range taskTransports {
		t.Run(tt.name, func(t *testing.T) {
			m, ts, hl := taskServer(t, tt.name, tt.protocol, tt.inMemory)
			ctx := t.Context()

			res := callRef(t, m, "slow_task", `{"label":"report"}`)
			id := <-ts.Created()
			if res.Task == nil {
				t.Fatalf("no task handle: %+v", res)
			}
			if got := res.Task; got.TaskID != id || got.Status != TaskWorking || got.ServerID != "tasks" || got.PollIntervalMs != 500 || got.CreatedAt.IsZero() {
				t.Errorf("handle %+v", got)
			}
			if got, err := m.GetTask(ctx, "tasks", id); err != nil || got.Status != TaskWorking {
				t.Fatalf("tasks/get: %+v, %v", got, err)
			}
			if err := ts.Complete(id, "done: report"); err != nil {
				t.Fatal(err)
			}
			got, err := m.GetTask(ctx, "tasks", id)
			if err != nil || got.Status != TaskCompleted || got.Result == nil || got.Result.ForModel(0) != "done: report" {
				t.Fatalf("completed task: %+v, %v", got, err)
			}

			// Input: the task asks for a name; the answer completes it.
			callRef(t, m, "ask_task", `{}`)
			ask := <-ts.Created()
			got, err = m.GetTask(ctx, "tasks", ask)
			if err != nil || got.Status != TaskInputRequired || got.InputRequests["name"].Method != "elicitation/create" {
				t.Fatalf("input_required task: %+v, %v", got, err)
			}
			if err := m.UpdateTask(ctx, "tasks", ask, map[string]json.RawMessage{"name": json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}); err != nil {
				t.Fatal(err)
			}
			if got, err = m.GetTask(ctx, "tasks", ask); err != nil || got.Status != TaskCompleted || got.Result.ForModel(0) != "Hello, Ada!" {
				t.Fatalf("answered task: %+v, %v", got, err)
			}

			callRef(t, m, "slow_task", `{"label":"x"}`)
			gone := <-ts.Created()
			if err := m.CancelTask(ctx, "tasks", gone); err != nil {
				t.Fatal(err)
			}
			if got, err = m.GetTask(ctx, "tasks", gone); err != nil || got.Status != TaskCancelled {
				t.Fatalf("cancelled task: %+v, %v", got, err)
			}

			if _, err := m.GetTask(ctx, "tasks", "no-such-task"); !errors.Is(err, ErrTaskNotFound) {
				t.Errorf("unknown task: %v", err)
			}
			// A tool answered at once has no handle.
			if res := callRef(t, m, "quick", `{}`); res.Task != nil || res.ForModel(0) != "quick" {
				t.Errorf("quick: %+v", res)
			}
			// 2026-07-28 over HTTP: each tasks/* request names its task.
			if tt.name == "http-2026" {
				hl.mu.Lock()
				defer hl.mu.Unlock()
				if diff := cmp.Diff([]string{id, id, ask, ask, gone, "no-such-task"}, hl.seen["tasks/get"]); diff != "" {
					t.Errorf("Mcp-Name of tasks/get (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{gone}, hl.seen["tasks/cancel"]); diff != "" {
					t.Errorf("Mcp-Name of tasks/cancel (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A server that answers over the legacy SSE transport is not offered
// tasks (its handle could not be caught), so its tools answer at once.
func TestTasksNotOfferedOverSSE(t *testing.T) {
	ts := mcptest.NewTaskServer(nil)
	t.Cleanup(ts.Close)
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return ts.MCPServer() }, nil))
	t.Cleanup(srv.Close)
	m, _ := newTestManager(t, nil)
	m.Add(serverconf.Config{ID: "tasks", Transport: serverconf.TransportSSE, URL: srv.URL, Enabled: true})
	waitState(t, m, "tasks", 20*time.Second, StateConnected)
	res := callRef(t, m, "slow_task", `{"label":"a","seconds":0}`)
	if res.Task != nil {
		t.Fatalf("a task over SSE: %+v", res.Task)
	}
	if res := callRef(t, m, "needs_tasks", `{}`); !res.IsError || !strings.Contains(res.ForModel(0), "-32021") {
		t.Errorf("needs_tasks without the extension: %s", res.ForModel(0))
	}
}

func TestParseTaskBounds(t *testing.T) {
	long := strings.Repeat("x", MaxTaskIDBytes+1)
	many := map[string]TaskInputRequest{}
	for i := range MaxTaskInputRequests + 1 {
		many[string(rune('a'+i))] = TaskInputRequest{Method: "elicitation/create"}
	}
	manyJSON, _ := json.Marshal(many)
	for _, tc := range []struct{ name, raw string }{
		{"no id", `{"status":"working"}`},
		{"long id", `{"taskId":"` + long + `","status":"working"}`},
		{"control in id", `{"taskId":"a\nb","status":"working"}`},
		{"unknown status", `{"taskId":"a","status":"sleeping"}`},
		{"completed without result", `{"taskId":"a","status":"completed"}`},
		{"too many input requests", `{"taskId":"a","status":"input_required","inputRequests":` + string(manyJSON) + `}`},
		{"not an object", `[1]`},
	} {
		if _, err := parseTask("s", json.RawMessage(tc.raw), 0); !errors.Is(err, ErrMalformedTask) {
			t.Errorf("%s: %v, want ErrMalformedTask", tc.name, err)
		}
	}
	msg := strings.Repeat("é", maxTaskMessage)
	got, err := parseTask("s", json.RawMessage(`{"taskId":"a","status":"working","statusMessage":"`+msg+`","pollIntervalMs":1,"ttlMs":null}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.StatusMessage) > maxTaskMessage+len("…") || !strings.HasSuffix(got.StatusMessage, "…") {
		t.Errorf("status message of %d bytes", len(got.StatusMessage))
	}
	if got.PollIntervalMs != MinTaskPoll.Milliseconds() || got.TTLMs != 0 {
		t.Errorf("poll %d, ttl %d", got.PollIntervalMs, got.TTLMs)
	}
	got, _ = parseTask("s", json.RawMessage(`{"taskId":"a","status":"working","pollIntervalMs":1e12}`), 0)
	if got.PollIntervalMs != MaxTaskPoll.Milliseconds() {
		t.Errorf("poll %d, want the most", got.PollIntervalMs)
	}
	got, _ = parseTask("s", json.RawMessage(`{"taskId":"a","status":"failed"}`), 0)
	if got.Error == nil || got.Error.Message == "" {
		t.Errorf("failed without error: %+v", got.Error)
	}
}

func TestEventData(t *testing.T) {
	body := "event: message\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: comment\ndata:{\"b\":2}\n\ndata: tail"
	got := eventData([]byte(body))
	want := []string{"{\"a\":\n1}", `{"b":2}`, "tail"}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

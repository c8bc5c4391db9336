package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A step is one scripted answer of the fake source's tasks/get.
type step struct {
	task *mcpconn.Task // its ServerID and TaskID are filled in
	err  error
	hang bool // block until the request's context ends
}

func working() step { return step{task: &mcpconn.Task{Status: mcpconn.TaskWorking}} }

func completed(text string) step {
	return step{task: &mcpconn.Task{Status: mcpconn.TaskCompleted,
		Result: &mcpconn.Result{Content: []mcpconn.Content{{Type: mcpconn.ContentText, Text: text}}}}}
}

func inputRequired(reqs map[string]mcpconn.TaskInputRequest) step {
	return step{task: &mcpconn.Task{Status: mcpconn.TaskInputRequired, InputRequests: reqs}}
}

type update struct {
	TaskID    string
	Responses map[string]string
}

// fakeSource is a server whose tasks answer tasks/get from a script, the
// last step repeating.
type fakeSource struct {
	mu      sync.Mutex
	script  map[string][]step // by task ID
	gets    map[string][]time.Time
	updates []update
	cancels []string
	// failUpdates is how many tasks/update calls fail, from now.
	failUpdates int
}

func newSource(script map[string][]step) *fakeSource {
	return &fakeSource{script: script, gets: map[string][]time.Time{}}
}

func (s *fakeSource) GetTask(ctx context.Context, serverID, taskID string) (*mcpconn.Task, error) {
	s.mu.Lock()
	s.gets[taskID] = append(s.gets[taskID], time.Now())
	steps := s.script[taskID]
	if len(steps) == 0 {
		s.mu.Unlock()
		return nil, mcpconn.ErrTaskNotFound
	}
	st := steps[0]
	if len(steps) > 1 {
		s.script[taskID] = steps[1:]
	}
	s.mu.Unlock()
	if st.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if st.err != nil {
		return nil, st.err
	}
	t := *st.task
	t.ServerID, t.TaskID = serverID, taskID
	return &t, nil
}

func (s *fakeSource) UpdateTask(ctx context.Context, serverID, taskID string, responses map[string]json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := update{TaskID: taskID, Responses: map[string]string{}}
	for k, v := range responses {
		u.Responses[k] = string(v)
	}
	s.updates = append(s.updates, u)
	if s.failUpdates > 0 {
		s.failUpdates--
		return errors.New("connection reset")
	}
	return nil
}

func (s *fakeSource) CancelTask(ctx context.Context, serverID, taskID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancels = append(s.cancels, taskID)
	return nil
}

func (s *fakeSource) setScript(taskID string, steps ...step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[taskID] = steps
}

func (s *fakeSource) getTimes(taskID string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gets[taskID])
}

func (s *fakeSource) calls() ([]update, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.updates), slices.Clone(s.cancels)
}

// memStore is an in-memory Store.
type memStore struct {
	mu    sync.Mutex
	tasks map[string]store.Task
	order []string
}

func newMemStore() *memStore { return &memStore{tasks: map[string]store.Task{}} }

func (m *memStore) InsertTask(ctx context.Context, t store.Task) (store.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.ID == "" {
		t.ID = fmt.Sprintf("rec-%d", len(m.order)+1)
	}
	for _, o := range m.tasks {
		if o.ServerID == t.ServerID && o.TaskID == t.TaskID {
			return store.Task{}, store.ErrDuplicateTask
		}
	}
	m.tasks[t.ID] = t
	m.order = append(m.order, t.ID)
	return t, nil
}

func (m *memStore) UpdateTask(ctx context.Context, t store.Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.tasks[t.ID]
	if !ok {
		return fmt.Errorf("task %s: %w", t.ID, store.ErrNotFound)
	}
	o.Status, o.StatusMessage, o.Result, o.Error = t.Status, t.StatusMessage, t.Result, t.Error
	o.PollIntervalMs, o.TTLMs, o.UpdatedAt, o.EndedAt = t.PollIntervalMs, t.TTLMs, t.UpdatedAt, t.EndedAt
	m.tasks[t.ID] = o
	return nil
}

func (m *memStore) Task(ctx context.Context, id string) (store.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok {
		return store.Task{}, fmt.Errorf("task %s: %w", id, store.ErrNotFound)
	}
	return t, nil
}

func (m *memStore) Tasks(ctx context.Context, f store.TaskFilter) ([]store.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []store.Task{}
	for _, id := range slices.Backward(m.order) {
		t, ok := m.tasks[id]
		if ok && (!f.Active || !t.Ended()) && (f.ConversationID == "" || t.ConversationID == f.ConversationID) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *memStore) delete(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tasks, id)
}

// rig is a Tracker with fakes around it.
type rig struct {
	tr     *Tracker
	src    *fakeSource
	store  Store
	events *eventtest.Recorder

	mu    sync.Mutex
	ended []store.Task // what OnEnd got
}

func newRig(t *testing.T, src *fakeSource, st Store, opts *Options) *rig {
	t.Helper()
	r := &rig{src: src, store: st, events: &eventtest.Recorder{}}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Store, o.Source, o.Emit = st, src, r.events
	o.OnEnd = func(ctx context.Context, task store.Task) {
		r.mu.Lock()
		r.ended = append(r.ended, task)
		r.mu.Unlock()
		if opts != nil && opts.OnEnd != nil {
			opts.OnEnd(ctx, task)
		}
	}
	r.tr = New(&o)
	if err := r.tr.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.tr.Close() })
	return r
}

func (r *rig) onEnds() []store.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ended)
}

// track starts following the server task taskID, whose handle is first.
func (r *rig) track(t *testing.T, taskID string, first mcpconn.Task) store.Task {
	t.Helper()
	first.ServerID, first.TaskID = "srv", taskID
	rec, err := r.tr.Track(t.Context(), store.Task{ServerName: "Server", Tool: "srv__job", ToolCallID: "call-" + taskID}, &first)
	if err != nil {
		t.Fatalf("Track: %v", err)
	}
	return rec
}

func (r *rig) statuses() []string {
	var out []string
	for _, p := range eventtest.Payloads[store.Task](r.events, EventTask) {
		out = append(out, p.Status)
	}
	return out
}

// since turns times into offsets from start, for diffs.
func since(start time.Time, ts []time.Time) []time.Duration {
	out := []time.Duration{}
	for _, t := range ts {
		out = append(out, t.Sub(start))
	}
	return out
}

func TestWorkingToCompleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(map[string][]step{"t1": {working(), completed("done")}})
		r := newRig(t, src, newMemStore(), nil)
		start := time.Now()
		rec := r.track(t, "t1", mcpconn.Task{Status: mcpconn.TaskWorking, StatusMessage: "queued", PollIntervalMs: 1000, TTLMs: 60_000})

		got, err := r.tr.Wait(t.Context(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := store.Task{ID: rec.ID, ServerID: "srv", ServerName: "Server", TaskID: "t1", ToolCallID: "call-t1", Tool: "srv__job",
			Status: mcpconn.TaskCompleted, Result: json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`),
			PollIntervalMs: 1000, TTLMs: 0, CreatedAt: start, UpdatedAt: start.Add(2 * time.Second), EndedAt: start.Add(2 * time.Second)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Wait (-want +got):\n%s", diff)
		}
		if stored, err := r.store.Task(t.Context(), rec.ID); err != nil {
			t.Fatal(err)
		} else if diff := cmp.Diff(want, stored); diff != "" {
			t.Errorf("stored (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]store.Task{want}, r.onEnds()); diff != "" {
			t.Errorf("OnEnd calls (-want +got):\n%s", diff)
		}
		// The handle, the message cleared by the first poll, the end.
		if diff := cmp.Diff([]string{"working", "working", "completed"}, r.statuses()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, since(start, src.getTimes("t1"))); diff != "" {
			t.Errorf("polls (-want +got):\n%s", diff)
		}
		// Waiting again gives the record from the store.
		if again, err := r.tr.Wait(t.Context(), rec.ID); err != nil || again.Status != mcpconn.TaskCompleted {
			t.Errorf("second Wait = %+v, %v", again, err)
		}
	})
}

func TestPollIntervalHonoured(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval int64 // the server's pollIntervalMs
		def      time.Duration
		want     time.Duration
	}{
		{"server's", 5000, 0, 5 * time.Second},
		{"default", 0, 0, DefaultPoll},
		{"own default", 0, 3 * time.Second, 3 * time.Second},
		{"default held to the minimum", 0, time.Millisecond, mcpconn.MinTaskPoll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newSource(map[string][]step{"t": {working()}})
				r := newRig(t, src, newMemStore(), &Options{DefaultPoll: tc.def})
				start := time.Now()
				r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: tc.interval})
				time.Sleep(time.Minute)
				synctest.Wait()
				var want []time.Duration
				for d := tc.want; d <= time.Minute; d += tc.want {
					want = append(want, d)
				}
				if diff := cmp.Diff(want, since(start, src.getTimes("t"))); diff != "" {
					t.Errorf("polls over a minute (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestPollIntervalChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := working()
		slow.task.PollIntervalMs = 10_000
		src := newSource(map[string][]step{"t": {working(), slow, completed("ok")}})
		r := newRig(t, src, newMemStore(), nil)
		start := time.Now()
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		if _, err := r.tr.Wait(t.Context(), rec.ID); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{1 * time.Second, 2 * time.Second, 12 * time.Second}, since(start, src.getTimes("t"))); diff != "" {
			t.Errorf("polls (-want +got):\n%s", diff)
		}
	})
}

func TestInputRequired(t *testing.T) {
	elicit := mcpconn.TaskInputRequest{Method: "elicitation/create", Params: json.RawMessage(`{"message":"your name?"}`)}
	sample := mcpconn.TaskInputRequest{Method: "sampling/createMessage", Params: json.RawMessage(`{}`)}
	accept := `{"action":"accept","content":{"name":"Ada"}}`
	for _, tc := range []struct {
		name   string
		answer func(ctx context.Context, t store.Task, key string, req mcpconn.TaskInputRequest) (json.RawMessage, error)
		want   []update
		asked  []string
	}{
		{
			name: "no Answer declines elicitations, leaves the rest",
			want: []update{{TaskID: "t", Responses: map[string]string{"name": `{"action":"decline"}`}}},
		},
		{
			name: "Answer's response is sent",
			answer: func(ctx context.Context, t store.Task, key string, req mcpconn.TaskInputRequest) (json.RawMessage, error) {
				if req.Method == "sampling/createMessage" {
					return nil, errors.New("sampling is off")
				}
				return json.RawMessage(accept), nil
			},
			want:  []update{{TaskID: "t", Responses: map[string]string{"name": accept}}},
			asked: []string{"name", "sample"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reqs := map[string]mcpconn.TaskInputRequest{"name": elicit, "sample": sample}
				// The same keys over several polls, as the server may show
				// them until the update is seen.
				src := newSource(map[string][]step{"t": {inputRequired(reqs), inputRequired(reqs), inputRequired(reqs), completed("hi Ada")}})
				var mu sync.Mutex
				var asked []string
				opts := &Options{}
				if tc.answer != nil {
					opts.Answer = func(ctx context.Context, task store.Task, key string, req mcpconn.TaskInputRequest) (json.RawMessage, error) {
						mu.Lock()
						asked = append(asked, key)
						mu.Unlock()
						if task.Status != mcpconn.TaskInputRequired || task.TaskID != "t" {
							t.Errorf("Answer got the record %+v", task)
						}
						return tc.answer(ctx, task, key, req)
					}
				}
				r := newRig(t, src, newMemStore(), opts)
				rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
				got, err := r.tr.Wait(t.Context(), rec.ID)
				if err != nil || got.Status != mcpconn.TaskCompleted {
					t.Fatalf("Wait = %+v, %v", got, err)
				}
				updates, _ := src.calls()
				if diff := cmp.Diff(tc.want, updates); diff != "" {
					t.Errorf("tasks/update calls (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.asked, asked); diff != "" {
					t.Errorf("Answer asked (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"working", "input_required", "completed"}, r.statuses()); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestInputRequiredUpdateRetried: an answer the server did not take is
// sent again after the next poll, without asking again.
func TestInputRequiredUpdateRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reqs := map[string]mcpconn.TaskInputRequest{"name": {Method: "elicitation/create"}}
		src := newSource(map[string][]step{"t": {inputRequired(reqs), inputRequired(reqs), inputRequired(reqs), completed("ok")}})
		src.failUpdates = 1
		var asked int
		r := newRig(t, src, newMemStore(), &Options{Answer: func(context.Context, store.Task, string, mcpconn.TaskInputRequest) (json.RawMessage, error) {
			asked++ // only the follower's goroutine calls it
			return json.RawMessage(`{"action":"cancel"}`), nil
		}})
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking})
		if _, err := r.tr.Wait(t.Context(), rec.ID); err != nil {
			t.Fatal(err)
		}
		updates, _ := src.calls()
		want := update{TaskID: "t", Responses: map[string]string{"name": `{"action":"cancel"}`}}
		if diff := cmp.Diff([]update{want, want}, updates); diff != "" {
			t.Errorf("tasks/update calls (-want +got):\n%s", diff)
		}
		if asked != 1 {
			t.Errorf("Answer asked %d times; want 1", asked)
		}
	})
}

func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(map[string][]step{"t": {working()}})
		r := newRig(t, src, newMemStore(), nil)
		start := time.Now()
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		time.Sleep(2500 * time.Millisecond)
		if err := r.tr.Cancel(t.Context(), rec.ID); err != nil {
			t.Fatal(err)
		}
		got, err := r.tr.Wait(t.Context(), rec.ID)
		if err != nil || got.Status != mcpconn.TaskCancelled || !got.EndedAt.Equal(start.Add(2500*time.Millisecond)) {
			t.Errorf("Wait = %+v, %v; want cancelled at 2.5s", got, err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(src.getTimes("t")); n != 2 {
			t.Errorf("%d polls; want 2, none after the cancel", n)
		}
		// Cancelling an ended task does nothing.
		if err := r.tr.Cancel(t.Context(), rec.ID); err != nil {
			t.Errorf("second Cancel: %v", err)
		}
		_, cancels := src.calls()
		if diff := cmp.Diff([]string{"t"}, cancels); diff != "" {
			t.Errorf("tasks/cancel calls (-want +got):\n%s", diff)
		}
		if ends := r.onEnds(); len(ends) != 1 || ends[0].Status != mcpconn.TaskCancelled {
			t.Errorf("OnEnd calls = %+v; want one, cancelled", ends)
		}
	})
}

func TestCancelUnfollowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		rec, err := st.InsertTask(t.Context(), store.Task{ServerID: "srv", TaskID: "t", Status: mcpconn.TaskWorking})
		if err != nil {
			t.Fatal(err)
		}
		src := newSource(nil)
		tr := New(&Options{Store: st, Source: src}) // never started
		defer tr.Close()
		if err := tr.Cancel(t.Context(), rec.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Task(t.Context(), rec.ID); err != nil || got.Status != mcpconn.TaskCancelled || !got.Ended() {
			t.Errorf("record = %+v, %v; want cancelled", got, err)
		}
		if _, cancels := src.calls(); len(cancels) != 1 {
			t.Errorf("tasks/cancel calls = %v", cancels)
		}
	})
}

func TestEndsWithoutTheServer(t *testing.T) {
	broken := errors.New("tasks/get to Server: connection refused")
	for _, tc := range []struct {
		name      string
		steps     []step
		first     mcpconn.Task
		wantError string // a prefix
		wantPolls []time.Duration
	}{
		{
			name:      "not found",
			steps:     []step{working(), {err: fmt.Errorf("%w (Server: no such task)", mcpconn.ErrTaskNotFound)}},
			first:     mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000},
			wantError: MessageLost,
			wantPolls: []time.Duration{1 * time.Second, 2 * time.Second},
		},
		{
			name:      "repeated errors back off, then give up",
			steps:     []step{{err: broken}},
			first:     mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000},
			wantError: "gave up after 3 failed polls (last: tasks/get to Server: connection refused)",
			wantPolls: []time.Duration{1 * time.Second, 3 * time.Second, 7 * time.Second},
		},
		{
			name:      "expired",
			steps:     []step{{task: &mcpconn.Task{Status: mcpconn.TaskWorking, TTLMs: 2500}}},
			first:     mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000, TTLMs: 2500},
			wantError: MessageExpired,
			wantPolls: []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second},
		},
		{
			name:      "malformed",
			steps:     []step{{err: fmt.Errorf("%w: unknown status \"paused\"", mcpconn.ErrMalformedTask)}},
			first:     mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000},
			wantError: "the server sent a task state this client cannot follow",
			wantPolls: []time.Duration{1 * time.Second},
		},
		{
			name:      "the server failed it",
			steps:     []step{{task: &mcpconn.Task{Status: mcpconn.TaskFailed, Error: &mcpconn.TaskError{Code: -32603, Message: "disk full"}}}},
			first:     mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000},
			wantError: "disk full (code -32603)",
			wantPolls: []time.Duration{1 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newSource(map[string][]step{"t": tc.steps})
				r := newRig(t, src, newMemStore(), &Options{MaxPollErrors: 3})
				start := time.Now()
				rec := r.track(t, "t", tc.first)
				got, err := r.tr.Wait(t.Context(), rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status != mcpconn.TaskFailed || !strings.HasPrefix(got.Error, tc.wantError) {
					t.Errorf("ended %s with %q; want failed with %q…", got.Status, got.Error, tc.wantError)
				}
				if diff := cmp.Diff(tc.wantPolls, since(start, src.getTimes("t"))); diff != "" {
					t.Errorf("polls (-want +got):\n%s", diff)
				}
				if n := len(r.onEnds()); n != 1 {
					t.Errorf("OnEnd ran %d times; want 1", n)
				}
			})
		})
	}
}

// TestErrorsThenRecovers: a poll that succeeds resets the count of
// failed ones.
func TestErrorsThenRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := step{err: errors.New("timeout")}
		src := newSource(map[string][]step{"t": {e, e, working(), e, e, completed("ok")}})
		r := newRig(t, src, newMemStore(), &Options{MaxPollErrors: 3})
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		got, err := r.tr.Wait(t.Context(), rec.ID)
		if err != nil || got.Status != mcpconn.TaskCompleted {
			t.Errorf("Wait = %+v, %v; want completed", got, err)
		}
	})
}

func TestCompletedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(nil)
		r := newRig(t, src, newMemStore(), nil)
		first := *completed("quick").task
		rec := r.track(t, "t", first)
		got, err := r.tr.Wait(t.Context(), rec.ID)
		if err != nil || got.Status != mcpconn.TaskCompleted || !got.Ended() || len(src.getTimes("t")) != 0 {
			t.Errorf("Wait = %+v, %v after %d polls; want completed, no poll", got, err, len(src.getTimes("t")))
		}
	})
}

func TestWaitReturnsAfterOnEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		inOnEnd := make(chan struct{})
		src := newSource(map[string][]step{"t": {completed("ok")}})
		r := newRig(t, src, newMemStore(), &Options{OnEnd: func(ctx context.Context, task store.Task) {
			close(inOnEnd)
			<-release
		}})
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking})
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			if got, err := r.tr.Wait(t.Context(), rec.ID); err != nil || got.Status != mcpconn.TaskCompleted {
				t.Errorf("Wait = %+v, %v", got, err)
			}
		}()
		<-inOnEnd
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("Wait returned before OnEnd did")
		default:
		}
		// Waiting on the store alone would not do: the record has ended.
		if stored, _ := r.store.Task(t.Context(), rec.ID); !stored.Ended() {
			t.Error("OnEnd ran before the end was saved")
		}
		close(release)
		<-returned
	})
}

func TestTrackOverTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		src := newSource(map[string][]step{"a": {working(), completed("ok")}, "b": {working()}, "c": {working()}})
		r := newRig(t, src, st, &Options{MaxTasks: 2})
		a := r.track(t, "a", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		r.track(t, "b", mcpconn.Task{Status: mcpconn.TaskWorking})
		_, err := r.tr.Track(t.Context(), store.Task{}, &mcpconn.Task{ServerID: "srv", TaskID: "c", Status: mcpconn.TaskWorking})
		if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "2 tasks are running already") {
			t.Errorf("Track past the cap: %v; want ErrTooManyTasks saying how many", err)
		}
		if list, _ := st.Tasks(t.Context(), store.TaskFilter{}); len(list) != 2 {
			t.Errorf("%d tasks stored; the refused one must not be", len(list))
		}
		// Once one ends, there is room again.
		if _, err := r.tr.Wait(t.Context(), a.ID); err != nil {
			t.Fatal(err)
		}
		r.track(t, "c", mcpconn.Task{Status: mcpconn.TaskWorking})
	})
}

func TestCloseDuringPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		src := newSource(map[string][]step{"t": {{hang: true}}})
		r := newRig(t, src, st, nil)
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		time.Sleep(1500 * time.Millisecond) // the poll hangs
		synctest.Wait()
		if n := len(src.getTimes("t")); n != 1 {
			t.Fatalf("%d polls; want 1 in flight", n)
		}
		waited := make(chan error, 1)
		go func() {
			_, err := r.tr.Wait(context.Background(), rec.ID)
			waited <- err
		}()
		synctest.Wait()
		if err := r.tr.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.tr.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := <-waited; !errors.Is(err, ErrClosed) {
			t.Errorf("Wait across Close: %v; want ErrClosed", err)
		}
		if got, _ := st.Task(t.Context(), rec.ID); got.Ended() {
			t.Errorf("record ended by Close: %+v; it must wait for the next Start", got)
		}
		if n := len(r.onEnds()); n != 0 {
			t.Errorf("OnEnd ran %d times on Close", n)
		}
		if _, err := r.tr.Track(t.Context(), store.Task{}, &mcpconn.Task{ServerID: "srv", TaskID: "u", Status: mcpconn.TaskWorking}); !errors.Is(err, ErrClosed) {
			t.Errorf("Track after Close: %v; want ErrClosed", err)
		}
		// synctest.Test fails if a goroutine of the bubble is left.
	})
}

// TestRecordDeleted: a task whose conversation was deleted (its record
// with it) is no longer followed, and the server is asked to cancel it.
func TestRecordDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		src := newSource(map[string][]step{"t": {working()}})
		r := newRig(t, src, st, nil)
		rec := r.track(t, "t", mcpconn.Task{Status: mcpconn.TaskWorking, StatusMessage: "queued", PollIntervalMs: 1000})
		st.delete(rec.ID)
		src.setScript("t", step{task: &mcpconn.Task{Status: mcpconn.TaskWorking, StatusMessage: "half way"}})
		if _, err := r.tr.Wait(t.Context(), rec.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Wait: %v; want store.ErrNotFound", err)
		}
		if _, cancels := src.calls(); len(cancels) != 1 {
			t.Errorf("tasks/cancel calls = %v; want one", cancels)
		}
		if n := len(r.onEnds()); n != 0 {
			t.Errorf("OnEnd ran %d times for a deleted record", n)
		}
	})
}

// TestResumeAfterRestart: a tracker closed mid-task leaves the record
// unfinished in the database; the next tracker's Start polls it at once
// and finishes it.
func TestResumeAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), &store.Options{NoBackup: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		src := newSource(map[string][]step{"t": {working()}})

		first := New(&Options{Store: db, Source: src})
		if err := first.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		rec, err := first.Track(t.Context(), store.Task{ServerName: "Server", Tool: "srv__job"},
			&mcpconn.Task{ServerID: "srv", TaskID: "t", Status: mcpconn.TaskWorking, PollIntervalMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2500 * time.Millisecond)
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		if active, err := db.Tasks(t.Context(), store.TaskFilter{Active: true}); err != nil || len(active) != 1 || active[0].ID != rec.ID {
			t.Fatalf("active tasks after Close = %+v, %v; want the one", active, err)
		}
		polls := len(src.getTimes("t"))

		time.Sleep(time.Hour) // the app is off
		src.setScript("t", completed("done while we were away"))
		r := newRig(t, src, db, nil)
		restarted := time.Now()
		got, err := r.tr.Wait(t.Context(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != mcpconn.TaskCompleted || !got.EndedAt.Equal(restarted) ||
			string(got.Result) != `{"content":[{"type":"text","text":"done while we were away"}]}` {
			t.Errorf("resumed task ended as %+v; want completed at once", got)
		}
		if n := len(src.getTimes("t")) - polls; n != 1 {
			t.Errorf("%d polls after the restart; want 1", n)
		}
		if n := len(r.onEnds()); n != 1 {
			t.Errorf("OnEnd ran %d times; want 1", n)
		}
		if err := r.tr.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStartSkipsPastTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		for _, id := range []string{"a", "b", "c"} {
			if _, err := st.InsertTask(t.Context(), store.Task{ServerID: "srv", TaskID: id, Status: mcpconn.TaskWorking}); err != nil {
				t.Fatal(err)
			}
		}
		src := newSource(map[string][]step{"a": {working()}, "b": {working()}, "c": {working()}})
		newRig(t, src, st, &Options{MaxTasks: 2})
		synctest.Wait()
		got := map[string]int{}
		for _, id := range []string{"a", "b", "c"} {
			got[id] = len(src.getTimes(id))
		}
		// The newest two are polled at once; the oldest waits.
		if diff := cmp.Diff(map[string]int{"a": 0, "b": 1, "c": 1}, got); diff != "" {
			t.Errorf("polls at Start (-want +got):\n%s", diff)
		}
	})
}

func TestTrackBeforeStart(t *testing.T) {
	tr := New(&Options{Store: newMemStore(), Source: newSource(nil)})
	defer tr.Close()
	_, err := tr.Track(context.Background(), store.Task{}, &mcpconn.Task{ServerID: "s", TaskID: "t", Status: mcpconn.TaskWorking})
	if !errors.Is(err, ErrNotStarted) {
		t.Errorf("Track before Start: %v; want ErrNotStarted", err)
	}
	if _, err := tr.Track(context.Background(), store.Task{}, nil); err == nil {
		t.Error("Track of no task succeeded")
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{0: time.Second, 1: 2 * time.Second, 3: 8 * time.Second, 20: mcpconn.MaxTaskPoll} {
		if got := backoff(time.Second, n); got != want {
			t.Errorf("backoff(1s, %d) = %v; want %v", n, got, want)
		}
	}
}

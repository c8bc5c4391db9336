// Package tasks follows the tasks (io.modelcontextprotocol/tasks) that
// servers run for tool calls: it polls each one until it ends, answers its
// input requests, saves every change to the store and tells the window.
//
// The store is the truth. A task is recorded before it is followed and each
// change is saved before it is emitted, so that Start, after a crash or a
// restart, resumes every task that had not ended. Polling is what the
// extension asks of a client (its notifications are optional), so each
// followed task has one goroutine that sleeps on a timer between polls.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// EventTask is emitted with the store.Task, as saved, each time a task's
// status, message, result or error changes.
const EventTask = "task:update"

// A Source runs the extension's requests: mcpconn.Manager.
type Source interface {
	GetTask(ctx context.Context, serverID, taskID string) (*mcpconn.Task, error)
	UpdateTask(ctx context.Context, serverID, taskID string, responses map[string]json.RawMessage) error
	CancelTask(ctx context.Context, serverID, taskID string) error
}

// A Store keeps the task records: *store.Store.
type Store interface {
	InsertTask(ctx context.Context, t store.Task) (store.Task, error)
	UpdateTask(ctx context.Context, t store.Task) error
	Task(ctx context.Context, id string) (store.Task, error)
	Tasks(ctx context.Context, f store.TaskFilter) ([]store.Task, error)
}

var _ Store = (*store.Store)(nil)

// An Emitter sends events to the window.
type Emitter interface {
	Emit(name string, payload any)
}

// Errors of the Tracker, checked with errors.Is.
var (
	ErrClosed     = errors.New("the task tracker is closed")
	ErrNotStarted = errors.New("the task tracker is not started")
	// ErrTooManyTasks refuses a task past Options.MaxTasks.
	ErrTooManyTasks = errors.New("too many tasks are running")
	// ErrNotFollowed is Wait's answer for a task that has not ended and
	// that no one follows (Start did not resume it).
	ErrNotFollowed = errors.New("the task is not followed")
)

// What a task that ended without the server saying so is told.
const (
	MessageLost    = "the server no longer knows this task (it expired or the server restarted)"
	MessageExpired = "expired"
)

// Bounds.
const (
	// DefaultMaxTasks is how many tasks are followed at once when
	// Options.MaxTasks is zero.
	DefaultMaxTasks = 100
	// DefaultPoll is the interval between polls when the server gives none
	// and Options.DefaultPoll is zero.
	DefaultPoll = 2 * time.Second
	// DefaultMaxPollErrors is Options.MaxPollErrors when zero: with the
	// interval doubling from 2 s up to MaxTaskPoll, about 13 minutes of
	// trying, time enough for a server to restart.
	DefaultMaxPollErrors = 8
	// requestTimeout bounds each request to the server.
	requestTimeout = 30 * time.Second
	// endTimeout bounds saving a task's end and OnEnd, which Close waits
	// for rather than cancels: a result the server gave is not dropped.
	endTimeout = 30 * time.Second
	// maxInputKeys bounds the input requests of a task over its life.
	maxInputKeys = 256
	// maxErrorBytes bounds Task.Error.
	maxErrorBytes = 1000
)

// methodElicit is the input request declined when no one answers.
const methodElicit = "elicitation/create"

// Options configure a Tracker. Store and Source are required; any other
// zero field means its default, as it says.
type Options struct {
	Store  Store
	Source Source
	// Emit gets EventTask; nil sends none.
	Emit Emitter
	// Log is where the tracker logs; nil discards.
	Log *slog.Logger
	// OnEnd runs once when a task ends (completed, failed, cancelled, or
	// lost), after the record is saved and before Wait returns: the chat
	// engine puts the result into the conversation there. Its context
	// outlives Close by up to 30 s, so that a result is not dropped. May
	// be nil.
	OnEnd func(ctx context.Context, t store.Task)
	// Answer answers one input request of a task in input_required
	// (elicitation, sampling...) with the JSON InputResponse. Each key is
	// asked once per task and tracker, however many polls show it; an
	// error leaves that request unanswered. nil declines elicitations
	// ({"action":"decline"}) and leaves other requests unanswered.
	Answer func(ctx context.Context, t store.Task, key string, req mcpconn.TaskInputRequest) (json.RawMessage, error)
	// DefaultPoll is the interval between polls when the server gives
	// none; zero means DefaultPoll. It is held to [MinTaskPoll,
	// MaxTaskPoll].
	DefaultPoll time.Duration
	// MaxPollErrors is how many polls in a row may fail (other than with
	// ErrTaskNotFound) before the task is given up as failed; the interval
	// doubles after each, up to MaxTaskPoll. Zero means
	// DefaultMaxPollErrors.
	MaxPollErrors int
	// MaxTasks is how many tasks are followed at once; zero means
	// DefaultMaxTasks.
	MaxTasks int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// A Tracker follows tasks until they end. Its methods are safe for
// concurrent use.
type Tracker struct {
	opts Options
	log  *slog.Logger

	wg sync.WaitGroup // the followers

	mu       sync.Mutex
	ctx      context.Context // nil until Start
	cancel   context.CancelFunc
	closed   bool
	reserved int // Track calls between the cap check and their follower
	follows  map[string]*follower
}

// New returns a Tracker; Start resumes the unfinished tasks and lets Track
// add new ones.
func New(opts *Options) *Tracker {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.DefaultPoll <= 0 {
		o.DefaultPoll = DefaultPoll
	}
	o.DefaultPoll = min(max(o.DefaultPoll, mcpconn.MinTaskPoll), mcpconn.MaxTaskPoll)
	if o.MaxPollErrors <= 0 {
		o.MaxPollErrors = DefaultMaxPollErrors
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Tracker{opts: o, log: o.Log, follows: map[string]*follower{}}
}

// Start loads every task that had not ended from the store and follows
// each one, polling it at once (the resume-after-restart path). Past
// MaxTasks the newest are followed and the rest left for a later Start.
// Calling Start again does nothing.
func (t *Tracker) Start(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return ErrClosed
	}
	if t.ctx != nil {
		t.mu.Unlock()
		return nil
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	t.mu.Unlock()

	list, err := t.opts.Store.Tasks(ctx, store.TaskFilter{Active: true, Limit: store.MaxTaskLimit})
	if err != nil {
		return fmt.Errorf("loading unfinished tasks: %w", err)
	}
	resumed := 0
	for _, rec := range list {
		if err := t.add(rec, nil, false); err != nil {
			if errors.Is(err, ErrClosed) {
				return err
			}
			t.log.Warn("task not resumed", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID, "err", err)
			continue
		}
		resumed++
	}
	if len(list) > 0 {
		t.log.Info("resumed tasks", "count", resumed, "left", len(list)-resumed)
	}
	return nil
}

// Track records a new task, from the handle tools/call answered with
// (first), and follows it. task carries what the server does not know:
// ToolCallID, ConversationID, Tool, ServerName; its ID may be empty. It
// returns the record as stored. Past MaxTasks the task is neither stored
// nor followed and the server's task is left alone (the caller may cancel
// it).
func (t *Tracker) Track(ctx context.Context, task store.Task, first *mcpconn.Task) (store.Task, error) {
	if first == nil || first.TaskID == "" {
		return store.Task{}, fmt.Errorf("tracking a task: %w: no task ID", mcpconn.ErrMalformedTask)
	}
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		return store.Task{}, ErrClosed
	case t.ctx == nil:
		t.mu.Unlock()
		return store.Task{}, ErrNotStarted
	case len(t.follows)+t.reserved >= t.opts.MaxTasks:
		t.mu.Unlock()
		return store.Task{}, t.tooMany()
	}
	t.reserved++
	t.mu.Unlock()

	if task.ServerID == "" {
		task.ServerID = first.ServerID
	}
	task.TaskID = first.TaskID
	now := t.opts.Now()
	if task.CreatedAt.IsZero() {
		task.CreatedAt = now
	}
	task.UpdatedAt, task.EndedAt = now, time.Time{}
	task = apply(task, first)
	rec, err := t.opts.Store.InsertTask(ctx, task)
	if err != nil {
		t.mu.Lock()
		t.reserved--
		t.mu.Unlock()
		return store.Task{}, fmt.Errorf("recording task %s of %s: %w", first.TaskID, task.ServerName, err)
	}
	if err := t.add(rec, first, true); err != nil {
		// Closed meanwhile: the record waits for the next Start.
		return rec, err
	}
	return rec, nil
}

func (t *Tracker) tooMany() error {
	return fmt.Errorf("%w: %d tasks are running already; wait for one to finish or cancel one", ErrTooManyTasks, t.opts.MaxTasks)
}

// add starts following rec. reserved says that Track counted it already.
func (t *Tracker) add(rec store.Task, first *mcpconn.Task, reserved bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if reserved {
		t.reserved--
	}
	if t.closed {
		return ErrClosed
	}
	if !reserved && len(t.follows)+t.reserved >= t.opts.MaxTasks {
		return t.tooMany()
	}
	if _, ok := t.follows[rec.ID]; ok {
		return fmt.Errorf("task %s is followed already", rec.ID)
	}
	ctx, stop := context.WithCancel(t.ctx)
	f := &follower{
		t: t, id: rec.ID, ctx: ctx, stop: stop,
		exited: make(chan struct{}), done: make(chan struct{}),
		last: rec, cur: rec,
		responses: map[string]json.RawMessage{}, sent: map[string]bool{}, skipped: map[string]bool{},
	}
	t.follows[rec.ID] = f
	t.wg.Add(1)
	go f.run(first)
	return nil
}

// Wait waits until task id has ended and OnEnd returned, and returns its
// record, or ctx's error. A task whose record vanished (its conversation
// was deleted) gives store.ErrNotFound; after Close, ErrClosed.
func (t *Tracker) Wait(ctx context.Context, id string) (store.Task, error) {
	t.mu.Lock()
	f, closed := t.follows[id], t.closed
	t.mu.Unlock()
	if f != nil {
		select {
		case <-f.done:
			return f.final, f.err
		case <-ctx.Done():
			return store.Task{}, ctx.Err()
		}
	}
	rec, err := t.opts.Store.Task(ctx, id)
	switch {
	case err != nil:
		return store.Task{}, err
	case rec.Ended():
		return rec, nil
	case closed:
		return store.Task{}, ErrClosed
	}
	return store.Task{}, fmt.Errorf("task %s: %w", id, ErrNotFollowed)
}

// Cancel asks the server to cancel task id (tasks/cancel), then records
// it cancelled at once — the extension lets a client drop a task once it
// sent the cancel — and runs OnEnd. A task that has ended already is left
// as it is. If the server cannot be told, nothing changes and the error
// says why.
func (t *Tracker) Cancel(ctx context.Context, id string) error {
	t.mu.Lock()
	f := t.follows[id]
	t.mu.Unlock()
	if f == nil {
		return t.cancelUnfollowed(ctx, id)
	}
	t.mu.Lock()
	rec, ending := f.cur, f.ending
	t.mu.Unlock()
	if ending {
		return t.waitDone(ctx, f)
	}
	if err := t.sendCancel(ctx, rec); err != nil {
		return err
	}
	if !t.claim(f) {
		return t.waitDone(ctx, f) // it ended meanwhile
	}
	f.stop()
	<-f.exited
	t.mu.Lock()
	rec = f.cur
	t.mu.Unlock()
	ectx, cancel := endContext(ctx)
	defer cancel()
	rec, err := t.end(ectx, rec, mcpconn.TaskCancelled, "")
	t.release(f, rec, err)
	if errors.Is(err, store.ErrNotFound) {
		return nil // its conversation was deleted meanwhile; the server was told
	}
	return err
}

// cancelUnfollowed cancels a task no follower has: one not resumed, or
// met while the tracker is not running.
func (t *Tracker) cancelUnfollowed(ctx context.Context, id string) error {
	rec, err := t.opts.Store.Task(ctx, id)
	if err != nil {
		return err
	}
	if rec.Ended() {
		return nil
	}
	if err := t.sendCancel(ctx, rec); err != nil {
		return err
	}
	ectx, cancel := endContext(ctx)
	defer cancel()
	if _, err := t.end(ectx, rec, mcpconn.TaskCancelled, ""); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// sendCancel sends tasks/cancel; a task the server no longer knows is as
// good as cancelled.
func (t *Tracker) sendCancel(ctx context.Context, rec store.Task) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	err := t.opts.Source.CancelTask(rctx, rec.ServerID, rec.TaskID)
	if err != nil && !errors.Is(err, mcpconn.ErrTaskNotFound) {
		return fmt.Errorf("asking %s to cancel the task: %w; nothing was changed, try again", serverName(rec), err)
	}
	t.log.Info("task cancelled", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID)
	return nil
}

func (t *Tracker) waitDone(ctx context.Context, f *follower) error {
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// List returns the task records f selects, newest first.
func (t *Tracker) List(ctx context.Context, f store.TaskFilter) ([]store.Task, error) {
	return t.opts.Store.Tasks(ctx, f)
}

// Close stops following: every follower returns, and the records that
// have not ended stay so in the store, for the next Start. A task whose
// end is being saved is let finish (OnEnd included). It is safe to call
// twice.
func (t *Tracker) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	cancel := t.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	t.wg.Wait()
	return nil
}

// claim makes the caller the one that ends f's task; false if another
// (the follower, or Cancel) is at it.
func (t *Tracker) claim(f *follower) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f.ending {
		return false
	}
	f.ending = true
	return true
}

// release ends f: it is forgotten and its waiters get rec and err.
func (t *Tracker) release(f *follower, rec store.Task, err error) {
	t.mu.Lock()
	f.final, f.err = rec, err
	delete(t.follows, f.id)
	t.mu.Unlock()
	close(f.done)
}

// end records rec ended with status (and errText, for failed), tells the
// window and runs OnEnd. A record that vanished gives store.ErrNotFound
// and no OnEnd.
func (t *Tracker) end(ctx context.Context, rec store.Task, status, errText string) (store.Task, error) {
	now := t.opts.Now()
	rec.Status, rec.UpdatedAt, rec.EndedAt = status, now, now
	if errText != "" {
		rec.Error = clip(errText, maxErrorBytes)
	}
	if err := t.opts.Store.UpdateTask(ctx, rec); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return store.Task{}, err
		}
		// OnEnd runs all the same: the result is not lost with the
		// record, which the next Start will poll again.
		t.log.Error("saving a task's end", "id", rec.ID, "err", err)
	}
	t.log.Info("task ended", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID, "status", rec.Status, "error", rec.Error)
	t.emit(rec)
	if t.opts.OnEnd != nil {
		t.opts.OnEnd(ctx, rec)
	}
	return rec, nil
}

func (t *Tracker) emit(rec store.Task) {
	if t.opts.Emit != nil {
		t.opts.Emit.Emit(EventTask, rec)
	}
}

// interval is the wait before the next poll of rec.
func (t *Tracker) interval(rec store.Task) time.Duration {
	d := (&mcpconn.Task{PollIntervalMs: rec.PollIntervalMs}).PollInterval(t.opts.DefaultPoll)
	return min(max(d, mcpconn.MinTaskPoll), mcpconn.MaxTaskPoll)
}

// A follower follows one task, in its own goroutine (run).
type follower struct {
	t      *Tracker
	id     string
	ctx    context.Context
	stop   context.CancelFunc
	exited chan struct{} // closed when run returns
	done   chan struct{} // closed by release; final and err are set then

	// Owned by run.
	last      store.Task                 // as last saved (or tried)
	dirty     bool                       // the last save failed
	responses map[string]json.RawMessage // answers made and not yet delivered
	sent      map[string]bool            // input keys answered
	skipped   map[string]bool            // input keys left unanswered

	// Under Tracker.mu.
	cur    store.Task // the record as the follower last saw it
	ending bool       // the task is being ended (see claim)

	// Set by release before done is closed.
	final store.Task
	err   error
}

// errGone is a follower's way out when its record vanished.
var errGone = errors.New("the task's record was deleted")

// run polls the task until it ends or the follower is stopped. first is
// the state Track got with the task; nil when resuming, which polls at
// once.
func (f *follower) run(first *mcpconn.Task) {
	t := f.t
	defer t.wg.Done()
	defer close(f.exited)
	ctx := f.ctx
	rec := f.last
	if first != nil && !ended(rec.Status) {
		t.emit(rec)
	}
	state := first
	var delay time.Duration
	polled := first != nil // a resumed task is polled before it may expire
	pollErrs, updateErrs := 0, 0
	for {
		if state != nil {
			rec = apply(rec, state)
			if ended(rec.Status) {
				f.finish(rec, rec.Status, "")
				return
			}
			var err error
			if rec, err = f.save(ctx, rec); err != nil {
				f.gone(err)
				return
			}
			delay = t.interval(rec)
			if state.Status == mcpconn.TaskInputRequired {
				err := f.answer(ctx, rec, state.InputRequests)
				switch {
				case err == nil:
					updateErrs = 0
				case ctx.Err() != nil:
					f.stopped()
					return
				case errors.Is(err, mcpconn.ErrTaskNotFound):
					f.finish(rec, mcpconn.TaskFailed, MessageLost)
					return
				case errors.Is(err, errTooManyInputs):
					f.finish(rec, mcpconn.TaskFailed, err.Error())
					return
				default:
					updateErrs++
					t.log.Warn("answering a task's input requests", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID, "attempt", updateErrs, "err", err)
					if updateErrs >= t.opts.MaxPollErrors {
						f.finish(rec, mcpconn.TaskFailed, fmt.Sprintf("could not send the answers the task waits for, %d times (last: %v); the task may still wait on the server", updateErrs, err))
						return
					}
				}
			}
		}
		if polled && rec.TTLMs > 0 && t.opts.Now().After(rec.CreatedAt.Add(time.Duration(rec.TTLMs)*time.Millisecond)) {
			f.finish(rec, mcpconn.TaskFailed, fmt.Sprintf("%s: the task had not finished %v after it started, the time the server keeps it", MessageExpired, time.Duration(rec.TTLMs)*time.Millisecond))
			return
		}
		if !sleep(ctx, delay) {
			f.stopped()
			return
		}
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		st, err := t.opts.Source.GetTask(rctx, rec.ServerID, rec.TaskID)
		cancel()
		polled = true
		switch {
		case err == nil && st == nil:
			err = fmt.Errorf("%w: no task", mcpconn.ErrMalformedTask)
		case err == nil:
			state, pollErrs = st, 0
			continue
		case ctx.Err() != nil:
			f.stopped()
			return
		}
		state = nil
		switch {
		case errors.Is(err, mcpconn.ErrTaskNotFound):
			f.finish(rec, mcpconn.TaskFailed, MessageLost)
			return
		case errors.Is(err, mcpconn.ErrMalformedTask):
			f.finish(rec, mcpconn.TaskFailed, fmt.Sprintf("the server sent a task state this client cannot follow: %v", err))
			return
		case errors.Is(err, mcpconn.ErrUnknownServer):
			f.finish(rec, mcpconn.TaskFailed, fmt.Sprintf("%s was removed, and its task with it", serverName(rec)))
			return
		}
		pollErrs++
		t.log.Warn("polling a task", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID, "attempt", pollErrs, "err", err)
		if pollErrs >= t.opts.MaxPollErrors {
			f.finish(rec, mcpconn.TaskFailed, fmt.Sprintf("gave up after %d failed polls (last: %v); the task may still run on %s", pollErrs, err, serverName(rec)))
			return
		}
		delay = backoff(t.interval(rec), pollErrs)
	}
}

// save saves rec if it changed, and emits it if what the window shows
// changed. Only a vanished record is an error (errGone); another failure
// is logged and the save tried again at the next change.
func (f *follower) save(ctx context.Context, rec store.Task) (store.Task, error) {
	if rec.Status == f.last.Status && rec.StatusMessage == f.last.StatusMessage &&
		rec.PollIntervalMs == f.last.PollIntervalMs && rec.TTLMs == f.last.TTLMs && !f.dirty {
		return rec, nil
	}
	shown := rec.Status != f.last.Status || rec.StatusMessage != f.last.StatusMessage
	rec.UpdatedAt = f.t.opts.Now()
	err := f.t.opts.Store.UpdateTask(ctx, rec)
	if errors.Is(err, store.ErrNotFound) {
		return rec, fmt.Errorf("%w: %w", errGone, err)
	}
	f.dirty = err != nil
	if err != nil && ctx.Err() == nil {
		f.t.log.Error("saving a task", "id", rec.ID, "err", err)
	}
	f.last = rec
	f.t.mu.Lock()
	f.cur = rec
	f.t.mu.Unlock()
	if shown {
		f.t.emit(rec)
	}
	return rec, nil
}

// finish ends the task with status, unless Cancel is ending it. It is not
// cut short by Close: the end is saved and OnEnd runs.
func (f *follower) finish(rec store.Task, status, errText string) {
	if !f.t.claim(f) {
		return
	}
	ctx, cancel := endContext(f.ctx)
	defer cancel()
	rec, err := f.t.end(ctx, rec, status, errText)
	if err != nil {
		f.t.log.Info("task record deleted; cancelling the task", "id", f.id, "serverId", f.last.ServerID, "taskId", f.last.TaskID)
		f.forget(ctx, f.last)
		err = fmt.Errorf("%w: %w", errGone, err)
		rec = store.Task{}
	}
	f.t.release(f, rec, err)
}

// gone ends a follower whose record vanished, its conversation deleted:
// the server is asked to cancel the task, whose result has nowhere to go.
func (f *follower) gone(err error) {
	if !f.t.claim(f) {
		return
	}
	f.t.log.Info("task record deleted; cancelling the task", "id", f.id, "serverId", f.last.ServerID, "taskId", f.last.TaskID)
	f.forget(f.ctx, f.last)
	f.t.release(f, store.Task{}, err)
}

// forget asks the server to cancel a task no one wants any more; best
// effort.
func (f *follower) forget(ctx context.Context, rec store.Task) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if err := f.t.opts.Source.CancelTask(rctx, rec.ServerID, rec.TaskID); err != nil && !errors.Is(err, mcpconn.ErrTaskNotFound) {
		f.t.log.Warn("cancelling a task no one waits for", "id", rec.ID, "serverId", rec.ServerID, "taskId", rec.TaskID, "err", err)
	}
}

// stopped ends a follower stopped by Close (Cancel, which stops it too,
// releases it itself).
func (f *follower) stopped() {
	if f.t.claim(f) {
		f.t.release(f, store.Task{}, ErrClosed)
	}
}

var errTooManyInputs = fmt.Errorf("the server asked for more than %d inputs; the task was given up", maxInputKeys)

// answer answers the input requests not answered yet, in one tasks/update.
// Answers not delivered are kept and sent again after the next poll;
// each request is put to Answer once.
func (f *follower) answer(ctx context.Context, rec store.Task, reqs map[string]mcpconn.TaskInputRequest) error {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := map[string]json.RawMessage{}
	for _, k := range keys {
		if f.sent[k] || f.skipped[k] {
			continue
		}
		resp, ok := f.responses[k]
		if !ok {
			if len(f.sent)+len(f.skipped)+len(f.responses) >= maxInputKeys {
				return errTooManyInputs
			}
			var err error
			resp, err = f.respond(ctx, rec, k, reqs[k])
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				f.t.log.Warn("input request left unanswered", "id", rec.ID, "taskId", rec.TaskID, "key", k, "method", reqs[k].Method, "err", err)
				f.skipped[k] = true
				continue
			}
			f.responses[k] = resp
		}
		out[k] = resp
	}
	if len(out) == 0 {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if err := f.t.opts.Source.UpdateTask(rctx, rec.ServerID, rec.TaskID, out); err != nil {
		return err
	}
	for k := range out {
		f.sent[k] = true
		delete(f.responses, k)
	}
	return nil
}

var errNoAnswer = errors.New("no one answers this kind of request")

// respond makes the answer to one input request.
func (f *follower) respond(ctx context.Context, rec store.Task, key string, req mcpconn.TaskInputRequest) (json.RawMessage, error) {
	if f.t.opts.Answer != nil {
		resp, err := f.t.opts.Answer(ctx, rec, key, req)
		if err == nil && !json.Valid(resp) {
			err = fmt.Errorf("the answer is not JSON")
		}
		return resp, err
	}
	if req.Method == methodElicit {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	return nil, errNoAnswer
}

// apply copies a server's state of the task into rec.
func apply(rec store.Task, st *mcpconn.Task) store.Task {
	rec.Status, rec.StatusMessage = st.Status, st.StatusMessage
	if st.PollIntervalMs > 0 {
		rec.PollIntervalMs = st.PollIntervalMs
	}
	rec.TTLMs = st.TTLMs
	switch st.Status {
	case mcpconn.TaskWorking, mcpconn.TaskInputRequired, mcpconn.TaskCancelled:
	case mcpconn.TaskCompleted:
		r := st.Result
		if r == nil {
			r = &mcpconn.Result{Content: []mcpconn.Content{}}
		}
		raw, err := json.Marshal(r)
		if err != nil {
			rec.Status, rec.Error = mcpconn.TaskFailed, clip(fmt.Sprintf("the task's result cannot be kept: %v", err), maxErrorBytes)
			break
		}
		rec.Result = raw
	case mcpconn.TaskFailed:
		rec.Error = "the task failed without saying why"
		if st.Error != nil {
			rec.Error = clip(fmt.Sprintf("%s (code %d)", st.Error.Message, st.Error.Code), maxErrorBytes)
		}
	default:
		rec.Status, rec.Error = mcpconn.TaskFailed, clip(fmt.Sprintf("the server gave the task an unknown status %q", st.Status), maxErrorBytes)
	}
	return rec
}

func ended(status string) bool { return mcpconn.TaskEnded(status) }

// backoff is the wait after n failed polls in a row: the interval doubled
// n times, at most MaxTaskPoll.
func backoff(d time.Duration, n int) time.Duration {
	for range n {
		if d >= mcpconn.MaxTaskPoll/2 {
			return mcpconn.MaxTaskPoll
		}
		d *= 2
	}
	return d
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// endContext is the context in which a task's end is saved and OnEnd
// runs: not cancelled with ctx, but bounded.
func endContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
}

func serverName(rec store.Task) string {
	if rec.ServerName != "" {
		return rec.ServerName
	}
	return "the server"
}

// clip cuts s to at most n bytes, on a rune boundary, ending with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

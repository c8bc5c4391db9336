package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/elicit"
)

// Steps in the browser: a URL-mode elicitation sends the user to a page,
// and the server may later say the step there is done
// (notifications/elicitation/complete). A tool call that needs such steps
// first fails with a URL-elicitation-required error; urlSteps asks the
// user to open each page, then waits until the server or the user says
// it is done, and the Manager retries the call (mcpconn/urlsteps.go).

// Bounds on the steps Switchboard listens for completions of.
const (
	maxStepsPerServer = 8
	maxSteps          = 64
	// stepTTL is how long after the user opened a page a completion of it
	// is still shown as "done".
	stepTTL = 30 * time.Minute
)

// errStepDone is the cause of a wait the server's completion ended.
var errStepDone = errors.New("the server said the step is done")

type stepKey struct{ server, id string }

// A step is a URL-mode elicitation whose completion Switchboard listens
// for: while a dialog shows it, and for stepTTL after the user opened its
// page.
type step struct {
	ctx    context.Context // cancelled with errStepDone on completion
	cancel context.CancelCauseFunc
	info   elicit.Completed
	// at is when the user opened the page; zero while the step is shown.
	at time.Time
}

// steps are the steps listened for, bounded per server and overall.
type steps struct {
	mu sync.Mutex
	by map[stepKey]*step
}

// watch listens for the completion of info's step and returns it; call
// release when no dialog shows it any more, saying whether the user opened
// its page (then a completion still shows "done" for a while). When the
// bounds are reached by steps being shown, the step is not listened for.
func (s *steps) watch(info elicit.Completed) (st *step, release func(opened bool)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	st = &step{ctx: ctx, cancel: cancel, info: info}
	key := stepKey{info.ServerID, info.ElicitationID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[stepKey]*step{}
	}
	s.pruneLocked(time.Now())
	if old := s.by[key]; old != nil { // the server reused an ID
		old.cancel(nil)
		delete(s.by, key)
	}
	if !s.roomLocked(key.server) {
		s.evictLocked(key.server, s.countLocked(key.server) >= maxStepsPerServer)
	}
	if s.roomLocked(key.server) {
		s.by[key] = st
	}
	return st, func(opened bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.by[key] != st { // never listed, completed, or replaced
			cancel(nil)
			return
		}
		if opened && st.ctx.Err() == nil {
			st.at = time.Now()
			return
		}
		delete(s.by, key)
		cancel(nil)
	}
}

// countLocked counts server's steps.
func (s *steps) countLocked(server string) int {
	n := 0
	for k := range s.by {
		if k.server == server {
			n++
		}
	}
	return n
}

// roomLocked says whether another step of server fits.
func (s *steps) roomLocked(server string) bool {
	return s.countLocked(server) < maxStepsPerServer && len(s.by) < maxSteps
}

// evictLocked drops the oldest step whose page was opened (no dialog shows
// it any more): of server when perServer, else of any server.
func (s *steps) evictLocked(server string, perServer bool) {
	var oldest stepKey
	var at time.Time
	for k, st := range s.by {
		if st.at.IsZero() || perServer && k.server != server {
			continue
		}
		if at.IsZero() || st.at.Before(at) {
			oldest, at = k, st.at
		}
	}
	if !at.IsZero() {
		s.by[oldest].cancel(nil)
		delete(s.by, oldest)
	}
}

// pruneLocked drops the steps whose page was opened more than stepTTL ago.
func (s *steps) pruneLocked(now time.Time) {
	for k, st := range s.by {
		if !st.at.IsZero() && now.Sub(st.at) > stepTTL {
			st.cancel(nil)
			delete(s.by, k)
		}
	}
}

// complete ends server's step id, if it is listened for: done reports
// whether it was, and finish, called once the window has heard, wakes
// whatever waits on it. An unknown or finished step is ignored, as MCP
// requires.
func (s *steps) complete(server, id string) (info elicit.Completed, finish func(), done bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked(time.Now())
	key := stepKey{server, id}
	st := s.by[key]
	if st == nil {
		return elicit.Completed{}, nil, false
	}
	delete(s.by, key)
	return st.info, func() { st.cancel(errStepDone) }, true
}

// elicitComplete is mcpconn.Options.ElicitComplete: the window hears that
// the step is done (its dialog, if open, closes), then whatever waits on
// it goes on.
func (a *serverAsks) elicitComplete(serverID, elicitationID string) {
	info, finish, ok := a.steps.complete(serverID, elicitationID)
	if !ok {
		return
	}
	a.note(serverID, fmt.Sprintf("the server says the step at %s is done (%q)", info.Host, clip(info.Message, 200)))
	if a.em != nil {
		a.em.Emit(elicit.EventCompleted, info)
	}
	finish()
}

// untilDone returns ctx, also cancelled (with errStepDone) when st is
// done; call stop when done with it. A nil st is never done.
func untilDone(ctx context.Context, st *step) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if st == nil {
		return ctx, func() { cancel(nil) }
	}
	unhook := context.AfterFunc(st.ctx, func() { cancel(context.Cause(st.ctx)) })
	return ctx, func() { unhook(); cancel(nil) }
}

// urlSteps is mcpconn.Options.URLSteps: a tool call of server serverID
// needs the user to visit pages first. For each, the user is asked to
// open it (nothing opens without their consent), then to say when they
// are done, unless the server says so first. It returns nil once every
// step is done, else why not.
func (a *serverAsks) urlSteps(ctx context.Context, serverID string, params []*mcp.ElicitParams) error {
	reqs := make([]*elicit.Request, len(params))
	for i, p := range params {
		if p == nil || p.Mode != string(elicit.ModeURL) || p.ElicitationID == "" {
			err := errors.New("the server named a step that is not a page to open with an elicitationId")
			a.note(serverID, fmt.Sprintf("refused the steps a call needs: %v", err))
			return err
		}
		req, err := elicit.NewRequest(p.Mode, p.Message, nil, p.URL, p.ElicitationID, true)
		if err != nil {
			a.note(serverID, fmt.Sprintf("refused the steps a call needs: %v", err))
			return err
		}
		reqs[i] = req
	}
	// Listen before asking: the server may say a step is done at any time.
	name := a.serverName(ctx, serverID)
	watched := make([]*step, len(reqs))
	for i, req := range reqs {
		st, release := a.steps.watch(elicit.Completed{ServerID: serverID, ServerName: name, ElicitationID: req.ElicitationID, Message: req.Message, Host: req.Host})
		defer release(false) // the call retries, or gives up: done either way
		watched[i] = st
	}
	for i, req := range reqs {
		if err := a.oneStep(ctx, serverID, name, req, watched[i]); err != nil {
			return err
		}
	}
	return nil
}

// oneStep asks the user to open req's page, then waits until st is done
// or the user says it is.
func (a *serverAsks) oneStep(ctx context.Context, serverID, name string, req *elicit.Request, st *step) error {
	sctx, stop := untilDone(ctx, st)
	defer stop()
	ans, err := a.ask(sctx, serverID, name, req, false)
	if errors.Is(err, errStepDone) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("asking the user to open %s: %w", req.Host, err)
	}
	if ans.Action != elicit.Accept {
		return fmt.Errorf("the user chose not to open %s (%s)", req.Host, ans.Action)
	}
	ans, err = a.ask(sctx, serverID, name, req.WaitFor(), true)
	switch {
	case errors.Is(err, errStepDone):
		return nil
	case err != nil:
		return fmt.Errorf("waiting for the user to finish at %s: %w", req.Host, err)
	case ans.Action != elicit.Accept:
		return fmt.Errorf("the user gave up on the step at %s", req.Host)
	}
	return nil
}

// ask puts req to the user and notes in the server's log how it ended.
// follow says it continues a request the user just answered (no rate
// token). The error is the broker's (asks.ErrNoWindow, …), ctx's, or
// errStepDone when the server said the step is done first.
func (a *serverAsks) ask(ctx context.Context, serverID, name string, req *elicit.Request, follow bool) (elicit.Answer, error) {
	what := req.Summary()
	askf := a.elicit.Ask
	if follow {
		askf = a.elicit.Follow
	}
	ans, err := askf(ctx, serverID, name, req, what)
	switch {
	case err == nil:
		a.note(serverID, fmt.Sprintf("the user answered the server's request for input %s: %s", what, ans.Action))
	case errors.Is(context.Cause(ctx), errStepDone):
		a.note(serverID, fmt.Sprintf("the request for input %s was closed: the server said the step is done", what))
		return elicit.Answer{}, errStepDone
	case errors.Is(err, asks.ErrNoWindow), errors.Is(err, asks.ErrBusy), errors.Is(err, asks.ErrRateLimited):
		a.note(serverID, fmt.Sprintf("declined the server's request for input %s without asking: %v", what, err))
	case errors.Is(err, asks.ErrExpired), errors.Is(err, asks.ErrClosed):
		a.note(serverID, fmt.Sprintf("the server's request for input %s ended unanswered (%v)", what, err))
	default:
		a.note(serverID, fmt.Sprintf("the server stopped waiting for its request for input %s", what))
	}
	return ans, err
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

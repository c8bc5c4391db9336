package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Progress is a progress notification for a running tool call.
type Progress struct {
	Progress float64 `json:"progress"`
	// Total is zero when unknown.
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// DefaultMaxCallDuration is the longest a tool call may run, whatever
// progress it reports, when Options.MaxCallDuration is zero.
const DefaultMaxCallDuration = 10 * time.Minute

// Bounds on the progress notifications of a call passed on to onProgress.
const (
	// maxProgressMessage bounds a progress message, in bytes; a longer one
	// is clipped and ends with "…".
	maxProgressMessage = 500
	// progressInterval is the least time between two onProgress calls of
	// one call: at most ten a second, the latest one delivered at the end
	// of the interval.
	progressInterval = 100 * time.Millisecond
)

// errCallLimit is the cause of a call that ran for the longest a call may.
var errCallLimit = errors.New("call ran for its longest")

// CallTool calls a tool by its exposed name with args (a JSON object; empty
// means {}).
//
// The call times out after the server's Config.Timeout() without news: each
// progress notification restarts the clock, so a long call that reports
// progress stays alive, but no longer than Options.MaxCallDuration (or the
// server's timeout, if longer) in all: then it ends with ErrCallTimeout
// too. Cancelling ctx, or a timeout, sends notifications/cancelled to the
// server. onProgress, if not nil, gets at most ten notifications a second
// (the latest one wins), messages clipped to 500 bytes; it runs on the
// session's read loop or a timer's goroutine, one call at a time, and must
// return quickly; it is never called after CallTool returns.
//
// The error is non-nil only when there is no answer: unknown or disabled
// tool, server not connected, invalid args, timeout, cancellation, or the
// connection lost mid-call (ErrServerGone, with the server's exit reason).
// A tool that fails, or a server answering with a JSON-RPC error, gives a
// Result with IsError set, which the model should see.
func (m *Manager) CallTool(ctx context.Context, name string, args json.RawMessage, onProgress func(Progress)) (*Result, error) {
	m.mu.Lock()
	key, ok := m.byName[name]
	var servers []*server
	if !ok {
		servers = m.serversLocked()
	}
	m.mu.Unlock()
	if !ok {
		// A server that lost its session has left the registry; its
		// tools are still known while it reconnects, or until it is
		// connected again.
		for _, s := range servers {
			if t, found := s.lastTool(func(t Tool) bool { return t.Name == name }); found {
				key, ok = toolKey{server: s.id, tool: t.OriginalName}, true
				break
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	ref := ToolRef{ServerID: key.server, Tool: key.tool}
	return m.withURLSteps(ctx, name, ref.ServerID, func() (*Result, error) { return m.call(ctx, name, ref, args, onProgress) })
}

// lastTool finds a tool of the server's last session that matches.
func (s *server) lastTool(match func(Tool) bool) (Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.lastTools {
		if match(t) {
			return t, true
		}
	}
	return Tool{}, false
}

// CallToolRef is CallTool for the tool ref names: the call goes to that
// server's tool whatever its exposed name is now, and fails with
// ErrToolChanged when ref.DefinitionHash is set and the tool's definition
// is no longer the one it names (the server changed the tool after the
// call was approved).
func (m *Manager) CallToolRef(ctx context.Context, ref ToolRef, args json.RawMessage, onProgress func(Progress)) (*Result, error) {
	name := ref.ServerID + "/" + ref.Tool
	// A retry after the user's steps in the browser (urlsteps.go) checks
	// the definition again: it may have changed meanwhile.
	return m.withURLSteps(ctx, name, ref.ServerID, func() (*Result, error) {
		t, ok := m.toolOf(ref.ServerID, ref.Tool)
		if !ok {
			return nil, fmt.Errorf("%w: %s/%s", ErrUnknownTool, ref.ServerID, ref.Tool)
		}
		if ref.DefinitionHash != "" && ref.DefinitionHash != t.DefinitionHash {
			return nil, fmt.Errorf("%w: %s", ErrToolChanged, t.Name)
		}
		return m.call(ctx, t.Name, ref, args, onProgress)
	})
}

// toolOf finds server serverID's tool of that (original) name: in the
// registry, or, while the server reconnects, among its last session's.
func (m *Manager) toolOf(serverID, tool string) (Tool, bool) {
	m.mu.Lock()
	for _, t := range m.regTools[serverID] {
		if t.OriginalName == tool {
			m.mu.Unlock()
			return t, true
		}
	}
	s := m.servers[serverID]
	m.mu.Unlock()
	if s == nil {
		return Tool{}, false
	}
	return s.lastTool(func(t Tool) bool { return t.OriginalName == tool })
}

// call runs ref's tool; name is how errors name it.
func (m *Manager) call(ctx context.Context, name string, ref ToolRef, args json.RawMessage, onProgress func(Progress)) (*Result, error) {
	key := toolKey{server: ref.ServerID, tool: ref.Tool}
	m.mu.Lock()
	s := m.servers[key.server]
	m.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	sess, cfg, listed, err := s.liveSession(ctx, key.tool)
	if err != nil {
		return nil, err
	}
	if slices.Contains(cfg.DisabledTools, key.tool) {
		return nil, fmt.Errorf("%w: %s", ErrToolDisabled, name)
	}
	if ref.Fingerprint != "" && serverconf.Fingerprint(&cfg) != ref.Fingerprint {
		return nil, fmt.Errorf("%w: the configuration of %s changed", ErrToolChanged, cfg.DisplayName())
	}
	if !listed {
		return nil, fmt.Errorf("%w: %s (%s no longer lists it)", ErrUnknownTool, name, cfg.DisplayName())
	}
	arguments, err := normalizeArgs(args)
	if err != nil {
		return nil, err
	}

	timeout := cfg.Timeout()
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopOnEnd := context.AfterFunc(sess.ctx, func() { cancel(&stoppedError{sess.stopCause()}) })
	defer stopOnEnd()
	timer := time.AfterFunc(timeout, func() { cancel(ErrCallTimeout) })
	defer timer.Stop()
	limit := max(m.opts.MaxCallDuration, timeout)
	deadline := time.AfterFunc(limit, func() { cancel(errCallLimit) })
	defer deadline.Stop()
	// A notification racing the result must not reach onProgress after
	// CallTool returned: finished, under progMu, closes the gate. Each
	// notification becomes pending (replacing an older one), delivered at
	// once if the last delivery is progressInterval old, else by flush
	// when it is; while flush is armed, it alone delivers.
	var progMu sync.Mutex
	finished := false
	var lastSent time.Time
	var pending *Progress
	var flushTimer *time.Timer // armed while not nil
	var deliver func()
	flush := func() {
		progMu.Lock()
		defer progMu.Unlock()
		flushTimer = nil
		if !finished {
			deliver()
		}
	}
	deliver = func() { // progMu held
		if pending == nil {
			return
		}
		if wait := progressInterval - time.Since(lastSent); wait > 0 {
			flushTimer = time.AfterFunc(wait, flush)
			return
		}
		p := *pending
		pending, lastSent = nil, time.Now()
		onProgress(p)
	}
	token, unwatch := sess.watchProgress(func(p *mcp.ProgressNotificationParams) {
		progMu.Lock()
		defer progMu.Unlock()
		if finished {
			return
		}
		timer.Reset(timeout)
		if onProgress == nil {
			return
		}
		msg, cut := clipBytes(p.Message, maxProgressMessage)
		if cut {
			msg += "…"
		}
		pending = &Progress{Progress: p.Progress, Total: p.Total, Message: msg}
		if flushTimer == nil {
			deliver()
		}
	})
	defer func() {
		unwatch()
		progMu.Lock()
		finished = true
		if flushTimer != nil {
			flushTimer.Stop()
		}
		progMu.Unlock()
	}()

	params := &mcp.CallToolParams{Name: key.tool, Arguments: arguments}
	params.SetProgressToken(token)
	sess.withLogLevel(params)
	sinkCtx, sink := withTaskSink(callCtx)
	res, err := sess.cs.CallTool(sinkCtx, params)
	if err == nil {
		out := newResult(res, m.opts.ResultLimit)
		task, terr := sink.task(cfg.ID, m.opts.ResultLimit)
		switch {
		case terr != nil:
			return errorResult(fmt.Sprintf("%s answered with a task Switchboard cannot follow: %v", cfg.DisplayName(), terr), m.opts.ResultLimit), nil
		case task != nil:
			out.Task = task
		}
		out.checkStructured(s.outputSchemaOf(key.tool))
		return out, nil
	}

	cause := context.Cause(callCtx)
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("calling %s: %w", name, context.Cause(ctx))
	case errors.Is(cause, errCallLimit):
		return nil, fmt.Errorf("%w: %s hit the absolute limit of %s a call may run, progress or not; if the tool needs longer, raise the server's timeout",
			ErrCallTimeout, name, limit)
	case errors.Is(cause, ErrCallTimeout):
		return nil, fmt.Errorf("%w: %s sent no result or progress for %s", ErrCallTimeout, name, timeout)
	case errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeURLElicitationRequired:
		return nil, urlStepsOf(cfg.DisplayName(), rpcErr) // for withURLSteps
	case errors.As(err, &rpcErr):
		return errorResult(fmt.Sprintf("MCP error %d: %s", rpcErr.Code, rpcErr.Message), m.opts.ResultLimit), nil
	case isFrameTooLarge(err):
		return nil, fmt.Errorf("%w: the server sent a message larger than %d MiB, so the connection was closed and is being re-established", ErrServerGone, MaxMessageBytes>>20)
	case errors.Is(cause, errSessionStopped), errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed), sess.ended():
		select { // learn why, if the session is ending on its own
		case <-sess.done:
		case <-time.After(time.Second):
		}
		if sess.ended() && sess.endErr != nil {
			return nil, fmt.Errorf("%w: %v", ErrServerGone, sess.endErr)
		}
		return nil, fmt.Errorf("%w: %v", ErrServerGone, err)
	default:
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
}

// liveSession returns the server's live session, its config read with it,
// and whether the session lists tool. A session being established (the
// server connecting, or reconnecting after a crash) is waited for, until
// ctx is done or the server's call timeout passed, whichever comes first;
// a server with no session coming says truly why (failed, disconnected).
func (s *server) liveSession(ctx context.Context, tool string) (*session, serverconf.Config, bool, error) {
	var timer <-chan time.Time
	for {
		s.mu.Lock()
		sess, cfg, st, running := s.sess, s.cfg, s.status, s.runningLocked()
		listed := slices.ContainsFunc(s.tools, func(t toolInfo) bool { return t.name == tool })
		changed := s.changedLocked()
		s.mu.Unlock()
		if sess != nil && !sess.ended() {
			return sess, cfg, listed, nil
		}
		// No session, or one that ended and is about to be detached.
		name := cfg.DisplayName()
		switch {
		case st.State == StateFailed:
			return nil, cfg, false, fmt.Errorf("%w: %s failed: %s", ErrNotConnected, name, st.Reason)
		case st.State == StateNeedsAuth:
			return nil, cfg, false, fmt.Errorf("%w: %s needs authorization; sign in from the server's settings", ErrNotConnected, name)
		case !running:
			return nil, cfg, false, fmt.Errorf("%w: %s is disconnected; connect it first", ErrNotConnected, name)
		}
		if timer == nil {
			t := time.NewTimer(cfg.Timeout())
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, cfg, false, fmt.Errorf("%w: %s is still %s (%v)", ErrNotConnected, name, waitingFor(st), context.Cause(ctx))
		case <-timer:
			return nil, cfg, false, fmt.Errorf("%w: %s is still %s after %s", ErrNotConnected, name, waitingFor(st), cfg.Timeout())
		}
	}
}

// waitingFor says what a server without a session but with a supervisor
// is doing, for an error.
func waitingFor(st Status) string {
	if st.State == StateConnecting {
		return "connecting"
	}
	if st.Reason != "" {
		return "reconnecting: " + st.Reason
	}
	return "reconnecting"
}

// isFrameTooLarge reports whether err is the SDK's refusal of a message
// past IOTransport.MaxLineLength. The SDK keeps that error unexported, so
// its text is matched; TestResultPastMessageLimit fails if it changes, and
// an exported sentinel upstream would let this go.
func isFrameTooLarge(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded the configured maximum line length")
}

// normalizeArgs checks args is a JSON object; empty or null means {}.
func normalizeArgs(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, fmt.Errorf("%w: %.200s", ErrInvalidArguments, trimmed)
	}
	return json.RawMessage(trimmed), nil
}

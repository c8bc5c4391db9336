package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is a progress notification for a running tool call.
type Progress struct {
	Progress float64 `json:"progress"`
	// Total is zero when unknown.
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// CallTool calls a tool by its exposed name with args (a JSON object; empty
// means {}).
//
// The call times out after the server's Config.Timeout() without news: each
// progress notification restarts the clock, so a long call that reports
// progress stays alive. Cancelling ctx, or the timeout, sends
// notifications/cancelled to the server. onProgress, if not nil, runs on
// the session's read loop and must return quickly; it is never called after
// CallTool returns.
//
// The error is non-nil only when there is no answer: unknown or disabled
// tool, server not connected, invalid args, timeout, cancellation, or the
// connection lost mid-call (ErrServerGone, with the server's exit reason).
// A tool that fails, or a server answering with a JSON-RPC error, gives a
// Result with IsError set, which the model should see.
func (m *Manager) CallTool(ctx context.Context, name string, args json.RawMessage, onProgress func(Progress)) (*Result, error) {
	m.mu.Lock()
	key, ok := m.byName[name]
	s := m.servers[key.server]
	m.mu.Unlock()
	if !ok || s == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	s.mu.Lock()
	sess, cfg, state := s.sess, s.cfg, s.status.State
	s.mu.Unlock()
	if slices.Contains(cfg.DisabledTools, key.tool) {
		return nil, fmt.Errorf("%w: %s", ErrToolDisabled, name)
	}
	if sess == nil {
		return nil, fmt.Errorf("%w: %s is %s", ErrNotConnected, cfg.DisplayName(), state)
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
	// A notification racing the result must not reach onProgress after
	// CallTool returned: finished, under progMu, closes the gate.
	var progMu sync.Mutex
	finished := false
	token, unwatch := sess.watchProgress(func(p *mcp.ProgressNotificationParams) {
		progMu.Lock()
		defer progMu.Unlock()
		if finished {
			return
		}
		timer.Reset(timeout)
		if onProgress != nil {
			onProgress(Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
	})
	defer func() {
		unwatch()
		progMu.Lock()
		finished = true
		progMu.Unlock()
	}()

	params := &mcp.CallToolParams{Name: key.tool, Arguments: arguments}
	params.SetProgressToken(token)
	res, err := sess.cs.CallTool(callCtx, params)
	if err == nil {
		return newResult(res, m.opts.ResultLimit), nil
	}

	cause := context.Cause(callCtx)
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("calling %s: %w", name, context.Cause(ctx))
	case errors.Is(cause, ErrCallTimeout):
		return nil, fmt.Errorf("%w: %s sent no result or progress for %s", ErrCallTimeout, name, timeout)
	case errors.As(err, &rpcErr):
		return errorResult(fmt.Sprintf("MCP error %d: %s", rpcErr.Code, rpcErr.Message), m.opts.ResultLimit), nil
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

package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Errors of the requests other than tool calls (resources, prompts,
// completion), to check with errors.Is.
var (
	// ErrNotOffered means the server does not offer what was asked (its
	// capabilities list no resources, prompts, completion or resource
	// updates).
	ErrNotOffered = errors.New("not offered by the server")
	// ErrServerRefused means the server answered with a JSON-RPC error
	// (an unknown resource or prompt, a missing argument).
	ErrServerRefused = errors.New("the server refused the request")
	// ErrResourceTooLarge means a resource is larger than MaxResourceBytes.
	ErrResourceTooLarge = errors.New("resource too large")
)

// errRequestTimeout is the cause of a request that ran past its
// server's timeout.
var errRequestTimeout = errors.New("request timeout")

// Offers says what a server offers besides tools, from the capabilities
// it declared when it connected (Status.Offers).
type Offers struct {
	// Resources: it lists and reads resources (and resource templates).
	Resources bool `json:"resources,omitempty"`
	// Subscribe: it sends updates of a resource a client subscribes to.
	Subscribe bool `json:"subscribe,omitempty"`
	// Prompts: it lists prompts and fills them in.
	Prompts bool `json:"prompts,omitempty"`
	// Completions: it suggests values for prompt and resource template
	// arguments (completion/complete).
	Completions bool `json:"completions,omitempty"`
}

// offers reads what the session's server declared.
func (s *session) offers() *Offers {
	res := s.cs.InitializeResult()
	if res == nil || res.Capabilities == nil {
		return &Offers{}
	}
	c := res.Capabilities
	return &Offers{
		Resources:   c.Resources != nil,
		Subscribe:   c.Resources != nil && c.Resources.Subscribe,
		Prompts:     c.Prompts != nil,
		Completions: c.Completions != nil,
	}
}

// request runs f on server id's live session (waiting for one being
// established, as a call does), under the server's timeout and the
// session's life; what names the request in errors ("read resource X").
// offered, when not nil, is checked first, so that a server without the
// capability is told apart from a server that refuses.
func (m *Manager) request(ctx context.Context, id, what string, offered func(*Offers) error, f func(context.Context, *session) error) error {
	m.mu.Lock()
	s := m.servers[id]
	m.mu.Unlock()
	if s == nil {
		return fmt.Errorf("%w: %s", ErrUnknownServer, id)
	}
	sess, cfg, _, err := s.liveSession(ctx, "")
	if err != nil {
		return err
	}
	if offered != nil {
		if err := offered(sess.offers()); err != nil {
			return err
		}
	}
	timeout := cfg.Timeout()
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopOnEnd := context.AfterFunc(sess.ctx, func() { cancel(&stoppedError{sess.stopCause()}) })
	defer stopOnEnd()
	timer := time.AfterFunc(timeout, func() { cancel(errRequestTimeout) })
	defer timer.Stop()
	err = f(reqCtx, sess)
	if err == nil {
		return nil
	}
	return requestError(cfg, what, sess, ctx, reqCtx, err)
}

// requestError says why a request of request failed.
func requestError(cfg serverconf.Config, what string, sess *session, ctx, reqCtx context.Context, err error) error {
	if errors.Is(err, ErrResourceTooLarge) || errors.Is(err, ErrNotOffered) {
		return err // already says what happened
	}
	name := cfg.DisplayName()
	cause := context.Cause(reqCtx)
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, context.Cause(ctx))
	case errors.Is(cause, errRequestTimeout):
		return fmt.Errorf("%s: %s sent no answer within %s (its timeout, in its settings)", what, name, cfg.Timeout())
	case errors.As(err, &rpcErr):
		msg, _ := clipBytes(rpcErr.Message, 500)
		return &sentinelError{sentinel: ErrServerRefused, msg: fmt.Sprintf("%s: %s answered with an error: %s (MCP error %d)", what, name, msg, rpcErr.Code)}
	case isFrameTooLarge(err):
		return fmt.Errorf("%s: %w: the server sent a message larger than %d MiB, so the connection was closed and is being re-established", what, ErrServerGone, MaxMessageBytes>>20)
	case errors.Is(cause, errSessionStopped), errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed), sess.ended():
		select { // learn why, if the session is ending on its own
		case <-sess.done:
		case <-time.After(time.Second):
		}
		if sess.ended() && sess.endErr != nil {
			return fmt.Errorf("%s: %w: %v", what, ErrServerGone, sess.endErr)
		}
		return fmt.Errorf("%s: %w: %v", what, ErrServerGone, err)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// notOffered is the error for a server that lacks a capability; has says
// what it would offer ("resources").
func notOffered(name, has string) error {
	return &sentinelError{sentinel: ErrNotOffered, msg: fmt.Sprintf("%s does not offer %s (its capabilities do not list them)", name, has)}
}

// A throttle runs a function for a key at most once per interval: a call
// within the interval of the last run is put off to the interval's end,
// and further calls meanwhile are merged into that one. It bounds the
// events a server's notifications turn into.
type throttle struct {
	interval time.Duration // zero means notifyInterval

	mu      sync.Mutex
	last    map[string]time.Time // last run per key
	pending map[string]bool      // a run is put off
}

// maxThrottleKeys bounds the keys a throttle remembers; past it, the
// oldest are forgotten (a forgotten key runs at once next time).
const maxThrottleKeys = 4096

func (t *throttle) do(key string, f func()) {
	t.mu.Lock()
	if t.last == nil {
		t.last, t.pending = map[string]time.Time{}, map[string]bool{}
	}
	if t.pending[key] {
		t.mu.Unlock()
		return
	}
	wait := t.every() - time.Since(t.last[key])
	if wait <= 0 {
		t.mark(key)
		t.mu.Unlock()
		f()
		return
	}
	t.pending[key] = true
	t.mu.Unlock()
	time.AfterFunc(wait, func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mark(key)
		t.mu.Unlock()
		f()
	})
}

func (t *throttle) every() time.Duration {
	if t.interval > 0 {
		return t.interval
	}
	return notifyInterval
}

// mark records a run of key now; t.mu is held.
func (t *throttle) mark(key string) {
	if len(t.last) >= maxThrottleKeys {
		horizon := time.Now().Add(-t.every())
		for k, at := range t.last {
			if at.Before(horizon) {
				delete(t.last, k)
			}
		}
	}
	t.last[key] = time.Now()
}

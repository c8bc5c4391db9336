package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/clients"
)

// A note is what a handler tells the audit about its request: the
// conversation it named and, when it refused, why.
type note struct {
	conv   string
	denied bool
	reason string
}

type noteKey struct{}

// noteOf returns the note of the request ctx belongs to; a throwaway one
// outside a request.
func noteOf(ctx context.Context) *note {
	if n, ok := ctx.Value(noteKey{}).(*note); ok {
		return n
	}
	return &note{}
}

// deny marks the request refused for reason (which never holds a title or
// a message's text) and returns the error the client reads.
func deny(ctx context.Context, conv, reason string) error {
	n := noteOf(ctx)
	n.conv, n.denied, n.reason = clipID(conv), true, reason
	return errors.New(reason)
}

// denied turns a grant check's error into the refusal the client reads: a
// clients.Denied says why; anything else (the database) refuses too, as a
// check that cannot be made fails closed.
func denied(ctx context.Context, conv string, err error) error {
	if d, ok := errors.AsType[*clients.Denied](err); ok {
		return deny(ctx, conv, d.Reason)
	}
	return deny(ctx, conv, "Switchboard could not check this app's access just now; try again")
}

// clipID bounds an ID a client sent before it is audited.
func clipID(s string) string { return clip(s, 64) }

// clip shortens s to n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// operation names a request in the audit: the method, and a tool call's
// tool.
func operation(method string, req mcp.Request) string {
	if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
		return "tools/call " + clip(r.Params.Name, 64)
	}
	return clip(method, 64)
}

// middleware checks, limits and audits every request of sess but pings and
// notifications: the client is looked up again (revoked or removed: the
// request is refused and the session ends), its token bucket is taken
// from, and the handler runs with a context that Switchboard cancels when
// it ends the session.
func (s *Server) middleware(sess *session) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "ping" || strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.bind(sess, ss)
			}
			op := operation(method, req)
			if sess.ctx.Err() != nil {
				return nil, errors.New("this session has ended; " + sess.whyEnded())
			}
			if err := s.recheck(ctx, sess); err != nil {
				s.record(ctx, sess, op, "", false, err.Error())
				if ended, ok := errors.AsType[*endedError](err); ok {
					// The session ends once this refusal is on its way.
					s.endAfter(sess, ended.why, answerGrace)
				}
				return nil, err
			}
			if !s.take(ctx, sess, op) {
				return nil, fmt.Errorf("too many requests: this app may make %g a second; slow down", s.opts.Rate)
			}
			n := &note{}
			hctx, cancel := context.WithCancel(context.WithValue(ctx, noteKey{}, n))
			stop := context.AfterFunc(sess.ctx, cancel)
			var res mcp.Result
			var err error
			if method == "resources/list" {
				res, err = s.listResources(hctx, sess, req)
			} else {
				res, err = next(hctx, method, req)
			}
			stop()
			cancel()
			reason := n.reason
			if err != nil && !n.denied {
				reason = "failed: " + clip(err.Error(), 200)
			}
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError && !n.denied && reason == "" {
				reason = "failed: " + clip(toolErrorText(r), 200)
			}
			s.record(ctx, sess, op, n.conv, !n.denied, reason)
			return res, err
		}
	}
}

func toolErrorText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return "the tool reported an error"
}

func (sess *session) whyEnded() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.why == "" {
		return "reconnect"
	}
	return sess.why
}

// answerGrace is how long a session that a request found revoked stays
// open for that request's refusal to reach the client. It costs nothing:
// every request meanwhile is refused the same way. Generous, so that a
// loaded machine still gets the refusal out before the session ends.
const answerGrace = 2 * time.Second

// An endedError refuses a request because the session's client is gone:
// the session ends.
type endedError struct{ why string }

func (e *endedError) Error() string { return e.why }

// recheck looks the session's client up again: removed or revoked, it
// returns an *endedError; a lookup that fails refuses the request only.
func (s *Server) recheck(ctx context.Context, sess *session) error {
	cl, err := s.opts.Registry.Get(ctx, sess.client.ID)
	switch {
	case errors.Is(err, clients.ErrNoClient):
		return &endedError{"this app was removed from Switchboard"}
	case err != nil:
		return errors.New("Switchboard could not check this app's access just now; try again")
	case !cl.RevokedAt.IsZero():
		return &endedError{"this app's access was revoked in Switchboard"}
	case cl.TokenTag != sess.client.TokenTag:
		return &endedError{tokenReplaced}
	}
	return nil
}

// tokenReplaced ends the sessions opened with a token the user replaced.
const tokenReplaced = "this app's token was replaced in Switchboard; connect again with the new token"

// record audits one request of sess and tells the window.
func (s *Server) record(ctx context.Context, sess *session, op, conv string, allowed bool, reason string) {
	s.audit(ctx, clients.AuditEntry{ClientID: sess.client.ID, ClientName: sess.client.Name, Transport: sess.transport,
		Operation: op, ConversationID: conv, Allowed: allowed, Reason: reason})
}

func (s *Server) audit(ctx context.Context, e clients.AuditEntry) {
	e.At = s.opts.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.opts.Registry.Record(rctx, e); err != nil {
		s.log.Warn("auditing a connected app's request", "client", e.ClientName, "operation", e.Operation, "err", err)
	}
	if s.opts.Emitter != nil {
		s.opts.Emitter.Emit(EventActivity, e)
	}
}

// floodWindow is how often a flood of refused requests (rate limit, bad
// tokens) is audited: once per window, as a count.
const floodWindow = time.Minute

// A throttle counts refusals to audit them as one summary per window.
type throttle struct {
	pending int       // refusals not yet audited
	last    time.Time // when the last summary was audited
}

// add counts one refusal at now and reports how many to audit now (0:
// none, it is counted for the next summary).
func (t *throttle) add(now time.Time) int {
	t.pending++
	if now.Sub(t.last) < floodWindow {
		return 0
	}
	n := t.pending
	t.pending, t.last = 0, now
	return n
}

// flush returns the refusals counted and not audited once the window
// passed since the last summary, and resets the count.
func (t *throttle) flush(now time.Time) int {
	if t.pending == 0 || now.Sub(t.last) < floodWindow {
		return 0
	}
	n := t.pending
	t.pending, t.last = 0, now
	return n
}

// A bucket is one client's token bucket, its refusals, and its turns.
type bucket struct {
	tokens  float64
	at      time.Time
	refused throttle
	// name and transport of the client, for the flushed summary.
	name, transport string
	turns           int // send_message turns running
}

// take takes a token from sess's client's bucket; when none is left the
// request is refused, and audited as part of a summary.
func (s *Server) take(ctx context.Context, sess *session, op string) bool {
	now := s.opts.Now()
	s.mu.Lock()
	b := s.bucketLocked(sess, now)
	b.tokens = min(float64(s.opts.Burst), b.tokens+now.Sub(b.at).Seconds()*s.opts.Rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		s.mu.Unlock()
		return true
	}
	n := b.refused.add(now)
	s.mu.Unlock()
	if n > 0 {
		s.record(ctx, sess, op, "", false, rateReason(n, s.opts.Rate))
	}
	return false
}

func rateReason(n int, rate float64) string {
	return fmt.Sprintf("too many requests: %d refused (the most is %g a second); further refusals are counted once a minute", n, rate)
}

func (s *Server) bucketLocked(sess *session, now time.Time) *bucket {
	b := s.buckets[sess.client.ID]
	if b == nil {
		b = &bucket{tokens: float64(s.opts.Burst), at: now}
		s.buckets[sess.client.ID] = b
	}
	b.name, b.transport = sess.client.Name, sess.transport
	return b
}

// auditAuthFailure audits a refused token, as one summary a minute when
// they come in a flood.
func (s *Server) auditAuthFailure(ctx context.Context, transport, reason string) {
	s.mu.Lock()
	n := s.authFail.add(s.opts.Now())
	s.mu.Unlock()
	if n > 0 {
		if n > 1 {
			reason = fmt.Sprintf("%s (%d refused since the last such entry)", reason, n)
		}
		s.audit(ctx, clients.AuditEntry{Transport: transport, Operation: "auth", Reason: reason})
	}
}

// flushFloods audits the refusals counted but not yet audited, once their
// window passed.
func (s *Server) flushFloods(ctx context.Context) {
	now := s.opts.Now()
	type summary struct {
		id, name, transport string
		n                   int
	}
	var out []summary
	s.mu.Lock()
	auth := s.authFail.flush(now)
	for id, b := range s.buckets {
		if n := b.refused.flush(now); n > 0 {
			out = append(out, summary{id, b.name, b.transport, n})
		}
	}
	s.mu.Unlock()
	if auth > 0 {
		s.audit(ctx, clients.AuditEntry{Transport: s.opts.Transport, Operation: "auth",
			Reason: fmt.Sprintf("no valid token: %d requests refused since the last such entry", auth)})
	}
	for _, o := range out {
		s.audit(ctx, clients.AuditEntry{ClientID: o.id, ClientName: o.name, Transport: o.transport, Operation: "rate limit",
			Reason: rateReason(o.n, s.opts.Rate)})
	}
}

// startTurn reserves one of the client's MaxTurns turns; the returned
// func gives it back.
func (s *Server) startTurn(sess *session) (func(), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketLocked(sess, s.opts.Now())
	if b.turns >= MaxTurns {
		return nil, false
	}
	b.turns++
	return func() {
		s.mu.Lock()
		b.turns--
		s.mu.Unlock()
	}, true
}

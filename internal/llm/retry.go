package llm

import (
	"cmp"
	"context"
	"errors"
	"time"
)

// RetryPolicy says how StreamWithRetry retries a rate-limited request. The
// zero value means the defaults.
type RetryPolicy struct {
	// MaxAttempts counts the first try; zero means 4, 1 disables retries.
	MaxAttempts int
	// BaseWait is the first backoff when the provider gives no Retry-After;
	// it doubles each attempt. Zero means 1 s.
	BaseWait time.Duration
	// MaxWait caps one wait. A provider asking for longer (a daily quota,
	// say) is not retried: the *RateLimitError is returned at once so the
	// user sees it. Zero means 60 s.
	MaxWait time.Duration
	// OnRetry, if set, is called before each wait with the attempt that
	// failed (1-based), the wait, and its error, so the UI can say
	// "rate limited, retrying in 5 s".
	OnRetry func(attempt int, wait time.Duration, err error)
}

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts = 4
	DefaultBaseWait    = time.Second
	DefaultMaxWait     = 60 * time.Second
)

// StreamWithRetry is Stream, retrying a *RateLimitError as long as nothing
// was streamed yet: waits honour the provider's Retry-After, else back off
// exponentially. Cancelling ctx ends a wait at once and returns ctx.Err().
func (c *Client) StreamWithRetry(ctx context.Context, req Request, p RetryPolicy, onEvent func(Event)) (Reply, error) {
	var reply Reply
	err := p.do(ctx, func(ctx context.Context) (bool, error) {
		streamed := false
		var err error
		reply, err = c.Stream(ctx, req, func(e Event) {
			streamed = true
			if onEvent != nil {
				onEvent(e)
			}
		})
		return streamed, err
	})
	return reply, err
}

// do runs attempt until it succeeds, fails with something other than a rate
// limit, has streamed, or attempts run out.
func (p RetryPolicy) do(ctx context.Context, attempt func(context.Context) (streamed bool, err error)) error {
	maxAttempts := cmp.Or(p.MaxAttempts, DefaultMaxAttempts)
	for n := 1; ; n++ {
		streamed, err := attempt(ctx)
		var rl *RateLimitError
		if err == nil || streamed || n >= maxAttempts || !errors.As(err, &rl) {
			return err
		}
		wait, ok := p.wait(n, rl.RetryAfter)
		if !ok {
			return err
		}
		if p.OnRetry != nil {
			p.OnRetry(n, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// wait returns how long to wait after failed attempt n (1-based), and false
// when the provider asked for longer than MaxWait.
func (p RetryPolicy) wait(n int, retryAfter time.Duration) (time.Duration, bool) {
	maxWait := cmp.Or(p.MaxWait, DefaultMaxWait)
	if retryAfter > 0 {
		return retryAfter, retryAfter <= maxWait
	}
	w := cmp.Or(p.BaseWait, DefaultBaseWait)
	for i := 1; i < n && w < maxWait; i++ {
		w *= 2
	}
	return min(w, maxWait), true
}

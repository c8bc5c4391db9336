package llm

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

func TestRetryWait(t *testing.T) {
	p := RetryPolicy{}
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		want       time.Duration
		ok         bool
	}{
		{1, 0, 1 * time.Second, true},
		{2, 0, 2 * time.Second, true},
		{3, 0, 4 * time.Second, true},
		{10, 0, 60 * time.Second, true},
		{1, 5 * time.Second, 5 * time.Second, true},
		{3, 500 * time.Millisecond, 500 * time.Millisecond, true},
		{1, 60 * time.Second, 60 * time.Second, true},
		{1, time.Hour, time.Hour, false},
	}
	for _, tt := range tests {
		got, ok := p.wait(tt.attempt, tt.retryAfter)
		if got != tt.want || ok != tt.ok {
			t.Errorf("wait(%d, %v) = %v, %v; want %v, %v", tt.attempt, tt.retryAfter, got, ok, tt.want, tt.ok)
		}
	}
}

type retryCall struct {
	Attempt int
	Wait    time.Duration
}

// TestRetryTiming checks, on synctest's fake clock, that waits are exactly
// what the provider asked or the backoff, and that attempts stop at
// MaxAttempts.
func TestRetryTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		results := []error{
			&RateLimitError{RetryAfter: 5 * time.Second},
			&RateLimitError{},
			&RateLimitError{},
			&RateLimitError{},
		}
		var calls []retryCall
		var at []time.Duration
		start := time.Now()
		p := RetryPolicy{OnRetry: func(n int, w time.Duration, err error) { calls = append(calls, retryCall{n, w}) }}
		err := p.do(t.Context(), func(context.Context) (bool, error) {
			at = append(at, time.Since(start))
			err := results[0]
			results = results[1:]
			return false, err
		})
		if !errors.Is(err, ErrRateLimited) {
			t.Errorf("err = %v after the last attempt", err)
		}
		wantCalls := []retryCall{{1, 5 * time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}}
		if diff := cmp.Diff(wantCalls, calls); diff != "" {
			t.Errorf("OnRetry calls (-want +got):\n%s", diff)
		}
		wantAt := []time.Duration{0, 5 * time.Second, 7 * time.Second, 11 * time.Second}
		if diff := cmp.Diff(wantAt, at); diff != "" {
			t.Errorf("attempt times (-want +got):\n%s", diff)
		}
	})
}

func TestRetryCancelEndsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		time.AfterFunc(3*time.Second, cancel)
		err := RetryPolicy{}.do(ctx, func(context.Context) (bool, error) {
			return false, &RateLimitError{RetryAfter: 30 * time.Second}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("returned after %v, want 3s (at the cancel)", d)
		}
	})
}

func TestRetryOnlyRateLimitsBeforeStreaming(t *testing.T) {
	tests := []struct {
		name     string
		streamed bool
		err      error
	}{
		{"streamed already", true, &RateLimitError{}},
		{"server error", false, ErrServer},
		{"auth", false, ErrAuth},
	}
	for _, tt := range tests {
		n := 0
		err := RetryPolicy{BaseWait: time.Millisecond}.do(t.Context(), func(context.Context) (bool, error) {
			n++
			return tt.streamed, tt.err
		})
		if n != 1 || !errors.Is(err, tt.err) {
			t.Errorf("%s: %d attempts, err %v; want 1 attempt", tt.name, n, err)
		}
	}
}

func TestStreamWithRetry(t *testing.T) {
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		policy    RetryPolicy
		wantWaits []time.Duration
		is        error // nil: success with "ok"
		requests  int
	}{
		{
			name:      "429s with Retry-After, then success",
			replies:   []llmtest.Reply{llmtest.RateLimited("0.02"), llmtest.RateLimited("0.01"), llmtest.Text("ok")},
			wantWaits: []time.Duration{20 * time.Millisecond, 10 * time.Millisecond},
			requests:  3,
		},
		{
			name:      "429s without Retry-After back off until attempts run out",
			replies:   []llmtest.Reply{llmtest.RateLimited(""), llmtest.RateLimited(""), llmtest.RateLimited("")},
			policy:    RetryPolicy{MaxAttempts: 3, BaseWait: time.Millisecond},
			wantWaits: []time.Duration{time.Millisecond, 2 * time.Millisecond},
			is:        ErrRateLimited,
			requests:  3,
		},
		{
			name:     "Retry-After beyond MaxWait is not waited for",
			replies:  []llmtest.Reply{llmtest.RateLimited("3600")},
			is:       ErrRateLimited,
			requests: 1,
		},
		{
			name: "rate limit after tokens streamed is not retried",
			replies: []llmtest.Reply{{Content: []string{"par", "tial"}, Fault: &llmtest.Fault{
				Kind: llmtest.FaultStreamError, After: 1, Error: &llmtest.APIError{Message: "slow down", Code: ptr("rate_limit_exceeded")}}}},
			is:       ErrRateLimited,
			requests: 1,
		},
		{
			name:     "500 is not retried",
			replies:  []llmtest.Reply{llmtest.ServerError()},
			is:       ErrServer,
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: tt.replies})
			var waits []time.Duration
			p := tt.policy
			p.OnRetry = func(n int, w time.Duration, err error) {
				if !errors.Is(err, ErrRateLimited) {
					t.Errorf("OnRetry with %v", err)
				}
				waits = append(waits, w)
			}
			var rec recorder
			reply, err := newTestClient(t, srv).StreamWithRetry(t.Context(), userRequest("hi"), p, rec.on)
			if tt.is == nil {
				if err != nil || reply.Content != "ok" || rec.text() != "ok" {
					t.Fatalf("reply %q (events %q), err %v", reply.Content, rec.text(), err)
				}
			} else if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if diff := cmp.Diff(tt.wantWaits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

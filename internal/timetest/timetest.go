// Package timetest has the time helpers of tests that run outside
// synctest's bubble (a real database, real servers, real processes): a
// Clock moved by hand for code that takes a Now func() time.Time, and
// WaitFor for a condition that something else makes true. It imports no
// other internal package, so the tests of every package may use it.
package timetest

import (
	"sync"
	"testing"
	"time"
)

// A Clock is a time tests move by hand, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a Clock that reads start.
func New(start time.Time) *Clock { return &Clock{t: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// WaitFor checks cond every 10 ms until it holds, and fails the test
// when it still does not after timeout. what names the awaited thing in
// the failure. Prefer a channel or a subscription where the code offers
// one; this is for state that has none (a database row, a process's
// output).
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

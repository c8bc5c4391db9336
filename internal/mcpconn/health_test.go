package mcpconn

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// inMemory is a fleet of in-process servers for synctest: every dial gets
// a new server session over an in-memory transport. Pings hang while hang
// is set, until release is closed.
type inMemory struct {
	hang    atomic.Bool
	release chan struct{}

	mu       sync.Mutex
	sessions []*mcp.ServerSession
}

func newInMemory() *inMemory { return &inMemory{release: make(chan struct{})} }

func (f *inMemory) transport(serverconf.Config) (mcp.Transport, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "ping" && f.hang.Load() {
				<-f.release
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		<-f.release
		return &mcp.CallToolResult{}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, ss)
	f.mu.Unlock()
	return ct, nil
}

func (f *inMemory) last() *mcp.ServerSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[len(f.sessions)-1]
}

func (f *inMemory) closeAll() {
	close(f.release)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ss := range f.sessions {
		ss.Close()
	}
}

func newSynctestManager(t *testing.T, f *inMemory, opts Options) (*Manager, *recorder) {
	rec := &recorder{}
	opts.Emitter = rec
	m := NewManager(&opts)
	m.testTransport = f.transport
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	m.Add(serverconf.Config{ID: "x", Transport: serverconf.TransportStdio, Enabled: true})
	synctest.Wait()
	return m, rec
}

func TestHealthHungPingsDegradeReconnectThenFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		start := time.Now()
		m, rec := newSynctestManager(t, f, Options{
			PingInterval: 30 * time.Second, PingTimeout: 10 * time.Second, PingFailures: 2,
			MaxReconnects: 2, BackoffBase: time.Second, BackoffMax: 8 * time.Second, StableAfter: 5 * time.Minute,
		})
		if st, _ := m.Status("x"); st.State != StateConnected || st.ToolCount != 2 {
			t.Fatalf("status = %+v", st)
		}
		f.hang.Store(true)
		time.Sleep(10 * time.Minute)
		synctest.Wait()

		sts, at := rec.statuses("x")
		var states []State
		for _, st := range sts {
			states = append(states, st.State)
		}
		want := []State{
			StateConnecting, StateConnected,
			StateDegraded, StateDegraded, StateConnected, // ping failed; reconnecting; back
			StateDegraded, StateDegraded, StateConnected,
			StateDegraded, StateFailed,
		}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Fatalf("states (-want +got):\n%s", diff)
		}
		elapsed := func(i int) time.Duration { return at[i].Sub(start) }
		// First ping at 30 s times out at 40 s; the second at 60 s, at 70 s.
		if elapsed(2) != 40*time.Second || elapsed(3) != 70*time.Second {
			t.Errorf("degraded at %s, reconnecting at %s; want 40s and 70s", elapsed(2), elapsed(3))
		}
		if !strings.HasPrefix(sts[2].Reason, "ping failed: no answer to a ping within 10s") {
			t.Errorf("reason = %q", sts[2].Reason)
		}
		if !strings.Contains(sts[3].Reason, "stopped answering") || !strings.Contains(sts[3].Reason, "(attempt 1 of 2)") || sts[3].Attempt != 1 {
			t.Errorf("reconnect status = %+v", sts[3])
		}
		// Backoff with jitter: attempt 1 waits 0.5-1 s, attempt 2 1-2 s.
		if d := at[4].Sub(at[3]); d < 500*time.Millisecond || d > time.Second {
			t.Errorf("first backoff %s", d)
		}
		if d := at[7].Sub(at[6]); d < time.Second || d > 2*time.Second {
			t.Errorf("second backoff %s", d)
		}
		if !strings.Contains(sts[9].Reason, "gave up after 2 reconnect attempts") {
			t.Errorf("failed reason = %q", sts[9].Reason)
		}
		if len(m.Tools()) != 0 {
			t.Errorf("failed server still has %d tools", len(m.Tools()))
		}
		f.closeAll()
		m.Close()
	})
}

func TestHealthOneMissedPingRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		m, rec := newSynctestManager(t, f, Options{PingInterval: 30 * time.Second, PingTimeout: 5 * time.Second, PingFailures: 2})
		f.hang.Store(true)
		time.Sleep(36 * time.Second) // one ping timed out
		synctest.Wait()
		if st, _ := m.Status("x"); st.State != StateDegraded {
			t.Fatalf("state %s, want degraded", st.State)
		}
		f.hang.Store(false)
		time.Sleep(30 * time.Second) // the next ping works
		synctest.Wait()
		want := []State{StateConnecting, StateConnected, StateDegraded, StateConnected}
		if diff := cmp.Diff(want, rec.states("x")); diff != "" {
			t.Errorf("states (-want +got):\n%s", diff)
		}
		f.closeAll()
		m.Close()
	})
}

func TestHealthSessionEndNoticedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		m, _ := newSynctestManager(t, f, Options{PingInterval: time.Hour, BackoffBase: time.Second})
		lost := time.Now()
		f.last().Close() // the server goes away
		synctest.Wait()
		st, _ := m.Status("x")
		if st.State != StateDegraded || !strings.Contains(st.Reason, "closed the connection") || time.Since(lost) != 0 {
			t.Fatalf("status %+v at +%s", st, time.Since(lost))
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if st, _ := m.Status("x"); st.State != StateConnected {
			t.Fatalf("after backoff: %+v", st)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		res, err := m.CallTool(ctx, "x__echo", []byte(`{"text":"again"}`), nil)
		if err != nil || res.ForModel(0) != "again" {
			t.Errorf("call after reconnect: %v, %v", res, err)
		}
		f.closeAll()
		m.Close()
	})
}

func TestHealthInFlightCallEndsWithSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		m, _ := newSynctestManager(t, f, Options{PingInterval: 10 * time.Second, PingTimeout: 5 * time.Second, PingFailures: 2, MaxReconnects: -1})
		f.hang.Store(true)
		start := time.Now()
		_, err := m.CallTool(t.Context(), "x__hang", nil, nil)
		if !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "stopped answering") {
			t.Errorf("err = %v", err)
		}
		if d := time.Since(start); d != 25*time.Second {
			t.Errorf("call ended after %s, want 25s (second ping timeout)", d)
		}
		synctest.Wait()
		if st, _ := m.Status("x"); st.State != StateFailed {
			t.Errorf("state = %s", st.State)
		}

		// A call in flight when the user disconnects ends at once, too.
		m.Connect("x")
		synctest.Wait()
		f.hang.Store(false)
		done := make(chan error, 1)
		go func() {
			_, err := m.CallTool(t.Context(), "x__hang", nil, nil)
			done <- err
		}()
		synctest.Wait()
		m.Disconnect("x")
		if err := <-done; !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "disconnected") {
			t.Errorf("after Disconnect: %v", err)
		}
		f.closeAll()
		m.Close()
	})
}

func TestBackoffDelay(t *testing.T) {
	for n, want := range map[int][2]time.Duration{
		1: {250 * time.Millisecond, 500 * time.Millisecond},
		2: {500 * time.Millisecond, time.Second},
		4: {2 * time.Second, 4 * time.Second},
		9: {5 * time.Second, 10 * time.Second}, // capped
	} {
		for range 50 {
			d := backoffDelay(n, 500*time.Millisecond, 10*time.Second)
			if d < want[0] || d > want[1] {
				t.Fatalf("backoffDelay(%d) = %s, want in [%s, %s]", n, d, want[0], want[1])
			}
		}
	}
}

package mcpconn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func stateIs(states ...State) func(Status) bool {
	return func(st Status) bool {
		for _, s := range states {
			if st.State == s {
				return true
			}
		}
		return false
	}
}

// TestWait drives a server's status by hand, under synctest, while Wait
// blocks: it must return at the first status cond accepts and not before,
// and say why when it cannot.
func TestWait(t *testing.T) {
	set := func(st Status) func(*Manager, context.CancelFunc) {
		return func(m *Manager, _ context.CancelFunc) {
			m.servers["a"].setStatus(func(s *Status) { *s = st })
		}
	}
	for _, tt := range []struct {
		name string
		id   string
		cond func(Status) bool
		// timeout bounds the wait; zero means none.
		timeout time.Duration
		// changes are made one at a time while Wait blocks; it must still
		// block before each.
		changes []func(*Manager, context.CancelFunc)
		want    Status
		wantErr error
	}{
		{
			name: "already true",
			id:   "a", cond: stateIs(StateDisconnected),
			want: Status{ServerID: "a", State: StateDisconnected},
		},
		{
			name: "becomes true later",
			id:   "a", cond: stateIs(StateConnected),
			changes: []func(*Manager, context.CancelFunc){
				set(Status{State: StateConnecting}),
				set(Status{State: StateDegraded, Reason: "down", Attempt: 1}),
				set(Status{State: StateConnected, ToolCount: 3}),
			},
			want: Status{ServerID: "a", State: StateConnected, ToolCount: 3},
		},
		{
			name: "a change other than the state",
			id:   "a", cond: func(st Status) bool { return st.ToolCount >= 2 },
			changes: []func(*Manager, context.CancelFunc){
				set(Status{State: StateConnected, ToolCount: 1}),
				set(Status{State: StateConnected, ToolCount: 2}),
			},
			want: Status{ServerID: "a", State: StateConnected, ToolCount: 2},
		},
		{
			name: "ctx cancelled",
			id:   "a", cond: stateIs(StateConnected),
			changes: []func(*Manager, context.CancelFunc){
				set(Status{State: StateConnecting}),
				func(_ *Manager, cancel context.CancelFunc) { cancel() },
			},
			want:    Status{ServerID: "a", State: StateConnecting},
			wantErr: context.Canceled,
		},
		{
			name: "ctx deadline",
			id:   "a", cond: stateIs(StateConnected), timeout: time.Minute,
			want:    Status{ServerID: "a", State: StateDisconnected},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "server removed",
			id:   "a", cond: stateIs(StateConnected),
			changes: []func(*Manager, context.CancelFunc){
				func(m *Manager, _ context.CancelFunc) { m.Remove("a") },
			},
			want:    Status{ServerID: "a", State: StateDisconnected},
			wantErr: ErrUnknownServer,
		},
		{
			name: "unknown server",
			id:   "nope", cond: stateIs(StateDisconnected),
			wantErr: ErrUnknownServer,
		},
		{
			name: "manager closed",
			id:   "a", cond: stateIs(StateConnected),
			changes: []func(*Manager, context.CancelFunc){
				func(m *Manager, _ context.CancelFunc) { m.Close() },
			},
			want:    Status{ServerID: "a", State: StateDisconnected},
			wantErr: ErrClosed,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Not started: nothing but the test changes the status.
				m := NewManager(&Options{Logger: testLogger(t)})
				defer m.Close()
				if err := m.Add(serverconf.Config{ID: "a"}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.timeout > 0 {
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				var got Status
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					got, err = m.Wait(ctx, tt.id, tt.cond)
				}()
				for i, change := range tt.changes {
					synctest.Wait()
					select {
					case <-done:
						t.Fatalf("Wait returned before change %d: %+v, %v", i, got, err)
					default:
					}
					change(m, cancel)
				}
				<-done
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("status (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestWaitFollowsSupervisor waits on what the supervisor itself does with
// an in-memory server: connect, lose the session, reconnect after the
// backoff, and a removal while connected.
func TestWaitFollowsSupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		defer f.closeAll()
		m := NewManager(&Options{Logger: testLogger(t), PingInterval: time.Hour, BackoffBase: time.Second})
		defer m.Close()
		m.testTransport = f.transport
		if err := m.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Add(serverconf.Config{ID: "x", Transport: serverconf.TransportStdio, Enabled: true})
		ctx := t.Context()
		st, err := m.Wait(ctx, "x", stateIs(StateConnected))
		if err != nil || st.ToolCount != 2 {
			t.Fatalf("Wait connected: %+v, %v", st, err)
		}

		start := time.Now()
		f.last().Close()
		if st, err := m.Wait(ctx, "x", stateIs(StateDegraded)); err != nil || st.Attempt != 1 {
			t.Fatalf("Wait degraded: %+v, %v", st, err)
		}
		if _, err := m.Wait(ctx, "x", stateIs(StateConnected)); err != nil {
			t.Fatalf("Wait reconnected: %v", err)
		}
		if d := time.Since(start); d < 500*time.Millisecond || d > time.Second {
			t.Errorf("reconnected after %s; want the first backoff, 0.5-1 s", d)
		}

		done := make(chan error, 1)
		go func() {
			_, err := m.Wait(ctx, "x", stateIs(StateFailed))
			done <- err
		}()
		synctest.Wait()
		m.Remove("x")
		if err := <-done; !errors.Is(err, ErrUnknownServer) {
			t.Errorf("Wait across Remove: %v, want ErrUnknownServer", err)
		}
	})
}

// TestWaitManyWaiters has waiters come and go while the server connects,
// is restarted and disconnected, for the race detector; every waiter
// returns.
func TestWaitManyWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newInMemory()
		defer f.closeAll()
		m := NewManager(&Options{Logger: testLogger(t), PingInterval: time.Hour})
		defer m.Close()
		m.testTransport = f.transport
		if err := m.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Add(serverconf.Config{ID: "x", Transport: serverconf.TransportStdio, Enabled: true})
		var wg sync.WaitGroup
		errs := make(chan error, 40)
		for i := range 20 {
			wg.Go(func() {
				st, err := m.Wait(t.Context(), "x", stateIs(StateConnected))
				if err == nil && st.State != StateConnected {
					err = errors.New("returned " + string(st.State))
				}
				errs <- err
			})
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i)*time.Millisecond)
				defer cancel()
				if _, err := m.Wait(ctx, "x", stateIs(StateFailed)); !errors.Is(err, context.DeadlineExceeded) {
					errs <- err
					return
				}
				errs <- nil
			})
		}
		m.Restart("x")
		m.Disconnect("x")
		m.Connect("x")
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

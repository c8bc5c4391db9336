package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-app/switchboard/internal/eventtest"
)

var epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedNow() time.Time { return epoch }

// A recorded is one event seen by a recorder.
type recorded struct {
	Name    string
	Payload any
}

// A recorder is an Emitter that keeps every event. OnEmit, when set, runs
// inside Emit, the way a frontend that answers at once would.
type recorder struct{ eventtest.Recorder }

// take returns the events recorded since the last take, as recorded (the
// tests' expectations have no times).
func (r *recorder) take() []recorded {
	var out []recorded
	for _, e := range r.Take() {
		out = append(out, recorded{e.Name, e.Payload})
	}
	return out
}

var errStoreDown = errors.New("disk I/O error")

// A flakyStore is a MemoryPolicyStore whose reads or writes can be made to fail.
type flakyStore struct {
	MemoryPolicyStore
	failReads, failWrites atomic.Bool
}

// failOr returns errStoreDown when fail is set, else what read returns.
func failOr[T any](fail *atomic.Bool, read func() (T, error)) (T, error) {
	if fail.Load() {
		var zero T
		return zero, errStoreDown
	}
	return read()
}

// write returns errStoreDown when writes fail, else what put returns.
func (s *flakyStore) write(put func() error) error {
	_, err := failOr(&s.failWrites, func() (struct{}, error) { return struct{}{}, put() })
	return err
}

func (s *flakyStore) Grants(ctx context.Context) ([]Grant, error) {
	return failOr(&s.failReads, func() ([]Grant, error) { return s.MemoryPolicyStore.Grants(ctx) })
}

func (s *flakyStore) Yolo(ctx context.Context) (bool, error) {
	return failOr(&s.failReads, func() (bool, error) { return s.MemoryPolicyStore.Yolo(ctx) })
}

func (s *flakyStore) ReadOnlyServers(ctx context.Context) ([]ReadOnlyServer, error) {
	return failOr(&s.failReads, func() ([]ReadOnlyServer, error) { return s.MemoryPolicyStore.ReadOnlyServers(ctx) })
}

func (s *flakyStore) PrivateTools(ctx context.Context) ([]PrivateTool, error) {
	return failOr(&s.failReads, func() ([]PrivateTool, error) { return s.MemoryPolicyStore.PrivateTools(ctx) })
}

func (s *flakyStore) PutGrant(ctx context.Context, g Grant) error {
	return s.write(func() error { return s.MemoryPolicyStore.PutGrant(ctx, g) })
}

func (s *flakyStore) DeleteGrant(ctx context.Context, serverID, tool string) error {
	return s.write(func() error { return s.MemoryPolicyStore.DeleteGrant(ctx, serverID, tool) })
}

func (s *flakyStore) SetYolo(ctx context.Context, on bool) error {
	return s.write(func() error { return s.MemoryPolicyStore.SetYolo(ctx, on) })
}

func (s *flakyStore) PutReadOnlyServer(ctx context.Context, r ReadOnlyServer) error {
	return s.write(func() error { return s.MemoryPolicyStore.PutReadOnlyServer(ctx, r) })
}

func (s *flakyStore) DeleteReadOnlyServer(ctx context.Context, serverID string) error {
	return s.write(func() error { return s.MemoryPolicyStore.DeleteReadOnlyServer(ctx, serverID) })
}

func (s *flakyStore) PutPrivateTool(ctx context.Context, p PrivateTool) error {
	return s.write(func() error { return s.MemoryPolicyStore.PutPrivateTool(ctx, p) })
}

func (s *flakyStore) DeletePrivateTool(ctx context.Context, fingerprint, tool string) error {
	return s.write(func() error { return s.MemoryPolicyStore.DeletePrivateTool(ctx, fingerprint, tool) })
}

// req returns a request for tool of server with fingerprint fp in conv,
// whose arguments name the call.
func req(id, conv, server, tool, fp string) Request {
	return Request{
		ID: id, ConversationID: conv, ServerID: server, ServerName: "Server " + server,
		Tool: tool, Description: "does " + tool, Fingerprint: fp,
		Arguments: json.RawMessage(fmt.Sprintf(`{"call":%q}`, id)),
	}
}

// allowed is the Outcome that runs r with decision d by by.
func allowed(r Request, d Decision, by DecidedBy) Outcome {
	return Outcome{Allowed: true, Decision: d, DecidedBy: by, Arguments: r.Arguments}
}

// refused is the Outcome that does not run a call.
func refused(d Decision, by DecidedBy) Outcome {
	return Outcome{Decision: d, DecidedBy: by}
}

type result struct {
	Outcome Outcome
	Err     error
}

// start runs b.Request(ctx, r) in a goroutine and returns where its result lands.
func start(ctx context.Context, b *Broker, r Request) <-chan result {
	ch := make(chan result, 1)
	go func() {
		o, err := b.Request(ctx, r)
		ch <- result{o, err}
	}()
	return ch
}

// startWaiting starts b.Request(t.Context(), r) and, inside a synctest
// bubble, waits until it blocks or returns.
func startWaiting(t *testing.T, b *Broker, r Request) <-chan result {
	ch := start(t.Context(), b, r)
	synctest.Wait()
	return ch
}

// poll returns the result in ch if there is one.
func poll(ch <-chan result) (result, bool) {
	select {
	case res := <-ch:
		return res, true
	default:
		return result{}, false
	}
}

// policy returns the Policy payload for yolo and grants stamped with epoch.
func policy(yolo bool, grants ...Grant) Policy {
	if grants == nil {
		grants = []Grant{}
	}
	return Policy{Yolo: yolo, Grants: grants}
}

// grant is the grant Decide makes for req(_, _, server, tool, fp).
func grant(server, tool, fp string) Grant {
	return Grant{ServerID: server, Tool: tool, Fingerprint: fp, Description: "does " + tool, CreatedAt: epoch}
}

func requested(r Request) recorded { return recorded{EventRequested, r} }

func resolved(id string, o Outcome) recorded {
	return recorded{EventResolved, Resolution{ID: id, Outcome: o}}
}

func policyEvent(p Policy) recorded { return recorded{EventPolicy, p} }

// newTestBroker returns a loaded Broker over store (nil means a new one)
// whose events rec records, minus the load's own event. Close it before the
// test ends so no waiter outlives it.
func newTestBroker(t *testing.T, store PolicyStore) (*Broker, *recorder) {
	t.Helper()
	rec := &recorder{}
	b := NewBroker(&Options{Store: store, Emitter: rec, Now: fixedNow})
	if err := b.Load(t.Context()); err != nil {
		t.Fatalf("Load: %v", err)
	}
	rec.take()
	return b, rec
}

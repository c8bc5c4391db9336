package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/switchboard-app/switchboard/internal/approval"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// recorder is an Emitter that keeps every event, with what the tests ask
// of chat's events.
type recorder struct{ eventtest.Recorder }

type event = eventtest.Event

func (r *recorder) all(name string) []event { return r.Named(name) }

// deltas returns the concatenated content of a message's delta events and
// their count.
func (r *recorder) deltas(msgID int64) (string, int) {
	var s string
	n := 0
	for _, e := range r.all(EventDelta) {
		if d := e.Payload.(DeltaEvent); d.MessageID == msgID {
			s += d.Content
			n++
		}
	}
	return s, n
}

func (r *recorder) statuses() []StatusEvent {
	return eventtest.Payloads[StatusEvent](&r.Recorder, EventStatus)
}

func (r *recorder) toolEvents() []ToolCallEvent {
	return eventtest.Payloads[ToolCallEvent](&r.Recorder, EventToolCall)
}

// fakeTools is a ToolSource with handlers per tool (by exposed name). Like
// the real one, it finds the tool a call names by server and original name,
// and refuses with ErrToolChanged a call pinned to another definition or
// fingerprint than the tool has now.
type fakeTools struct {
	handlers map[string]func(ctx context.Context, args json.RawMessage, progress func(Progress)) (ToolResult, error)

	mu    sync.Mutex
	tools []Tool
	calls []fakeCall
}

type fakeCall struct {
	name string
	args string
}

func (f *fakeTools) Tools() []Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.tools)
}

// setTools replaces the tools, as a server's list_changed does.
func (f *fakeTools) setTools(tools []Tool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools = tools
}

func (f *fakeTools) CallTool(ctx context.Context, ref ToolRef, args json.RawMessage, progress func(Progress)) (ToolResult, error) {
	f.mu.Lock()
	i := slices.IndexFunc(f.tools, func(t Tool) bool { return t.ServerID == ref.ServerID && t.OriginalName == ref.Tool })
	if i < 0 {
		f.mu.Unlock()
		return ToolResult{}, fmt.Errorf("unknown tool: %s", ToolKey(ref.ServerID, ref.Tool))
	}
	t := f.tools[i]
	if (ref.DefinitionHash != "" && ref.DefinitionHash != t.DefinitionHash) || (ref.Fingerprint != "" && ref.Fingerprint != t.Fingerprint) {
		f.mu.Unlock()
		return ToolResult{}, fmt.Errorf("%w: %s", ErrToolChanged, t.Name)
	}
	f.calls = append(f.calls, fakeCall{t.Name, string(args)})
	h := f.handlers[t.Name]
	f.mu.Unlock()
	if h == nil {
		return ToolResult{Text: "ran " + t.Name + " with " + string(args)}, nil
	}
	return h(ctx, args, progress)
}

func (f *fakeTools) called() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func tool(server, name string) Tool {
	return Tool{Name: server + "__" + name, ServerID: server, ServerName: server + " server", OriginalName: name,
		Description: "does " + name, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Enabled: true,
		Fingerprint: "fp-" + server, DefinitionHash: "def-" + server + "-" + name}
}

// fakeApprover answers with decide, allowing once by default.
type fakeApprover struct {
	decide func(approval.Request) approval.Outcome

	mu       sync.Mutex
	requests []approval.Request
}

func (a *fakeApprover) Request(ctx context.Context, r approval.Request) (approval.Outcome, error) {
	a.mu.Lock()
	a.requests = append(a.requests, r)
	a.mu.Unlock()
	if a.decide == nil {
		return approval.Outcome{Allowed: true, Decision: "allow_once", DecidedBy: "user", Arguments: r.Arguments}, nil
	}
	return a.decide(r), nil
}

func (a *fakeApprover) asked() []approval.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests)
}

// harness is an Engine wired to a fake provider, fake tools and approver,
// a recorder and a real store.
type harness struct {
	t        *testing.T
	e        *Engine
	st       *store.Store
	srv      *llmtest.Server
	rec      *recorder
	tools    *fakeTools
	approver *fakeApprover
	conv     store.Conversation
}

func newHarness(t *testing.T, replies []llmtest.Reply, tune func(*Options)) *harness {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "chat.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &harness{t: t, st: st, rec: &recorder{}, approver: &fakeApprover{},
		tools: &fakeTools{tools: []Tool{tool("fs", "read"), tool("web", "get")}}}
	h.srv = llmtest.NewServer(t, &llmtest.Options{Replies: replies})
	opts := &Options{
		Store: st, Tools: h.tools, Approver: h.approver, Emitter: h.rec,
		Provider: func(ctx context.Context, providerID string) (*llm.Client, string, error) {
			c, err := llm.NewClient(llm.ProviderConfig{BaseURL: h.srv.URL, APIKey: "k"})
			return c, "fake-model", err
		},
	}
	if tune != nil {
		tune(opts)
	}
	h.e = NewEngine(opts)
	t.Cleanup(func() { h.e.Close() })
	h.conv, err = st.CreateConversation(context.Background(), store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// send sends text and waits for the run to end.
func (h *harness) send(text string) RunResult {
	h.t.Helper()
	if _, err := h.e.Send(context.Background(), h.conv.ID, text); err != nil {
		h.t.Fatalf("Send: %v", err)
	}
	return h.wait()
}

func (h *harness) wait() RunResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.e.Wait(ctx, h.conv.ID)
	if err != nil {
		h.t.Fatalf("Wait: %v", err)
	}
	return res
}

func (h *harness) messages() []store.Message {
	h.t.Helper()
	ms, err := h.st.Messages(context.Background(), h.conv.ID, store.MessagePage{})
	if err != nil {
		h.t.Fatal(err)
	}
	return ms
}

func (h *harness) audit() []store.ToolCall {
	h.t.Helper()
	calls, err := h.st.ToolCalls(context.Background(), h.conv.ID, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return calls
}

func roles(ms []store.Message) []string {
	var out []string
	for _, m := range ms {
		s := m.Role
		if m.Status != store.StatusDone {
			s += "(" + m.Status + ")"
		}
		out = append(out, s)
	}
	return out
}

func last[T any](s []T) T {
	if len(s) == 0 {
		var zero T
		return zero
	}
	return s[len(s)-1]
}

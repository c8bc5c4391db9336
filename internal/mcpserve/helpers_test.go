package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// A fixture is a Server over a fresh database, a chat engine answered by
// a fake provider, and what the server emits.
type fixture struct {
	t     *testing.T
	st    *store.Store
	reg   *clients.Registry
	srv   *mcpserve.Server
	llm   *llmtest.Server
	clock *timetest.Clock
	rec   *eventtest.Recorder
}

func newFixture(t *testing.T, tune func(*mcpserve.Options)) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "sb.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, st: st, clock: timetest.New(time.Now()), rec: &eventtest.Recorder{}}
	f.reg = clients.NewWith(st, &clients.Options{Now: f.clock.Now})
	f.llm = llmtest.NewServer(t, nil)
	eng := chat.NewEngine(&chat.Options{Store: st, Provider: func(ctx context.Context, _ string) (*llm.Client, string, error) {
		c, err := llm.NewClient(llm.ProviderConfig{BaseURL: f.llm.URL, APIKey: "k"})
		return c, "fake-model", err
	}})
	t.Cleanup(func() { eng.Close() })
	opts := &mcpserve.Options{Registry: f.reg, Store: st, Chat: eng, Emitter: f.rec, Poll: 50 * time.Millisecond}
	if tune != nil {
		tune(opts)
	}
	f.srv = mcpserve.New(opts)
	t.Cleanup(func() { f.srv.Close() })
	return f
}

// client registers a connected app and returns it with its token.
func (f *fixture) client(name string, canStart bool) (clients.Client, string) {
	f.t.Helper()
	cl, token, err := f.reg.Add(context.Background(), name, canStart)
	if err != nil {
		f.t.Fatal(err)
	}
	return cl, token
}

// conv stores a conversation titled title with messages alternating user
// and assistant.
func (f *fixture) conv(title string, texts ...string) store.Conversation {
	f.t.Helper()
	ctx := context.Background()
	c, err := f.st.CreateConversation(ctx, store.Conversation{Title: title})
	if err != nil {
		f.t.Fatal(err)
	}
	for i, text := range texts {
		role := store.RoleUser
		if i%2 == 1 {
			role = store.RoleAssistant
		}
		if _, err := f.st.AppendMessage(ctx, store.Message{ConversationID: c.ID, Role: role, Content: text}); err != nil {
			f.t.Fatal(err)
		}
	}
	return c
}

func (f *fixture) grant(cl clients.Client, conv store.Conversation, access clients.Access, expires time.Time) {
	f.t.Helper()
	if err := f.reg.Grant(context.Background(), cl.ID, conv.ID, access, expires); err != nil {
		f.t.Fatal(err)
	}
}

// A conn is a go-sdk client's session with the server, and what the
// server's side returned once it ended.
type conn struct {
	cs     *mcp.ClientSession
	served chan error // ServeStdio's error, for stdio sessions
	mu     sync.Mutex
	notes  []string // notifications: "updated URI" or "list_changed"
}

func (c *conn) note(s string) {
	c.mu.Lock()
	c.notes = append(c.notes, s)
	c.mu.Unlock()
}

func (c *conn) notifications() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

func (c *conn) clientOptions() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			c.note("updated " + r.Params.URI)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.note("list_changed") },
	}
}

// connect opens a session over in-memory transports, as ServeStdio serves
// one; the error is ServeStdio's refusal, if any.
func (f *fixture) connect(token string) (*conn, error) {
	f.t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	c := &conn{served: make(chan error, 1)}
	go func() { c.served <- f.srv.Serve(context.Background(), token, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, c.clientOptions())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	ch := make(chan result, 1)
	go func() {
		cs, err := client.Connect(ctx, ct, nil)
		ch <- result{cs, err}
	}()
	select {
	case err := <-c.served: // refused before serving; the client's Connect ends with ctx
		return nil, err
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		c.cs = r.cs
		f.t.Cleanup(func() { r.cs.Close() })
		return c, nil
	}
}

// mustConnect is connect that fails the test on a refusal.
func (f *fixture) mustConnect(token string) *conn {
	f.t.Helper()
	c, err := f.connect(token)
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	return c
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// httpServer serves the fixture's Handler on a loopback port.
func (f *fixture) httpServer() *httptest.Server {
	hs := httptest.NewServer(f.srv.Handler())
	f.t.Cleanup(hs.Close)
	return hs
}

// connectHTTP opens a streamable HTTP session with token.
func (f *fixture) connectHTTP(url, token string) (*conn, error) {
	f.t.Helper()
	c := &conn{}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, c.clientOptions())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + mcpserve.Path,
		HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	c.cs = cs
	f.t.Cleanup(func() { cs.Close() })
	return c, nil
}

// call calls a tool and returns its result (an error only when there is no
// result at all).
func (c *conn) call(t *testing.T, tool string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

// ok calls a tool that must succeed and decodes its structured output.
func (c *conn) ok(t *testing.T, tool string, args any, out any) {
	t.Helper()
	res, err := c.call(t, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", tool, text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: decoding %s: %v", tool, raw, err)
	}
}

// refused calls a tool that must be refused and returns what it says.
func (c *conn) refused(t *testing.T, tool string, args any) string {
	t.Helper()
	res, err := c.call(t, tool, args)
	if err != nil {
		return err.Error()
	}
	if !res.IsError {
		t.Fatalf("%s %v: not refused: %s", tool, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// audit returns the audit, oldest first.
func (f *fixture) audit() []clients.AuditEntry {
	f.t.Helper()
	list, err := f.reg.Audit(context.Background(), clients.AuditFilter{Limit: 1000})
	if err != nil {
		f.t.Fatal(err)
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}

// served waits for ServeStdio's end.
func (c *conn) servedErr(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.served:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
		return errors.New("unreachable")
	}
}

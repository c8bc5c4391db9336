package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Item 8 of issue 12: whatever a server lists or sends is bounded.

// A memServer is one in-process MCP server; every dial gets a new session
// of it over an in-memory transport. tools, when set, replaces what
// tools/list answers (the SDK's server would refuse duplicates).
type memServer struct {
	srv   *mcp.Server
	lists atomic.Int32 // tools/list requests received

	mu    sync.Mutex
	tools []*mcp.Tool
}

func newMemServer() *memServer {
	f := &memServer{srv: mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)}
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			f.lists.Add(1)
			f.mu.Lock()
			tools := f.tools
			f.mu.Unlock()
			if tools == nil {
				return next(ctx, method, req)
			}
			return &mcp.ListToolsResult{Tools: tools}, nil
		}
	})
	mcp.AddTool(f.srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return f
}

func (f *memServer) transport(serverconf.Config) (mcp.Transport, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := f.srv.Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

// start runs a Manager with server "x" on f; it is closed when the test
// (or the synctest bubble) ends.
func (f *memServer) start(t *testing.T, opts Options, cfg serverconf.Config) (*Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.Emitter = rec
	m := NewManager(&opts)
	m.testTransport = f.transport
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	cfg.ID, cfg.Transport, cfg.Enabled = "x", serverconf.TransportStdio, true
	m.Add(cfg)
	return m, rec
}

func anyObject() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// A server that lists too many tools, one of them twice, with huge
// descriptions, a $ref bomb and invalid names gets its first 1000 tools,
// each bounded, each name once, and one note per problem in its log.
func TestListingIsBounded(t *testing.T) {
	f := newMemServer()
	echo := &mcp.Tool{Name: "echo", Description: "the first echo", InputSchema: anyObject()}
	tools := []*mcp.Tool{
		echo,
		{Name: "echo", Description: "a second echo, listed to take the first one's place", InputSchema: anyObject()},
		{Name: "long", Description: strings.Repeat("ü", 50_000), InputSchema: anyObject()},
		{Name: "bomb", InputSchema: selfRefBomb(8)},
		{Name: "", InputSchema: anyObject()},
		{Name: strings.Repeat("n", 300), InputSchema: anyObject()},
	}
	for i := range 1500 {
		tools = append(tools, &mcp.Tool{Name: fmt.Sprintf("t%04d", i), InputSchema: anyObject()})
	}
	f.tools = tools
	m, rec := f.start(t, Options{Logger: testLogger(t)}, serverconf.Config{Name: "Hostile"})
	st := waitState(t, m, "x", 10*time.Second, StateConnected)

	if st.ToolCount != DefaultMaxTools || len(m.Tools()) != DefaultMaxTools {
		t.Errorf("ToolCount %d, %d tools registered; want %d", st.ToolCount, len(m.Tools()), DefaultMaxTools)
	}
	byName := map[string][]Tool{}
	for _, tool := range m.Tools() {
		byName[tool.OriginalName] = append(byName[tool.OriginalName], tool)
	}
	if e := byName["echo"]; len(e) != 1 || e[0].Description != "the first echo" || e[0].Name != "x__echo" ||
		e[0].DefinitionHash != definitionHash(echo) {
		t.Errorf("echo: %+v; want the first one only, as x__echo", e)
	}
	if l := byName["long"]; len(l) != 1 || len(l[0].Description) > maxDescriptionBytes+100 ||
		!strings.HasSuffix(l[0].Description, "[description clipped: 100,000 bytes, showing the first 8,192]") {
		t.Errorf("long description: %d bytes", len(l[0].Description))
	}
	if b := byName["bomb"]; len(b) != 1 || string(b[0].InputSchema) != string(anySchema) {
		t.Errorf("bomb schema: %+v", b)
	}
	if len(byName[""]) != 0 || len(byName[strings.Repeat("n", 300)]) != 0 {
		t.Error("a tool with an empty or a 300-byte name was kept")
	}
	if _, ok := byName["t0996"]; !ok {
		t.Error("t0996, the 1000th valid tool, is missing")
	}
	if _, ok := byName["t0997"]; ok {
		t.Error("t0997, past the first 1000, is there")
	}

	want := []string{
		"server Hostile lists 1506 tools; Switchboard uses the first 1000",
		`server Hostile lists 2 tools with an empty name or one longer than 256 bytes`,
		`server Hostile lists "echo" more than once; Switchboard uses the first of each name`,
		`server Hostile, tool "long": description longer than 8 KiB, clipped`,
		`server Hostile, tool "bomb": its input schema is larger than 256 KiB`,
	}
	notes := markerLines(m, "x")
	for _, w := range want {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, w) }) {
			t.Errorf("no note %q in the server's log:\n%s", w, strings.Join(notes, "\n"))
		}
	}

	// The same listing again (after tools/list_changed) adds no notes.
	from := rec.Len()
	mcp.AddTool(f.srv, &mcp.Tool{Name: "ignored"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := rec.Wait(ctx, from, eventtest.Is(EventServerTools, func(te ToolsEvent) bool { return te.ServerID == "x" })); err != nil {
		t.Fatalf("no re-list after tools/list_changed: %v", err)
	}
	if again := markerLines(m, "x"); len(again) != len(notes) {
		t.Errorf("the same listing added notes:\n%s", strings.Join(again[len(notes):], "\n"))
	}
}

// markerLines are the lines Switchboard wrote into a server's log.
func markerLines(m *Manager, id string) []string {
	var out []string
	for _, l := range m.Stderr(id).Lines(0, 0) {
		if s, ok := strings.CutPrefix(l.Text, markerPrefix); ok {
			out = append(out, s)
		}
	}
	return out
}

// A storm of tools/list_changed makes at most one re-list in flight and
// at most one every 500 ms, and the last state still arrives.
func TestListChangedStormIsDebounced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newMemServer()
		m, rec := f.start(t, Options{PingInterval: -1}, serverconf.Config{})
		synctest.Wait()
		if st, _ := m.Status("x"); st.State != StateConnected {
			t.Fatalf("status %+v", st)
		}
		f.lists.Store(0)
		events := len(rec.toolEvents("x"))

		// 300 changes 10 ms apart: the SDK's server sends one
		// notification per change (it coalesces within 10 ms only).
		start := time.Now()
		for i := range 300 {
			mcp.AddTool(f.srv, &mcp.Tool{Name: fmt.Sprintf("new%03d", i)}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			time.Sleep(11 * time.Millisecond)
		}
		storm := time.Since(start)
		time.Sleep(time.Second)
		synctest.Wait()

		lists := int(f.lists.Load())
		newEvents := len(rec.toolEvents("x")) - events
		maxLists := int(storm/relistInterval) + 2
		t.Logf("300 list_changed in %s: %d tools/list, %d server:tools events", storm, lists, newEvents)
		if lists > maxLists || lists < 2 {
			t.Errorf("%d tools/list requests during a %s storm, want 2 to %d", lists, storm, maxLists)
		}
		if newEvents > maxLists {
			t.Errorf("%d server:tools events, want at most %d", newEvents, maxLists)
		}
		if st, _ := m.Status("x"); st.ToolCount != 301 {
			t.Errorf("ToolCount %d after the storm, want 301: the last change was lost", st.ToolCount)
		}
		m.Close()
	})
}

// progressTool sends a progress notification every interval, with a
// message of size bytes, steps times (forever if steps is 0), then returns.
func progressTool(f *memServer, name string, interval time.Duration, size, steps int) {
	mcp.AddTool(f.srv, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; steps == 0 || i <= steps; i++ {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(interval):
			}
			msg := fmt.Sprintf("step %d %s", i, strings.Repeat("x", size))
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Message: msg})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
}

// A thousand progress notifications a second with 10 KB messages reach
// onProgress at most ten times a second, clipped to 500 bytes.
func TestProgressIsThrottledAndClipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newMemServer()
		progressTool(f, "chatty", time.Millisecond, 10_000, 2000)
		m, _ := f.start(t, Options{PingInterval: -1}, serverconf.Config{})
		synctest.Wait()

		var got []Progress
		var at []time.Time
		start := time.Now()
		res, err := m.CallTool(t.Context(), "x__chatty", nil, func(p Progress) {
			got = append(got, p) // one call at a time
			at = append(at, time.Now())
		})
		took := time.Since(start)
		if err != nil || res.ForModel(0) != "done" {
			t.Fatalf("call: %v, %v", res, err)
		}
		t.Logf("2000 notifications in %s: %d delivered", took, len(got))
		if limit := int(took/progressInterval) + 2; len(got) > limit || len(got) < limit/2 {
			t.Errorf("%d progress callbacks in %s, want at most %d (ten a second) and not much fewer", len(got), took, limit)
		}
		for i, p := range got {
			if len(p.Message) > maxProgressMessage+len("…") || !strings.HasSuffix(p.Message, "…") {
				t.Fatalf("message %d: %d bytes", i, len(p.Message))
			}
			if i > 0 && at[i].Sub(at[i-1]) < progressInterval {
				t.Fatalf("callbacks %d and %d only %s apart", i-1, i, at[i].Sub(at[i-1]))
			}
		}
		// The throttle keeps the latest: deliveries are fresh, not the
		// first of each interval.
		if n := len(got); n > 2 && got[n-1].Progress < 1900 {
			t.Errorf("last progress delivered %v, want a recent one", got[n-1].Progress)
		}
		m.Close()
	})
}

// Progress keeps a call past its idle timeout, but not past the absolute
// limit: MaxCallDuration, or the server's timeout when that is longer.
func TestCallHasAbsoluteDeadline(t *testing.T) {
	for _, tt := range []struct {
		name             string
		callTimeout, max time.Duration
		progressEvery    time.Duration
		wantEnd          time.Duration
		wantInMessage    string
	}{
		{"MaxCallDuration", time.Second, 30 * time.Second, 100 * time.Millisecond, 30 * time.Second, "absolute limit of 30s"},
		{"a longer server timeout", time.Minute, 30 * time.Second, 10 * time.Second, time.Minute, "absolute limit of 1m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newMemServer()
				progressTool(f, "forever", tt.progressEvery, 10, 0)
				m, _ := f.start(t, Options{PingInterval: -1, MaxCallDuration: tt.max}, serverconf.Config{CallTimeout: tt.callTimeout})
				synctest.Wait()

				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				type outcome struct {
					err error
					at  time.Duration
				}
				done := make(chan outcome, 1)
				start := time.Now()
				go func() {
					_, err := m.CallTool(ctx, "x__forever", nil, func(Progress) {})
					done <- outcome{err, time.Since(start)}
				}()
				time.Sleep(tt.wantEnd + time.Second)
				synctest.Wait()
				select {
				case o := <-done:
					if !errors.Is(o.err, ErrCallTimeout) || !strings.Contains(o.err.Error(), tt.wantInMessage) {
						t.Errorf("err = %v, want ErrCallTimeout saying %q", o.err, tt.wantInMessage)
					}
					if o.at != tt.wantEnd {
						t.Errorf("the call ended after %s, want %s", o.at, tt.wantEnd)
					}
				default:
					cancel()
					<-done
					t.Errorf("the call still ran after %s of progress", tt.wantEnd+time.Second)
				}
				m.Close()
			})
		})
	}
}

// A server paging its listing one tool at a time is read only as far as
// ten times the tool limit.
func TestListingStopsReadingPages(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	var lists atomic.Int32
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	for i := range 50 {
		mcp.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("t%02d", i)}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	f := &memServer{srv: srv}
	m, _ := f.start(t, Options{Logger: testLogger(t), MaxTools: 2}, serverconf.Config{Name: "Paged"})
	if st := waitState(t, m, "x", 10*time.Second, StateConnected); st.ToolCount != 2 {
		t.Errorf("ToolCount %d, want 2", st.ToolCount)
	}
	if n := lists.Load(); n != 20 {
		t.Errorf("%d pages read, want 20 (ten times MaxTools)", n)
	}
	want := "server Paged lists more than 20 tools; Switchboard uses the first 2"
	if notes := markerLines(m, "x"); !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// One server's tools together take at most maxListingBytes; the ones past
// it are left out, with a note.
func TestListingBudget(t *testing.T) {
	props := map[string]any{}
	for i := range 2000 {
		props[fmt.Sprintf("p%04d", i)] = map[string]any{"type": "string", "description": "forty bytes of description, more or less"}
	}
	schema := map[string]any{"type": "object", "properties": props}
	l := newToolListing(DefaultMaxTools)
	for i := range 300 {
		l.add(&mcp.Tool{Name: fmt.Sprintf("t%03d", i), InputSchema: schema})
	}
	size := len(l.tools[0].schema)
	t.Logf("%d-byte schemas: %d tools kept, %d left out, %d bytes in all", size, len(l.tools), l.overBudget, l.bytes)
	if size < 100<<10 || l.bytes > maxListingBytes || len(l.tools) != maxListingBytes/size || l.overBudget != 300-len(l.tools) {
		t.Errorf("%d-byte schemas: %d tools kept, %d left out, %d bytes", size, len(l.tools), l.overBudget, l.bytes)
	}
	want := fmt.Sprintf("server s's tools take more than 8 MiB; Switchboard leaves out the last %d", l.overBudget)
	if notes := l.notes("s"); !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

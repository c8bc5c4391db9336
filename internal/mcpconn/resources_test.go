package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// pngBytes is the start of a PNG file, enough for a MIME type to be right.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

// offersManager starts a Manager whose servers are all srv, in memory; hint,
// when set, is the protocol version the server is said to speak (so
// 2025-11-25 is asked for instead of 2026-07-28).
func offersManager(t *testing.T, srv *mcp.Server, hint string) (*Manager, *recorder) {
	t.Helper()
	o := &Options{PingInterval: -1}
	if hint != "" {
		o.ProtocolHints = map[string]string{"mem": hint}
	}
	m, rec := newTestManager(t, o)
	m.testTransport = func(serverconf.Config) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	m.Add(serverconf.Config{ID: "mem", Name: "Memory", Enabled: true})
	waitState(t, m, "mem", 10*time.Second, StateConnected)
	return m, rec
}

func textResource(uri, text string) mcp.ResourceHandler {
	return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
	}
}

// Updates of a subscribed resource become events, a storm of them at most
// one per notifyInterval; the subscription is renewed when the server
// reconnects, and ends with Unsubscribe. Both ways of subscribing: 2026's
// subscriptions/listen and 2025's resources/subscribe.
func TestResourceSubscriptions(t *testing.T) {
	for _, hint := range []string{"", "2025-11-25"} {
		t.Run("protocol "+hint, func(t *testing.T) {
			subscribed := make(chan string, 10)
			srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, &mcp.ServerOptions{
				SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
					subscribed <- req.Params.URI
					return nil
				},
				UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			})
			srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a"}, textResource("mem://a", "A"))
			m, rec := offersManager(t, srv, hint)
			st, _ := m.Status("mem")
			if want := hint; want != "" && st.ProtocolVersion != want {
				t.Fatalf("protocol %s, want %s", st.ProtocolVersion, want)
			}
			if st.Offers == nil || !st.Offers.Subscribe {
				t.Fatalf("offers = %+v", st.Offers)
			}
			ctx := t.Context()
			if err := m.Subscribe(ctx, "mem", "mem://a"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, subscribed, "mem://a")

			updates := func() int {
				n := 0
				for _, u := range eventtest.Payloads[ResourceUpdated](&rec.Recorder, EventResourceUpdated) {
					if u != (ResourceUpdated{ServerID: "mem", URI: "mem://a"}) {
						t.Errorf("unexpected update %+v", u)
					}
					n++
				}
				return n
			}
			// The server may take the subscription before its stream of
			// notifications is attached (2026's subscriptions/listen): one
			// update is sent until one arrives, then the burst is counted.
			updateUntilSeen(t, srv, rec, 0)
			time.Sleep(2 * notifyInterval)
			before, from := updates(), rec.Len()
			start := time.Now()
			for range 50 {
				srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
			}
			waitEvent(t, rec, from, EventResourceUpdated)
			time.Sleep(2*notifyInterval - time.Since(start))
			if n := updates() - before; n < 1 || n > 2 {
				t.Errorf("%d events for 50 updates within %s, want 1 or 2", n, 2*notifyInterval)
			}

			// The server restarts: the subscription is asked for again.
			if err := m.Restart("mem"); err != nil {
				t.Fatal(err)
			}
			waitState(t, m, "mem", 10*time.Second, StateConnected)
			waitFor(t, subscribed, "mem://a")
			time.Sleep(notifyInterval)
			updateUntilSeen(t, srv, rec, rec.Len())

			if err := m.Unsubscribe(ctx, "mem", "mem://a"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(notifyInterval)
			from = rec.Len()
			srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
			time.Sleep(200 * time.Millisecond)
			for _, e := range rec.Events()[from:] {
				if e.Name == EventResourceUpdated {
					t.Errorf("an update after Unsubscribe: %+v", e.Payload)
				}
			}
		})
	}
}

// An update of a resource nobody subscribed to (a server sending what it
// was not asked for) is dropped.
func TestUnsolicitedUpdateDropped(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a"}, textResource("mem://a", "A"))
	m, rec := offersManager(t, srv, "")
	m.onResourceUpdated("mem", &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
	m.onResourceUpdated("other", &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
	m.onResourceUpdated("mem", nil)
	if got := rec.Named(EventResourceUpdated); len(got) != 0 {
		t.Errorf("events for updates not subscribed to: %+v", got)
	}
}

// A server saying its resources or prompts changed makes the UI list them
// again.
func TestListChangedEvents(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a"}, textResource("mem://a", "A"))
	srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	m, rec := offersManager(t, srv, "")
	from := rec.Len()
	srv.AddResource(&mcp.Resource{URI: "mem://b", Name: "b"}, textResource("mem://b", "B"))
	waitEvent(t, rec, from, EventResourcesChanged)
	srv.AddPrompt(&mcp.Prompt{Name: "q"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	waitEvent(t, rec, from, EventPromptsChanged)
	list, err := m.ListResources(t.Context(), "mem")
	if err != nil || len(list.Resources) != 2 {
		t.Fatalf("resources after the change: %+v, %v", list, err)
	}
	// Lists are [] in JSON, never null, for the UI.
	if raw, _ := json.Marshal(list); !strings.Contains(string(raw), `"subscribed":[]`) || !strings.Contains(string(raw), `"templates":[]`) {
		t.Errorf("listing as JSON: %s", raw)
	}
	prompts, err := m.ListPrompts(t.Context(), "mem")
	if err != nil || len(prompts.Prompts) != 2 {
		t.Errorf("prompts after the change: %+v, %v", prompts, err)
	}
}

// What a server does not offer, or a server not connected, is refused
// with an error that says so.
func TestNotOffered(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	m, _ := offersManager(t, srv, "")
	ctx := t.Context()
	if st, _ := m.Status("mem"); st.Offers == nil || *st.Offers != (Offers{}) {
		t.Errorf("offers of a tools-only server = %+v", st.Offers)
	}
	checks := []struct {
		name string
		err  error
		want string
	}{
		{"list resources", func() error { _, err := m.ListResources(ctx, "mem"); return err }(), "Memory does not offer resources"},
		{"read", func() error { _, err := m.ReadResource(ctx, "mem", "mem://a"); return err }(), "Memory does not offer resources"},
		{"subscribe", m.Subscribe(ctx, "mem", "mem://a"), "Memory does not offer updates of its resources"},
		{"prompts", func() error { _, err := m.ListPrompts(ctx, "mem"); return err }(), "Memory does not offer prompts"},
		{"complete", func() error {
			_, err := m.Complete(ctx, "mem", CompletionRef{Type: RefPrompt, Name: "p"}, "a", "", nil)
			return err
		}(), "Memory does not offer completion"},
	}
	for _, c := range checks {
		if !errors.Is(c.err, ErrNotOffered) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrNotOffered saying %q", c.name, c.err, c.want)
		}
	}
	if l := m.res.subscribed("mem"); len(l) != 0 {
		t.Errorf("a refused subscription is kept: %v", l)
	}
	if _, err := m.ListResources(ctx, "nobody"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
	m.Disconnect("mem")
	_, err := m.ListPrompts(ctx, "mem")
	if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "connect it first") {
		t.Errorf("disconnected server: %v", err)
	}
}

// A resource past MaxResourceBytes is refused with its size; an image
// comes back as binary with its type.
func TestReadResourceBounds(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	big := strings.Repeat("x", MaxResourceBytes+1)
	srv.AddResource(&mcp.Resource{URI: "mem://big", Name: "big"}, textResource("mem://big", big))
	srv.AddResource(&mcp.Resource{URI: "mem://img", Name: "img", MIMEType: "image/png"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://img", MIMEType: "image/png", Blob: pngBytes}}}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "mem://" + strings.Repeat("l", maxURIBytes), Name: "long"}, textResource("mem://long", "L"))
	m, _ := offersManager(t, srv, "")
	ctx := t.Context()
	_, err := m.ReadResource(ctx, "mem", "mem://big")
	if !errors.Is(err, ErrResourceTooLarge) || !strings.Contains(err.Error(), "mem://big is 8.0 MB; Switchboard reads resources of up to 8.0 MB") {
		t.Errorf("oversized resource: %v", err)
	}
	img, err := m.ReadResource(ctx, "mem", "mem://img")
	if err != nil {
		t.Fatal(err)
	}
	want := []ResourceContent{{URI: "mem://img", MIMEType: "image/png", Blob: pngBytes, Binary: true}}
	if diff := cmp.Diff(want, img.Contents); diff != "" {
		t.Errorf("image (-want +got):\n%s", diff)
	}
	list, err := m.ListResources(ctx, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 2 || len(list.Notes) != 1 || !strings.Contains(list.Notes[0], "1 left out") {
		t.Errorf("listing with a URI too long: %+v", list)
	}
}

// A throttle runs at once, then merges the calls within the interval into
// one at its end.
func TestThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var th throttle
		var runs atomic.Int32
		for range 10 {
			th.do("k", func() { runs.Add(1) })
		}
		th.do("other", func() { runs.Add(1) })
		if n := runs.Load(); n != 2 {
			t.Fatalf("%d runs at once, want 2 (one per key)", n)
		}
		time.Sleep(notifyInterval)
		synctest.Wait()
		if n := runs.Load(); n != 3 {
			t.Fatalf("%d runs after the interval, want 3", n)
		}
		time.Sleep(notifyInterval)
		th.do("k", func() { runs.Add(1) })
		if n := runs.Load(); n != 4 {
			t.Fatalf("%d runs after a quiet interval, want 4", n)
		}
	})
}

func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %q within 10 s", want)
	}
}

// updateUntilSeen sends an update of mem://a every 200 ms until the
// manager emits resource:updated (past event from), for 10 s at most.
func updateUntilSeen(t *testing.T, srv *mcp.Server, rec *recorder, from int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
		wait, stop := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := rec.Wait(wait, from, func(e eventtest.Event) bool { return e.Name == EventResourceUpdated })
		stop()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("no %s event after updates for 10 s", EventResourceUpdated)
		}
	}
}

func waitEvent(t *testing.T, rec *recorder, from int, name string) eventtest.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	e, err := rec.Wait(ctx, from, func(e eventtest.Event) bool { return e.Name == name })
	if err != nil {
		t.Fatalf("no %s event: %v", name, err)
	}
	return e
}

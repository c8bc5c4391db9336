package core

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// viewServer is an MCP server with a view: "show" declares it, "poll" is
// for views only, "think" for models only, "off" is switched off by the
// user; ran counts the calls that ran.
type viewServer struct {
	srv *mcp.Server
	ran atomic.Int32
}

const viewDoc = "<!doctype html><html><head><title>view</title></head><body><script>start()</script></body></html>"

func newViewServer() *viewServer {
	v := &viewServer{srv: mcp.NewServer(&mcp.Implementation{Name: "views", Version: "1"}, nil)}
	ui := func(kv ...any) mcp.Meta {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return mcp.Meta{"ui": m}
	}
	handle := func(_ context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		v.ran.Add(1)
		raw, _ := json.Marshal(in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Params.Name + " " + string(raw)}}}, nil, nil
	}
	mcp.AddTool(v.srv, &mcp.Tool{Name: "show", Description: "Shows.", Meta: ui("resourceUri", "ui://views/main")}, handle)
	mcp.AddTool(v.srv, &mcp.Tool{Name: "poll", Description: "Polls.", Meta: ui("visibility", []any{"app"})}, handle)
	mcp.AddTool(v.srv, &mcp.Tool{Name: "think", Description: "Thinks.", Meta: ui("visibility", []any{"model"})}, handle)
	mcp.AddTool(v.srv, &mcp.Tool{Name: "off", Description: "Off."}, handle)
	v.srv.AddResource(&mcp.Resource{URI: "ui://views/main", Name: "main", MIMEType: mcpconn.UIMIMEType},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://views/main", MIMEType: mcpconn.UIMIMEType, Text: viewDoc,
				Meta: ui("csp", map[string]any{"connectDomains": []any{"https://api.example.com", "http://evil.example"}},
					"permissions", map[string]any{"clipboardWrite": map[string]any{}, "camera": map[string]any{}})}}}, nil
		})
	v.srv.AddResource(&mcp.Resource{URI: "notes://one", Name: "one", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "notes://one", MIMEType: "text/plain", Text: "note one"}}}, nil
		})
	return v
}

// serve runs srv over streamable HTTP until the test ends.
func serveMCP(t *testing.T, srv *mcp.Server) string {
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the services stop
	return hs.URL
}

// viewServices starts services that show views (or not), with the view
// server as "views" and another server, with a tool of its own, as
// "other"; conv is a conversation to open views in.
func viewServices(t *testing.T, views bool) (svc *Services, vs *viewServer, user *askedUser, conv string) {
	t.Helper()
	return viewServicesIn(t, t.TempDir(), views)
}

// viewServicesIn is viewServices with its data (the database) in dir.
func viewServicesIn(t *testing.T, dir string, views bool) (svc *Services, vs *viewServer, user *askedUser, conv string) {
	t.Helper()
	vs = newViewServer()
	other := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
	mcp.AddTool(other, &mcp.Tool{Name: "steal"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		t.Error("another server's tool ran for a view")
		return &mcp.CallToolResult{}, nil, nil
	})
	user = &askedUser{wait: true}
	c, svc := startServices(t, dir, "http://127.0.0.1:9", user, &mcpconn.Options{PingInterval: -1, AppViews: views})
	user.broker = func() *approval.Broker { return svc.Broker }
	for _, cfg := range []serverconf.Config{
		{ID: "views", Name: "Views", Transport: serverconf.TransportHTTP, URL: serveMCP(t, vs.srv), Enabled: true, DisabledTools: []string{"off"}},
		{ID: "other", Name: "Other", Transport: serverconf.TransportHTTP, URL: serveMCP(t, other), Enabled: true},
	} {
		if _, err := svc.Servers.Save(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Start(t.Context(), c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "views", mcpconn.StateConnected)
	waitState(t, svc, "other", mcpconn.StateConnected)
	cv, err := c.Store.CreateConversation(t.Context(), store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	return svc, vs, user, cv.ID
}

// A view opens only where views are shown, for a tool that has one, and
// is served from the app's origin under the policy it declared (less what
// is refused), which the window is told.
func TestOpenAppView(t *testing.T) {
	svc, _, _, conv := viewServices(t, true)
	ctx := bounded(t)
	v, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	want := AppView{ID: v.ID, URL: "/mcp-view/" + v.ID, ServerID: "views", ServerName: "Views", Tool: "show", ResourceURI: "ui://views/main",
		CSP: v.CSP, Allow: "clipboard-write", PrefersBorder: true, ExternalDomains: []string{"https://api.example.com"}}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	if !strings.Contains(v.CSP, "connect-src https://api.example.com;") || strings.Contains(v.CSP, "evil") {
		t.Errorf("CSP %s", v.CSP)
	}
	if log := serverLog(svc, "views"); !strings.Contains(log, `"http://evil.example" is not an https:// or wss:// origin`) {
		t.Errorf("the refused origin is not in the server's log:\n%s", log)
	}

	rec := httptest.NewRecorder()
	svc.AppViewHandler().ServeHTTP(rec, httptest.NewRequest("GET", v.URL, nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != 200 || !strings.Contains(string(body), "<script>start()</script>") ||
		!strings.Contains(rec.Header().Get("Content-Security-Policy"), "frame-ancestors 'self'") {
		t.Errorf("served %d %q, CSP %q", rec.Code, body, rec.Header().Get("Content-Security-Policy"))
	}

	for _, tt := range []struct{ conv, server, tool, err string }{
		{conv, "views", "poll", "has no view"},
		{conv, "views", "nope", `has no tool "nope"`},
		{conv, "other", "show", `has no tool "show"`},
		{"no-such-conversation", "views", "show", "no-such-conversation"},
	} {
		if _, err := svc.OpenAppView(ctx, tt.conv, tt.server, tt.tool); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("OpenAppView(%s, %s): %v; want an error saying %q", tt.server, tt.tool, err, tt.err)
		}
	}

	if err := svc.CloseAppView(v.ID); err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	svc.AppViewHandler().ServeHTTP(rec, httptest.NewRequest("GET", v.URL, nil))
	if rec.Code != 404 {
		t.Errorf("a closed view is served: %d", rec.Code)
	}
	if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); !errors.Is(err, ErrViewClosed) {
		t.Errorf("a call of a closed view: %v", err)
	}
	if err := svc.CloseAppView(v.ID); err != nil {
		t.Errorf("closing twice: %v", err)
	}
}

// Where views are not shown (the command line, a window that cannot
// isolate them), none opens.
func TestAppViewsOff(t *testing.T) {
	svc, _, _, conv := viewServices(t, false)
	if _, err := svc.OpenAppView(t.Context(), conv, "views", "show"); !errors.Is(err, ErrViewsOff) {
		t.Errorf("OpenAppView without views: %v", err)
	}
}

// A view calls its own server's tools meant for views, each after the
// user's approval (the request says the view asks), audited apart from
// the model's calls; everything else is refused before anyone is asked.
func TestAppViewCallTool(t *testing.T) {
	svc, vs, user, conv := viewServices(t, true)
	ctx := bounded(t)
	v, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}

	user.answer(approval.AllowOnce)
	res, err := svc.AppViewCallTool(ctx, v.ID, "poll", map[string]any{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ForModel(0); got != `poll {"n":1}` {
		t.Errorf("result %q", got)
	}
	asked := user.requests()
	if len(asked) != 1 || asked[0].RequestedBy != approval.RequestedByView || asked[0].Tool != "poll" || asked[0].ServerName != "Views" ||
		asked[0].ConversationID != conv {
		t.Fatalf("asked %+v; want one request for poll, requested by the view", asked)
	}

	// Refused without asking, and without running.
	for _, tt := range []struct{ tool, err string }{
		{"think", "for models only"},
		{"steal", `has no tool "steal"`},
		{"other__steal", `has no tool "other__steal"`},
		{"views__poll", `has no tool "views__poll"`},
		{"nope", `has no tool "nope"`},
		{"off", "switched off"},
	} {
		if _, err := svc.AppViewCallTool(ctx, v.ID, tt.tool, nil); !errors.Is(err, ErrViewRefused) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v; want refused, saying %q", tt.tool, err, tt.err)
		}
	}
	if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", map[string]any{"big": strings.Repeat("x", maxViewArgsBytes)}); !errors.Is(err, ErrViewRefused) {
		t.Errorf("arguments past the bound: %v", err)
	}

	// A tool for both may be called too; the user may decline.
	user.answer(approval.Deny)
	if _, err := svc.AppViewCallTool(ctx, v.ID, "show", nil); !errors.Is(err, ErrViewDeclined) {
		t.Errorf("declined call: %v", err)
	}
	if n := len(user.requests()); n != 2 {
		t.Errorf("the user was asked %d times; want 2 (the refused calls never reach them)", n)
	}
	if n := vs.ran.Load(); n != 1 {
		t.Errorf("%d calls ran; want 1", n)
	}

	calls, err := svc.store.ViewCalls(ctx, conv, 0)
	if err != nil {
		t.Fatal(err)
	}
	type audit struct{ Tool, Status, Decision, DecidedBy, RequestedBy string }
	var got []audit
	for _, c := range calls {
		got = append(got, audit{c.Tool, c.Status, c.Decision, c.DecidedBy, c.RequestedBy})
	}
	want := []audit{
		{"views__poll", store.CallDone, "allow_once", "user", store.RequestedByView},
		{"views__show", store.CallDenied, "deny", "user", store.RequestedByView},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("audit (-want +got):\n%s", d)
	}
	if model, _ := svc.store.ToolCalls(ctx, conv, 0); len(model) != 0 {
		t.Errorf("the view's calls are among the model's: %+v", model)
	}

	// A view reads its own server's resources, not another's.
	rc, err := svc.AppViewReadResource(ctx, v.ID, "notes://one")
	if err != nil || len(rc.Contents) != 1 || rc.Contents[0].Text != "note one" || rc.ServerID != "views" {
		t.Errorf("read %+v, %v", rc, err)
	}
}

// A view has at most maxViewCallsInFlight calls at once (those waiting
// for the user count), and closing it cancels them, approvals included.
func TestAppViewCallsEndWithTheView(t *testing.T) {
	svc, vs, user, conv := viewServices(t, true)
	ctx := bounded(t)
	v, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, maxViewCallsInFlight)
	for range maxViewCallsInFlight {
		go func() {
			_, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil)
			errs <- err
		}()
	}
	for i := range maxViewCallsInFlight {
		if _, err := user.Wait(ctx, 0, func(e eventtest.Event) bool {
			return len(user.requests()) > i
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); !errors.Is(err, ErrViewBusy) {
		t.Errorf("a call past the limit: %v", err)
	}
	if err := svc.CloseAppView(v.ID); err != nil {
		t.Fatal(err)
	}
	for range maxViewCallsInFlight {
		select {
		case err := <-errs:
			if err == nil || !strings.Contains(err.Error(), "cancelled") {
				t.Errorf("a call of a closed view: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a call outlived its view")
		}
	}
	if len(svc.Broker.Pending()) != 0 {
		t.Errorf("approvals outlived the view: %+v", svc.Broker.Pending())
	}
	if vs.ran.Load() != 0 {
		t.Error("a cancelled call ran")
	}
	calls, _ := svc.store.ViewCalls(ctx, conv, 0)
	for _, c := range calls {
		if c.Status != store.CallCancelled {
			t.Errorf("audit of a cancelled call: %+v", c)
		}
	}
}

// When its server changes the view's tool, or goes, the view ends and the
// window is told why.
func TestAppViewEndsWithItsTool(t *testing.T) {
	svc, vs, user, conv := viewServices(t, true)
	ctx := bounded(t)
	closedFor := func(id string) string {
		t.Helper()
		e, err := user.Wait(ctx, 0, eventtest.Is(EventAppViewClosed, func(c AppViewClosed) bool { return c.ViewID == id }))
		if err != nil {
			t.Fatalf("no %s for %s: %v", EventAppViewClosed, id, err)
		}
		return e.Payload.(AppViewClosed).Reason
	}
	v1, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	// Another tool changes: the view stays.
	mcp.AddTool(vs.srv, &mcp.Tool{Name: "poll", Description: "Polls more.", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}},
		func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	timetest.WaitFor(t, 20*time.Second, "the changed poll", func() bool {
		t, ok := svc.serverTool("views", "poll")
		return ok && t.Description == "Polls more."
	})
	if _, err := svc.views.state(v1.ID); err != nil {
		t.Fatalf("a change of another tool closed the view: %v", err)
	}
	// Its own tool changes.
	mcp.AddTool(vs.srv, &mcp.Tool{Name: "show", Description: "Shows, differently.", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://views/main"}}},
		func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	if got := closedFor(v1.ID); got != "Views changed the tool show" {
		t.Errorf("reason %q", got)
	}
	v2, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Manager.Disconnect("views"); err != nil {
		t.Fatal(err)
	}
	if got := closedFor(v2.ID); got != "Views disconnected" {
		t.Errorf("reason %q", got)
	}
	if _, err := svc.AppViewCallTool(ctx, v2.ID, "poll", nil); !errors.Is(err, ErrViewClosed) {
		t.Errorf("a call of a view whose server went: %v", err)
	}
}

// A view's links: http(s) only, bounded, opened only for a live view.
func TestAppViewOpenLink(t *testing.T) {
	svc, _, _, conv := viewServices(t, true)
	var opened []string
	svc.views.open = func(_ context.Context, u string) error { opened = append(opened, u); return nil }
	v, err := svc.OpenAppView(t.Context(), conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "https://user:pw@example.com/",
		"//example.com", "https:example.com", "https://example.com/" + strings.Repeat("a", maxLinkBytes), "mailto:a@b.c", "wails://wails/"} {
		if err := svc.AppViewOpenLink(t.Context(), v.ID, bad); !errors.Is(err, ErrViewRefused) {
			t.Errorf("%.60q: %v; want refused", bad, err)
		}
	}
	if err := svc.AppViewOpenLink(t.Context(), v.ID, "https://example.com/docs?q=1"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"https://example.com/docs?q=1"}, opened); d != "" {
		t.Errorf("opened (-want +got):\n%s", d)
	}
	svc.CloseAppView(v.ID)
	if err := svc.AppViewOpenLink(t.Context(), v.ID, "https://example.com/"); !errors.Is(err, ErrViewClosed) {
		t.Errorf("a closed view's link: %v", err)
	}
}

// bounded is the test's context, ended after 30 s: a call that should be
// refused but waits for the user instead fails the test rather than
// hanging it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A view's bucket: viewBurst at once, then one a second.
func TestViewRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &viewState{tokens: viewBurst, filled: time.Now()}
		for i := range viewBurst {
			if _, err := st.begin(false); err != nil {
				t.Fatalf("request %d of the burst: %v", i+1, err)
			}
		}
		if _, err := st.begin(false); !errors.Is(err, ErrViewBusy) {
			t.Fatalf("past the burst: %v", err)
		}
		time.Sleep(time.Second)
		if _, err := st.begin(false); err != nil {
			t.Errorf("a second later: %v", err)
		}
		if _, err := st.begin(false); !errors.Is(err, ErrViewBusy) {
			t.Errorf("two in that second: %v", err)
		}
		time.Sleep(time.Hour)
		n := 0
		for {
			if _, err := st.begin(false); err != nil {
				break
			}
			n++
		}
		if n != viewBurst {
			t.Errorf("after an hour idle, %d at once; want the burst, %d", n, viewBurst)
		}
	})
}

// A tool switched off for the conversation is off for its views too, and
// its view does not open; a tool meant for views alone is not held by the
// conversation's Only (the picker never lists it), but is by its Off.
func TestAppViewToolOffInConversation(t *testing.T) {
	svc, vs, _, conv := viewServices(t, true)
	ctx := bounded(t)
	if err := svc.Broker.SetYolo(ctx, true); err != nil { // nobody is asked: the refusal alone holds
		t.Fatal(err)
	}
	v, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		sel     chat.ToolSelection
		refused []string // the rest of poll and show run
	}{
		{"poll off", chat.ToolSelection{Off: []string{"views/poll"}}, []string{"poll"}},
		{"show off", chat.ToolSelection{Off: []string{"views/show"}}, []string{"show"}},
		{"only show", chat.ToolSelection{Only: []string{"views/show"}}, nil},
		{"only none", chat.ToolSelection{Only: []string{}}, []string{"show"}},
		{"only none, poll off", chat.ToolSelection{Only: []string{}, Off: []string{"views/poll"}}, []string{"poll", "show"}},
	} {
		if err := svc.Chat.SetTools(ctx, conv, &tt.sel); err != nil {
			t.Fatal(err)
		}
		var refused []string
		for _, tool := range []string{"poll", "show"} {
			ran := vs.ran.Load()
			_, err := svc.AppViewCallTool(ctx, v.ID, tool, nil)
			switch {
			case errors.Is(err, ErrViewRefused) && strings.Contains(err.Error(), "switched off for this conversation"):
				refused = append(refused, tool)
			case err != nil:
				t.Errorf("%s: %s: %v", tt.name, tool, err)
			case vs.ran.Load() != ran+1:
				t.Errorf("%s: %s did not run", tt.name, tool)
			}
		}
		if d := cmp.Diff(tt.refused, refused); d != "" {
			t.Errorf("%s: refused (-want +got):\n%s", tt.name, d)
		}
		_, err := svc.OpenAppView(ctx, conv, "views", "show")
		if wantOff := slices.Contains(tt.refused, "show"); wantOff != (err != nil) {
			t.Errorf("%s: opening the view of show: %v", tt.name, err)
		} else if wantOff && (!errors.Is(err, ErrViewRefused) || !strings.Contains(err.Error(), "switched off for this conversation")) {
			t.Errorf("%s: opening the view of show: %v; want refused, saying it is switched off for this conversation", tt.name, err)
		}
	}
}

// A view whose calls the user declines maxViewDenials times in a row is
// ended, and the window is told why; a call allowed in between starts the
// count again.
func TestAppViewEndsAfterDenials(t *testing.T) {
	svc, vs, user, conv := viewServices(t, true)
	ctx := bounded(t)
	v, err := svc.OpenAppView(ctx, conv, "views", "show")
	if err != nil {
		t.Fatal(err)
	}
	user.answer(approval.Deny, approval.Deny, approval.AllowOnce)
	for range maxViewDenials - 1 {
		if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); !errors.Is(err, ErrViewDeclined) {
			t.Fatalf("a declined call: %v", err)
		}
	}
	if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); err != nil {
		t.Fatalf("an allowed call after %d declined: %v", maxViewDenials-1, err)
	}
	user.answer(approval.Deny, approval.Deny, approval.Deny)
	for i := range maxViewDenials {
		if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); !errors.Is(err, ErrViewDeclined) {
			t.Fatalf("declined call %d: %v", i+1, err)
		}
	}
	e, err := user.Wait(ctx, 0, eventtest.Is(EventAppViewClosed, func(c AppViewClosed) bool { return c.ViewID == v.ID }))
	if err != nil {
		t.Fatalf("no %s: %v", EventAppViewClosed, err)
	}
	if got := e.Payload.(AppViewClosed).Reason; got != ViewDeniedReason {
		t.Errorf("reason %q; want %q", got, ViewDeniedReason)
	}
	asked := len(user.requests())
	if _, err := svc.AppViewCallTool(ctx, v.ID, "poll", nil); !errors.Is(err, ErrViewClosed) {
		t.Errorf("a call after %d declined in a row: %v; want the view closed", maxViewDenials, err)
	}
	if n := len(user.requests()); n != asked {
		t.Errorf("the user was asked again after the view ended")
	}
	if n := vs.ran.Load(); n != 1 {
		t.Errorf("%d calls ran; want 1", n)
	}
}

// The audit keeps at most maxViewAuditBytes of a view's call's arguments
// and result, saying it clipped them: views whose tool needs no approval
// do not fill the disk.
func TestAppViewAuditBounded(t *testing.T) {
	dir := t.TempDir()
	svc, vs, _, conv := viewServicesIn(t, dir, true)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // 200 MiB through MCP, under -race too
	defer cancel()
	if err := svc.Broker.SetYolo(ctx, true); err != nil {
		t.Fatal(err)
	}
	const calls = 100
	var views []string
	for range calls / viewBurst {
		v, err := svc.OpenAppView(ctx, conv, "views", "show")
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, v.ID)
	}
	size := func() int64 {
		var n int64
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		return n
	}
	before := size()
	big := strings.Repeat("é", (maxViewArgsBytes-100)/2)
	for i := range calls {
		if _, err := svc.AppViewCallTool(ctx, views[i/viewBurst], "poll", map[string]any{"big": big}); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if n := vs.ran.Load(); n != calls {
		t.Fatalf("%d calls ran; want %d", n, calls)
	}
	grew := size() - before
	t.Logf("%d calls grew the data by %d KiB", calls, grew>>10)
	// About 10.5 MiB here: the clipped arguments, the Tool activity
	// search index over them, and the WAL; 100 MiB unbounded.
	if grew >= 12<<20 {
		t.Errorf("%d calls with 1 MiB of arguments grew the data by %d MiB; want less than 12", calls, grew>>20)
	}
	recs, err := svc.store.ViewCalls(ctx, conv, 1)
	if err != nil || len(recs) != 1 {
		t.Fatalf("audit: %d records, %v", len(recs), err)
	}
	rec := recs[0]
	if len(rec.Arguments) > maxViewAuditBytes || len(rec.Arguments) < maxViewAuditBytes-100 || !strings.HasPrefix(rec.Arguments, `{"big":"éé`) ||
		!strings.HasSuffix(rec.Arguments, "é … [clipped for the audit: 1048486 bytes in all]") {
		t.Errorf("audited arguments: %d bytes, ending %q", len(rec.Arguments), rec.Arguments[max(0, len(rec.Arguments)-80):])
	}
	var res mcpconn.Result
	if err := json.Unmarshal(rec.Result, &res); err != nil || len(rec.Result) > maxViewAuditBytes || len(res.Content) != 1 ||
		!strings.HasPrefix(res.Content[0].Text, `{"content":[{"type":"text","text":"poll {\"big\":\"éé`) ||
		!strings.Contains(res.Content[0].Text, "é … [clipped for the audit: ") {
		t.Errorf("audited result: %d bytes, %v, %.200s", len(rec.Result), err, rec.Result)
	}
}

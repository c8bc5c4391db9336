package core

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// shownElicitations returns what the window showed, in order, as
// "mode host" with " waiting" for the second dialog of a step.
func shownElicitations(u *userAtWindow) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, r := range u.elicited {
		s := string(r.Mode) + " " + r.Host
		if r.Waiting {
			s += " waiting"
		}
		out = append(out, s)
	}
	return out
}

// TestURLStepsOfServerEverything: server-everything's tool fails with a
// URL-elicitation-required error (-32042); the user opens the page, says
// it is done, and the call is retried once (which then asks, by
// elicitation/create, for the page the call was about).
func TestURLStepsOfServerEverything(t *testing.T) {
	u := &userAtWindow{elicit: func(*elicit.Request) elicit.Answer { return elicit.Answer{Action: elicit.Accept} }}
	var opened []string
	c, svc := askServices(t, nil, u, true, &opened)
	addServer(t, c, svc, everythingOver(t, "stdio"))

	got := callText(t, svc, "everything__trigger-url-elicitation", `{"url":"https://example.com/consent","errorPath":true}`)
	if !strings.Contains(got, "✅ User completed the URL elicitation flow") {
		t.Errorf("result: %s", got)
	}
	if want := []string{"https://modelcontextprotocol.io", "https://example.com/consent"}; !slices.Equal(opened, want) {
		t.Errorf("opened %v; want %v", opened, want)
	}
	want := []string{"url modelcontextprotocol.io", "url modelcontextprotocol.io waiting", "url example.com"}
	if diff := cmp.Diff(want, shownElicitations(u)); diff != "" {
		t.Errorf("dialogs (-want +got):\n%s", diff)
	}
	if len(u.errs) > 0 {
		t.Errorf("answers refused: %v", u.errs)
	}
}

// TestURLStepsNotTaken: when the user will not open the page, or no
// window can show it, the call is not retried and its result tells the
// model that the user must complete the step.
func TestURLStepsNotTaken(t *testing.T) {
	u := &userAtWindow{elicit: func(*elicit.Request) elicit.Answer { return elicit.Answer{Action: elicit.Decline} }}
	var opened []string
	c, svc := askServices(t, nil, u, true, &opened)
	addServer(t, c, svc, everythingOver(t, "stdio"))
	res, err := svc.Manager.CallTool(t.Context(), "everything__trigger-url-elicitation", json.RawMessage(`{"url":"https://example.com/x","errorPath":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.ForModel(1 << 20)
	for _, want := range []string{"[tool error]", "Everything needs the user to complete a step in their browser before this tool can run (MCP error -32042: This request requires browser-based authorization.)",
		"“Open this link to satisfy the prerequisite, then retry the request.” (at modelcontextprotocol.io)",
		"It was not completed: the user chose not to open modelcontextprotocol.io (decline). Tell the user what is needed; once they have done it, call the tool again."} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if len(opened) != 0 || len(shownElicitations(u)) != 1 {
		t.Errorf("opened %v, shown %v", opened, shownElicitations(u))
	}

	// No window (the CLI): the same, without asking.
	u2 := &userAtWindow{}
	c2, svc2 := askServices(t, nil, u2, false, nil)
	addServer(t, c2, svc2, everythingOver(t, "stdio"))
	text = callText(t, svc2, "everything__trigger-url-elicitation", `{"url":"https://example.com/y","errorPath":true}`)
	if !strings.Contains(text, "It was not completed: asking the user to open modelcontextprotocol.io: "+asks.ErrNoWindow.Error()) {
		t.Errorf("without a window: %s", text)
	}
}

// stepServer is a go-sdk server (2025-11-25) whose connect tool needs the
// user to visit a page first (-32042, elicitation e1); the fake browser
// (open) makes the server say the step is done, after first saying so of
// an elicitation it never asked for.
type stepServer struct {
	url   string
	mu    sync.Mutex
	calls int
	ss    *mcp.ServerSession
}

func newStepServer(t *testing.T) *stepServer {
	s := &stepServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "steps", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	srv.AddTool(&mcp.Tool{Name: "connect", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls++
		s.ss = req.Session
		if s.calls == 1 {
			return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e1",
				URL: "https://auth.example.com/connect?elicitationId=e1", Message: "Connect your Example account."}})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "connected"}}}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	s.url = hs.URL
	return s
}

// complete has the server say the step id is done.
func (s *stepServer) complete(id string) error {
	s.mu.Lock()
	ss := s.ss
	s.mu.Unlock()
	return ss.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: id})
}

// TestURLStepDoneByTheServer: the user opens the page and does not say
// done; the server's notifications/elicitation/complete closes the
// waiting dialog (the window hears elicit:completed) and the call is
// retried. A completion of an unknown elicitation is ignored.
func TestURLStepDoneByTheServer(t *testing.T) {
	s := newStepServer(t)
	u := &userAtWindow{elicit: func(r *elicit.Request) elicit.Answer {
		if r.Waiting {
			return elicit.Answer{} // the user does not say; the server will
		}
		return elicit.Answer{Action: elicit.Accept}
	}}
	c, svc := askServices(t, nil, u, true, nil)
	svc.asks.open = func(_ context.Context, url string) error { // the browser: the user completes the page
		go func() {
			if err := s.complete("unknown"); err != nil {
				t.Error(err)
			}
			if err := s.complete("e1"); err != nil {
				t.Error(err)
			}
		}()
		return nil
	}
	addServer(t, c, svc, serverconf.Config{ID: "steps", Name: "Steps", Transport: serverconf.TransportHTTP, URL: s.url, Enabled: true})

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a missed completion would wait 10 minutes
	defer cancel()
	res, err := svc.Manager.CallTool(ctx, "steps__connect", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ForModel(1 << 10); got != "connected" {
		t.Errorf("result %q", got)
	}
	if want := []string{"url auth.example.com", "url auth.example.com waiting"}; !slices.Equal(shownElicitations(u), want) {
		t.Errorf("dialogs %v; want %v", shownElicitations(u), want)
	}
	var completed []elicit.Completed
	var ends []asks.Ended
	for _, e := range u.Events() {
		switch p := e.Payload.(type) {
		case elicit.Completed:
			completed = append(completed, p)
		case asks.Ended:
			ends = append(ends, p)
		}
	}
	want := []elicit.Completed{{ServerID: "steps", ServerName: "Steps", ElicitationID: "e1", Message: "Connect your Example account.", Host: "auth.example.com"}}
	if diff := cmp.Diff(want, completed); diff != "" {
		t.Errorf("completed events (-want +got):\n%s", diff)
	}
	if len(ends) != 2 || ends[0].Outcome != asks.Answered || ends[1].Outcome != asks.Cancelled {
		t.Errorf("ended events %+v", ends)
	}
	if log := serverLog(svc, "steps"); !strings.Contains(log, `the server says the step at auth.example.com is done ("Connect your Example account.")`) {
		t.Errorf("server log:\n%s", log)
	}
}

// TestCompletionOfAnElicitation: for an elicitation/create in URL mode, a
// completion while the dialog is open closes it (the server is told
// cancel: the user never chose); one soon after the user opened the page
// shows "done"; one of an unknown or finished elicitation is ignored.
func TestCompletionOfAnElicitation(t *testing.T) {
	rec := &eventtest.Recorder{}
	a := newServerAsks(rec, func() bool { return true })
	a.manager = func() *mcpconn.Manager { return nil }
	completedEvents := func() int {
		n := 0
		for _, e := range rec.Events() {
			if e.Name == elicit.EventCompleted {
				n++
			}
		}
		return n
	}
	ask := func(id string) <-chan elicit.Answer {
		out := make(chan elicit.Answer, 1)
		go func() {
			ans, err := a.askInput(t.Context(), "s1", "url", "Sign in", nil, "https://example.com/in", id, true)
			if err != nil {
				t.Error(err)
			}
			out <- ans
		}()
		return out
	}
	pending := func() *elicit.Request {
		var r *elicit.Request
		timetest.WaitFor(t, 20*time.Second, "the dialog", func() bool {
			if p := a.elicit.Pending(); len(p) == 1 {
				r = p[0]
			}
			return r != nil
		})
		return r
	}

	// Done while the dialog is open.
	ch := ask("e1")
	pending()
	a.elicitComplete("s1", "e1")
	if ans := <-ch; ans.Action != elicit.Cancel {
		t.Errorf("answer %+v; want cancel", ans)
	}
	if n := completedEvents(); n != 1 {
		t.Errorf("%d completed events", n)
	}

	// Done after the user opened the page; then again, and unknown.
	ch = ask("e2")
	if err := a.elicit.Answer(pending().ID, elicit.Answer{Action: elicit.Accept}); err != nil {
		t.Fatal(err)
	}
	if ans := <-ch; ans.Action != elicit.Accept {
		t.Fatalf("answer %+v", ans)
	}
	a.elicitComplete("s1", "e2")
	a.elicitComplete("s1", "e2")
	a.elicitComplete("s1", "nope")
	a.elicitComplete("s2", "e2")
	if n := completedEvents(); n != 2 {
		t.Errorf("%d completed events; want 2", n)
	}

	// Declined: a later completion is not the user's step.
	ch = ask("e3")
	if err := a.elicit.Answer(pending().ID, elicit.Answer{Action: elicit.Decline}); err != nil {
		t.Fatal(err)
	}
	<-ch
	a.elicitComplete("s1", "e3")
	if n := completedEvents(); n != 2 {
		t.Errorf("%d completed events after a declined step; want 2", n)
	}
}

// TestStepsAreBounded: a server that sends many URL requests has at most
// maxStepsPerServer listened for; the oldest opened page goes first.
func TestStepsAreBounded(t *testing.T) {
	var s steps
	var first *step
	for i := range maxStepsPerServer + 3 {
		st, release := s.watch(elicit.Completed{ServerID: "s1", ElicitationID: string(rune('a' + i))})
		release(true)
		if i == 0 {
			first = st
		}
	}
	s.mu.Lock()
	n := len(s.by)
	s.mu.Unlock()
	if n != maxStepsPerServer {
		t.Errorf("%d steps listened for; want %d", n, maxStepsPerServer)
	}
	if _, _, ok := s.complete("s1", "a"); ok || first.ctx.Err() == nil {
		t.Error("the oldest step was kept")
	}
	if _, _, ok := s.complete("s1", string(rune('a'+maxStepsPerServer+2))); !ok {
		t.Error("the newest step was dropped")
	}
}

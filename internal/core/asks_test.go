package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/providers"
	"github.com/switchboard-app/switchboard/internal/sampling"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// userAtWindow plays the user in front of the window: it records every
// event, allows tool calls, and answers what servers ask with the
// functions set (nil, or an answer with no action, leaves a request
// waiting).
type userAtWindow struct {
	eventtest.Recorder
	svc      func() *Services
	elicit   func(*elicit.Request) elicit.Answer
	sample   func(*sampling.Request) sampling.Decision
	mu       sync.Mutex
	elicited []*elicit.Request
	sampled  []*sampling.Request
	errs     []error
}

func (u *userAtWindow) Emit(name string, payload any) {
	u.Recorder.Emit(name, payload)
	switch p := payload.(type) {
	case approval.Request:
		go u.svc().Broker.Decide(context.Background(), p.ID, approval.AllowOnce)
	case *elicit.Request:
		u.mu.Lock()
		u.elicited = append(u.elicited, p)
		u.mu.Unlock()
		if u.elicit != nil {
			if a := u.elicit(p); a.Action != "" { // no action: left waiting
				go u.keep(u.svc().AnswerElicitation(context.Background(), p.ID, a))
			}
		}
	case *sampling.Request:
		u.mu.Lock()
		u.sampled = append(u.sampled, p)
		u.mu.Unlock()
		if u.sample != nil {
			go u.keep(u.svc().AnswerSampling(p.ID, u.sample(p)))
		}
	}
}

func (u *userAtWindow) keep(err error) {
	if err != nil {
		u.mu.Lock()
		u.errs = append(u.errs, err)
		u.mu.Unlock()
	}
}

// askServices opens services with a window the user sees (visible) and a
// configured provider served by the fake; opened records the URLs the
// user agreed to open.
func askServices(t *testing.T, provider *llmtest.Server, u *userAtWindow, visible bool, opened *[]string) (*Core, *Services) {
	t.Helper()
	dir := t.TempDir()
	p := paths.In(dir)
	c, err := Open(t.Context(), &Options{Paths: &p, Secrets: &secrets.Memory{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	path := mcptest.Node(t, "mcp-server-everything").PATH()
	opts := &ServiceOptions{Emitter: u, Manager: &mcpconn.Options{PingInterval: -1, ShellPATH: func() string { return path }}}
	if visible {
		opts.Visible = func() bool { return true }
	}
	var mu sync.Mutex
	opts.OpenBrowser = func(_ context.Context, url string) error {
		mu.Lock()
		defer mu.Unlock()
		if opened != nil {
			*opened = append(*opened, url)
		}
		return nil
	}
	svc, err := c.Services(opts)
	if err != nil {
		t.Fatal(err)
	}
	u.svc = func() *Services { return svc }
	if provider != nil {
		if _, err := svc.Providers.Save(t.Context(), providers.Input{ID: "fake", Name: "Fake AI", Preset: "custom", BaseURL: provider.URL, DefaultModel: "fake-model"}); err != nil {
			t.Fatal(err)
		}
	}
	return c, svc
}

// addServer adds cfg, starts the services and waits for it to connect.
func addServer(t *testing.T, c *Core, svc *Services, cfg serverconf.Config) {
	t.Helper()
	if _, err := svc.Servers.Save(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(t.Context(), c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, cfg.ID, mcpconn.StateConnected)
}

func callText(t *testing.T, svc *Services, tool, args string) string {
	t.Helper()
	res, err := svc.Manager.CallTool(t.Context(), tool, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.ForModel(1 << 20)
}

func serverLog(svc *Services, id string) string {
	var b strings.Builder
	for _, l := range svc.Manager.Stderr(id).Lines(0, 10000) {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// everythingOver returns the config of server-everything over stdio or
// streamable HTTP.
func everythingOver(t *testing.T, transport string) serverconf.Config {
	if transport == "stdio" {
		return serverconf.Config{ID: "everything", Name: "Everything", Transport: serverconf.TransportStdio, Command: "mcp-server-everything", Args: []string{"stdio"}, Enabled: true}
	}
	e := mcptest.Node(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(e.Node, e.Script("server-everything"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server-everything did not listen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return serverconf.Config{ID: "everything", Name: "Everything", Transport: serverconf.TransportHTTP, URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Enabled: true}
}

// TestServerEverythingAsksTheUser: server-everything's tools that elicit
// (a form, a URL) and sample, over stdio and streamable HTTP; the user
// answers in the window, the answers reach the server, and the server's
// log says what was asked and how it ended.
func TestServerEverythingAsksTheUser(t *testing.T) {
	for _, transport := range []string{"stdio", "streamableHttp"} {
		t.Run(transport, func(t *testing.T) {
			provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.Text("Why did the ", "quokka smile?")}})
			u := &userAtWindow{
				elicit: func(r *elicit.Request) elicit.Answer {
					if r.Mode == elicit.ModeURL {
						return elicit.Answer{Action: elicit.Accept}
					}
					return elicit.Answer{Action: elicit.Accept, Content: map[string]any{"name": "Ada Lovelace", "check": true,
						"email": "ada@example.com", "integer": 7.0, "untitledMultipleSelectEnum": []any{"Piano"}}}
				},
				sample: func(r *sampling.Request) sampling.Decision {
					sys := "Be brief."
					return sampling.Decision{Approve: true, SystemPrompt: &sys}
				},
			}
			var opened []string
			c, svc := askServices(t, provider, u, true, &opened)
			addServer(t, c, svc, everythingOver(t, transport))

			got := callText(t, svc, "everything__trigger-elicitation-request", `{}`)
			for _, want := range []string{"✅ User provided the requested information!", "- Name: Ada Lovelace", "- Agreed to terms: true", "- Favorite Integer: 7"} {
				if !strings.Contains(got, want) {
					t.Errorf("elicitation result lacks %q:\n%s", want, got)
				}
			}
			u.mu.Lock()
			if len(u.elicited) != 1 {
				t.Fatalf("%d elicitations shown", len(u.elicited))
			}
			r := u.elicited[0]
			u.mu.Unlock()
			if r.ServerName != "Everything" || r.Message != "Please provide inputs for the following fields:" || r.Form == nil || len(r.Form.Fields) != 13 {
				t.Fatalf("elicitation shown: %+v (form problem %q)", r, r.FormProblem)
			}
			if f := r.Form.Fields[0]; f.Name != "name" || !f.Required {
				t.Errorf("first field %+v; want the required name", f)
			}

			got = callText(t, svc, "everything__trigger-url-elicitation", `{"url":"https://example.com/consent?x=1"}`)
			if !strings.Contains(got, "✅ User completed the URL elicitation flow") {
				t.Errorf("URL elicitation result: %s", got)
			}
			if len(opened) != 1 || opened[0] != "https://example.com/consent?x=1" {
				t.Errorf("opened %v", opened)
			}

			got = callText(t, svc, "everything__trigger-sampling-request", `{"prompt":"a joke","maxTokens":50}`)
			for _, want := range []string{"Why did the quokka smile?", `"model": "fake-model"`, `"stopReason": "endTurn"`} {
				if !strings.Contains(got, want) {
					t.Errorf("sampling result lacks %s:\n%s", want, got)
				}
			}
			u.mu.Lock()
			s := u.sampled[0]
			u.mu.Unlock()
			if s.ProviderName != "Fake AI" || s.Model != "fake-model" || s.SystemPrompt != "You are a helpful test server." || s.AllowedTokens != 50 {
				t.Errorf("sampling shown: %+v", s)
			}
			reqs := provider.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d completions asked", len(reqs))
			}
			body, _ := json.Marshal(reqs[0])
			for _, want := range []string{`"content":"Be brief."`, "Resource trigger-sampling-request context: a joke", `"max_tokens":50`} {
				if !strings.Contains(string(body), want) {
					t.Errorf("completion request lacks %s: %s", want, body)
				}
			}
			log := serverLog(svc, "everything")
			for _, want := range []string{"the user answered the server's request for input \"Please provide", ": accept", "sent the server a completion of 25 characters from fake-model (endTurn), as the user approved"} {
				if !strings.Contains(log, want) {
					t.Errorf("server log lacks %q:\n%s", want, log)
				}
			}
			if len(u.errs) > 0 {
				t.Errorf("answers refused: %v", u.errs)
			}
		})
	}
}

// TestDeniedAndUnansweredRequests: a denied completion is an error for
// the server; a declined form and a URL the user would not open reach it
// as such.
func TestDeniedAndUnansweredRequests(t *testing.T) {
	provider := llmtest.NewServer(t, nil)
	u := &userAtWindow{
		elicit: func(*elicit.Request) elicit.Answer { return elicit.Answer{Action: elicit.Decline} },
		sample: func(*sampling.Request) sampling.Decision { return sampling.Decision{} },
	}
	var opened []string
	c, svc := askServices(t, provider, u, true, &opened)
	addServer(t, c, svc, everythingOver(t, "stdio"))
	if got := callText(t, svc, "everything__trigger-elicitation-request", `{}`); !strings.Contains(got, "❌ User declined") {
		t.Errorf("declined form: %s", got)
	}
	if got := callText(t, svc, "everything__trigger-url-elicitation", `{"url":"https://example.com/"}`); !strings.Contains(got, "❌ User declined to open the URL") {
		t.Errorf("declined URL: %s", got)
	}
	if len(opened) != 0 {
		t.Errorf("opened %v without consent", opened)
	}
	res, err := svc.Manager.CallTool(t.Context(), "everything__trigger-sampling-request", json.RawMessage(`{"prompt":"x"}`), nil)
	if err == nil && !res.IsError {
		t.Fatalf("denied sampling gave a result: %+v", res)
	}
	if msg := fmt.Sprint(err, res); !strings.Contains(msg, "User rejected sampling request") {
		t.Errorf("denied sampling: %s", msg)
	}
	if n := len(provider.ChatRequests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if log := serverLog(svc, "everything"); !strings.Contains(log, "the user denied the server's sampling request") {
		t.Errorf("server log:\n%s", log)
	}
}

// TestNoWindowRefusesAtOnce: with no window (the CLI), a form is declined
// and a completion refused without waiting, each with a note in the
// server's log and an ended event saying why.
func TestNoWindowRefusesAtOnce(t *testing.T) {
	u := &userAtWindow{}
	c, svc := askServices(t, llmtest.NewServer(t, nil), u, false, nil)
	addServer(t, c, svc, everythingOver(t, "stdio"))
	start := time.Now()
	if got := callText(t, svc, "everything__trigger-elicitation-request", `{}`); !strings.Contains(got, "❌ User declined") {
		t.Errorf("form without a window: %s", got)
	}
	res, err := svc.Manager.CallTool(t.Context(), "everything__trigger-sampling-request", json.RawMessage(`{"prompt":"x"}`), nil)
	if msg := fmt.Sprint(err, res); !strings.Contains(msg, "no Switchboard window is open") {
		t.Errorf("sampling without a window: %s", msg)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refusing took %s", took)
	}
	var ends []asks.Ended
	for _, e := range u.Events() {
		if e.Name == elicit.EventEnded || e.Name == sampling.EventEnded {
			ends = append(ends, e.Payload.(asks.Ended))
		}
		if e.Name == elicit.EventRequested || e.Name == sampling.EventRequested {
			t.Errorf("%s sent with no window", e.Name)
		}
	}
	if len(ends) != 2 || ends[0].Outcome != asks.Refused || ends[1].Outcome != asks.Refused || ends[0].ServerName != "Everything" {
		t.Errorf("ended events: %+v", ends)
	}
	log := serverLog(svc, "everything")
	for _, want := range []string{"declined the server's request for input \"Please provide inputs for the following fields:\" without asking: no Switchboard window", "refused the server's sampling request"} {
		if !strings.Contains(log, want) {
			t.Errorf("server log lacks %q:\n%s", want, log)
		}
	}
}

// TestSamplingUsesTheCallingConversationsModel: a sampling request made
// during a chat's tool call proposes that conversation's model.
func TestSamplingUsesTheCallingConversationsModel(t *testing.T) {
	provider := llmtest.NewServer(t, &llmtest.Options{Models: []string{"fake-model", "chat-model"}, Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "everything__trigger-sampling-request", Arguments: []string{`{"prompt":"a haiku"}`}}),
		llmtest.Text("sampled haiku"),
		llmtest.Text("done"),
	}})
	u := &userAtWindow{sample: func(*sampling.Request) sampling.Decision { return sampling.Decision{Approve: true} }}
	c, svc := askServices(t, provider, u, true, nil)
	addServer(t, c, svc, everythingOver(t, "stdio"))
	conv, err := c.Store.CreateConversation(t.Context(), store.Conversation{ProviderID: "fake", Model: "chat-model"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Chat.Run(t.Context(), conv.ID, "sample something")
	if err != nil || res.Status != store.StatusDone {
		t.Fatalf("run: %+v %v", res, err)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.sampled) != 1 || u.sampled[0].Model != "chat-model" || u.sampled[0].ConversationID != conv.ID {
		t.Fatalf("sampling shown: %+v", u.sampled)
	}
	reqs := provider.ChatRequests()
	if len(reqs) != 3 || reqs[1].Model != "chat-model" {
		t.Errorf("completion asked of %+v", reqs)
	}
}

// TestTaskInputRequiredAsksTheUser: a task in input_required asks for a
// form through the same dialog, with the server's order of fields, and
// the answer completes it.
func TestTaskInputRequiredAsksTheUser(t *testing.T) {
	ts := mcptest.NewTaskServer(nil)
	t.Cleanup(ts.Close)
	hs := httptest.NewServer(ts.Handler())
	t.Cleanup(hs.Close)
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "jobs__ask_task", Arguments: []string{`{}`}}),
		llmtest.Text("greeted"),
	}})
	u := &userAtWindow{elicit: func(r *elicit.Request) elicit.Answer {
		return elicit.Answer{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}
	}}
	c, svc := askServices(t, provider, u, true, nil)
	addServer(t, c, svc, serverconf.Config{ID: "jobs", Name: "Jobs", Transport: serverconf.TransportHTTP, URL: hs.URL, Enabled: true})
	conv, err := c.Store.CreateConversation(t.Context(), store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Chat.Send(t.Context(), conv.ID, "greet me"); err != nil {
		t.Fatal(err)
	}
	var rec store.Task
	timetest.WaitFor(t, 20*time.Second, "the task", func() bool {
		list, _ := svc.Tasks.List(t.Context(), store.TaskFilter{})
		if len(list) == 1 {
			rec = list[0]
		}
		return len(list) == 1
	})
	wctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ended, err := svc.Tasks.Wait(wctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ended.Status != mcpconn.TaskCompleted || !strings.Contains(string(ended.Result), "Hello, Ada!") {
		t.Fatalf("task ended %+v", ended)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.elicited) != 1 || u.elicited[0].Message != "What is your name?" || u.elicited[0].ServerName != "Jobs" {
		t.Errorf("shown: %+v", u.elicited)
	}
}

// TestAnswersAreCheckedBeforeTheyGo: an answer that does not match the
// form is refused and the request keeps waiting.
func TestAnswersAreCheckedBeforeTheyGo(t *testing.T) {
	u := &userAtWindow{}
	_, svc := askServices(t, nil, u, true, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"age":{"type":"integer","minimum":0},"name":{"type":"string"}},"required":["name"]}`)
	done := make(chan elicit.Answer, 1)
	go func() {
		ans, _ := svc.asks.askInput(t.Context(), "s1", "form", "Who are you?", schema, "", "", true)
		done <- ans
	}()
	var r *elicit.Request
	timetest.WaitFor(t, 20*time.Second, "the request", func() bool {
		if p := svc.PendingElicitations(); len(p) == 1 {
			r = p[0]
		}
		return r != nil
	})
	if r.Form == nil || r.Form.Fields[0].Name != "age" {
		t.Fatalf("form %+v: the server's order is kept", r.Form)
	}
	if err := svc.AnswerElicitation(t.Context(), r.ID, elicit.Answer{Action: elicit.Accept, Content: map[string]any{"age": -1.0}}); err == nil ||
		!strings.Contains(err.Error(), "age: at least 0; name: required") {
		t.Fatalf("bad answer: %v", err)
	}
	if len(svc.PendingElicitations()) != 1 {
		t.Fatal("a refused answer ended the request")
	}
	if err := svc.AnswerElicitation(t.Context(), r.ID, elicit.Answer{Action: elicit.Accept, Content: map[string]any{"name": "Ada", "age": 36.0}}); err != nil {
		t.Fatal(err)
	}
	if ans := <-done; ans.Action != elicit.Accept || ans.Content["name"] != "Ada" {
		t.Errorf("answer %+v", ans)
	}
	if err := svc.AnswerElicitation(t.Context(), r.ID, elicit.Answer{Action: elicit.Decline}); err == nil {
		t.Error("a second answer was taken")
	}
}

// TestSamplingStormIsRefused: one sampling request of a server waits at a
// time, and past three in a row the server is refused without asking.
func TestSamplingStormIsRefused(t *testing.T) {
	u := &userAtWindow{}
	_, svc := askServices(t, llmtest.NewServer(t, nil), u, true, nil)
	p := &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}}
	first := make(chan error, 1)
	go func() {
		_, err := svc.asks.askCompletion(t.Context(), "s1", p, chat.CallOrigin{})
		first <- err
	}()
	timetest.WaitFor(t, 20*time.Second, "the first request", func() bool { return len(svc.PendingSamplings()) == 1 })
	if _, err := svc.asks.askCompletion(t.Context(), "s1", p, chat.CallOrigin{}); err == nil || !strings.Contains(err.Error(), "too many of this server's requests") {
		t.Fatalf("second while the first waits: %v", err)
	}
	if err := svc.AnswerSampling(svc.PendingSamplings()[0].ID, sampling.Decision{}); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != errUserRejected {
		t.Fatalf("denied: %v", err)
	}
	u.sample = func(*sampling.Request) sampling.Decision { return sampling.Decision{} }
	var errs []string
	for range 3 {
		_, err := svc.asks.askCompletion(t.Context(), "s1", p, chat.CallOrigin{})
		errs = append(errs, fmt.Sprint(err))
	}
	want := []string{"User rejected sampling request", "User rejected sampling request", "Switchboard refused the sampling request: " + asks.ErrRateLimited.Error()}
	if strings.Join(errs, "|") != strings.Join(want, "|") {
		t.Errorf("errors %q; want %q", errs, want)
	}
}

// TestInputRequiredOfACallAsksTheUser: a 2026-07-28 server answers a
// call with input_required (a form and a completion); both go through
// the same dialogs, and the answers come back with the retried call.
func TestInputRequiredOfACallAsksTheUser(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "delete", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got := req.Params.InputResponses
		if len(got) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"confirm": &mcp.ElicitParams{Message: "Delete report.txt?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"sure": map[string]any{"type": "boolean"}}, "required": []string{"sure"}}},
				"summary": &mcp.CreateMessageParams{MaxTokens: 20, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise report.txt"}}}},
			}}, nil
		}
		el, _ := got["confirm"].(*mcp.ElicitResult)
		var model, summary string
		switch sm := got["summary"].(type) {
		case *mcp.CreateMessageResult:
			tc, _ := sm.Content.(*mcp.TextContent)
			model, summary = sm.Model, fmt.Sprint(tc)
			if tc != nil {
				summary = tc.Text
			}
		case *mcp.CreateMessageWithToolsResult:
			model = sm.Model
			if len(sm.Content) == 1 {
				if tc, ok := sm.Content[0].(*mcp.TextContent); ok {
					summary = tc.Text
				}
			}
		}
		text := fmt.Sprintf("confirm=%v summary=%T", el, got["summary"])
		if el != nil && model != "" {
			text = fmt.Sprintf("%s %v; summary by %s: %s", el.Action, el.Content["sure"], model, summary)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)

	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.Text("A short report.")}})
	u := &userAtWindow{
		elicit: func(*elicit.Request) elicit.Answer {
			return elicit.Answer{Action: elicit.Accept, Content: map[string]any{"sure": true}}
		},
		sample: func(*sampling.Request) sampling.Decision { return sampling.Decision{Approve: true} },
	}
	c, svc := askServices(t, provider, u, true, nil)
	addServer(t, c, svc, serverconf.Config{ID: "mrtr", Name: "MRTR", Transport: serverconf.TransportHTTP, URL: hs.URL, Enabled: true})
	if st, _ := svc.Manager.Status("mrtr"); st.ProtocolVersion < "2026-07-28" {
		t.Fatalf("protocol %s: input_required needs 2026-07-28", st.ProtocolVersion)
	}
	got := callText(t, svc, "mrtr__delete", `{}`)
	if got != "accept true; summary by fake-model: A short report." {
		t.Errorf("result %q", got)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.elicited) != 1 || len(u.sampled) != 1 || u.elicited[0].ServerName != "MRTR" {
		t.Errorf("shown: %d forms, %d completions", len(u.elicited), len(u.sampled))
	}
}

// TestUnansweredInputIsCancelled: a request for input nobody answers
// ends after 10 minutes; the server is told it was cancelled, and the
// window that it expired.
func TestUnansweredInputIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &eventtest.Recorder{}
		a := newServerAsks(rec, func() bool { return true })
		a.manager = func() *mcpconn.Manager { return nil }
		start := time.Now()
		ans, err := a.askInput(t.Context(), "s1", "form", "Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`), "", "", true)
		if err != nil || ans.Action != elicit.Cancel {
			t.Fatalf("answer %+v, %v; want cancel", ans, err)
		}
		if took := time.Since(start); took != asks.DefaultTimeout {
			t.Errorf("ended after %s", took)
		}
		evs := rec.Events()
		if len(evs) != 2 || evs[1].Name != elicit.EventEnded || evs[1].Payload.(asks.Ended).Outcome != asks.Expired {
			t.Errorf("events %+v", evs)
		}
	})
}

// tripServer is a go-sdk server whose plan_trip tool runs a sampling tool
// loop, as MCP 2025-11-25 describes it: it offers the model get_weather,
// runs the calls the model makes itself, and sends their results in a
// second request. It speaks 2025-11-25, where a server may send requests
// of its own during a call.
func tripServer(t *testing.T) (url string, seen func() []*mcp.CreateMessageWithToolsResult) {
	var mu sync.Mutex
	var results []*mcp.CreateMessageWithToolsResult
	srv := mcp.NewServer(&mcp.Implementation{Name: "trips", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	weather := &mcp.Tool{Name: "get_weather", Description: "Current weather for a city", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}
	srv.AddTool(&mcp.Tool{Name: "plan_trip", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.Session.InitializeParams().Capabilities; caps.Sampling == nil || caps.Sampling.Tools == nil {
			return nil, fmt.Errorf("the client does not declare sampling.tools: %+v", caps.Sampling)
		}
		msgs := []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "Should I pack an umbrella for Paris?"}}}}
		for round := range 3 {
			res, err := req.Session.CreateMessageWithTools(ctx, &mcp.CreateMessageWithToolsParams{MaxTokens: 200, Messages: msgs,
				Tools: []*mcp.Tool{weather}, ToolChoice: &mcp.ToolChoice{Mode: "auto"}})
			if err != nil {
				return nil, err
			}
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
			if res.StopReason != "toolUse" {
				text := ""
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("after %d round(s): %s", round+1, text)}}}, nil
			}
			var outs []mcp.Content
			for _, c := range res.Content {
				if use, ok := c.(*mcp.ToolUseContent); ok {
					outs = append(outs, &mcp.ToolResultContent{ToolUseID: use.ID, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%v: rain, 14°C", use.Input["city"])}}})
				}
			}
			msgs = append(msgs, &mcp.SamplingMessageV2{Role: "assistant", Content: res.Content}, &mcp.SamplingMessageV2{Role: "user", Content: outs})
		}
		return nil, errors.New("the model would not stop calling tools")
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, func() []*mcp.CreateMessageWithToolsResult {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(results)
	}
}

// TestSamplingWithTools: a server's sampling request offers the model a
// tool; the user sees it in the dialog, the model's call goes back to the
// server as tool_use with stopReason toolUse, the server runs the tool and
// sends its result, which reaches the model as a tool message, and the
// model's answer ends the loop. Switchboard runs no sampling tool itself.
func TestSamplingWithTools(t *testing.T) {
	provider := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_w1", Name: "get_weather", Arguments: []string{`{"city":`, `"Paris"}`}}),
		llmtest.Text("Yes, pack an umbrella."),
	}})
	u := &userAtWindow{sample: func(*sampling.Request) sampling.Decision { return sampling.Decision{Approve: true} }}
	c, svc := askServices(t, provider, u, true, nil)
	url, seen := tripServer(t)
	addServer(t, c, svc, serverconf.Config{ID: "trips", Name: "Trips", Transport: serverconf.TransportHTTP, URL: url, Enabled: true})

	if got := callText(t, svc, "trips__plan_trip", `{}`); got != "after 2 round(s): Yes, pack an umbrella." {
		t.Fatalf("result %q", got)
	}
	// What the server got back from the first round: the model's call.
	res := seen()
	if len(res) != 2 {
		t.Fatalf("%d rounds", len(res))
	}
	want := &mcp.CreateMessageWithToolsResult{Model: "fake-model", Role: "assistant", StopReason: "toolUse",
		Content: []mcp.Content{&mcp.ToolUseContent{ID: "call_w1", Name: "get_weather", Input: map[string]any{"city": "Paris"}}}}
	if diff := cmp.Diff(want, res[0]); diff != "" {
		t.Errorf("first round's result (-want +got):\n%s", diff)
	}
	if res[1].StopReason != "endTurn" {
		t.Errorf("second round stopped for %q", res[1].StopReason)
	}

	// What the dialog showed.
	u.mu.Lock()
	shown := slices.Clone(u.sampled)
	u.mu.Unlock()
	if len(shown) != 2 {
		t.Fatalf("%d dialogs", len(shown))
	}
	if s := shown[0]; len(s.Tools) != 1 || s.Tools[0].Name != "get_weather" || s.Tools[0].Description != "Current weather for a city" ||
		!strings.Contains(string(s.Tools[0].Schema), `"city"`) || s.ToolChoice != "auto" {
		t.Errorf("first dialog: tools %+v, choice %q", s.Tools, s.ToolChoice)
	}
	if parts := shown[1].Messages[2].Parts; len(parts) != 1 || parts[0].Type != "tool_result" || parts[0].Text != "Paris: rain, 14°C" {
		t.Errorf("second dialog's results: %+v", parts)
	}

	// What the provider got, on the wire.
	reqs := provider.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d provider requests", len(reqs))
	}
	wire := func(i int) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(reqs[i].Body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	wantTools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Current weather for a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}}}
	first, second := wire(0), wire(1)
	for i, w := range []map[string]any{first, second} {
		if diff := cmp.Diff(wantTools, w["tools"]); diff != "" {
			t.Errorf("request %d's tools (-want +got):\n%s", i+1, diff)
		}
		if w["tool_choice"] != "auto" {
			t.Errorf("request %d's tool_choice %v", i+1, w["tool_choice"])
		}
	}
	wantMsgs := []any{
		map[string]any{"role": "user", "content": "Should I pack an umbrella for Paris?"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_w1", "type": "function",
			"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_w1", "content": "Paris: rain, 14°C"},
	}
	if diff := cmp.Diff(wantMsgs, second["messages"]); diff != "" {
		t.Errorf("second request's messages (-want +got):\n%s", diff)
	}
	if log := serverLog(svc, "trips"); !strings.Contains(log, "sent the server a completion of 0 characters and 1 tool use(s) for the server to run (get_weather) from fake-model (toolUse)") {
		t.Errorf("server log:\n%s", log)
	}
}

// TestSamplingErrorKeepsProviderDetails: when the approved completion
// fails, the server is told that it failed, not what the provider said or
// where it is (its address, an echo of the API key): those go to the
// user, in the server's log.
func TestSamplingErrorKeepsProviderDetails(t *testing.T) {
	const echo = "Incorrect API key provided: sk-test-****cdef"
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":"invalid_api_key"}}`, echo)
	}))
	t.Cleanup(prov.Close)
	u := &userAtWindow{sample: func(*sampling.Request) sampling.Decision { return sampling.Decision{Approve: true} }}
	_, svc := askServices(t, nil, u, true, nil)
	if _, err := svc.Providers.Save(t.Context(), providers.Input{ID: "fake", Name: "Fake AI", Preset: "custom", BaseURL: prov.URL + "/v1", DefaultModel: "fake-model"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CreateMessageWithToolsParams{MaxTokens: 10, Messages: []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}}
	_, err := svc.asks.askCompletion(t.Context(), "s1", p, chat.CallOrigin{})
	if err == nil {
		t.Fatal("the completion did not fail")
	}
	if msg := err.Error(); strings.Contains(msg, prov.URL) || strings.Contains(msg, "sk-test") || strings.Contains(msg, "127.0.0.1") {
		t.Errorf("the server is told %q", msg)
	}
}

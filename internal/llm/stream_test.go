package llm

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// newTestClient returns a client for srv; mods adjust its config.
func newTestClient(t *testing.T, srv *llmtest.Server, mods ...func(*ProviderConfig)) *Client {
	t.Helper()
	cfg := ProviderConfig{BaseURL: srv.URL, APIKey: "sk-test", HTTPClient: srv.Client()}
	for _, m := range mods {
		m(&cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userRequest(text string) Request {
	return Request{Model: "fake-model", Messages: []Message{{Role: RoleUser, Content: text}}}
}

// recorder collects events.
type recorder struct{ events []Event }

func (r *recorder) on(e Event) { r.events = append(r.events, e) }

// text joins the content deltas.
func (r *recorder) text() string {
	var b strings.Builder
	for _, e := range r.events {
		if d, ok := e.(ContentDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func TestStreamText(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
	}{
		{"one chunk", []string{"Hello, world."}},
		{"word chunks", []string{"Hello", ", ", "world", "."}},
		{"byte chunks", llmtest.Split("Hello\nworld", 1)},
		{"multibyte text", llmtest.Split("Grüße, 世界 😀 — done", 3)},
		{"json-ish and escapes", []string{`{"a":`, "\"\\n\t\"", "}", "</script>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.Text(tt.pieces...)}})
			var rec recorder
			reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), rec.on)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Join(tt.pieces, "")
			if reply.Content != want || rec.text() != want {
				t.Errorf("content = %q, events = %q, want %q", reply.Content, rec.text(), want)
			}
			if reply.FinishReason != "stop" || reply.Model != "fake-model" {
				t.Errorf("finish = %q, model = %q", reply.FinishReason, reply.Model)
			}
			if reply.Usage == nil || reply.Usage.CompletionTokens != len(tt.pieces) {
				t.Errorf("usage = %+v, want %d completion tokens", reply.Usage, len(tt.pieces))
			}
			if reply.TimeToFirstToken <= 0 {
				t.Errorf("time to first token = %v", reply.TimeToFirstToken)
			}
		})
	}
}

// TestStreamAnySplitRoundTrips is a property test: any split of any text
// into chunks comes back exactly.
func TestStreamAnySplitRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab ,.\n\t\"\\{}é世😀")
	srv := llmtest.NewServer(t, nil)
	c := newTestClient(t, srv)
	for i := range 40 {
		runes := make([]rune, rng.IntN(60))
		for j := range runes {
			runes[j] = alphabet[rng.IntN(len(alphabet))]
		}
		text := string(runes)
		var pieces []string
		for rest := text; rest != ""; {
			p := llmtest.Split(rest, 1+rng.IntN(8))[0]
			pieces = append(pieces, p)
			rest = rest[len(p):]
		}
		srv.Enqueue(llmtest.Text(pieces...))
		var rec recorder
		reply, err := c.Stream(t.Context(), userRequest("x"), rec.on)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if reply.Content != text || rec.text() != text {
			t.Fatalf("case %d: pieces %q came back as %q (events %q)", i, pieces, reply.Content, rec.text())
		}
	}
}

func TestStreamReasoning(t *testing.T) {
	for _, field := range []string{"reasoning", "reasoning_content"} {
		t.Run(field, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
				ReasoningField: field,
				Reasoning:      []string{"The user ", "greets; ", "greet back."},
				Content:        []string{"Hi!"},
				Usage:          &llmtest.Usage{PromptTokens: 3, CompletionTokens: 4, ReasoningTokens: 3},
			}}})
			var rec recorder
			reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), rec.on)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Reasoning != "The user greets; greet back." || reply.Content != "Hi!" {
				t.Errorf("reasoning = %q, content = %q", reply.Reasoning, reply.Content)
			}
			if _, ok := rec.events[0].(ReasoningDelta); !ok {
				t.Errorf("first event = %#v, want a ReasoningDelta", rec.events[0])
			}
			want := Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7, ReasoningTokens: 3}
			if diff := cmp.Diff(&want, reply.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	weather := llmtest.ToolCall{ID: "call_w", Name: "weather__get", Arguments: []string{`{"ci`, `ty":"Pa`, `ris"}`}}
	search := llmtest.ToolCall{ID: "call_s", Name: "web__search", Arguments: []string{`{"q":`, `"go `, `1.26"`, `}`}}
	noArgs := llmtest.ToolCall{ID: "call_n", Name: "clock__now"}
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  []ToolCall
	}{
		{"one call", llmtest.Calls(weather),
			[]ToolCall{{ID: "call_w", Name: "weather__get", Arguments: `{"city":"Paris"}`}}},
		{"two calls in turn", llmtest.Calls(weather, search),
			[]ToolCall{
				{ID: "call_w", Name: "weather__get", Arguments: `{"city":"Paris"}`},
				{ID: "call_s", Name: "web__search", Arguments: `{"q":"go 1.26"}`},
			}},
		{"two calls interleaved", llmtest.Reply{ToolCalls: []llmtest.ToolCall{weather, search}, Interleave: true},
			[]ToolCall{
				{ID: "call_w", Name: "weather__get", Arguments: `{"city":"Paris"}`},
				{ID: "call_s", Name: "web__search", Arguments: `{"q":"go 1.26"}`},
			}},
		{"text then a call without arguments", llmtest.Reply{Content: []string{"Let me check."}, ToolCalls: []llmtest.ToolCall{noArgs}},
			[]ToolCall{{ID: "call_n", Name: "clock__now", Arguments: ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{tt.reply}})
			var rec recorder
			reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("go"), rec.on)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, reply.ToolCalls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if reply.FinishReason != "tool_calls" {
				t.Errorf("finish reason = %q", reply.FinishReason)
			}
			// Events: each call starts before its arguments, and the
			// argument deltas rebuild each call.
			started := map[int]bool{}
			args := map[int]string{}
			for _, e := range rec.events {
				switch e := e.(type) {
				case ToolCallStarted:
					if started[e.Index] {
						t.Errorf("call %d started twice", e.Index)
					}
					started[e.Index] = true
					if e.Name != tt.want[e.Index].Name || e.ID != tt.want[e.Index].ID {
						t.Errorf("started %+v, want %+v", e, tt.want[e.Index])
					}
				case ToolCallArgsDelta:
					if !started[e.Index] {
						t.Errorf("arguments for call %d before it started", e.Index)
					}
					args[e.Index] += e.Delta
				}
			}
			for i, w := range tt.want {
				if args[i] != w.Arguments {
					t.Errorf("call %d: argument events = %q, want %q", i, args[i], w.Arguments)
				}
			}
		})
	}
}

func TestStreamRequestBody(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newTestClient(t, srv)
	zero, warm := 0.0, 0.7
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	req := Request{
		Model: "fake-model",
		Messages: []Message{
			{Role: RoleSystem, Content: "be brief"},
			{Role: RoleUser, Content: "weather in Paris?"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "weather__get", Arguments: `{"city":"Paris"}`}, {ID: "call_2", Name: "clock__now"}}},
			{Role: RoleTool, ToolCallID: "call_1", Content: "sunny"},
			{Role: RoleTool, ToolCallID: "call_2"},
			{Role: RoleAssistant}, // stopped before any token: dropped
		},
		Tools: []Tool{
			{Name: "weather__get", Description: "Weather for a city", Parameters: schema},
			{Name: "clock__now", Description: "The time"},
		},
		Temperature: &zero,
		MaxTokens:   256,
	}
	if _, err := c.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	req.Temperature = &warm
	if _, err := c.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	req.Temperature = nil
	req.MaxTokens = 0
	if _, err := c.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}

	got := srv.Requests()
	if len(got) != 3 {
		t.Fatalf("got %d requests, want 3", len(got))
	}
	if h := got[0].Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h)
	}
	first := got[0].Chat
	if first == nil {
		t.Fatalf("first body did not decode: %s", got[0].Body)
	}
	msgs := []llmtest.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "weather in Paris?"},
		{Role: "assistant", ToolCalls: []llmtest.WireToolCall{wireCall("call_1", "weather__get", `{"city":"Paris"}`), wireCall("call_2", "clock__now", "{}")}},
		{Role: "tool", ToolCallID: "call_1", Content: "sunny"},
		{Role: "tool", ToolCallID: "call_2", Content: "(no output)"},
	}
	if diff := cmp.Diff(msgs, first.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if len(first.Tools) != 2 || first.Tools[0].Type != "function" || first.Tools[0].Function.Name != "weather__get" ||
		string(first.Tools[0].Function.Parameters) != string(schema) ||
		string(first.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tools = %+v", first.Tools)
	}
	if !first.Stream || first.StreamOptions == nil || !first.StreamOptions.IncludeUsage {
		t.Errorf("stream = %v, stream_options = %+v; want include_usage", first.Stream, first.StreamOptions)
	}
	if first.Temperature == nil || *first.Temperature != 0 {
		t.Errorf("explicit temperature 0 not sent: %s", got[0].Body)
	}
	if first.MaxTokens == nil || *first.MaxTokens != 256 {
		t.Errorf("max_tokens = %v", first.MaxTokens)
	}
	if tmp := got[1].Chat.Temperature; tmp == nil || *tmp != 0.7 {
		t.Errorf("temperature 0.7 sent as %v", tmp)
	}
	if got[2].Chat.Temperature != nil || got[2].Chat.MaxTokens != nil {
		t.Errorf("unset temperature/max tokens were sent: %s", got[2].Body)
	}
}

func wireCall(id, name, args string) llmtest.WireToolCall {
	var w llmtest.WireToolCall
	w.ID, w.Type, w.Function.Name, w.Function.Arguments = id, "function", name, args
	return w
}

func TestStreamSkipsKeepAliveComments(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Preamble: []string{": OPENROUTER PROCESSING", ": OPENROUTER PROCESSING"},
		Content:  []string{"warm ", "now"},
	}}})
	reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), nil)
	if err != nil || reply.Content != "warm now" {
		t.Errorf("reply %q, err %v", reply.Content, err)
	}
}

func TestStreamMaxCompletionTokensForReasoningModels(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	req := userRequest("hi")
	req.Model, req.MaxTokens = "gpt-5-mini", 100
	if _, err := newTestClient(t, srv).Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	chat := srv.ChatRequests()[0]
	if chat.MaxTokens != nil || chat.MaxCompletionTokens == nil || *chat.MaxCompletionTokens != 100 {
		t.Errorf("max_tokens = %v, max_completion_tokens = %v", chat.MaxTokens, chat.MaxCompletionTokens)
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		is      error
		msgHas  string
		checkRL func(*testing.T, *RateLimitError)
	}{
		{name: "401", reply: llmtest.AuthError(), is: ErrAuth,
			msgHas: "the provider refused the API key; check it in Settings → Providers (HTTP 401: Incorrect API key"},
		{name: "403", reply: llmtest.Reply{Status: 403, Error: &llmtest.APIError{Message: "Forbidden", Type: "permission_error"}}, is: ErrAuth,
			msgHas: "the provider refused the API key; check it in Settings → Providers (HTTP 403: Forbidden)"},
		{name: "429 with seconds", reply: llmtest.RateLimited("7"), is: ErrRateLimited, msgHas: "try again in 7s",
			checkRL: func(t *testing.T, e *RateLimitError) {
				if e.RetryAfter != 7*time.Second {
					t.Errorf("RetryAfter = %v", e.RetryAfter)
				}
			}},
		{name: "429 with date", reply: llmtest.RateLimited(time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)), is: ErrRateLimited,
			checkRL: func(t *testing.T, e *RateLimitError) {
				if e.RetryAfter < 28*time.Second || e.RetryAfter > 31*time.Second {
					t.Errorf("RetryAfter = %v, want about 30s", e.RetryAfter)
				}
			}},
		{name: "500", reply: llmtest.ServerError(), is: ErrServer, msgHas: "HTTP 500: The server had an error"},
		{name: "503 html", reply: llmtest.Reply{Status: 503, RawBody: "<html><body>Bad gateway</body></html>"}, is: ErrServer,
			msgHas: "HTML page"},
		{name: "400 context length", reply: llmtest.ContextLengthExceeded(), is: ErrContextLength, msgHas: "maximum context length is 8192"},
		{name: "400 context length, unwrapped (cerebras)", reply: func() llmtest.Reply {
			r := llmtest.ContextLengthExceeded()
			r.Unwrapped = true
			return r
		}(), is: ErrContextLength},
		{name: "400 other", reply: llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "tools[0].name is invalid", Type: "invalid_request_error"}},
			is: ErrBadRequest, msgHas: "tools[0].name is invalid"},
		{name: "404 model", reply: llmtest.Reply{Status: 404, Error: &llmtest.APIError{Message: "The model `nope` does not exist"}},
			is: ErrBadRequest, msgHas: "pick a model from the list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, rec, err := streamFailing(t, tt.reply, tt.is, tt.msgHas)
			if len(rec.events) != 0 || reply.Content != "" {
				t.Errorf("events %v, content %q after an HTTP error", rec.events, reply.Content)
			}
			if tt.checkRL != nil {
				var rl *RateLimitError
				if !errors.As(err, &rl) {
					t.Fatalf("err %T is not a *RateLimitError", err)
				}
				tt.checkRL(t, rl)
			}
		})
	}
}

func TestStreamFaults(t *testing.T) {
	content := []string{"The answer ", "is ", "forty", "-two."}
	tests := []struct {
		name        string
		fault       llmtest.Fault
		is          error
		msgHas      string
		wantPartial string
	}{
		{"connection cut mid-token", llmtest.Fault{Kind: llmtest.FaultCut, After: 2}, ErrConnection, "", "The answer is "},
		{"connection cut before the finish chunk", llmtest.Fault{Kind: llmtest.FaultCut, After: 4}, ErrConnection, "", "The answer is forty-two."},
		{"response ends without finish or [DONE]", llmtest.Fault{Kind: llmtest.FaultEnd, After: 3}, ErrConnection, "without a finish reason", "The answer is forty"},
		{"malformed chunk", llmtest.Fault{Kind: llmtest.FaultMalformed, After: 1}, ErrMalformed, "bad chunk", "The answer "},
		{"unwrapped error body in data line", llmtest.Fault{Kind: llmtest.FaultUnwrappedError, After: 3,
			Error: &llmtest.APIError{Message: "Internal server error", Type: "server_error"}},
			ErrMalformed, "Internal server error", "The answer is forty"},
		{"unwrapped error body as a bare line", llmtest.Fault{Kind: llmtest.FaultRawError, After: 1,
			Error: &llmtest.APIError{Message: "overloaded", Type: "server_error"}},
			ErrMalformed, "overloaded", "The answer "},
		{"wrapped error event", llmtest.Fault{Kind: llmtest.FaultStreamError, After: 2}, ErrServer, "reported mid-reply", "The answer is "},
		{"wrapped context-length event", llmtest.Fault{Kind: llmtest.FaultStreamError, After: 0,
			Error: &llmtest.APIError{Message: "prompt too long", Code: ptr("context_length_exceeded")}},
			ErrContextLength, "prompt too long", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fault := tt.fault
			reply, rec, _ := streamFailing(t, llmtest.Reply{Content: content, Fault: &fault}, tt.is, tt.msgHas)
			if reply.Content != tt.wantPartial || rec.text() != tt.wantPartial {
				t.Errorf("partial content = %q (events %q), want %q", reply.Content, rec.text(), tt.wantPartial)
			}
		})
	}
}

// streamFailing streams the answer to "hi" from a server that gives r,
// and checks that it fails with is, saying msgHas. It returns what the
// stream returned and the events it sent.
func streamFailing(t *testing.T, r llmtest.Reply, is error, msgHas string) (Reply, *recorder, error) {
	t.Helper()
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{r}})
	rec := &recorder{}
	reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), rec.on)
	t.Logf("err: %v", err)
	if !errors.Is(err, is) {
		t.Fatalf("err = %v, want %v", err, is)
	}
	if !strings.Contains(err.Error(), msgHas) {
		t.Errorf("err = %q, want it to contain %q", err, msgHas)
	}
	return reply, rec, err
}

func ptr[T any](v T) *T { return &v }

func TestStreamNoUsageEstimates(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Content: llmtest.Split(strings.Repeat("word ", 40), 5), OmitUsage: true, TokensPerSecond: 500,
	}}})
	reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Usage != nil || !reply.TokensPerSecondEstimated || reply.TokensPerSecond <= 0 {
		t.Errorf("usage = %v, estimated = %v, tokens/s = %v", reply.Usage, reply.TokensPerSecondEstimated, reply.TokensPerSecond)
	}
}

func TestStreamMetrics(t *testing.T) {
	const rate = 100 // tokens per second: a 10 ms pause before each of 12 chunks
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Content: llmtest.Split("abcdefghijkl", 1), TokensPerSecond: rate,
	}}})
	reply, err := newTestClient(t, srv).Stream(t.Context(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.TimeToFirstToken < 10*time.Millisecond || reply.TimeToFirstToken > time.Second {
		t.Errorf("time to first token = %v, want about 10ms", reply.TimeToFirstToken)
	}
	if reply.TokensPerSecondEstimated || reply.TokensPerSecond < rate/3 || reply.TokensPerSecond > rate*1.2 {
		t.Errorf("tokens/s = %.1f (estimated %v), want about %d", reply.TokensPerSecond, reply.TokensPerSecondEstimated, rate)
	}
}

func TestStreamCancelReturnsPartial(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Content: []string{"one ", "two ", "three "},
		Fault:   &llmtest.Fault{Kind: llmtest.FaultStall, After: 2},
	}}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Stop from another goroutine (as the UI does) once two tokens are out
	// and the stream is about to stall.
	twoOut := make(chan struct{})
	go func() {
		<-twoOut
		cancel()
	}()
	n := 0
	onEvent := func(e Event) {
		if _, ok := e.(ContentDelta); ok {
			if n++; n == 2 {
				close(twoOut)
			}
		}
	}
	start := time.Now()
	reply, err := newTestClient(t, srv).Stream(ctx, userRequest("hi"), onEvent)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if reply.Content != "one two " {
		t.Errorf("partial content = %q", reply.Content)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Stream returned %v after start; cancel should end it at once", d)
	}
}

func TestStreamCancelFromCallback(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Content: llmtest.Split(strings.Repeat("x", 50), 1), TokensPerSecond: 200,
	}}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	reply, err := newTestClient(t, srv).Stream(ctx, userRequest("hi"), func(e Event) {
		if _, ok := e.(ContentDelta); ok {
			if n++; n == 3 {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) || reply.Content != "xxx" {
		t.Errorf("err = %v, content = %q; want context.Canceled and %q", err, reply.Content, "xxx")
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{{
		Content: []string{"a", "b"}, Fault: &llmtest.Fault{Kind: llmtest.FaultStall, After: 1},
	}}})
	c := newTestClient(t, srv, func(cfg *ProviderConfig) { cfg.IdleTimeout = 100 * time.Millisecond })
	reply, err := c.Stream(t.Context(), userRequest("hi"), nil)
	if !errors.Is(err, ErrConnection) || !strings.Contains(err.Error(), "no data from the provider for 100ms") {
		t.Errorf("err = %v, want ErrConnection after 100ms of silence", err)
	}
	if reply.Content != "a" {
		t.Errorf("partial content = %q", reply.Content)
	}
}

func TestStreamNoModel(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	_, err := newTestClient(t, srv).Stream(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, nil)
	if !errors.Is(err, ErrBadRequest) || len(srv.Requests()) != 0 {
		t.Errorf("err = %v, requests = %d; want ErrBadRequest and no request", err, len(srv.Requests()))
	}
}

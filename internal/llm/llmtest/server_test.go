package llmtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// post sends a chat request body and returns the response.
func post(t *testing.T, s *Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads SSE events, checking the "data: …\n\n" framing.
func events(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	br := bufio.NewReader(r)
	var out []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out, err
		}
		if !strings.HasPrefix(line, "data: ") {
			t.Fatalf("line %q does not start with \"data: \"", line)
		}
		blank, err := br.ReadString('\n')
		if err != nil {
			return out, err
		}
		if blank != "\n" {
			t.Fatalf("event %q not followed by a blank line but %q", line, blank)
		}
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(line, "data: "), "\n"))
	}
}

type anyChunk map[string]any

func decode(t *testing.T, s string) anyChunk {
	t.Helper()
	var c anyChunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("chunk %q: %v", s, err)
	}
	return c
}

func TestStreamWireFormat(t *testing.T) {
	for _, includeUsage := range []bool{true, false} {
		s := NewServer(t, &Options{Replies: []Reply{Text("Hel", "lo")}})
		body := `{"model":"m1","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		if includeUsage {
			body = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
		}
		resp := post(t, s, body)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type = %q", ct)
		}
		evs, err := events(t, resp.Body)
		if err != io.EOF {
			t.Fatalf("read: %v", err)
		}
		if evs[len(evs)-1] != "[DONE]" {
			t.Fatalf("last event %q, want [DONE]", evs[len(evs)-1])
		}
		chunks := evs[:len(evs)-1]
		wantN := 4 // role, "Hel", "lo", finish
		if includeUsage {
			wantN = 5
		}
		if len(chunks) != wantN {
			t.Fatalf("include_usage=%v: %d chunks, want %d: %q", includeUsage, len(chunks), wantN, chunks)
		}
		first := decode(t, chunks[0])
		for i, raw := range chunks {
			c := decode(t, raw)
			if c["object"] != "chat.completion.chunk" || c["id"] != first["id"] || c["model"] != "m1" || c["created"] == nil {
				t.Errorf("chunk %d header fields: %s", i, raw)
			}
			_, hasUsage := c["usage"]
			if hasUsage != includeUsage {
				t.Errorf("include_usage=%v: chunk %d has usage key = %v", includeUsage, i, hasUsage)
			}
		}
		wantFirst := `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`
		if !strings.Contains(chunks[0], wantFirst) {
			t.Errorf("first chunk %s, want %s", chunks[0], wantFirst)
		}
		if !strings.Contains(chunks[1], `"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null`) {
			t.Errorf("content chunk %s", chunks[1])
		}
		if !strings.Contains(chunks[3], `"delta":{},"logprobs":null,"finish_reason":"stop"`) {
			t.Errorf("finish chunk %s", chunks[3])
		}
		if includeUsage && !strings.Contains(chunks[4], `"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}`) {
			t.Errorf("usage chunk %s", chunks[4])
		}
	}
}

func TestToolCallWireFormat(t *testing.T) {
	s := NewServer(t, &Options{Replies: []Reply{{
		ToolCalls:  []ToolCall{{ID: "call_a", Name: "a", Arguments: []string{`{"x"`, `:1}`}}, {Name: "b", Arguments: []string{`{}`}}},
		Interleave: true,
	}}})
	evs, _ := events(t, post(t, s, `{"model":"m","stream":true,"messages":[]}`).Body)
	var deltas []string
	for _, e := range evs[1 : len(evs)-2] { // skip role, finish, [DONE]
		c := decode(t, e)
		d, _ := json.Marshal(c["choices"].([]any)[0].(map[string]any)["delta"])
		deltas = append(deltas, string(d))
	}
	want := []string{
		`{"tool_calls":[{"function":{"arguments":"","name":"a"},"id":"call_a","index":0,"type":"function"}]}`,
		`{"tool_calls":[{"function":{"arguments":"","name":"b"},"id":"call_1","index":1,"type":"function"}]}`,
		`{"tool_calls":[{"function":{"arguments":"{\"x\""},"index":0}]}`,
		`{"tool_calls":[{"function":{"arguments":"{}"},"index":1}]}`,
		`{"tool_calls":[{"function":{"arguments":":1}"},"index":0}]}`,
	}
	if diff := cmp.Diff(want, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if !strings.Contains(evs[len(evs)-2], `"finish_reason":"tool_calls"`) {
		t.Errorf("finish chunk %s", evs[len(evs)-2])
	}
}

func TestErrorReplies(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		status     int
		retryAfter string
		body       string
	}{
		{"401", AuthError(), 401, "",
			`{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{"429", RateLimited("5"), 429, "5", ""},
		{"unwrapped", Reply{Status: 400, Unwrapped: true, Error: &APIError{Message: "m", Type: "t"}}, 400, "",
			`{"message":"m","type":"t","param":null,"code":null}`},
		{"raw", Reply{Status: 502, RawBody: "<html>bad gateway</html>"}, 502, "", "<html>bad gateway</html>"},
	}
	for _, tt := range tests {
		s := NewServer(t, &Options{Replies: []Reply{tt.reply}})
		resp := post(t, s, `{"model":"m","stream":true,"messages":[]}`)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter {
			t.Errorf("%s: status %d, Retry-After %q", tt.name, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if tt.body != "" && string(b) != tt.body {
			t.Errorf("%s: body %s\nwant %s", tt.name, b, tt.body)
		}
	}
}

func TestAPIKeyModelsAndRecording(t *testing.T) {
	s := NewServer(t, &Options{APIKey: "sk-right", Models: []string{"a", "b"}})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/models", nil)
	req.Header.Set("Authorization", "Bearer sk-right")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"object":"list","data":[{"id":"a","object":"model","created":1700000000,"owned_by":"llmtest"},{"id":"b","object":"model","created":1700000000,"owned_by":"llmtest"}]}` + "\n"
	if string(b) != want {
		t.Errorf("models = %s", b)
	}
	if resp := post(t, s, `{"model":"a","messages":[{"role":"user","content":"x"}]}`); resp.StatusCode != 401 {
		t.Errorf("wrong key: status %d", resp.StatusCode)
	}
	got := s.Requests()
	if len(got) != 2 || got[1].Chat == nil || got[1].Chat.Messages[0].Content != "x" || got[1].Header.Get("Authorization") != "Bearer k" {
		t.Errorf("recorded %+v", got)
	}
}

func TestEcho(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want Reply
	}{
		{"text", []Message{{Role: "user", Content: "hello there"}}, Text("You ", "said: ", "hello ", "there")},
		{"tool", []Message{{Role: "user", Content: `please use tool fs__read {"path":"/tmp"}`}},
			Calls(ToolCall{ID: "call_echo_1", Name: "fs__read", Arguments: []string{`{"path`, `":"/tm`, `p"}`}})},
		{"tool without args", []Message{{Role: "user", Content: "use tool clock__now"}},
			Calls(ToolCall{ID: "call_echo_1", Name: "clock__now", Arguments: []string{"{}"}})},
		{"after the tool result", []Message{
			{Role: "user", Content: "use tool clock__now"}, {Role: "assistant"}, {Role: "tool", Content: "noon"}},
			Text("You ", "said: ", "use ", "tool ", "clock__now")},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Echo(ChatRequest{Messages: tt.msgs}, 1)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Respond answers once the scripted replies ran out, reading the request.
func TestRespond(t *testing.T) {
	s := NewServer(t, &Options{Replies: []Reply{Text("scripted")}, Respond: func(req ChatRequest, n int) Reply {
		return Text(fmt.Sprintf("%d:%s", n, req.Messages[0].Content))
	}})
	var got []string
	for range 2 {
		evs, _ := events(t, post(t, s, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`).Body)
		text := ""
		for _, e := range evs {
			if e == "[DONE]" {
				continue
			}
			for _, ch := range decode(t, e)["choices"].([]any) {
				if c, ok := ch.(map[string]any)["delta"].(map[string]any)["content"].(string); ok {
					text += c
				}
			}
		}
		got = append(got, text)
	}
	if diff := cmp.Diff([]string{"scripted", "2:hi"}, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// When the request offers the tool-search pair instead of the tool, the
// echo searches for it by its name's words, then calls it through
// call_tool if the search found it, and says so if not.
func TestEchoThroughToolSearch(t *testing.T) {
	tool := func(name string) Tool {
		var t Tool
		t.Type, t.Function.Name = "function", name
		return t
	}
	pair := []Tool{tool(SearchToolName), tool(CallToolName)}
	ask := Message{Role: "user", Content: `use tool everything__get-env {"a":1}`}
	searched := Message{Role: "assistant", ToolCalls: []WireToolCall{{ID: "call_echo_search_1"}}}
	searched.ToolCalls[0].Function.Name = SearchToolName
	tests := []struct {
		name  string
		tools []Tool
		msgs  []Message
		want  Reply
	}{
		{"search first", pair, []Message{ask},
			Calls(ToolCall{ID: "call_echo_search_1", Name: SearchToolName, Arguments: Split(`{"query":"everything get env"}`, 6)})},
		{"the tool offered itself", append(pair, tool("everything__get-env")), []Message{ask},
			Calls(ToolCall{ID: "call_echo_1", Name: "everything__get-env", Arguments: Split(`{"a":1}`, 6)})},
		{"found: call it", pair, []Message{ask, searched, {Role: "tool", ToolCallID: "call_echo_search_1", Content: `{"tools":[{"name":"everything__get-env"}]}`}},
			Calls(ToolCall{ID: "call_echo_1", Name: CallToolName, Arguments: Split(`{"name":"everything__get-env","arguments":{"a":1}}`, 6)})},
		{"not found", pair, []Message{ask, searched, {Role: "tool", ToolCallID: "call_echo_search_1", Content: `{"tools":[]}`}},
			Text("Tool search did not find ", "everything__get-env", ".")},
		{"after the call's result", pair, []Message{ask, searched, {Role: "tool", ToolCallID: "call_echo_search_1", Content: `{"tools":[{"name":"everything__get-env"}]}`},
			{Role: "assistant"}, {Role: "tool", ToolCallID: "call_echo_2", Content: "env"}},
			Text("You ", "said: ", "use ", "tool ", "everything__get-env ", `{"a":1}`)},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Echo(ChatRequest{Tools: tt.tools, Messages: tt.msgs}, 1)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCutClosesConnection(t *testing.T) {
	s := NewServer(t, &Options{Replies: []Reply{{Content: []string{"a", "b"}, Fault: &Fault{Kind: FaultCut, After: 1}}}})
	evs, err := events(t, post(t, s, `{"model":"m","stream":true,"messages":[]}`).Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(evs) != 2 {
		t.Errorf("after %d events: %v, want unexpected EOF after 2", len(evs), err)
	}
}

func TestCloseEndsStalledStream(t *testing.T) {
	s := NewServer(nil, &Options{Replies: []Reply{{Content: []string{"a"}, Fault: &Fault{Kind: FaultStall}}}})
	resp := post(t, s, `{"model":"m","stream":true,"messages":[]}`)
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	s.Close()
	s.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stalled stream still open after Close")
	}
}

func TestOptionsJSON(t *testing.T) {
	// The example in test/fakeprovider's doc.
	script := `{"models": ["m1"], "tokensPerSecond": 50, "replies": [
	  {"content": ["Hel", "lo"]},
	  {"toolCalls": [{"name": "get", "arguments": ["{\"a\"", ":1}"]}]},
	  {"status": 429, "retryAfter": "2", "error": {"message": "slow down", "type": "requests"}},
	  {"content": ["cut "], "fault": {"kind": "cut", "after": 1}}
	]}`
	var o Options
	if err := json.Unmarshal([]byte(script), &o); err != nil {
		t.Fatal(err)
	}
	want := Options{Models: []string{"m1"}, TokensPerSecond: 50, Replies: []Reply{
		Text("Hel", "lo"),
		Calls(ToolCall{Name: "get", Arguments: []string{`{"a"`, ":1}"}}),
		{Status: 429, RetryAfter: "2", Error: &APIError{Message: "slow down", Type: "requests"}},
		{Content: []string{"cut "}, Fault: &Fault{Kind: FaultCut, After: 1}},
	}}
	if diff := cmp.Diff(want, o, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Listener" }, cmp.Ignore())); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

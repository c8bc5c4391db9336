package chat

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

func TestAuthErrorSaysCheckTheKey(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{llmtest.AuthError()}, nil)
	res := h.send("hello")
	if res.Status != store.StatusError {
		t.Fatalf("run %+v", res)
	}
	ms := h.messages()
	if diff := cmp.Diff([]string{"user", "assistant(error)"}, roles(ms)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	for _, want := range []string{"API key", "Settings → Providers"} {
		if !strings.Contains(ms[1].Error, want) {
			t.Errorf("error %q does not mention %q", ms[1].Error, want)
		}
	}
	if st := last(h.rec.statuses()); st.State != StateError || st.Message != ms[1].Error {
		t.Errorf("last status %+v", st)
	}
	if d := h.rec.all(EventDone); len(d) != 1 || d[0].Payload.(DoneEvent).Error != ms[1].Error {
		t.Errorf("done %+v", d)
	}
}

func TestRateLimitIsRetriedVisibly(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{llmtest.RateLimited("1"), llmtest.Text("fine")}, nil)
	res := h.send("hello")
	if res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	var retrying []string
	for _, st := range h.rec.statuses() {
		if st.State == StateRetrying {
			retrying = append(retrying, st.Message)
		}
	}
	if diff := cmp.Diff([]string{"rate limited, retrying in 1 s"}, retrying); diff != "" {
		t.Errorf("retrying statuses (-want +got):\n%s", diff)
	}
	if n := len(h.srv.ChatRequests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	if diff := cmp.Diff([]string{"user", "assistant"}, roles(h.messages())); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestFailedReplyCanBeRetried: each way a reply fails leaves an error on
// the message (the partial text kept), and Retry replaces it.
func TestFailedReplyCanBeRetried(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		partial string
		want    error
	}{
		{"server error", llmtest.ServerError(), "", llm.ErrServer},
		{"cut stream", llmtest.Reply{Content: []string{"Hello ", "wor", "ld"}, Fault: &llmtest.Fault{Kind: llmtest.FaultCut, After: 2}}, "Hello wor", llm.ErrConnection},
		{"malformed chunk", llmtest.Reply{Content: []string{"Hi", "!"}, Fault: &llmtest.Fault{Kind: llmtest.FaultMalformed, After: 1}}, "Hi", llm.ErrMalformed},
		{"context length", llmtest.ContextLengthExceeded(), "", llm.ErrContextLength},
		{"rate limit too long", llmtest.RateLimited("3600"), "", llm.ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []llmtest.Reply{tt.reply, llmtest.Text("Hello ", "world")}, nil)
			res := h.send("hi")
			if res.Status != store.StatusError {
				t.Fatalf("run %+v", res)
			}
			m := h.messages()[1]
			if m.Status != store.StatusError || m.Content != tt.partial {
				t.Errorf("failed message: status %q, content %q; want partial %q", m.Status, m.Content, tt.partial)
			}
			first := tt.want.Error()
			if tt.want == llm.ErrRateLimited {
				first = "the provider is rate limiting"
			}
			if !strings.Contains(strings.ToLower(m.Error), strings.ToLower(first[:20])) {
				t.Errorf("error %q; want it to say %q", m.Error, first)
			}

			if _, err := h.e.Retry(context.Background(), h.conv.ID); err != nil {
				t.Fatal(err)
			}
			if res := h.wait(); res.Status != store.StatusDone {
				t.Fatalf("retry %+v", res)
			}
			ms := h.messages()
			if diff := cmp.Diff([]string{"user", "assistant"}, roles(ms)); diff != "" {
				t.Errorf("after retry (-want +got):\n%s", diff)
			}
			if ms[1].Content != "Hello world" {
				t.Errorf("retried reply %q", ms[1].Content)
			}
			if tr := h.rec.all(EventTruncated); len(tr) != 1 || tr[0].Payload.(TruncatedEvent).AfterSeq != 1 {
				t.Errorf("truncated events %+v", tr)
			}
		})
	}
}

func TestUserMessageKeptWhenProviderUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()
	h := newHarness(t, nil, func(o *Options) {
		o.Provider = func(ctx context.Context, _ string) (*llm.Client, string, error) {
			c, err := llm.NewClient(llm.ProviderConfig{BaseURL: dead})
			return c, "m", err
		}
	})
	res := h.send("please keep this")
	if res.Status != store.StatusError {
		t.Fatalf("run %+v", res)
	}
	ms := h.messages()
	if len(ms) != 2 || ms[0].Content != "please keep this" || ms[0].Role != store.RoleUser {
		t.Fatalf("messages %+v", ms)
	}
	if !strings.Contains(ms[1].Error, "Cannot reach the provider") {
		t.Errorf("error %q", ms[1].Error)
	}
}

func TestNoProviderIsAnErrorOnTheConversation(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) {
		o.Provider = func(context.Context, string) (*llm.Client, string, error) { return nil, "", ErrNoProvider }
	})
	res := h.send("hi")
	ms := h.messages()
	if res.Status != store.StatusError || len(ms) != 2 || !strings.Contains(ms[1].Error, "Settings → Providers") {
		t.Errorf("run %+v, messages %+v", res, ms)
	}
}

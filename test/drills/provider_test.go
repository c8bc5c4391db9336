package drills

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestDrillProviderFaults breaks the provider in each way a user meets:
// a wrong key, a rate limit with Retry-After, a server error, a connection
// cut in the middle of a token, a malformed chunk. Each time the user's
// message is kept, the reply says what happened and what to do (or, for
// the rate limit, the app waits as told, says so, and succeeds), and the
// next message in the same conversation gets its answer.
//
// The provider is configured as a user would (Settings → Providers, the
// providers service); llm's TestStreamErrors, TestStreamFaults and
// TestRetryTiming and chat's TestAuthErrorSaysCheckTheKey and
// TestRateLimitIsRetriedVisibly cover the pieces alone.
func TestDrillProviderFaults(t *testing.T) {
	a := newApp(t, appOptions{})
	tests := []struct {
		name  string
		reply llmtest.Reply
		// status is how the turn ends; says, what its error says.
		status string
		says   []string
		// kept is the text of the cut reply that must be kept.
		kept string
	}{
		{name: "401 wrong key", reply: llmtest.AuthError(), status: store.StatusError,
			says: []string{"refused the API key", "Settings → Providers"}},
		{name: "429 with Retry-After", reply: llmtest.RateLimited("1"), status: store.StatusDone},
		{name: "500", reply: llmtest.ServerError(), status: store.StatusError,
			says: []string{"internal error", "try again"}},
		{name: "connection cut mid-token", reply: llmtest.Reply{Content: []string{"The answer ", "is forty", "-two, as ", "everyone knows."}, Fault: &llmtest.Fault{Kind: llmtest.FaultCut, After: 2}},
			status: store.StatusError, says: []string{"connection to the provider dropped", "try again"}, kept: "The answer is forty"},
		{name: "malformed chunk", reply: llmtest.Reply{Content: []string{"Half ", "an answer"}, Fault: &llmtest.Fault{Kind: llmtest.FaultMalformed, After: 1}},
			status: store.StatusError, says: []string{"not a valid OpenAI-compatible stream"}, kept: "Half "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			conv := a.conversation()
			a.provider.Enqueue(tt.reply)
			start := time.Now()
			res := a.turn(conv.ID, "What is the answer?")
			took := time.Since(start)
			msgs := a.messages(conv.ID)
			if len(msgs) < 2 || msgs[0].Role != store.RoleUser || msgs[0].Content != "What is the answer?" {
				t.Fatalf("the user's message was not kept: %+v", msgs)
			}
			reply := last(msgs)
			t.Logf("turn %s in %s; the user sees: %q (kept %q)", res.Status, took.Round(time.Millisecond), reply.Error, reply.Content)
			if res.Status != tt.status {
				t.Errorf("the turn ended %s, want %s (%s)", res.Status, tt.status, res.Error)
			}
			for _, s := range tt.says {
				if !strings.Contains(reply.Error, s) {
					t.Errorf("the error %q does not say %q", reply.Error, s)
				}
			}
			if tt.kept != "" && reply.Content != tt.kept {
				t.Errorf("the cut reply keeps %q, want %q", reply.Content, tt.kept)
			}
			if tt.status == store.StatusDone {
				// The rate limit: waited about the second asked for, and said so.
				if took < 900*time.Millisecond {
					t.Errorf("retried after %s, before the 1 s Retry-After", took)
				}
				var said string
				for _, s := range a.user.statuses() {
					if s.ConversationID == conv.ID && s.State == chat.StateRetrying {
						said = s.Message
					}
				}
				if !strings.Contains(said, "rate limited, retrying in 1 s") {
					t.Errorf("the user was not told of the wait (status %q)", said)
				}
				if reply.Content != "You said: What is the answer?" {
					t.Errorf("after the wait the reply is %q", reply.Content)
				}
			}

			// The app keeps working: the next message gets its answer.
			res = a.turn(conv.ID, "And now?")
			if got := last(a.messages(conv.ID)); res.Status != store.StatusDone || got.Content != "You said: And now?" {
				t.Errorf("the next turn: %s %q (%s)", res.Status, got.Content, res.Error)
			}
		})
	}
}

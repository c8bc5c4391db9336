package chat

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

func contents(ms []store.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

func TestEditAndResend(t *testing.T) {
	h := newHarness(t, nil, nil) // the fake echoes "You said: …"
	h.send("first question")
	h.send("second question")
	if _, err := h.e.EditAndResend(context.Background(), h.conv.ID, 1, "better question"); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	want := []string{"user: better question", "assistant: You said: better question"}
	if diff := cmp.Diff(want, contents(h.messages())); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if _, err := h.e.EditAndResend(context.Background(), h.conv.ID, 2, "x"); err != ErrNotUserMessage {
		t.Errorf("editing a reply: %v", err)
	}
	if _, err := h.e.EditAndResend(context.Background(), h.conv.ID, 1, " "); err != ErrEmptyMessage {
		t.Errorf("empty edit: %v", err)
	}
	if tr := h.rec.all(EventTruncated); len(tr) != 1 || tr[0].Payload.(TruncatedEvent).AfterSeq != 1 {
		t.Errorf("truncated %+v", tr)
	}
}

func TestRegenerate(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{"{}"}}),
		llmtest.Text("A"),
		llmtest.Text("B"),
	}, nil)
	h.send("q")
	if n := len(h.messages()); n != 4 {
		t.Fatalf("%d messages before regenerate", n)
	}
	if _, err := h.e.Regenerate(context.Background(), h.conv.ID); err != nil {
		t.Fatal(err)
	}
	h.wait()
	want := []string{"user: q", "assistant: B"}
	if diff := cmp.Diff(want, contents(h.messages())); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// The first answer's tool call stays in the audit, detached.
	if a := h.audit(); len(a) != 1 || a[0].MessageID != 0 {
		t.Errorf("audit %+v", a)
	}
	// Retry of a finished reply regenerates too.
	h.srv.Enqueue(llmtest.Text("C"))
	h.e.Retry(context.Background(), h.conv.ID)
	h.wait()
	if diff := cmp.Diff([]string{"user: q", "assistant: C"}, contents(h.messages())); diff != "" {
		t.Errorf("after retry (-want +got):\n%s", diff)
	}

	empty, _ := h.st.CreateConversation(context.Background(), store.Conversation{})
	if _, err := h.e.Regenerate(context.Background(), empty.ID); err != ErrNothingToRetry {
		t.Errorf("regenerate an empty conversation: %v", err)
	}
}

func TestSystemPromptDefaultAndOverride(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.DefaultSystemPrompt = "You are helpful." })
	ctx := context.Background()
	h.send("a")
	pirate := "Talk like a pirate."
	h.st.SetSystemPrompt(ctx, h.conv.ID, &pirate)
	h.send("b")
	none := ""
	h.st.SetSystemPrompt(ctx, h.conv.ID, &none)
	h.send("c")
	var firsts []string
	for _, r := range h.srv.ChatRequests() {
		firsts = append(firsts, r.Messages[0].Role+": "+r.Messages[0].Content)
	}
	want := []string{"system: You are helpful.", "system: Talk like a pirate.", "user: a"}
	if diff := cmp.Diff(want, firsts); diff != "" {
		t.Errorf("first messages sent (-want +got):\n%s", diff)
	}
}

func TestBlockingRun(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{llmtest.Text("sync")}, nil)
	res, err := h.e.Run(context.Background(), h.conv.ID, "hi")
	if err != nil || res.Status != store.StatusDone || res.MessageID == 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if m, _ := h.st.Message(context.Background(), res.MessageID); m.Content != "sync" {
		t.Errorf("message %+v", m)
	}
	if _, err := h.e.Run(context.Background(), "missing", "hi"); err == nil {
		t.Error("Run on a missing conversation succeeded")
	}
}

func TestExportMarkdownAndJSON(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{Name: "fs__read", Arguments: []string{`{"path":"/a"}`}}),
		llmtest.Text("It says ", "```hi```."),
	}, nil)
	h.send("read /a please")
	ctx := context.Background()

	md, err := ExportMarkdown(ctx, h.st, h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# read /a please\n",
		"## User\n\nread /a please\n",
		"## Assistant (fake-model)\n",
		"**Tool call:** `fs__read`\n\n```json\n{\"path\":\"/a\"}\n```\n",
		"**Result of `fs__read`:**\n\n```\nran fs__read with {\"path\":\"/a\"}\n```\n",
		"It says ```hi```.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	raw, err := ExportJSON(ctx, h.st, h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var x Export
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	if x.Version != 1 || x.Conversation.ID != h.conv.ID || len(x.Messages) != 4 || len(x.ToolCalls) != 1 ||
		x.ToolCalls[0].Tool != "fs__read" || x.Messages[1].ToolCalls == nil {
		t.Errorf("export %+v", x)
	}
	if _, err := ExportJSON(ctx, h.st, "missing"); err == nil {
		t.Error("exporting a missing conversation succeeded")
	}
}

func TestFence(t *testing.T) {
	if got := fence("", "a ```` b"); got != "`````\na ```` b\n`````\n" {
		t.Errorf("fence = %q", got)
	}
}

package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

func TestBuildHistoryIsValidForProviders(t *testing.T) {
	calls := json.RawMessage(`[{"id":"a","name":"t","arguments":"{}"},{"id":"b","name":"t","arguments":"{}"}]`)
	stored := []store.Message{
		{Role: "user", Content: "q1"},
		{Role: "assistant", Status: "error", Error: "HTTP 500"}, // failed before any text: left out
		{Role: "assistant", Content: "partial", Status: "stopped"},
		{Role: "user", Content: "q2"},
		{Role: "assistant", ToolCalls: calls, Status: "stopped"},
		{Role: "tool", ToolCallID: "b", Content: "B"},
		{Role: "tool", ToolCallID: "zzz", Content: "orphan"}, // answers nothing: dropped
		{Role: "user", Content: "q3"},                        // "a" never got a result
		{Role: "assistant", Status: "error", Error: "note"},
	}
	want := []llm.Message{
		{Role: "system", Content: "sys"},
		{Role: "user", Content: "q1"},
		{Role: "assistant", Content: "partial"},
		{Role: "user", Content: "q2"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "a", Name: "t", Arguments: "{}"}, {ID: "b", Name: "t", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "a", Content: noResult}, // in the calls' order
		{Role: "tool", ToolCallID: "b", Content: "B"},
		{Role: "user", Content: "q3"},
	}
	if diff := cmp.Diff(want, buildHistory("sys", stored, nil)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestUniqueCallIDs(t *testing.T) {
	got := uniqueCallIDs([]llm.ToolCall{{ID: "x"}, {ID: "x"}, {ID: "y"}, {ID: "x"}})
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"x", "x_2", "y", "x_3"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello there", "Hello there"},
		{"Show me a **markdown** table of `planets`", "Show me a markdown table of planets"},
		{"# Plan for **today**", "Plan for today"},
		{"use tool everything__echo", "use tool everything__echo"},
		{"\n\n   spaced    out   \nsecond line", "spaced out"},
		{"", ""},
		{"The quick brown fox jumps over the lazy dog and keeps running far away", "The quick brown fox jumps over the lazy dog and keeps…"},
		{"Whatabout" + string(make([]byte, 0)) + "averyveryveryveryveryveryveryveryveryveryveryveryverylongword", "Whataboutaveryveryveryveryveryveryveryveryveryveryveryveryv…"},
		{"Ünïcödé wörds ünïcödé wörds ünïcödé wörds ünïcödé wörds ünïcödé wörds", "Ünïcödé wörds ünïcödé wörds ünïcödé wörds ünïcödé wörds…"},
		{"Ends with punctuation, right here: and then more words to pass the limit", "Ends with punctuation, right here: and then more words to…"},
	}
	for _, tt := range tests {
		got := Title(tt.in)
		if got != tt.want {
			t.Errorf("Title(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if n := len([]rune(got)); n > TitleLength {
			t.Errorf("Title(%q) has %d characters", tt.in, n)
		}
	}
}

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/sampling"
)

// answers records what a termAsker sends.
type answers struct {
	elicited map[string]elicit.Answer
	sampled  map[string]sampling.Decision
}

func (a *answers) AnswerElicitation(_ context.Context, id string, ans elicit.Answer) error {
	a.elicited[id] = ans
	return nil
}

func (a *answers) AnswerSampling(id string, d sampling.Decision) error {
	a.sampled[id] = d
	return nil
}

func newTermAsker(input string) (*termAsker, *answers, *strings.Builder) {
	out := &strings.Builder{}
	a := &answers{elicited: map[string]elicit.Answer{}, sampled: map[string]sampling.Decision{}}
	return &termAsker{in: bufio.NewReader(strings.NewReader(input)), out: out, lock: &sync.Mutex{}, svc: a}, a, out
}

func formRequest(t *testing.T) *elicit.Request {
	t.Helper()
	r, err := elicit.NewRequest("form", "Who are you?\x1b[2J", json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","title":"Name","minLength":2},
		"age":{"type":"integer","minimum":0},
		"member":{"type":"boolean","default":false},
		"color":{"type":"string","enum":["red","green"]},
		"pets":{"type":"array","items":{"type":"string","enum":["cat","dog","fish"]},"maxItems":2},
		"note":{"type":"string"}
	},"required":["name","age","color"]}`), "", "", true)
	if err != nil || r.Form == nil {
		t.Fatalf("request %+v, %v", r, err)
	}
	r.Meta = asks.Meta{ID: "e1", ServerName: "Everything"}
	return r
}

// TestTerminalForm: each field is asked for on the terminal and checked
// as the window checks it; a wrong value is asked for again; Enter keeps
// a default and leaves an optional field out; y sends.
func TestTerminalForm(t *testing.T) {
	ta, got, out := newTermAsker(strings.Join([]string{
		"A",     // name: too short
		"Ada",   // name
		"",      // age: required
		"-3",    // age: below the minimum
		"36.5",  // age: not whole
		"36",    // age
		"",      // member: the default
		"3",     // color: no such choice
		"green", // color, by value
		"1, 3",  // pets
		"",      // note: left out
		"y",     // send
	}, "\n") + "\n")
	ta.answer(t.Context(), formRequest(t))
	want := elicit.Answer{Action: elicit.Accept, Content: map[string]any{"name": "Ada", "age": 36.0, "member": false, "color": "green", "pets": []any{"cat", "fish"}}}
	if diff := cmp.Diff(want, got.elicited["e1"]); diff != "" {
		t.Errorf("answer (-want +got):\n%s\n%s", diff, out)
	}
	text := out.String()
	for _, want := range []string{"Server Everything asks for input:\n  Who are you? [2J", "↳ at least 2 characters", "↳ required", "↳ at least 0", "↳ must be a whole number",
		"↳ a number from 1 to 2", "    1) cat\n    2) dog\n    3) fish", "member (y/n, default false): ", "  note: Send this"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("an escape sequence of the server reached the terminal:\n%q", text)
	}
}

// TestTerminalFormEnds: d declines; the end of input or too many wrong
// values cancels; a page to open is declined with a word on the window.
func TestTerminalFormEnds(t *testing.T) {
	for _, tt := range []struct {
		name, input string
		want        elicit.Action
	}{
		{"decline", "Ada\n1\n\n1\n\n\nd\n", elicit.Decline},
		{"nothing typed", "N\n", elicit.Cancel},
		{"end of input", "Ada\n", elicit.Cancel},
		{"wrong five times", "Ada\nx\nx\nx\nx\nx\n", elicit.Cancel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ta, got, out := newTermAsker(tt.input)
			ta.answer(t.Context(), formRequest(t))
			if a := got.elicited["e1"]; a.Action != tt.want || len(a.Content) > 0 {
				t.Errorf("answer %+v; want %s\n%s", a, tt.want, out)
			}
		})
	}
	r, err := elicit.NewRequest("url", "Sign in", nil, "https://login.example.com/x", "u1", true)
	if err != nil {
		t.Fatal(err)
	}
	r.Meta = asks.Meta{ID: "u1", ServerName: "Everything"}
	ta, got, out := newTermAsker("y\n")
	ta.answer(t.Context(), r)
	if got.elicited["u1"].Action != elicit.Decline || !strings.Contains(out.String(), "asked for a page to open (Sign in); declined: answer such requests in the Switchboard window") {
		t.Errorf("URL: %+v\n%s", got.elicited["u1"], out)
	}
}

// TestTerminalSampling: the messages, tools and model are shown; y
// approves, anything else denies.
func TestTerminalSampling(t *testing.T) {
	r := &sampling.Request{Meta: asks.Meta{ID: "s1", ServerName: "Trips"}, SystemPrompt: "Be brief.", AllowedTokens: 50,
		ProviderName: "Fake AI", Model: "m1", ToolChoice: "auto", Tools: []sampling.Tool{{Name: "get_weather"}},
		Messages: []sampling.Message{
			{Role: "user", Parts: []sampling.Part{{Type: "text", Text: "Umbrella?"}}},
			{Role: "assistant", Parts: []sampling.Part{{Type: "tool_use", ToolUseID: "c1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
			{Role: "user", Parts: []sampling.Part{{Type: "tool_result", ToolUseID: "c1", Text: "rain"}}},
		}}
	ta, got, out := newTermAsker("y\n")
	ta.answer(t.Context(), r)
	if !got.sampled["s1"].Approve {
		t.Errorf("not approved:\n%s", out)
	}
	want := `
Server Trips asks for a completion from Fake AI / m1, up to 50 tokens.
  system: Be brief.
  user: Umbrella?
  assistant: [calls get_weather {"city":"Paris"}]
  user: [result of c1: rain]
  tools the model may call (the server runs them): get_weather (auto)
Approve? The server gets the model's reply. [y/N] > `
	if out.String() != want {
		t.Errorf("terminal:\n%s\nwant:\n%s", out, want)
	}
	ta, got, _ = newTermAsker("\n")
	ta.answer(t.Context(), r)
	if d, ok := got.sampled["s1"]; !ok || d.Approve {
		t.Errorf("Enter approved: %+v", d)
	}
}

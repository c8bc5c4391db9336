package llm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
)

func idx(i int) *int { return &i }

func delta(index *int, id, name, args string) openai.ToolCall {
	return openai.ToolCall{Index: index, ID: id, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func TestAccumulateToolCalls(t *testing.T) {
	tests := []struct {
		name   string
		deltas []openai.ToolCall
		want   []ToolCall
	}{
		{
			name: "one call, arguments over many deltas",
			deltas: []openai.ToolCall{
				delta(idx(0), "call_a", "get_weather", ""),
				delta(idx(0), "", "", `{"ci`), delta(idx(0), "", "", `ty":"Pa`), delta(idx(0), "", "", `ris"}`),
			},
			want: []ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		},
		{
			name: "two calls interleaved",
			deltas: []openai.ToolCall{
				delta(idx(0), "call_a", "a", ""), delta(idx(1), "call_b", "b", `{"y"`),
				delta(idx(0), "", "", `{"x"`), delta(idx(1), "", "", `:2}`), delta(idx(0), "", "", `:1}`),
			},
			want: []ToolCall{{ID: "call_a", Name: "a", Arguments: `{"x":1}`}, {ID: "call_b", Name: "b", Arguments: `{"y":2}`}},
		},
		{
			name: "out-of-order and sparse indices come out in index order",
			deltas: []openai.ToolCall{
				delta(idx(3), "call_d", "d", "{}"), delta(idx(1), "call_b", "b", "{}"),
			},
			want: []ToolCall{{ID: "call_b", Name: "b", Arguments: "{}"}, {ID: "call_d", Name: "d", Arguments: "{}"}},
		},
		{
			name: "id and name repeated on every delta are not doubled",
			deltas: []openai.ToolCall{
				delta(idx(0), "call_a", "a", `{"x"`), delta(idx(0), "call_a", "a", `:1}`),
			},
			want: []ToolCall{{ID: "call_a", Name: "a", Arguments: `{"x":1}`}},
		},
		{
			name: "missing id gets call_<index>",
			deltas: []openai.ToolCall{
				delta(idx(0), "", "a", `{}`), delta(idx(1), "", "b", `{}`),
			},
			want: []ToolCall{{ID: "call_0", Name: "a", Arguments: "{}"}, {ID: "call_1", Name: "b", Arguments: "{}"}},
		},
		{
			name: "no index: a new id opens a call, no id continues the last",
			deltas: []openai.ToolCall{
				delta(nil, "call_a", "a", `{"x"`), delta(nil, "", "", `:1}`),
				delta(nil, "call_b", "b", `{}`),
			},
			want: []ToolCall{{ID: "call_a", Name: "a", Arguments: `{"x":1}`}, {ID: "call_b", Name: "b", Arguments: "{}"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a toolCallAccumulator
			for _, d := range tt.deltas {
				a.add(d)
			}
			if diff := cmp.Diff(tt.want, a.result()); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzAccumulateToolCalls splits the arguments of three calls at arbitrary
// points, interleaves the deltas in an arbitrary order that keeps each
// call's own order, and checks that accumulation never panics and gives
// back every call exactly.
func FuzzAccumulateToolCalls(f *testing.F) {
	f.Add(`{"city":"Paris"}`, `{"q":"go"}`, "", []byte{3, 1, 4, 1, 5}, []byte{0, 1, 2, 1, 0})
	f.Add("", "{}", `{"a":[1,2,3]}`, []byte{}, []byte{})
	f.Add("é😀ü", `{"s":"\u00e9"}`, "not json at all", []byte{1, 1, 1, 1, 1, 1, 1}, []byte{2, 2, 2, 0, 0, 1})
	f.Fuzz(func(t *testing.T, a0, a1, a2 string, cuts, order []byte) {
		args := []string{a0, a1, a2}
		// Each call: a first delta with id and name, then its pieces.
		seqs := make([][]openai.ToolCall, len(args))
		ci := 0
		for i, s := range args {
			seqs[i] = append(seqs[i], delta(idx(i), "id"+string(rune('a'+i)), "fn"+string(rune('a'+i)), ""))
			for len(s) > 0 {
				n := 1
				if ci < len(cuts) {
					n = int(cuts[ci])%7 + 1
					ci++
				}
				n = min(n, len(s))
				seqs[i] = append(seqs[i], delta(idx(i), "", "", s[:n]))
				s = s[n:]
			}
		}
		var acc toolCallAccumulator
		pos := make([]int, len(seqs))
		oi := 0
		for {
			var live []int
			for i := range seqs {
				if pos[i] < len(seqs[i]) {
					live = append(live, i)
				}
			}
			if len(live) == 0 {
				break
			}
			pick := live[0]
			if oi < len(order) {
				pick = live[int(order[oi])%len(live)]
				oi++
			}
			acc.add(seqs[pick][pos[pick]])
			pos[pick]++
		}
		got := acc.result()
		if len(got) != len(args) {
			t.Fatalf("got %d calls, want %d", len(got), len(args))
		}
		for i, s := range args {
			want := ToolCall{ID: "id" + string(rune('a'+i)), Name: "fn" + string(rune('a'+i)), Arguments: s}
			if got[i] != want {
				t.Errorf("call %d = %+v, want %+v", i, got[i], want)
			}
		}
	})
}

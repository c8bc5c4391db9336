package chat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// randomChunks cuts s into pieces of 1..maxLen bytes, never inside a
// UTF-8 sequence.
func randomChunks(r *rand.Rand, s string, maxLen int) []string {
	var out []string
	for s != "" {
		out = append(out, llmtest.Split(s, 1+r.IntN(maxLen))[0])
		s = s[len(out[len(out)-1]):]
	}
	return out
}

const sample = "Grüße! The quokka 🐨 lives on Rottnest Island; `code` and **bold** — 日本語のテキスト.\n"

// TestSinkDeltasAreCompleteOrderedAndSpaced is the coalescing property, on
// a fake clock: for random chunkings and random pauses, the deltas
// concatenate to exactly the text, come at least DeltaInterval apart, the
// database sees the whole text at the end and is written at most every
// FlushInterval.
func TestSinkDeltasAreCompleteOrderedAndSpaced(t *testing.T) {
	for seed := range uint64(50) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 7))
				text := strings.Repeat(sample, 1+r.IntN(20))
				var mu sync.Mutex
				var deltas, reasons []string
				var deltaAt, saveAt []time.Time
				var saved string
				s := newSink(16*time.Millisecond, 250*time.Millisecond,
					func(c, rs string) {
						mu.Lock()
						defer mu.Unlock()
						deltas, reasons = append(deltas, c), append(reasons, rs)
						deltaAt = append(deltaAt, time.Now())
					},
					func(c, _ string) {
						mu.Lock()
						defer mu.Unlock()
						saved = c
						saveAt = append(saveAt, time.Now())
					})
				chunks := randomChunks(r, text, 12)
				for i, c := range chunks {
					if i%3 == 0 {
						s.add("", "r"+c)
					}
					s.add(c, "")
					time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
				}
				s.close()

				mu.Lock()
				defer mu.Unlock()
				if got := strings.Join(deltas, ""); got != text {
					t.Fatalf("deltas concatenate to %q\nwant %q", got, text)
				}
				var wantReason strings.Builder
				for i, c := range chunks {
					if i%3 == 0 {
						wantReason.WriteString("r" + c)
					}
				}
				if got := strings.Join(reasons, ""); got != wantReason.String() {
					t.Errorf("reasoning deltas differ")
				}
				for i := 1; i < len(deltaAt)-1; i++ { // the last one is close()'s, at once
					if gap := deltaAt[i].Sub(deltaAt[i-1]); gap < 16*time.Millisecond {
						t.Fatalf("deltas %d and %d only %s apart", i-1, i, gap)
					}
				}
				for i := 1; i < len(saveAt); i++ {
					if gap := saveAt[i].Sub(saveAt[i-1]); gap < 250*time.Millisecond {
						t.Fatalf("saves %d and %d only %s apart", i-1, i, gap)
					}
				}
				// Everything but what arrived in the last FlushInterval is saved.
				if !strings.HasPrefix(text, saved) {
					t.Errorf("saved text is not a prefix of the reply")
				}
			})
		})
	}
}

// TestSinkFlushesTrailingText: text that arrives and is followed by a long
// silence is emitted and saved without waiting for more.
func TestSinkFlushesTrailingText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var emitted, saved string
		s := newSink(16*time.Millisecond, 250*time.Millisecond,
			func(c, _ string) { mu.Lock(); emitted += c; mu.Unlock() },
			func(c, _ string) { mu.Lock(); saved = c; mu.Unlock() })
		s.add("a", "")
		s.add("b", "")
		time.Sleep(time.Second) // a model thinking
		mu.Lock()
		if emitted != "ab" || saved != "ab" {
			t.Errorf("after a silence: emitted %q, saved %q", emitted, saved)
		}
		mu.Unlock()
		s.close()
	})
}

// TestDeltasConcatenateToContent runs the property end to end over the
// real wire format: random chunkings, paced, and the chat:delta events of
// the reply concatenate to the stored content.
func TestDeltasConcatenateToContent(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 99))
		text := strings.Repeat(sample, 2+r.IntN(3))
		chunks := randomChunks(r, text, 9)
		h := newHarness(t, []llmtest.Reply{{Content: chunks, TokensPerSecond: 400 + float64(r.IntN(2000))}}, nil)
		if res := h.send("go"); res.Status != "done" {
			t.Fatalf("run %+v", res)
		}
		m := h.messages()[1]
		got, n := h.rec.deltas(m.ID)
		if m.Content != text || got != text {
			t.Fatalf("seed %d: content %q, deltas %q; want %q", seed, m.Content, got, text)
		}
		t.Logf("seed %d: %d chunks arrived as %d deltas", seed, len(chunks), n)
		// Every delta comes before the event of the finished message.
		lastDelta, final := -1, -1
		for i, ev := range h.rec.Events() {
			switch p := ev.Payload.(type) {
			case DeltaEvent:
				if p.MessageID == m.ID {
					lastDelta = i
				}
			case store.Message:
				if p.ID == m.ID && p.Status == store.StatusDone {
					final = i
				}
			}
		}
		if lastDelta < 0 || final < lastDelta {
			t.Errorf("seed %d: last delta at event %d, finished message at %d", seed, lastDelta, final)
		}
	}
}

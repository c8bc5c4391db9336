package logbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func texts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

func seqs(lines []Line) []uint64 {
	out := make([]uint64, len(lines))
	for i, l := range lines {
		out[i] = l.Seq
	}
	return out
}

func TestRingCapsLines(t *testing.T) {
	r := New(&Options{MaxLines: 3})
	for i := range 5 {
		r.Append(fmt.Sprintf("line %d", i))
	}
	got := r.Lines(0, 0)
	if diff := cmp.Diff([]string{"line 2", "line 3", "line 4"}, texts(got)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{3, 4, 5}, seqs(got)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	if r.LastSeq() != 5 {
		t.Errorf("LastSeq = %d, want 5", r.LastSeq())
	}
}

func TestRingCapsBytes(t *testing.T) {
	r := New(&Options{MaxBytes: 10})
	r.Append("aaaa")
	r.Append("bbbb")
	r.Append("cccc") // 12 bytes: evicts "aaaa"
	if diff := cmp.Diff([]string{"bbbb", "cccc"}, texts(r.Lines(0, 0))); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if n, b := r.Size(); n != 2 || b != 8 {
		t.Errorf("Size = %d lines, %d bytes; want 2, 8", n, b)
	}
}

func TestRingTruncatesHugeLine(t *testing.T) {
	r := New(&Options{MaxLineBytes: 16})
	r.Append(strings.Repeat("x", 1_000_000))
	got := r.Lines(0, 0)[0].Text
	want := strings.Repeat("x", 16) + " … [line truncated: 1,000,000 bytes]"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRingTruncatesOnRuneBoundary(t *testing.T) {
	r := New(&Options{MaxLineBytes: 5})
	r.Append("ééééé") // 10 bytes
	got := r.Lines(0, 0)[0].Text
	if !strings.HasPrefix(got, "éé …") {
		t.Errorf("got %q, want it to start with two whole runes", got)
	}
}

func TestLines(t *testing.T) {
	r := New(nil)
	for i := 1; i <= 10; i++ {
		r.Append(fmt.Sprint(i))
	}
	tests := []struct {
		since uint64
		max   int
		want  []uint64
	}{
		{0, 0, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{0, 3, []uint64{8, 9, 10}},
		{7, 0, []uint64{8, 9, 10}},
		{7, 2, []uint64{9, 10}},
		{10, 0, []uint64{}},
		{99, 5, []uint64{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("since%d_max%d", tt.since, tt.max), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, seqs(r.Lines(tt.since, tt.max))); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppendSplitsAndCleans(t *testing.T) {
	r := New(nil)
	r.Append("one\ntwo\r\n")
	r.Append("\x1b[31mred\x1b[0m text")
	r.AppendLevel(LevelWarn, "given level")
	got := r.Lines(0, 0)
	if diff := cmp.Diff([]string{"one", "two", "red text", "given level"}, texts(got)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got[3].Level != LevelWarn {
		t.Errorf("level = %q, want warn", got[3].Level)
	}
}

func TestSubscribeSlowSubscriberIsToldWhatItMissed(t *testing.T) {
	r := New(nil)
	ch, cancel := r.Subscribe(2)
	defer cancel()
	for i := 1; i <= 5; i++ {
		r.Append(fmt.Sprint(i)) // never blocks, though nobody reads
	}
	a, b := <-ch, <-ch
	if a.Text != "1" || b.Text != "2" || a.Dropped != 0 || b.Dropped != 0 {
		t.Fatalf("first updates = %+v, %+v", a, b)
	}
	r.Append("6")
	c := <-ch
	if c.Text != "6" || c.Dropped != 3 {
		t.Errorf("got %q dropped %d, want \"6\" dropped 3", c.Text, c.Dropped)
	}
	// The missed lines are still in the ring.
	if diff := cmp.Diff([]string{"3", "4", "5", "6"}, texts(r.Lines(b.Seq, 0))); diff != "" {
		t.Errorf("catch-up (-want +got):\n%s", diff)
	}
}

func TestSubscribeCancelClosesChannelAndIsIdempotent(t *testing.T) {
	r := New(nil)
	ch, cancel := r.Subscribe(1)
	cancel()
	cancel()
	if _, ok := <-ch; ok {
		t.Error("channel still open after cancel")
	}
	r.Append("after cancel") // must not panic
}

func TestRingCloseEndsSubscriptions(t *testing.T) {
	r := New(nil)
	ch, cancel := r.Subscribe(1)
	defer cancel()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-ch; ok {
		t.Error("channel open after Close")
	}
	r.Append("ignored")
	if r.LastSeq() != 0 {
		t.Errorf("append after Close was kept")
	}
}

func TestConcurrentAppendReadSubscribe(t *testing.T) {
	r := New(&Options{MaxLines: 50})
	ch, cancel := r.Subscribe(8)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			lw := r.Writer()
			for i := range 500 {
				fmt.Fprintf(lw, "writer %d line %d\n", w, i)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			r.Lines(r.LastSeq()/2, 10)
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last uint64
		for u := range ch {
			if u.Seq <= last {
				t.Errorf("seq went from %d to %d", last, u.Seq)
			}
			last = u.Seq
		}
	}()
	wg.Wait()
	cancel()
	<-done
	if r.LastSeq() != 2000 {
		t.Errorf("LastSeq = %d, want 2000", r.LastSeq())
	}
}

func TestRestoreComesFirst(t *testing.T) {
	r := New(&Options{Now: func() time.Time { return time.Unix(0, 0) }})
	r.Restore([]Line{{Text: "old 1", Level: LevelInfo}, {Text: "old 2", Level: LevelError}})
	r.Append("new")
	got := r.Lines(0, 0)
	if diff := cmp.Diff([]string{"old 1", "old 2", "new"}, texts(got)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if !got[0].Restored || !got[1].Restored || got[2].Restored {
		t.Errorf("restored flags wrong: %+v", got)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3}, seqs(got)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
}

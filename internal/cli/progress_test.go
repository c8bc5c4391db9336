package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/chat"
)

// emitProgress sends a running event, n progress reports 100 ms apart on
// the fake clock, and the end of the call, through an askPrinter.
func emitProgress(tty bool, n int) string {
	var stderr, stdout bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &askPrinter{env: &Env{Stdout: &stdout, Stderr: &stderr},
		tools: toolLine{w: &stderr, tty: tty, now: func() time.Time { return clock }}}
	ev := chat.ToolCallEvent{ID: "c1", Tool: "fs__index", ServerName: "fs", Status: chat.ToolRunning}
	p.Emit(chat.EventToolCall, ev)
	for i := 1; i <= n; i++ {
		ev.Progress = &chat.Progress{Progress: float64(i), Total: float64(n), Message: "indexing\nfiles"}
		p.Emit(chat.EventToolCall, ev)
		clock = clock.Add(100 * time.Millisecond)
	}
	p.Emit(chat.EventToolCall, chat.ToolCallEvent{ID: "c1", Tool: "fs__index", ServerName: "fs", Status: chat.ToolDone, ResultText: "ok", DurationMs: 5000})
	p.finish()
	return stderr.String()
}

// TestAskProgressNotATerminal: 100 reports over 10 s print at most one
// line a second, none of them blank, where every report used to print a
// blank line and "[tool X on Y: running]".
func TestAskProgressNotATerminal(t *testing.T) {
	out := emitProgress(false, 100)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"[tool fs__index on fs: running]",
		"[tool fs__index: 1/100 (1%) indexing files]",
		"[tool fs__index: 11/100 (11%) indexing files]",
		"[tool fs__index: 21/100 (21%) indexing files]",
		"[tool fs__index: 31/100 (31%) indexing files]",
		"[tool fs__index: 41/100 (41%) indexing files]",
		"[tool fs__index: 51/100 (51%) indexing files]",
		"[tool fs__index: 61/100 (61%) indexing files]",
		"[tool fs__index: 71/100 (71%) indexing files]",
		"[tool fs__index: 81/100 (81%) indexing files]",
		"[tool fs__index: 91/100 (91%) indexing files]",
		"[tool fs__index: done in 5000 ms] ok",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("stderr lines (-want +got):\n%s", diff)
	}
}

// TestAskProgressOnATerminal: on a terminal the reports rewrite one line,
// which is cleared before the call's result is printed.
func TestAskProgressOnATerminal(t *testing.T) {
	out := emitProgress(true, 100)
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("%d newlines; want 2 (running, done):\n%q", n, out)
	}
	if n := strings.Count(out, "\r[tool fs__index: "); n != 100 {
		t.Errorf("%d progress updates; want 100", n)
	}
	if !strings.Contains(out, "\r[tool fs__index: 100/100 (100%) indexing files]\x1b[K\r\x1b[K[tool fs__index: done in 5000 ms] ok\n") {
		t.Errorf("the last update is not cleared before the result:\n%q", out[max(0, len(out)-200):])
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		in   chat.Progress
		want string
	}{
		{chat.Progress{Progress: 3}, "3"},
		{chat.Progress{Progress: 0.5, Total: 2, Message: " half "}, "0.5/2 (25%) half"},
		{chat.Progress{Progress: 1, Message: strings.Repeat("x", 100)}, "1 " + strings.Repeat("x", 80) + "…"},
	} {
		if got := progressText(c.in); got != c.want {
			t.Errorf("progressText(%+v) = %q; want %q", c.in, got, c.want)
		}
	}
}

package logbuf

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		close  bool
		want   []string
	}{
		{"one write", []string{"a\nb\n"}, false, []string{"a", "b"}},
		{"partial kept until newline", []string{"hel", "lo\nwor"}, false, []string{"hello"}},
		{"partial flushed by close", []string{"hel", "lo\nwor"}, true, []string{"hello", "wor"}},
		{"crlf", []string{"a\r\nb\r", "\n"}, false, []string{"a", "b"}},
		{"empty lines kept", []string{"\n\nx\n"}, false, []string{"", "", "x"}},
		{"nothing to close", []string{"a\n"}, true, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(nil)
			w := r.Writer()
			for _, s := range tt.writes {
				if n, err := io.WriteString(w, s); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if tt.close {
				w.Close()
			}
			if diff := cmp.Diff(tt.want, texts(r.Lines(0, 0))); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineWriterHugeLineInPieces(t *testing.T) {
	r := New(&Options{MaxLineBytes: 10})
	w := r.Writer()
	chunk := strings.Repeat("y", 4096)
	for range 256 { // 1 MiB without a newline
		w.Write([]byte(chunk))
	}
	if cap(w.partial) > 64 {
		t.Errorf("writer holds %d bytes of a line capped at 10", cap(w.partial))
	}
	w.Write([]byte("\nnext\n"))
	got := texts(r.Lines(0, 0))
	want := []string{strings.Repeat("y", 10) + " … [line truncated: 1,048,576 bytes]", "next"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestGuessLevel(t *testing.T) {
	tests := []struct {
		line string
		want Level
	}{
		{"ERROR: something broke", LevelError},
		{"[error] x", LevelError},
		{"Error: Cannot find module 'foo'", LevelError},
		{"TypeError: undefined is not a function", LevelError},
		{"panic: runtime error: index out of range", LevelError},
		{"Traceback (most recent call last):", LevelError},
		{"npm ERR! code E404", LevelError},
		{"npm warn deprecated foo@1.0.0", LevelWarn},
		{"2024-05-01T10:00:00.000Z WARN disk almost full", LevelWarn},
		{"2024-05-01 10:00:00,123 [main] DEBUG a.b.C - hello", LevelDebug},
		{`time=2024-05-01T10:00:00Z level=ERROR msg="db down"`, LevelError},
		{`{"time":"x","level":"warn","msg":"slow"}`, LevelWarn},
		{`{"level":"debug","msg":"x"}`, LevelDebug},
		{"E0501 10:00:00.123456   1234 main.go:10] bad", LevelError},
		{"W0501 10:00:00.123456   1234 main.go:10] hmm", LevelWarn},
		{"INFO  starting", LevelInfo},
		{"Secure MCP Filesystem Server running on stdio", LevelInfo},
		{"Loaded 3 tools with no error", LevelInfo},
		{"Failed to start: port in use", LevelError},
		{"warning: deprecated flag", LevelWarn},
		{"", LevelInfo},
	}
	for _, tt := range tests {
		if got := GuessLevel(tt.line); got != tt.want {
			t.Errorf("GuessLevel(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestCommaFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -32000: "-32,000"} {
		if got := comma(n); got != want {
			t.Errorf("comma(%d) = %q, want %q", n, got, want)
		}
	}
}

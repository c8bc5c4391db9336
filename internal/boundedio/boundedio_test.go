package boundedio

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuffer(t *testing.T) {
	type state struct {
		Kept  string
		Total int64
		Cut   bool
	}
	for _, tc := range []struct {
		name   string
		limit  int
		writes []string
		want   state
	}{
		{"nothing written", 4, nil, state{}},
		{"fits", 4, []string{"ab", "cd"}, state{"abcd", 4, false}},
		{"the write that crosses the limit is split", 4, []string{"ab", "cdef", "gh"}, state{"abcd", 8, true}},
		{"zero limit keeps nothing", 0, []string{"abc"}, state{"", 3, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Buffer{Limit: tc.limit}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			got := state{b.String(), b.Total(), b.Cut()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if string(b.Bytes()) != got.Kept {
				t.Errorf("Bytes() = %q, String() = %q", b.Bytes(), got.Kept)
			}
		})
	}
}

// A writer that never stops: io.Copy of a large stream succeeds and keeps
// only the head.
func TestBufferUnderCopy(t *testing.T) {
	b := &Buffer{Limit: 10}
	n, err := io.Copy(b, strings.NewReader(strings.Repeat("x", 1<<20)))
	if err != nil || n != 1<<20 || b.String() != strings.Repeat("x", 10) || b.Total() != 1<<20 {
		t.Errorf("Copy = %d, %v; kept %d of %d", n, err, len(b.Bytes()), b.Total())
	}
}

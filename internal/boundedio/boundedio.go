// Package boundedio holds a writer that keeps a bounded head of what is
// written to it, for the output of child processes Switchboard runs: a
// program may print without end, and it must never be stopped or made to
// fail by a full buffer, so writes always succeed and what does not fit is
// counted and dropped.
package boundedio

// A Buffer keeps the first Limit bytes written to it and counts them all.
// Write never fails, so a process writing into it is not stopped. A zero
// Limit keeps nothing. Like bytes.Buffer it is not safe for concurrent
// writes.
type Buffer struct {
	Limit int

	kept  []byte
	total int64
}

// Write keeps what still fits of p and reports all of p written.
func (b *Buffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.Limit - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Bytes returns the bytes kept; the slice is valid until the next Write.
func (b *Buffer) Bytes() []byte { return b.kept }

// String returns the bytes kept as a string.
func (b *Buffer) String() string { return string(b.kept) }

// Total is how many bytes were written, kept or not.
func (b *Buffer) Total() int64 { return b.total }

// Cut reports whether some of what was written was dropped.
func (b *Buffer) Cut() bool { return b.total > int64(len(b.kept)) }

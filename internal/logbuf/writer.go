package logbuf

import (
	"bytes"
	"sync"
)

// A LineWriter is an io.WriteCloser that splits what is written to it into
// lines and appends them to a Ring. It keeps an unfinished last line until
// the rest arrives (or Close), drops "\r" before "\n", and holds at most the
// ring's MaxLineBytes of a line: the rest is counted, not kept, so a huge
// line costs no memory.
type LineWriter struct {
	r *Ring

	mu      sync.Mutex
	partial []byte
	total   int // length of the current line so far, including cut bytes
}

// Writer returns a LineWriter appending to r. Close it to flush a final
// line that has no "\n".
func (r *Ring) Writer() *LineWriter {
	return &LineWriter{r: r}
}

// Write never fails and never blocks on readers of the ring.
func (w *LineWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.r.writeMu.Lock()
	defer w.r.writeMu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		w.take(chunk)
		if i < 0 {
			break
		}
		w.emitLocked()
		p = p[i+1:]
	}
	w.r.flushLocked()
	return n, nil
}

// take adds chunk to the current line, keeping at most maxLineBytes of it
// (plus a byte so a "\r" before the "\n" can still be dropped).
func (w *LineWriter) take(chunk []byte) {
	w.total += len(chunk)
	if room := w.r.maxLineBytes + 1 - len(w.partial); room > 0 {
		w.partial = append(w.partial, chunk[:min(room, len(chunk))]...)
	}
}

// emitLocked appends the current line; the caller holds r.writeMu.
func (w *LineWriter) emitLocked() {
	w.r.appendLocked("", string(w.partial), w.total)
	if cap(w.partial) > 4*1024 {
		w.partial = nil // do not pin a large buffer between long lines
	} else {
		w.partial = w.partial[:0]
	}
	w.total = 0
}

// Close appends a final unterminated line, if any. The Ring stays open.
func (w *LineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.total == 0 {
		return nil
	}
	w.r.writeMu.Lock()
	defer w.r.writeMu.Unlock()
	w.emitLocked()
	w.r.flushLocked()
	return nil
}

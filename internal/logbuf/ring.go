// Package logbuf keeps the recent lines of a log in a bounded ring buffer,
// for the stderr of MCP servers and for the app's own log.
//
// A Ring caps both its line count and its total text size, and cuts a single
// huge line with a marker, so a process writing 100 MB of stderr costs a few
// hundred kilobytes. Every line gets a sequence number that only grows, so a
// reader asks for "lines after N" and sees gaps. Subscribers get live lines
// over a buffered channel; a slow subscriber never blocks the writer: its
// lines are dropped and the next delivery says how many. A Ring may write
// through to a rotating File, whose tail is read back at start so lines from
// before a restart are still there.
package logbuf

import (
	"strings"
	"sync"
	"time"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxLines     = 1000
	DefaultMaxBytes     = 1 << 20
	DefaultMaxLineBytes = 8 << 10
)

// A Line is one line of a log.
type Line struct {
	// Seq numbers lines from 1 in the order they were appended.
	Seq   uint64    `json:"seq"`
	Time  time.Time `json:"time" ts_type:"string"`
	Level Level     `json:"level" ts_type:"Level"`
	Text  string    `json:"text"`
	// Restored marks a line read back from the file at start: it was written
	// before the app last restarted.
	Restored bool `json:"restored,omitempty"`
}

// An Update is a line delivered to a subscriber.
type Update struct {
	Line
	// Dropped counts the lines this subscriber missed just before this one
	// because its channel was full. Lines(seq-of-last-seen, 0) fetches them
	// while they are still in the ring.
	Dropped uint64 `json:"dropped,omitempty"`
}

// A Sink receives every appended line, for example a rotating File.
type Sink interface {
	WriteLine(Line) error
	Flush() error
	Close() error
}

// Options configures a Ring. The zero value means defaults.
type Options struct {
	// MaxLines caps the number of lines kept; zero means DefaultMaxLines.
	MaxLines int
	// MaxBytes caps the total text kept; zero means DefaultMaxBytes.
	MaxBytes int
	// MaxLineBytes caps one line: a longer line keeps its start and ends in
	// a marker giving its full length. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Sink, if set, receives every appended line (not restored ones) and is
	// closed by Ring.Close.
	Sink Sink
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// A Ring is a bounded, concurrency-safe buffer of the most recent lines.
type Ring struct {
	maxLines, maxBytes, maxLineBytes int
	now                              func() time.Time

	// writeMu serializes appenders so the sink sees lines in Seq order;
	// readers never take it, so they never wait on the sink's I/O.
	writeMu sync.Mutex
	sink    Sink

	mu     sync.Mutex
	buf    []Line // circular, len(buf) == maxLines once full
	start  int    // index of the oldest line in buf
	count  int
	bytes  int
	seq    uint64
	subs   map[*subscriber]struct{}
	closed bool
}

type subscriber struct {
	ch      chan Update
	dropped uint64
}

// New returns an empty Ring.
func New(opts *Options) *Ring {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Ring{
		maxLines:     o.MaxLines,
		maxBytes:     o.MaxBytes,
		maxLineBytes: o.MaxLineBytes,
		now:          o.Now,
		sink:         o.Sink,
		subs:         make(map[*subscriber]struct{}),
	}
}

// Append adds text, one line per "\n"-separated part, guessing each line's
// level from its prefix.
func (r *Ring) Append(text string) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	for _, part := range splitLines(text) {
		r.appendLocked("", part, len(part))
	}
	r.flushLocked()
}

// AppendLevel is Append with a known level, for a structured logger.
func (r *Ring) AppendLevel(level Level, text string) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	for _, part := range splitLines(text) {
		r.appendLocked(level, part, len(part))
	}
	r.flushLocked()
}

func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	return strings.Split(text, "\n")
}

// appendLocked adds one line of total bytes, of which text holds the start
// (all of it unless the writer cut it); the caller holds writeMu. The sink is
// written but not flushed.
func (r *Ring) appendLocked(level Level, text string, total int) {
	whole := total == len(text)
	text = cleanLine(text)
	if whole {
		total = len(text)
	}
	text = truncateLine(text, total, r.maxLineBytes)
	if level == "" {
		level = GuessLevel(text)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.seq++
	l := Line{Seq: r.seq, Time: r.now(), Level: level, Text: text}
	r.pushLocked(l)
	r.deliverLocked(l)
	r.mu.Unlock()
	if r.sink != nil {
		_ = r.sink.WriteLine(l) // a File remembers its error; the ring keeps working
	}
}

func (r *Ring) flushLocked() {
	if r.sink != nil {
		_ = r.sink.Flush()
	}
}

// pushLocked stores l, evicting the oldest lines past the caps; r.mu is held.
func (r *Ring) pushLocked(l Line) {
	for r.count > 0 && (r.count >= r.maxLines || r.bytes+len(l.Text) > r.maxBytes) {
		old := &r.buf[r.start]
		r.bytes -= len(old.Text)
		*old = Line{}
		r.start = (r.start + 1) % len(r.buf)
		r.count--
	}
	if len(r.buf) < r.maxLines {
		// Grow lazily: most rings never fill up. Re-linearize on growth.
		if r.count == len(r.buf) {
			n := max(16, 2*len(r.buf))
			n = min(n, r.maxLines)
			nb := make([]Line, n)
			for i := range r.count {
				nb[i] = r.buf[(r.start+i)%len(r.buf)]
			}
			r.buf, r.start = nb, 0
		}
	}
	r.buf[(r.start+r.count)%len(r.buf)] = l
	r.count++
	r.bytes += len(l.Text)
}

func (r *Ring) deliverLocked(l Line) {
	for s := range r.subs {
		select {
		case s.ch <- Update{Line: l, Dropped: s.dropped}:
			s.dropped = 0
		default:
			s.dropped++
		}
	}
}

// Restore puts lines read back from a file in front of any appended ones,
// renumbering them from 1 and marking them Restored. It is meant for a new
// Ring, before the first Append; the sink does not see them.
func (r *Ring) Restore(lines []Line) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	existing := r.snapshotLocked(0, 0)
	r.buf, r.start, r.count, r.bytes, r.seq = nil, 0, 0, 0, 0
	for _, l := range lines {
		r.seq++
		l.Seq, l.Restored = r.seq, true
		if len(l.Text) > r.maxLineBytes+64 { // room for a marker written earlier
			l.Text = truncateLine(l.Text, len(l.Text), r.maxLineBytes)
		}
		r.pushLocked(l)
	}
	for _, l := range existing {
		r.seq++
		l.Seq = r.seq
		r.pushLocked(l)
	}
}

// Lines returns, oldest first, the newest max lines whose Seq is greater than
// sinceSeq; max <= 0 means all of them. If the first returned Seq is not
// sinceSeq+1, lines in between were evicted (or cut by max).
func (r *Ring) Lines(sinceSeq uint64, max int) []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked(sinceSeq, max)
}

func (r *Ring) snapshotLocked(sinceSeq uint64, max int) []Line {
	n := 0
	for i := r.count - 1; i >= 0; i-- {
		if r.buf[(r.start+i)%len(r.buf)].Seq <= sinceSeq {
			break
		}
		n++
	}
	if max > 0 && n > max {
		n = max
	}
	out := make([]Line, n)
	for i := range n {
		out[i] = r.buf[(r.start+r.count-n+i)%len(r.buf)]
	}
	return out
}

// LastSeq is the Seq of the newest line, or 0 if none was ever appended.
func (r *Ring) LastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Size reports how many lines and text bytes the ring holds.
func (r *Ring) Size() (lines, bytes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count, r.bytes
}

// Subscribe delivers every line appended from now on to the returned channel,
// which holds up to buffer lines (minimum 1). When it is full, lines are
// dropped for this subscriber only and the next Update carries the count.
// cancel stops delivery and closes the channel; it is safe to call twice.
func (r *Ring) Subscribe(buffer int) (<-chan Update, func()) {
	s := &subscriber{ch: make(chan Update, max(buffer, 1))}
	r.mu.Lock()
	if r.closed {
		close(s.ch)
		r.mu.Unlock()
		return s.ch, func() {}
	}
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if _, ok := r.subs[s]; ok {
				delete(r.subs, s)
				close(s.ch)
			}
		})
	}
}

// Close ends every subscription and closes the sink. Later appends are
// ignored; the lines stay readable. Close is safe to call twice.
func (r *Ring) Close() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	for s := range r.subs {
		delete(r.subs, s)
		close(s.ch)
	}
	r.mu.Unlock()
	if r.sink != nil {
		return r.sink.Close()
	}
	return nil
}

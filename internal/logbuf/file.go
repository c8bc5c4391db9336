package logbuf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults for FileOptions fields left zero.
const (
	DefaultFileMaxBytes = 5 << 20
	DefaultFileKeep     = 3
)

// fileMode is a log file's permissions: the user's only, since a log may
// hold what a server printed about its own configuration. Its directory is
// made 0700.
const fileMode = 0o600

// timeLayout is the timestamp that starts each line in a log file.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// FileOptions configures a File. The zero value means defaults.
type FileOptions struct {
	// MaxBytes is the size past which the file is rotated; zero means
	// DefaultFileMaxBytes.
	MaxBytes int64
	// Keep is how many rotated files (path.1 is the newest) are kept; zero
	// means DefaultFileKeep, negative means none.
	Keep int
}

// A File is a rotating log file, usable as a Ring's Sink. Each line is
// written as "<time> <LEVEL> <text>". Writes are buffered until Flush.
type File struct {
	path     string
	maxBytes int64
	keep     int

	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	size int64
	err  error // first write error; later writes are skipped
}

// OpenFile opens (creating it and its directory if needed) the log file at
// path for appending.
func OpenFile(path string, opts *FileOptions) (*File, error) {
	var o FileOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultFileMaxBytes
	}
	if o.Keep == 0 {
		o.Keep = DefaultFileKeep
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, fileMode)
	if err != nil {
		return nil, fmt.Errorf("opening log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening log file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 { // written by an older version
		_ = f.Chmod(st.Mode().Perm() & 0o700)
	}
	return &File{path: path, maxBytes: o.MaxBytes, keep: o.Keep, f: f, w: bufio.NewWriterSize(f, 32<<10), size: st.Size()}, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Err is the first error writing or rotating the file, if any; after it,
// lines are no longer written.
func (f *File) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// WriteLine implements Sink.
func (f *File) WriteLine(l Line) error {
	rec := formatLine(l)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil || f.f == nil {
		return f.err
	}
	if f.size > 0 && f.size+int64(len(rec)) > f.maxBytes {
		if err := f.rotateLocked(); err != nil {
			f.err = err
			return err
		}
	}
	n, err := f.w.Write(rec)
	f.size += int64(n)
	if err != nil {
		f.err = err
	}
	return err
}

func formatLine(l Line) []byte {
	lv := strings.ToUpper(string(l.Level))
	if lv == "" {
		lv = "INFO"
	}
	b := make([]byte, 0, len(timeLayout)+7+len(l.Text)+1)
	b = l.Time.AppendFormat(b, timeLayout)
	b = append(b, ' ')
	b = append(b, lv...)
	for range 5 - len(lv) {
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = append(b, l.Text...)
	return append(b, '\n')
}

// rotateLocked moves path to path.1, path.1 to path.2 and so on, dropping
// the oldest, and starts an empty file.
func (f *File) rotateLocked() error {
	if err := f.w.Flush(); err != nil {
		return err
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	f.f = nil
	if f.keep > 0 {
		_ = os.Remove(f.rotated(f.keep))
		for i := f.keep - 1; i >= 1; i-- {
			if err := os.Rename(f.rotated(i), f.rotated(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("rotating log file: %w", err)
			}
		}
		if err := os.Rename(f.path, f.rotated(1)); err != nil {
			return fmt.Errorf("rotating log file: %w", err)
		}
	}
	nf, err := os.OpenFile(f.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, fileMode)
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	f.f, f.size = nf, 0
	f.w.Reset(nf)
	return nil
}

func (f *File) rotated(i int) string { return f.path + "." + strconv.Itoa(i) }

// Flush implements Sink.
func (f *File) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil || f.f == nil {
		return f.err
	}
	if err := f.w.Flush(); err != nil {
		f.err = err
		return err
	}
	return nil
}

// Close flushes and closes the file; it is safe to call twice.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	err := f.w.Flush()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	f.f = nil
	return err
}

// tailBytes bounds how much of each file ReadTail reads.
const tailBytes = 1 << 20

// ReadTail returns up to n of the last lines written to the log file at path
// and, if it holds fewer, to its newest rotated file. A missing file gives no
// lines and no error. Lines that do not parse keep their whole text.
func ReadTail(path string, n int) ([]Line, error) {
	if n <= 0 {
		return nil, nil
	}
	cur, err := readLastLines(path, n)
	if err != nil {
		return nil, err
	}
	if len(cur) >= n {
		return cur, nil
	}
	prev, err := readLastLines(path+".1", n-len(cur))
	if err != nil {
		return nil, err
	}
	return append(prev, cur...), nil
}

func readLastLines(path string, n int) ([]Line, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading log file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading log file: %w", err)
	}
	off := max(st.Size()-tailBytes, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, fmt.Errorf("reading log file: %w", err)
	}
	if off > 0 { // drop the partial first line
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	raw := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(raw) == 1 && raw[0] == "" {
		return nil, nil
	}
	raw = raw[max(len(raw)-n, 0):]
	lines := make([]Line, len(raw))
	for i, s := range raw {
		lines[i] = parseLine(s)
	}
	return lines, nil
}

// parseLine reads a line written by formatLine.
func parseLine(s string) Line {
	ts, rest, ok := strings.Cut(s, " ")
	if ok {
		if t, err := time.Parse(timeLayout, ts); err == nil && len(rest) >= 6 && rest[5] == ' ' {
			switch lv := Level(strings.ToLower(strings.TrimSpace(rest[:5]))); lv {
			case LevelDebug, LevelInfo, LevelWarn, LevelError:
				return Line{Time: t, Level: lv, Text: rest[6:]}
			}
		}
	}
	return Line{Level: GuessLevel(s), Text: s}
}

// Open returns a Ring that writes through to a rotating File at path and
// starts with the file's last lines, so lines from before a restart are
// still there. Closing the Ring closes the file.
func Open(path string, opts *Options, fopts *FileOptions) (*Ring, error) {
	f, err := OpenFile(path, fopts)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Sink = f
	r := New(&o)
	prev, err := ReadTail(path, r.maxLines)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.Restore(prev)
	return r, nil
}

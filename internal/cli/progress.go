package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/term"

	"github.com/switchboard-app/switchboard/internal/chat"
)

// progressEvery is the shortest time between two progress lines when
// stderr is not a terminal (a log file, a pipe): a chatty server sends
// thousands of reports.
const progressEvery = time.Second

// A toolLine prints the activity of ask's tool calls to stderr: one line
// when a call starts and one when it ends. Progress reports in between
// update a single line on a terminal (carriage return, then clear to the
// end of the line) and print at most one line per progressEvery otherwise.
// The zero value writes nothing; set w.
type toolLine struct {
	w   io.Writer
	tty bool
	// now is the clock; nil means time.Now.
	now func() time.Time

	mu       sync.Mutex
	open     bool      // a progress line is shown on the terminal, not ended
	lastLine time.Time // when the last progress line was printed (not a terminal)
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// event prints t; afterText says the answer's text was written to stdout
// without a final newline, so a new line is started first.
func (l *toolLine) event(t chat.ToolCallEvent, afterText bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch t.Status {
	case chat.ToolRunning:
		if t.Progress == nil {
			l.endLocked()
			nl := ""
			if afterText {
				nl = "\n"
			}
			via := ""
			if t.Via != "" {
				via = " (through tool search)"
			}
			fmt.Fprintf(l.w, "%s[tool %s on %s%s: running]\n", nl, t.Tool, t.ServerName, via)
			return
		}
		line := fmt.Sprintf("[tool %s: %s]", t.Tool, progressText(*t.Progress))
		if l.tty {
			fmt.Fprintf(l.w, "\r%s\x1b[K", line)
			l.open = true
			return
		}
		now := time.Now
		if l.now != nil {
			now = l.now
		}
		if t := now(); l.lastLine.IsZero() || t.Sub(l.lastLine) >= progressEvery {
			l.lastLine = t
			fmt.Fprintln(l.w, line)
		}
	case chat.ToolDone, chat.ToolFailed, chat.ToolDenied, chat.ToolCancelled:
		l.endLocked()
		detail := t.ResultText
		if t.Error != "" {
			detail = t.Error
		}
		if len(detail) > 400 {
			detail = detail[:400] + "…"
		}
		fmt.Fprintf(l.w, "[tool %s: %s in %d ms] %s\n", t.Tool, t.Status, t.DurationMs, detail)
	}
}

// end clears the progress line, if one is shown, so other output starts
// at the beginning of a line.
func (l *toolLine) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
}

func (l *toolLine) endLocked() {
	if l.open {
		io.WriteString(l.w, "\r\x1b[K")
		l.open = false
	}
}

// progressText is "3/10 (30%) indexing" or "3 indexing": the value, the
// total when known, and the server's message, cut to one short line.
func progressText(p chat.Progress) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	s := num(p.Progress)
	if p.Total > 0 {
		s += "/" + num(p.Total) + fmt.Sprintf(" (%d%%)", int(100*p.Progress/p.Total))
	}
	msg := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, p.Message)
	if r := []rune(strings.TrimSpace(msg)); len(r) > 0 {
		if len(r) > 80 {
			r = append(r[:80], '…')
		}
		s += " " + string(r)
	}
	return s
}

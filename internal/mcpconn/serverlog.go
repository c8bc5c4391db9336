package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A server's MCP log messages (notifications/message) go into its log, the
// ring that holds its stderr, one line each: "[notice] logger: data", the
// data a string as sent or compact JSON, clipped and with control and
// bidi characters escaped. They are bounded like the rest of what a server
// sends: logRate a second are kept, the rest counted and said once the
// flood stops.
const (
	// maxLogData bounds the data of one message written to the log, in
	// bytes; a longer one is clipped, saying how long it was.
	maxLogData = 2 << 10
	// maxLoggerName bounds a message's logger name.
	maxLoggerName = 64
	// logRate is how many messages a second a server's log takes.
	logRate = 20
	// logLevelTimeout bounds one logging/setLevel.
	logLevelTimeout = 10 * time.Second
)

// LogFile is the file under dir that holds server id's log (its stderr
// and MCP log messages), as Options.LogDir keeps it.
func LogFile(dir, id string) string { return filepath.Join(dir, sanitize(id)+".log") }

// LogFile is the file that holds server id's log; "" when logs are kept
// in memory only (no LogDir).
func (m *Manager) LogFile(id string) string {
	if m.opts.LogDir == "" {
		return ""
	}
	return LogFile(m.opts.LogDir, id)
}

// A logGate lets through logRate messages a second and counts the rest.
type logGate struct {
	mu      sync.Mutex
	window  time.Time // start of the current second
	n       int       // messages let through in it
	dropped int       // messages dropped since the last note
}

// admit reports whether a message arriving at now is kept, and how many
// were dropped before it (to say so first) when it opens a new second.
// flushAt is set on the first message dropped in a second: when that
// second ends, take says how many went, in case no message comes after.
func (g *logGate) admit(now time.Time) (ok bool, dropped int, flushAt time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.window) >= time.Second || now.Before(g.window) {
		g.window, g.n = now, 0
		dropped, g.dropped = g.dropped, 0
	}
	if g.n >= logRate {
		g.dropped++
		if g.dropped == 1 {
			flushAt = g.window.Add(time.Second)
		}
		return false, dropped, flushAt
	}
	g.n++
	return true, dropped, flushAt
}

// take returns the count of messages dropped and not yet said, and
// forgets it.
func (g *logGate) take() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.dropped
	g.dropped = 0
	return n
}

// onLog writes one of the server's log messages into its log.
func (s *session) onLog(p *mcp.LoggingMessageParams) {
	if p == nil {
		return
	}
	ok, dropped, flushAt := s.logGate.admit(time.Now())
	s.noteDropped(dropped)
	if !flushAt.IsZero() {
		// A flood that simply stops is still counted: one timer a
		// flooded second at most.
		time.AfterFunc(time.Until(flushAt), func() { s.noteDropped(s.logGate.take()) })
	}
	if !ok {
		return
	}
	s.ring.AppendLevel(ringLevel(p.Level), formatLogMessage(p))
}

// noteDropped says in the server's log that n of its messages were dropped.
func (s *session) noteDropped(n int) {
	if n > 0 {
		s.ring.AppendLevel(logbuf.LevelWarn, fmt.Sprintf("%sdropped %d log messages of the server: it sent more than %d a second", markerPrefix, n, logRate))
	}
}

// ringLevel maps an MCP level to the log's four.
func ringLevel(l mcp.LoggingLevel) logbuf.Level {
	switch l {
	case "debug":
		return logbuf.LevelDebug
	case "warning":
		return logbuf.LevelWarn
	case "error", "critical", "alert", "emergency":
		return logbuf.LevelError
	default: // info, notice, and what no spec names
		return logbuf.LevelInfo
	}
}

// formatLogMessage renders a log message as one line: "[level] logger:
// data", bounded and with what a terminal or the log view would act on
// escaped.
func formatLogMessage(p *mcp.LoggingMessageParams) string {
	var b strings.Builder
	level, _ := clipBytes(string(p.Level), 16)
	b.WriteString("[" + escapeLogText(level) + "] ")
	if p.Logger != "" {
		name, cut := clipBytes(p.Logger, maxLoggerName)
		b.WriteString(escapeLogText(name))
		if cut {
			b.WriteString("…")
		}
		b.WriteString(": ")
	}
	var data string
	switch d := p.Data.(type) {
	case nil:
	case string:
		data = d
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			data = fmt.Sprintf("(data that is not JSON: %v)", err)
		} else {
			data = strings.TrimSuffix(buf.String(), "\n")
		}
	}
	clipped, cut := clipBytes(data, maxLogData)
	b.WriteString(escapeLogText(clipped))
	if cut {
		fmt.Fprintf(&b, " … [clipped: %s bytes]", comma(int64(len(data))))
	}
	return b.String()
}

// escapeLogText makes s one line that shows as what it is: line breaks
// become "⏎", other control characters and the bidirectional overrides
// (which could make a line read as another) become \u escapes, and
// invalid UTF-8 becomes U+FFFD.
func escapeLogText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != '\t' && unicode.IsControl(r) || isBidiControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(" ⏎ ")
		case r == '\r':
		case r == '\t' || r == utf8.RuneError:
			b.WriteRune(r)
		case unicode.IsControl(r) || isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBidiControl reports the characters that reorder text around them.
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// declaresLogging reports whether the server declared the logging
// capability.
func (s *session) declaresLogging() bool {
	res := s.cs.InitializeResult()
	return res != nil && res.Capabilities != nil && res.Capabilities.Logging != nil
}

// modern reports whether the session speaks 2026-07-28 or later, where a
// request carries its log level in _meta and logging/setLevel is gone.
func (s *session) modern() bool { return s.protocol >= modernProtocol }

// sendLogLevel asks the server for its messages at the level last wanted
// (logLevel) and above, if it declares logging and the level is not empty:
// by logging/setLevel before 2026-07-28; from then on the level goes in
// each call's _meta (withLogLevel) and nothing is sent here. Calls are
// serialized and each sends the level wanted when it runs, so the last
// one wanted wins. A server that refuses says why in its log.
func (s *session) sendLogLevel(ctx context.Context) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	level, _ := s.logLevel.Load().(serverconf.LogLevel)
	if level == "" || level == s.logSent || s.modern() || !s.declaresLogging() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, logLevelTimeout)
	defer cancel()
	if err := s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		if s.ctx.Err() == nil {
			s.ring.AppendLevel(logbuf.LevelWarn, fmt.Sprintf("%sthe server did not take log level %s: %v", markerPrefix, level, err))
		}
		return
	}
	s.logSent = level
}

// withLogLevel puts the wanted log level into a call's _meta for a server
// that speaks 2026-07-28, which takes it there.
func (s *session) withLogLevel(p *mcp.CallToolParams) {
	level, _ := s.logLevel.Load().(serverconf.LogLevel)
	if level == "" || !s.modern() || !s.declaresLogging() {
		return
	}
	meta := p.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyLogLevel] = string(level)
	p.SetMeta(meta)
}

// applyLogLevel makes level the one server's live session wants (Update
// calls it when Config.LogLevel changes) and sends it in the background:
// a server that does not answer holds up nobody. An empty level leaves the
// server at the level it was last asked for, until it restarts.
func (s *server) applyLogLevel(level serverconf.LogLevel) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	sess.logLevel.Store(level)
	go sess.sendLogLevel(sess.ctx)
}

package logbuf

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Level is the severity of a line: given by a structured logger, or
// guessed from the line's text.
type Level string

const (
	LevelDebug Level = "debug"
	LevelInfo  Level = "info"
	LevelWarn  Level = "warn"
	LevelError Level = "error"
)

// Levels lists every Level, most severe first (the frontend's contract is
// generated from it).
var Levels = []Level{LevelError, LevelWarn, LevelInfo, LevelDebug}

// GuessLevel guesses a line's level from the way common loggers start or tag
// a line: "ERROR ...", "[warn] ...", "2024-05-01T10:00:00Z DEBUG ...",
// "level=error", `"level":"warn"`, glog's "E0501 ...", "panic:",
// "TypeError: ...", "npm ERR!". Anything else is info.
func GuessLevel(text string) Level {
	head := text
	if len(head) > 200 {
		head = head[:200]
	}
	lower := strings.ToLower(head)

	// key=value and JSON loggers (slog, logrus, zap, pino with string levels).
	for _, key := range []string{"level=", "lvl=", `"level":"`, `"level": "`, `"severity":"`} {
		if i := strings.Index(lower, key); i >= 0 {
			rest := strings.TrimLeft(lower[i+len(key):], `"`)
			if l, ok := levelWord(firstWord(rest)); ok {
				return l
			}
		}
	}

	trimmed := strings.TrimSpace(lower)
	for _, p := range []string{"panic:", "fatal error:", "traceback (most recent call last)", "npm err!", "uncaught ", "unhandled "} {
		if strings.HasPrefix(trimmed, p) {
			return LevelError
		}
	}
	if strings.HasPrefix(trimmed, "npm warn") {
		return LevelWarn
	}
	if glog, ok := glogLevel(strings.TrimSpace(head)); ok {
		return glog
	}

	// Look at the first two words that are not timestamps or numbers:
	// "2024-05-01 10:00:00,123 [main] WARN foo", "[ERROR] x", "error: x".
	checked := 0
	for i, w := range strings.FieldsFunc(trimmed, isWordSep) {
		if checked == 2 || i > 6 {
			break
		}
		if strings.ContainsAny(w, "0123456789") {
			continue
		}
		checked++
		if l, ok := levelWord(w); ok {
			return l
		}
		// "TypeError:", "SyntaxError:" and friends start a JS stack trace.
		if checked == 1 && len(w) > 5 && strings.HasSuffix(w, "error") && strings.Contains(trimmed, w+":") {
			return LevelError
		}
	}
	return LevelInfo
}

func isWordSep(r rune) bool {
	switch r {
	case ' ', '\t', '[', ']', '(', ')', ':', '|', '<', '>', '"', '\'', ',', '=':
		return true
	}
	return false
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z') }); i >= 0 {
		return s[:i]
	}
	return s
}

func levelWord(w string) (Level, bool) {
	switch w {
	case "error", "err", "eror", "fatal", "panic", "crit", "critical", "severe", "emerg", "emergency", "alert", "failed":
		return LevelError, true
	case "warn", "warning", "wrn":
		return LevelWarn, true
	case "info", "inf", "notice":
		return LevelInfo, true
	case "debug", "dbg", "trace", "verbose", "fine", "finer", "finest":
		return LevelDebug, true
	}
	return "", false
}

// glogLevel recognizes glog/klog lines: "E0501 10:00:00.123456 ...".
func glogLevel(s string) (Level, bool) {
	if len(s) < 6 {
		return "", false
	}
	for _, c := range s[1:5] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	if s[5] != ' ' {
		return "", false
	}
	switch s[0] {
	case 'E', 'F':
		return LevelError, true
	case 'W':
		return LevelWarn, true
	case 'I':
		return LevelInfo, true
	}
	return "", false
}

// cleanLine drops a trailing "\r" and terminal escape sequences (colors,
// cursor moves), which servers write to stderr thinking it is a terminal.
func cleanLine(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters, then a final byte in 0x40..0x7e
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: ends with BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default: // two-byte escape
			i++
		}
	}
	return b.String()
}

// truncateLine cuts s to at most max bytes on a rune boundary and appends a
// marker giving total, the line's full length in bytes.
func truncateLine(s string, total, max int) string {
	if total <= max && len(s) <= max {
		return s
	}
	cut := min(len(s), max)
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " … [line truncated: " + comma(int64(total)) + " bytes]"
}

// comma formats n with thousands separators: 1234567 -> "1,234,567".
func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

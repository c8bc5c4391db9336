package mcpconn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// MaxMessageBytes bounds one JSON-RPC message read from a stdio server,
// as the response body limit bounds a remote server's.
const MaxMessageBytes = 16 << 20

// A process is a stdio server's child process. The SDK's IOTransport speaks
// MCP over its stdin and stdout; the process owns everything else: its own
// pipes (so a Wait never races the SDK's reads), stderr into a ring, and the
// stop sequence for its whole process group.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our ends
	stdout *os.File
	stderr *os.File
	group  processGroup
	grace  time.Duration

	exited     chan struct{} // closed once Wait returned
	waitErr    error         // valid after exited
	stderrDone chan struct{} // closed when stderr hit EOF and its last line is in the ring
}

// startProcess starts cfg's command with env and path already resolved,
// copying its stderr into ring; wrap, if not nil, rewrites the command
// first.
func startProcess(cfg serverconf.Config, path string, env []string, ring *logbuf.Ring, grace time.Duration, wrap func(*exec.Cmd)) (*process, error) {
	cmd := exec.Command(path, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Env = env
	cmd.Dir = expandHome(cfg.Cwd)
	setProcessGroup(cmd)
	if wrap != nil {
		wrap(cmd)
	}

	var closers []*os.File
	closeAll := func() {
		for _, f := range closers {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			closers = append(closers, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating pipes: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, grace: grace,
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	// The child has its copies; closing ours lets EOF arrive when it exits.
	inR.Close()
	outW.Close()
	errW.Close()
	p.group = newProcessGroup(cmd)

	go func() {
		w := ring.Writer()
		_, _ = io.Copy(w, errR)
		w.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport is the SDK transport over the process's stdin and stdout.
// Lines of stdout that are not JSON-RPC go to onNoise instead (see
// stdoutFilter).
func (p *process) transport(onNoise func(line string)) mcp.Transport {
	// One message is at most MaxMessageBytes: a server that writes a longer
	// line loses its connection instead of filling the app's memory.
	return &mcp.IOTransport{Reader: newStdoutFilter(p.stdout, onNoise, time.Now), Writer: p.stdin, MaxLineLength: MaxMessageBytes}
}

// Bounds on the lines of a stdio server's stdout that are not JSON-RPC.
const (
	// maxNoiseBytes is how much of them a server may write before its
	// first JSON-RPC line, and again in any minute after it; more, and the
	// connection fails (a stream that never becomes JSON-RPC is not
	// waited on). A line counts at least noiseLineCost bytes, so the
	// bound is also one of about a thousand lines.
	maxNoiseBytes = 64 << 10
	noiseLineCost = 64
	// noiseWindow is the "minute" of maxNoiseBytes after the first message.
	noiseWindow = time.Minute
	// maxNoiseLine is how much of one such line is kept for the log.
	maxNoiseLine = 1 << 10
)

// A noiseError ends a connection whose stdout carried more than
// maxNoiseBytes of lines that are not JSON-RPC.
type noiseError struct {
	first       string // the first skipped line of the stretch
	beforeFirst bool   // before the first JSON-RPC line
}

func (e *noiseError) Error() string {
	when := "in a minute"
	if e.beforeFirst {
		when = "before its first message"
	}
	return fmt.Sprintf("more than %d KiB of lines that are not JSON-RPC %s, the first %q", maxNoiseBytes>>10, when, e.first)
}

// A stdoutFilter passes a stdio server's JSON-RPC lines through and
// drops the others, as the official TypeScript SDK does: some servers
// print a banner or a log line on stdout (mcp-server-sqlite prints
// "PRAGMA journal_mode = WAL"). A line is JSON-RPC when, past leading
// whitespace, it starts with '{' or '['; the SDK still rejects one that
// is malformed. Each dropped line (cut at maxNoiseLine) goes to onNoise;
// more than maxNoiseBytes of them end the stream with a noiseError. The
// filter holds at most its 64 KiB read buffer and one cut line: a JSON
// line streams through, bounded by the SDK's MaxLineLength.
type stdoutFilter struct {
	r       *bufio.Reader
	closer  io.Closer
	onNoise func(string)
	now     func() time.Time

	inJSON   bool // inside a JSON-RPC line: pass bytes up to '\n'
	inNoise  bool // inside another line: drop bytes up to '\n'
	seenJSON bool
	line     []byte // the dropped line so far, up to maxNoiseLine
	lineLen  int    // its full length

	spent       int       // noise bytes counted against maxNoiseBytes
	windowStart time.Time // after seenJSON: when spent was last reset
	first       string    // the first dropped line since then
	err         error     // sticky
}

func newStdoutFilter(r io.ReadCloser, onNoise func(string), now func() time.Time) *stdoutFilter {
	if onNoise == nil {
		onNoise = func(string) {}
	}
	return &stdoutFilter{r: bufio.NewReaderSize(r, 64<<10), closer: r, onNoise: onNoise, now: now}
}

// Close closes the underlying stdout.
func (f *stdoutFilter) Close() error { return f.closer.Close() }

func (f *stdoutFilter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for f.err == nil {
		if f.inNoise {
			chunk, err := f.r.ReadSlice('\n')
			f.lineLen += len(chunk)
			if room := maxNoiseLine - len(f.line); room > 0 {
				f.line = append(f.line, chunk[:min(room, len(chunk))]...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == nil || len(f.line) > 0 {
				f.endNoise()
			}
			if err != nil && f.err == nil {
				f.err = err
			}
			continue
		}
		if f.r.Buffered() == 0 {
			if _, err := f.r.Peek(1); err != nil {
				f.err = err
				break
			}
		}
		buf, _ := f.r.Peek(f.r.Buffered())
		if !f.inJSON {
			switch buf[0] {
			case ' ', '\t', '\r', '\n':
				// Whitespace: the SDK's decoder skips it.
				n := 1
				for n < len(buf) && n < len(p) && strings.IndexByte(" \t\r\n", buf[n]) >= 0 {
					n++
				}
				copy(p, buf[:n])
				f.r.Discard(n)
				return n, nil
			case '{', '[':
				f.inJSON, f.seenJSON = true, true
			default:
				f.inNoise, f.line, f.lineLen = true, f.line[:0], 0
				continue
			}
		}
		n := len(buf)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			n = i + 1
		}
		n = copy(p, buf[:n])
		if buf[n-1] == '\n' {
			f.inJSON = false
		}
		f.r.Discard(n)
		return n, nil
	}
	return 0, f.err
}

// endNoise hands the dropped line to onNoise and counts it, failing the
// stream past the bound.
func (f *stdoutFilter) endNoise() {
	f.inNoise = false
	text := strings.TrimRight(string(f.line), "\r\n")
	if f.lineLen > len(f.line) {
		text += "…"
	}
	if f.seenJSON {
		if now := f.now(); f.windowStart.IsZero() || now.Sub(f.windowStart) >= noiseWindow {
			f.windowStart, f.spent, f.first = now, 0, ""
		}
	}
	if f.first == "" {
		f.first = text
	}
	f.spent += max(f.lineLen, noiseLineCost)
	if f.spent > maxNoiseBytes {
		first := f.first
		if len(first) > 200 {
			first = first[:200] + "…"
		}
		f.err = &noiseError{first: first, beforeFirst: !f.seenJSON}
		return
	}
	f.onNoise(text)
}

// stop ends the process the way the MCP spec asks, but quickly: close its
// stdin, give it grace to exit, then SIGTERM its whole process group, then
// SIGKILL after another grace. Node servers ignore a closed stdin, so they
// take one grace (300 ms by default), not the SDK's 5 s. Leftover members of
// the group (npx's children) are killed too. stop waits (bounded) until the
// last stderr line is in the ring. Safe to call twice.
func (p *process) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(p.grace):
		p.group.terminate()
		select {
		case <-p.exited:
		case <-time.After(p.grace):
			p.group.kill()
			select {
			case <-p.exited:
			case <-time.After(2 * time.Second):
			}
		}
	}
	p.group.cleanup(p.grace)
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond):
		// A detached grandchild still holds stderr: stop reading.
	}
	p.stderr.Close()
	p.stdout.Close()
}

// exitReason describes how the process ended: "exit status 3",
// "signal: killed".
func (p *process) exitReason() string {
	select {
	case <-p.exited:
	default:
		return "the process still running"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exit status 0"
}

// resolveCommand finds cfg.Command the way the user's login shell would:
// a bare name is looked up in pathList (with PATHEXT on Windows); a path
// with a separator is used as is, relative to cfg.Cwd; "~/" is expanded.
func resolveCommand(command, cwd, pathList string) (string, error) {
	if command == "" {
		return "", permanent(errors.New("the server has no command; set one in its settings"))
	}
	command = expandHome(command)
	if strings.ContainsAny(command, `/\`) {
		if !filepath.IsAbs(command) && cwd != "" {
			command = filepath.Join(expandHome(cwd), command)
		}
		if _, err := os.Stat(command); err != nil {
			return "", permanent(errorf(ErrCommandNotFound, "%s does not exist; check the server's command", command))
		}
		return command, nil
	}
	if p, ok := lookPath(command, pathList); ok {
		return p, nil
	}
	return "", permanent(errorf(ErrCommandNotFound, "%s not found on PATH (%s); set the full path in the server's command",
		command, pathList))
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || (runtime.GOOS == "windows" && strings.HasPrefix(p, `~\`)) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// resolveArgs puts the passwords server id keeps in the keyring back into
// its args (serverconf.ResolveArgs).
func (m *Manager) resolveArgs(id string, args []string) ([]string, error) {
	if !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "${secret:") }) {
		return args, nil
	}
	if m.opts.Secrets == nil {
		return nil, permanent(errorf(ErrSecret, "a password in the server's arguments is kept in the keyring, which is not available"))
	}
	out, err := serverconf.ResolveArgs(id, args, m.opts.Secrets.Get)
	if err != nil {
		return nil, permanent(errorf(ErrSecret, "%v; type the password into the argument again in the server's settings", err))
	}
	return out, nil
}

// A secretError is a secret that cannot be read, matching both ErrSecret
// and its cause (serverconf.ErrForeignSecret).
type secretError struct{ err error }

func (e secretError) Error() string   { return e.err.Error() }
func (e secretError) Unwrap() []error { return []error{e.err, ErrSecret} }

// childEnv is a stdio server's environment: PATH set to pathList, the
// app's variables that allowedEnv lets through (all of them when inherit
// is set), and the server's own variables on top.
//
// The allowlist is there because the app's environment is where people keep
// provider API keys and cloud credentials (exported in the shell that
// started the app), and DBUS_SESSION_BUS_ADDRESS, through which a process
// reaches the whole keyring. A server is still any program running as the
// user and can find much of this on disk: the allowlist keeps secrets from
// being handed over, it is not a sandbox.
func childEnv(pathList string, extra map[string]string, inherit bool) []string {
	env := make([]string, 0, 32+len(extra))
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "PATH") || !inherit && !allowedEnv(k) {
			continue
		}
		if _, override := extra[k]; override {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+pathList)
	for _, k := range sortedKeys(extra) {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// baseEnv names the variables every stdio server gets from the app's
// environment (besides PATH): who and where the user is, language and time
// zone, temporary directories, where tools keep their config and cache,
// and how to reach the network (proxies, extra CA certificates), which npx
// and uvx need to download a server. osEnv (per OS) adds what programs need
// to run there.
var baseEnv = []string{
	"HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "SHELL", "TERM",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// allowedEnv reports whether the app's variable name reaches a server
// that does not inherit the whole environment: a name of baseEnv or osEnv
// (proxies in either case, Windows names in any case), a locale setting
// (LC_*), or npm's own settings (npm_config_*) unless the name looks
// secret (a registry's _authToken).
func allowedEnv(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "LC_") {
		return true
	}
	if strings.HasPrefix(upper, "NPM_CONFIG_") {
		return !serverconf.IsSecretName(strings.TrimPrefix(upper, "NPM_CONFIG_"))
	}
	for _, list := range [][]string{baseEnv, osEnv} {
		for _, k := range list {
			if name == k || (envFoldCase || strings.HasSuffix(k, "_PROXY")) && strings.EqualFold(name, k) {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mergePATH appends to first the entries of second it lacks.
func mergePATH(first, second string) string {
	seen := map[string]bool{}
	var out []string
	for _, list := range []string{first, second} {
		for _, dir := range filepath.SplitList(list) {
			if dir != "" && !seen[dir] {
				seen[dir] = true
				out = append(out, dir)
			}
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// pathextCandidates lists the file names Windows tries for a command: the
// name itself if it already ends in one of PATHEXT's extensions, then the
// name with each of them ("npx" -> "npx.COM", ..., "npx.CMD").
func pathextCandidates(file, pathext string) []string {
	if pathext == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, e := range strings.Split(pathext, ";") {
		if e = strings.TrimSpace(e); e != "" {
			if e[0] != '.' {
				e = "." + e
			}
			exts = append(exts, e)
		}
	}
	var out []string
	if ext := filepath.Ext(file); ext != "" {
		for _, e := range exts {
			if strings.EqualFold(ext, e) {
				out = append(out, file)
				break
			}
		}
	}
	for _, e := range exts {
		out = append(out, file+strings.ToLower(e))
	}
	return out
}

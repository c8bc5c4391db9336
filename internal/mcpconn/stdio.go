package mcpconn

import (
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
func (p *process) transport() mcp.Transport {
	// One message is at most MaxMessageBytes: a server that writes a longer
	// line loses its connection instead of filling the app's memory.
	return &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin, MaxLineLength: MaxMessageBytes}
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

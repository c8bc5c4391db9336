//go:build unix

package mcpconn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// pathMarker brackets PATH in the shell's output, which may also hold
// whatever the user's rc files print.
const pathMarker = "__SWITCHBOARD_PATH__"

// loginShellPATH is the PATH the user's login shell sets up, with the
// entries of the app's own PATH it lacks appended. A GUI app started from
// the Finder or a desktop launcher gets a bare PATH (/usr/bin:/bin:...), so
// "npx" installed with nvm or Homebrew would not be found without this. It
// runs "$SHELL -l -i -c ..." once, bounded by timeout, and falls back to the
// app's PATH.
func loginShellPATH(timeout time.Duration, wrap func(*exec.Cmd)) string {
	own := os.Getenv("PATH")
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
		if runtime.GOOS == "darwin" {
			shell = "/bin/zsh"
		}
	}
	script := `printf '%s%s%s' '` + pathMarker + `' "$PATH" '` + pathMarker + `'`
	if filepath.Base(shell) == "fish" {
		script = `printf '%s%s%s' '` + pathMarker + `' (string join : $PATH) '` + pathMarker + `'`
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-l", "-i", "-c", script)
	// Its own session, with no controlling terminal: an interactive shell
	// can then neither take over the terminal the app was started from nor
	// stop the app's process group with job-control signals. It leads its
	// own process group, so a timeout kills its children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The allowlisted environment a server gets, and where the shell's
	// startup files are: the user's rc files need no API keys to set PATH.
	cmd.Env = childEnv(own, shellStartupEnv(), false)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 200 * time.Millisecond
	if wrap != nil {
		wrap(cmd)
	}
	out, _ := cmd.Output() // rc files may fail and still print PATH
	_, rest, ok := strings.Cut(string(out), pathMarker)
	if !ok {
		return own
	}
	login, _, ok := strings.Cut(rest, pathMarker)
	if !ok || strings.TrimSpace(login) == "" {
		return own
	}
	return mergePATH(strings.TrimSpace(login), own)
}

// shellStartupEnv are the app's variables that tell a shell where its
// startup files are (zsh's ZDOTDIR, sh's ENV, bash's BASH_ENV).
func shellStartupEnv() map[string]string {
	env := map[string]string{}
	for _, k := range []string{"ZDOTDIR", "ENV", "BASH_ENV"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

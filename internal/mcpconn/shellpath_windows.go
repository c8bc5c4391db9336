//go:build windows

package mcpconn

import (
	"os"
	"os/exec"
	"time"
)

// loginShellPATH is the app's PATH: on Windows a GUI app already gets the
// user's full PATH from the registry.
func loginShellPATH(time.Duration, func(*exec.Cmd)) string {
	return os.Getenv("PATH")
}

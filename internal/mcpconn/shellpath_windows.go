//go:build windows

package mcpconn

import (
	"os"
	"time"
)

// loginShellPATH is the app's PATH: on Windows a GUI app already gets the
// user's full PATH from the registry.
func loginShellPATH(time.Duration) string {
	return os.Getenv("PATH")
}

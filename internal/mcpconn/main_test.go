package mcpconn

import (
	"os"
	"testing"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/spawn"
)

// The test binary is its own trampoline, as the app is, and the fault
// server its tests start (mcptest.FaultServer).
func TestMain(m *testing.M) {
	spawn.Run(os.Args[1:])
	mcptest.RunIfChild()
	os.Exit(m.Run())
}

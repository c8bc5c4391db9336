package mcpserve_test

import (
	"os"
	"testing"

	"github.com/switchboard-app/switchboard/internal/cli"
)

// cliChildEnv, when set to 1, makes the test binary the switchboard
// command (the TestMain re-exec trick): `mcp serve` runs as its own
// process over the test's data directory, as an app's config starts it.
const cliChildEnv = "SWITCHBOARD_TEST_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliChildEnv) == "1" {
		os.Exit(cli.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

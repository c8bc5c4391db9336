// Switchboard is a desktop chat app for tool-using models: models from any
// OpenAI-compatible provider call tools of the MCP servers the user adds.
//
// Without arguments it opens the window; with a subcommand (switchboard
// help) it runs headless.
package main

import (
	"embed"
	"os"

	"github.com/switchboard-app/switchboard/app"
	"github.com/switchboard-app/switchboard/internal/cli"
	"github.com/switchboard-app/switchboard/internal/spawn"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	spawn.Run(os.Args[1:]) // the trampoline children start through; see internal/spawn
	if cli.IsCommand(os.Args[1:]) {
		os.Exit(cli.Main(os.Args[1:]))
	}
	os.Exit(app.Run(frontendFS(), icon))
}

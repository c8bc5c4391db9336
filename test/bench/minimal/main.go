// Command minimal is the smallest Wails v2 window: one embedded page and
// one bound method. test/bench builds it with the release tags and measures
// Switchboard's start-up time and memory against it, in the same run and
// on the same machine, so its figures are ratios rather than absolute times.
//
// It prints "ready" on stdout when its page has loaded.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

//go:embed index.html
var assets embed.FS

// Minimal is bound to the page.
type Minimal struct{}

// Ready is called by the page once it has loaded.
func (*Minimal) Ready() { fmt.Println("ready") }

func main() {
	err := wails.Run(&options.App{
		Title:            "Minimal",
		Width:            1200,
		Height:           800,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		Bind:             []any{&Minimal{}},
		Linux:            &linux.Options{ProgramName: "minimal", WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}

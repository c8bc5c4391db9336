package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/instance"
	"github.com/switchboard-app/switchboard/internal/paths"
)

// Run opens the window and returns the process exit code. assets is the
// built frontend (frontend/dist); icon is the window icon.
func Run(assets fs.FS, icon []byte) int {
	if err := checkDisplay(); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 2
	}
	if _, err := fs.Stat(assets, "index.html"); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard: this binary was built without the frontend (frontend/dist/index.html is missing); build it with `make build`")
		return 2
	}
	stopDev, err := startDev(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	defer stopDev()
	p, err := paths.Resolve()
	if err == nil {
		err = p.Ensure()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	uniqueID := "switchboard-" + shortHash(p.Dir)
	lock, err := instance.Acquire(p.Lock)
	if err != nil {
		if errors.Is(err, instance.ErrRunning) && notifyRunning(uniqueID) {
			fmt.Fprintln(os.Stderr, "switchboard: already running; its window was brought to the front")
			return 0
		}
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	defer lock.Release()

	ctx := context.Background()
	c, err := core.Open(ctx, &core.Options{Paths: &p})
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	defer c.Close()

	a := New(c)
	ws := a.loadWindow()
	err = wails.Run(&options.App{
		Title:     "Switchboard",
		Width:     ws.Width,
		Height:    ws.Height,
		MinWidth:  minWidth,
		MinHeight: minHeight,
		AssetServer: &assetserver.Options{
			Assets: assets,
			// Servers' views, at /mcp-view/<id> (appviews.go); in the dev
			// build too, where Wails' dev server applies the middleware.
			Middleware: a.viewMiddleware,
		},
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		OnStartup:        a.startup,
		OnDomReady:       a.domReady,
		OnBeforeClose:    a.beforeClose,
		OnShutdown:       a.shutdown,
		SingleInstanceLock: &options.SingleInstanceLock{
			// One id per data directory, so tests with their own
			// directories never meet; a second start raises the window.
			UniqueId:               uniqueID,
			OnSecondInstanceLaunch: func(options.SecondInstanceData) { a.raise() },
		},
		Bind: []any{a},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "switchboard",
			WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand,
		},
	})
	if err != nil {
		c.Log.Error("window failed", "err", err)
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	return 0
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// checkDisplay fails early where Wails would panic: Linux without X11 or Wayland.
func checkDisplay() error {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display (DISPLAY and WAYLAND_DISPLAY are unset): the window needs a graphical session; commands that work without one are listed by `switchboard help`")
	}
	return nil
}

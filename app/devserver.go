//go:build dev

package app

import (
	"fmt"
	"io"
	"os"

	"github.com/switchboard-app/switchboard/internal/devgate"
	"github.com/switchboard-app/switchboard/internal/paths"
)

// startDev puts a devgate.Gate on the address given to -devserver and moves
// Wails' dev server, which lets any web page call the app, to an address
// nobody can guess behind it. It also turns -real-data into
// paths.EnvRealData. It runs before Wails reads its flags: Wails reads
// -devserver from the command line, or from the environment's devserver
// (which wails dev sets, with assetdir; flags are then not read).
func startDev(stderr io.Writer) (stop func(), err error) {
	args := os.Args[1:]
	flagAddr, realData := devgate.ParseArgs(args)
	if realData {
		os.Setenv(paths.EnvRealData, "1")
	}
	public := os.Getenv("devserver")
	if public == "" && os.Getenv("assetdir") == "" {
		public = flagAddr
	}
	token := os.Getenv(devgate.EnvToken)
	os.Unsetenv(devgate.EnvToken) // not for the servers the app starts
	if public == "" {
		os.Args = append(os.Args[:1:1], devgate.RewriteArgs(args, flagAddr)...)
		return func() {}, nil
	}
	internal, err := devgate.InternalAddr()
	if err != nil {
		return nil, err
	}
	if token == "" {
		token = devgate.NewToken()
	}
	g, err := devgate.New(devgate.Options{Addr: public, Backend: internal, Token: token})
	if err != nil {
		return nil, err
	}
	if err := g.Start(); err != nil {
		return nil, err
	}
	os.Args = append(os.Args[:1:1], devgate.RewriteArgs(args, internal)...)
	if os.Getenv("devserver") != "" {
		os.Setenv("devserver", internal)
	}
	// Servers' views (/mcp-view/<id>) pass the gate as the page's own
	// requests do: the sandboxed iframe's document is fetched for the page
	// (same-origin, with the cookie: checked in Chromium), while anything
	// the view itself asks, from its opaque origin, is cross-site and
	// refused. So the gate needs no exception for them.
	fmt.Fprintf(stderr, "switchboard: the UI is served to browsers at %s (it refuses requests without this token)\n", g.URL())
	return func() { g.Close() }, nil
}

// Command registryserver serves the MCP registry API (as
// registry.modelcontextprotocol.io does, under /v0.1 and /v0) from a
// fixture file, for end-to-end tests.
//
//	registryserver [-addr 127.0.0.1:0] [-data FILE]
//
// The first line on stdout is the base URL to set as the registry URL
// (http://host:port). FILE is a list reply of the API ({"servers":
// [{"server": {...}, "_meta": {...}}]}); the default is
// testdata/servers.json beside this file: real servers' server.json
// (server-sequential-thinking, -memory, -everything, -filesystem, -fetch;
// GitHub's, with a docker package and a remote with a secret header;
// Brave Search's, with a secret env variable) at the versions test/node
// has where there is one, and made-up ones for what those do not cover
// (a remote with a URL variable, an mcpb bundle, a NuGet package, a
// deprecated and a deleted server). It runs until interrupted.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"github.com/switchboard-app/switchboard/test/internal/testcmd"
	"github.com/switchboard-app/switchboard/test/registryserver/registry"
)

func main() { testcmd.Main("registryserver", run) }

// run serves until stop receives.
func run(args []string, stdout io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("registryserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	data := fs.String("data", defaultData(), "the registry's entries: a JSON file of the API's list reply")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	entries, err := registry.Load(*data)
	if err != nil {
		return err
	}
	return testcmd.Serve(*addr, registry.NewHandler(entries, nil), stdout, stop,
		func(a net.Addr) string { return "http://" + a.String() })
}

// defaultData is testdata/servers.json beside this source file, when the
// source is there (go run, or a binary built from this checkout).
func defaultData() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "testdata/servers.json"
	}
	return filepath.Join(filepath.Dir(file), "testdata", "servers.json")
}

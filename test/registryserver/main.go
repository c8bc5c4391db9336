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
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/switchboard-app/switchboard/test/registryserver/registry"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	if err := run(os.Args[1:], os.Stdout, stop); err != nil {
		fmt.Fprintln(os.Stderr, "registryserver:", err)
		os.Exit(1)
	}
}

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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	srv := &http.Server{Handler: registry.NewHandler(entries, nil), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	select {
	case <-stop:
		return srv.Close()
	case err := <-done:
		return err
	}
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

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
)

// TokenEnv names the environment variable `mcp serve` reads a connected
// app's token from (the app's config entry sets it).
const TokenEnv = "SWITCHBOARD_CLIENT_TOKEN"

func init() {
	register("mcp", "serve the conversations shared with a connected app over MCP: mcp serve [--http 127.0.0.1:PORT]", runMCP)
	helpText["mcp"] = `Usage:
  switchboard mcp serve                  speak MCP on standard input and output, for the connected app whose
                                         token is in ` + TokenEnv + ` (an app's config entry starts this);
                                         refuses to start without a valid token
  switchboard mcp serve --http 127.0.0.1:PORT
                                         serve streamable HTTP at http://127.0.0.1:PORT/mcp instead, headless, for
                                         every connected app (each request carries its token as a bearer token);
                                         PORT 0 picks a free one, printed first on standard output

The app sees only the conversations shared with it (switchboard clients grant), and every request is audited
(switchboard clients audit). Revoking the app (switchboard clients revoke, or the window) ends its session
within a few seconds.`
}

func runMCP(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(env.Stderr, "usage: switchboard mcp serve [--http 127.0.0.1:PORT]")
		return 2
	}
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	addr := fs.String("http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) instead of standard input and output")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "switchboard mcp serve: unexpected %q\n", fs.Arg(0))
		return 2
	}
	token := os.Getenv(TokenEnv)
	if *addr == "" && token == "" {
		fmt.Fprintf(env.Stderr, "switchboard mcp serve: no token: set %s to the token `switchboard clients add NAME` printed for this app (the config entry Switchboard writes for an app sets it)\n", TokenEnv)
		return 2
	}
	if *addr != "" {
		if err := loopback(*addr); err != nil {
			fmt.Fprintln(env.Stderr, "switchboard mcp serve:", err)
			return 2
		}
	}
	c, svc, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	// The turns send_message runs use the conversation's tools: the
	// enabled servers connect in the background. The window's work (its
	// running replies, its tasks) is left to it.
	if err := svc.StartServing(ctx, c.Log); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	if *addr != "" {
		return serveHTTP(ctx, env, svc.NewClientServer(mcpserve.TransportHTTP), *addr)
	}
	srv := svc.NewClientServer(mcpserve.TransportStdio)
	defer srv.Close()
	err := srv.ServeStdio(ctx, token, env.Stdin, env.Stdout)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return 0
	case errors.Is(err, clients.ErrBadToken):
		fmt.Fprintf(env.Stderr, "switchboard mcp serve: the token in %s is not valid: it is mistyped, was rotated, or the app was revoked or removed. See `switchboard clients list`; `switchboard clients rotate NAME` prints a new one\n", TokenEnv)
		return 1
	case errors.Is(err, mcpserve.ErrDisconnected):
		fmt.Fprintln(env.Stderr, "switchboard mcp serve:", err)
		return 1
	}
	fmt.Fprintln(env.Stderr, "switchboard mcp serve:", err)
	return 1
}

// loopback checks that addr is HOST:PORT on the loopback interface: the
// endpoint is for apps on this machine only.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: give 127.0.0.1:PORT", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--http %q: Switchboard serves on the loopback address only (127.0.0.1:PORT), never to the network", addr)
	}
	return nil
}

// serveHTTP serves srv's HTTP handler on addr until ctx ends.
func serveHTTP(ctx context.Context, env *Env, srv *mcpserve.Server, addr string) int {
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "switchboard mcp serve: cannot listen on %s: %v\n", addr, err)
		return 1
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	fmt.Fprintf(env.Stdout, "http://%s%s\n", ln.Addr(), mcpserve.Path)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		srv.Close()
		hs.Close()
		<-done
		return 0
	case err := <-done:
		fmt.Fprintln(env.Stderr, "switchboard mcp serve:", err)
		return 1
	}
}

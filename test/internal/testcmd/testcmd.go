// Package testcmd holds what the small servers under test/ (fakeprovider,
// registryserver, taskserver) share as commands: a main that stops on
// SIGINT or SIGTERM, serving a handler until then, and, for their tests,
// running one in-process and reading the first line it prints.
//
// Each command keeps a run(args, stdout, stop) function so its tests can
// drive it without a process; Main and Start are the two ends of that.
package testcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A RunFunc runs a command with its arguments, writing to stdout, until
// stop receives.
type RunFunc func(args []string, stdout io.Writer, stop <-chan os.Signal) error

// Main runs run with the process's arguments and stdout until SIGINT or
// SIGTERM, and exits 1 after printing its error prefixed with name.
func Main(name string, run RunFunc) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	if err := run(os.Args[1:], os.Stdout, stop); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Serve listens on addr and serves h; once it listens it prints
// announce(address) as a line on stdout. It serves until stop receives,
// then shuts down, cutting connections still open (event streams) after
// 3 seconds.
func Serve(addr string, h http.Handler, stdout io.Writer, stop <-chan os.Signal, announce func(net.Addr) string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintln(stdout, announce(ln.Addr()))

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	return nil
}

// Start runs run with args in a goroutine and returns the first line it
// prints, trimmed. The test stops it when it ends and fails if run
// returned an error.
func Start(t *testing.T, run RunFunc, args ...string) string {
	t.Helper()
	out, w := io.Pipe()
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(args, w, stop)
		w.Close()
	}()
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, r) // later lines must not block it
	t.Cleanup(func() {
		stop <- os.Interrupt
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return strings.TrimSpace(line)
}

// Command taskserver runs mcptest.TaskServer, an MCP server of the Tasks
// extension (io.modelcontextprotocol/tasks), over streamable HTTP for
// end-to-end tests; see mcptest.TaskServer for its tools.
//
//	taskserver [-addr 127.0.0.1:0] [-complete-after D]
//
// The only line on stdout, once it listens, is "listening on URL", URL
// being the MCP endpoint (http://host:port/mcp). Beside it a side door
// lets a test script in another process drive the tasks:
//
//	POST /control/complete?task=ID&text=T  completes a task (404: no such task, 409: finished)
//	GET  /control/tasks                    every task, as a JSON list of mcptest.TaskSnapshot
//
// Tasks outlive the clients that made them. It serves until SIGINT or
// SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	if err := run(os.Args[1:], os.Stdout, stop); err != nil {
		fmt.Fprintln(os.Stderr, "taskserver:", err)
		os.Exit(1)
	}
}

// run serves until stop receives.
func run(args []string, stdout io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("taskserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	completeAfter := fs.Duration("complete-after", 0, `if positive, every slow_task without "seconds" completes by itself this long after creation`)
	if err := fs.Parse(args); err != nil {
		return err
	}

	ts := mcptest.NewTaskServer(&mcptest.TaskServerOptions{CompleteAfter: *completeAfter})
	defer ts.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", ts.Handler())
	mux.HandleFunc("POST /control/complete", func(w http.ResponseWriter, r *http.Request) {
		err := ts.Complete(r.FormValue("task"), r.FormValue("text"))
		switch {
		case errors.Is(err, mcptest.ErrNoTask):
			http.Error(w, err.Error(), http.StatusNotFound)
		case errors.Is(err, mcptest.ErrTaskFinished):
			http.Error(w, err.Error(), http.StatusConflict)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /control/tasks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ts.Tasks())
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "listening on http://%s/mcp\n", ln.Addr())

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-stop:
	}
	// Open event streams keep Shutdown waiting; cut them after a while.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	return nil
}

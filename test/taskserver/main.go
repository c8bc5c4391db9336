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
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/test/internal/testcmd"
)

func main() { testcmd.Main("taskserver", run) }

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

	return testcmd.Serve(*addr, mux, stdout, stop,
		func(a net.Addr) string { return "listening on http://" + a.String() + "/mcp" })
}

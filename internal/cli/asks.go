package cli

import (
	"fmt"
	"io"

	"github.com/switchboard-app/switchboard/internal/asks"
	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/sampling"
)

// refusedAsk says on w what a server asked of the user during `ask` and
// that it was refused: a form, a page to open or a completion needs the
// window to be answered in (the CLI has none, so the services refuse it at
// once; the server's log says so too).
func refusedAsk(w io.Writer, name string, payload any) {
	e, ok := payload.(asks.Ended)
	if !ok || e.Outcome != asks.Refused {
		return
	}
	server := e.ServerName
	if server == "" {
		server = e.ServerID
	}
	switch name {
	case elicit.EventEnded:
		fmt.Fprintf(w, "[server %s asked for input %s; declined: %s. Answer such requests in the Switchboard window]\n", server, e.Summary, e.Reason)
	case sampling.EventEnded:
		fmt.Fprintf(w, "[server %s asked for %s; refused: %s. Approve such requests in the Switchboard window]\n", server, e.Summary, e.Reason)
	}
}

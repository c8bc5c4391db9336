package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/appview"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func init() {
	register("views", "list the tools whose servers show a view (MCP Apps), fetch one, or audit their calls", runViews)
	helpText["views"] = `Usage:
  switchboard views list [SERVER]          the tools with a view, and those only views may call, of the enabled
                                           servers (or only SERVER): SERVER, TOOL, VIEW (its ui:// resource), VISIBILITY
  switchboard views get [-o FILE] SERVER TOOL
                                           fetch the tool's view as the window serves it (its policy's <meta> tag first in
                                           the document) to standard output or FILE; the policy and the outside origins the
                                           view may reach go to standard error
  switchboard views calls [-n N] CONVERSATION
                                           the last N (default 50) tool calls views made in a conversation, the audit

These commands tell the servers they connect to that Switchboard shows views (the others never do), so
that servers declare them. Flags go before the arguments; -wait-servers D bounds the wait for servers to
connect (default 15s).`
}

// viewsOptions are the services of the views commands: the servers are
// told views are shown, as the window tells them.
var viewsOptions = &core.ServiceOptions{Manager: &mcpconn.Options{AppViews: true}}

func runViews(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "usage: switchboard views list|get|calls … (switchboard views -h)")
		return 2
	}
	fs := flag.NewFlagSet("views "+args[0], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	wait := fs.Duration("wait-servers", 15*time.Second, "how long to wait for servers to connect")
	switch args[0] {
	case "list":
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 1 {
			fmt.Fprintln(env.Stderr, "usage: switchboard views list [SERVER]   (IDs: switchboard servers list)")
			return 2
		}
		return viewsList(ctx, env, fs.Arg(0), *wait)
	case "get":
		out := fs.String("o", "", "write the view into this file instead of standard output")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard views get [-o FILE] SERVER TOOL   (switchboard views list names them)")
			return 2
		}
		return withServerWith(ctx, env, viewsOptions, fs.Arg(0), *wait, func(s *core.Services) int {
			return viewsGet(ctx, env, s, fs.Arg(0), fs.Arg(1), *out)
		})
	case "calls":
		n := fs.Int("n", 50, "how many of the latest calls to print")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 || *n < 1 {
			fmt.Fprintln(env.Stderr, "usage: switchboard views calls [-n N] CONVERSATION")
			return 2
		}
		return viewsCalls(ctx, env, fs.Arg(0), *n)
	}
	fmt.Fprintf(env.Stderr, "switchboard views: unknown subcommand %q (list, get, calls)\n", args[0])
	return 2
}

// viewsList prints the tools with a view, or only for views, of the
// enabled servers (or only id).
func viewsList(ctx context.Context, env *Env, id string, wait time.Duration) int {
	return withConfigsWith(ctx, env, viewsOptions, func(s *core.Services, cfgs []serverconf.Config) int {
		if !startServers(ctx, env, s, cfgs, id, wait) {
			return 1
		}
		var rows []mcpconn.Tool
		for _, t := range s.Manager.Tools() {
			if t.UI != nil || t.AppOnly {
				rows = append(rows, t)
			}
		}
		if len(rows) == 0 {
			fmt.Fprintln(env.Stdout, "No tool of a connected server has a view.")
			return 0
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER\tTOOL\tVIEW\tVISIBILITY")
		for _, t := range rows {
			view := "-"
			if t.UI != nil {
				view = t.UI.ResourceURI
			}
			vis := "model,app"
			if t.Visibility != nil {
				vis = strings.Join(t.Visibility, ",")
				if vis == "" {
					vis = "none"
				}
			}
			if !t.Enabled {
				vis += " (switched off)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.ServerID, t.OriginalName, view, vis)
		}
		tw.Flush()
		return 0
	})
}

// viewsGet fetches tool's view of server id and writes it as the window
// serves it; the policy goes to stderr.
func viewsGet(ctx context.Context, env *Env, s *core.Services, id, tool, file string) int {
	var t *mcpconn.Tool
	for _, x := range s.Manager.Tools() {
		if x.ServerID == id && x.OriginalName == tool {
			t = &x
			break
		}
	}
	switch {
	case t == nil:
		fmt.Fprintf(env.Stderr, "switchboard: %s has no tool %q (switchboard views list %s names those with a view)\n", id, tool, id)
		return 1
	case t.UI == nil:
		fmt.Fprintf(env.Stderr, "switchboard: the tool %s of %s has no view (switchboard views list %s names those with one)\n", tool, id, id)
		return 1
	}
	res, err := s.Manager.ReadUIResource(ctx, id, t.UI.ResourceURI)
	if err != nil {
		return failWith(env, err)
	}
	pol := appview.BuildPolicy(appview.Domains{Connect: res.CSP.ConnectDomains, Resource: res.CSP.ResourceDomains,
		Frame: res.CSP.FrameDomains, BaseURI: res.CSP.BaseURIDomains})
	doc := appview.Render(res.HTML, pol)
	if file != "" {
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			return failWith(env, err)
		}
		fmt.Fprintf(env.Stderr, "saved %s (%d bytes) to %s\n", res.URI, len(doc), file)
	} else if _, err := io.WriteString(env.Stdout, doc); err != nil {
		return failWith(env, err)
	}
	fmt.Fprintf(env.Stderr, "policy: %s\n", pol.Header)
	if len(pol.External) == 0 {
		fmt.Fprintln(env.Stderr, "outside origins: none")
	} else {
		fmt.Fprintf(env.Stderr, "outside origins: %s\n", strings.Join(pol.External, " "))
	}
	for _, n := range append(res.Notes, pol.Dropped...) {
		fmt.Fprintln(env.Stderr, "left out:", n)
	}
	return 0
}

// viewsCalls prints the last n calls views made in conversation conv.
func viewsCalls(ctx context.Context, env *Env, conv string, n int) int {
	c, _, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	if _, err := c.Store.Conversation(ctx, conv); err != nil {
		return failWith(env, fmt.Errorf("conversation %q: %w", conv, err))
	}
	calls, err := c.Store.ViewCalls(ctx, conv, n)
	if err != nil {
		return failWith(env, err)
	}
	if len(calls) == 0 {
		fmt.Fprintln(env.Stdout, "No view made a tool call in this conversation.")
		return 0
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUESTED\tSERVER\tTOOL\tSTATUS\tDECISION\tARGUMENTS")
	for _, call := range calls {
		decision := "-"
		if call.Decision != "" {
			decision = call.Decision + " (" + call.DecidedBy + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", call.RequestedAt.Local().Format(time.DateTime), call.ServerID, call.Tool, call.Status,
			decision, clipLine(call.Arguments, 60))
	}
	tw.Flush()
	return 0
}

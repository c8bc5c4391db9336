package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

func init() {
	register("prompts", "list an MCP server's prompts, or fill one in and print its messages", runPrompts)
	helpText["prompts"] = `Usage:
  switchboard prompts list [-json] SERVER        the server's prompts and their arguments (* required)
  switchboard prompts get [-json] SERVER NAME [ARG=VALUE…]
                                                 fill in a prompt and print its messages

Flags go before SERVER. -wait-servers D bounds the wait for the server to connect (default 15s).`
}

func runPrompts(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "usage: switchboard prompts list|get … (switchboard prompts -h)")
		return 2
	}
	fs := flag.NewFlagSet("prompts "+args[0], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	wait := fs.Duration("wait-servers", 15*time.Second, "how long to wait for the server to connect")
	asJSON := fs.Bool("json", false, "print JSON")
	switch args[0] {
	case "list":
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			fmt.Fprintln(env.Stderr, "usage: switchboard prompts list [-json] SERVER   (IDs: switchboard servers list)")
			return 2
		}
		return withServer(ctx, env, fs.Arg(0), *wait, func(s *core.Services) int {
			list, err := s.Manager.ListPrompts(ctx, fs.Arg(0))
			if err != nil {
				return failWith(env, err)
			}
			if *asJSON {
				return printIndented(env, list)
			}
			printPrompts(env, list)
			return 0
		})
	case "get":
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() < 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard prompts get [-json] SERVER NAME [ARG=VALUE…]")
			return 2
		}
		vals, err := parseAssignments(fs.Args()[2:])
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 2
		}
		return withServer(ctx, env, fs.Arg(0), *wait, func(s *core.Services) int {
			p, err := s.Manager.GetPrompt(ctx, fs.Arg(0), fs.Arg(1), vals)
			if err != nil {
				return failWith(env, err)
			}
			if *asJSON {
				return printIndented(env, p)
			}
			printPromptMessages(env, p)
			return 0
		})
	}
	fmt.Fprintf(env.Stderr, "switchboard prompts: unknown subcommand %q (list, get)\n", args[0])
	return 2
}

// printPrompts prints a server's prompts, required arguments starred.
func printPrompts(env *Env, l *mcpconn.PromptList) {
	if len(l.Prompts) == 0 {
		fmt.Fprintf(env.Stdout, "%s lists no prompts\n", l.ServerID)
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tARGUMENTS\tDESCRIPTION")
		for _, p := range l.Prompts {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name+"*")
				} else {
					args = append(args, a.Name)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, cmp.Or(strings.Join(args, " "), "-"), clipLine(strings.TrimSpace(cmp.Or(p.Description, p.Title)), 70))
		}
		tw.Flush()
	}
	for _, n := range l.Notes {
		fmt.Fprintln(env.Stderr, "note:", n)
	}
}

// printPromptMessages prints each message under its role; blocks other
// than text are described as a model would read them.
func printPromptMessages(env *Env, p *mcpconn.PromptResult) {
	for i, m := range p.Messages {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		r := mcpconn.Result{Content: []mcpconn.Content{m.Content}}
		fmt.Fprintf(env.Stdout, "[%s]\n%s\n", m.Role, strings.TrimRight(r.ForModel(1<<30), "\n"))
	}
}

package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func init() {
	register("resources", "list an MCP server's resources and templates, or read one", runResources)
	helpText["resources"] = `Usage:
  switchboard resources list [-json] SERVER      the server's resources and resource templates
  switchboard resources read [-o FILE] SERVER URI
                                                 print a text resource; -o FILE saves it (needed for binary data)
  switchboard resources read SERVER TEMPLATE VAR=VALUE…
                                                 fill in a resource template (demo://item/{id} id=7) and read that

Flags go before SERVER. -wait-servers D bounds the wait for the server to connect (default 15s).`
}

func runResources(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "usage: switchboard resources list|read … (switchboard resources -h)")
		return 2
	}
	fs := flag.NewFlagSet("resources "+args[0], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	wait := fs.Duration("wait-servers", 15*time.Second, "how long to wait for the server to connect")
	switch args[0] {
	case "list":
		asJSON := fs.Bool("json", false, "print the listing as JSON")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			fmt.Fprintln(env.Stderr, "usage: switchboard resources list [-json] SERVER   (IDs: switchboard servers list)")
			return 2
		}
		return withServer(ctx, env, fs.Arg(0), *wait, func(s *core.Services) int {
			list, err := s.Manager.ListResources(ctx, fs.Arg(0))
			if err != nil {
				return failWith(env, err)
			}
			if *asJSON {
				return printIndented(env, list)
			}
			printResources(env, list)
			return 0
		})
	case "read":
		out := fs.String("o", "", "save the resource into this file instead of printing it")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() < 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard resources read [-o FILE] SERVER URI   or   SERVER TEMPLATE VAR=VALUE…")
			return 2
		}
		uri := fs.Arg(1)
		if fs.NArg() > 2 || strings.Contains(uri, "{") {
			vals, err := parseAssignments(fs.Args()[2:])
			if err != nil {
				fmt.Fprintln(env.Stderr, "switchboard:", err)
				return 2
			}
			if uri, err = mcpconn.ExpandTemplate(uri, vals); err != nil {
				return failWith(env, err)
			}
		}
		return withServer(ctx, env, fs.Arg(0), *wait, func(s *core.Services) int {
			res, err := s.Manager.ReadResource(ctx, fs.Arg(0), uri)
			if err != nil {
				return failWith(env, err)
			}
			return writeResource(env, res, *out)
		})
	}
	fmt.Fprintf(env.Stderr, "switchboard resources: unknown subcommand %q (list, read)\n", args[0])
	return 2
}

// withServer connects the one configured server id (nothing else), waits
// up to wait for it, and runs f. A server that is unknown, disabled or
// does not connect is reported with what to do.
func withServer(ctx context.Context, env *Env, id string, wait time.Duration, f func(*core.Services) int) int {
	return withServerWith(ctx, env, nil, id, wait, f)
}

// withServerWith is withServer with the services built by opts.
func withServerWith(ctx context.Context, env *Env, opts *core.ServiceOptions, id string, wait time.Duration, f func(*core.Services) int) int {
	return withConfigsWith(ctx, env, opts, func(s *core.Services, cfgs []serverconf.Config) int {
		i := slices.IndexFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id })
		switch {
		case i < 0:
			fmt.Fprintf(env.Stderr, "switchboard: no server %q (see switchboard servers list)\n", id)
			return 1
		case !cfgs[i].Enabled:
			fmt.Fprintf(env.Stderr, "switchboard: server %s is disabled; switchboard servers enable %s starts it\n", id, id)
			return 1
		}
		if err := s.Manager.SetServers(cfgs[i : i+1]); err != nil {
			return failWith(env, err)
		}
		if err := s.Manager.Start(ctx); err != nil {
			return failWith(env, err)
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		st, err := s.Manager.Wait(wctx, id, func(st mcpconn.Status) bool { return st.State != mcpconn.StateConnecting })
		cancel()
		if st.State != mcpconn.StateConnected {
			reason := st.Reason
			if errors.Is(err, context.DeadlineExceeded) {
				reason = fmt.Sprintf("still connecting after %s (-wait-servers waits longer)", wait)
			}
			fmt.Fprintf(env.Stderr, "switchboard: server %s is %s: %s\n", id, st.State, reason)
			return 1
		}
		return f(s)
	})
}

func failWith(env *Env, err error) int {
	fmt.Fprintln(env.Stderr, "switchboard:", err)
	return 1
}

func printIndented(env *Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return failWith(env, err)
	}
	return 0
}

// printResources prints a listing as two tables, and its notes to stderr.
func printResources(env *Env, l *mcpconn.ResourceList) {
	if len(l.Resources) == 0 && len(l.Templates) == 0 {
		fmt.Fprintf(env.Stdout, "%s lists no resources\n", l.ServerID)
	}
	if len(l.Resources) > 0 {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "URI\tNAME\tTYPE\tDESCRIPTION")
		for _, r := range l.Resources {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.URI, clipLine(cmp.Or(r.Title, r.Name), 40), r.MIMEType, clipLine(strings.TrimSpace(r.Description), 70))
		}
		tw.Flush()
	}
	if len(l.Templates) > 0 {
		if len(l.Resources) > 0 {
			fmt.Fprintln(env.Stdout)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TEMPLATE\tNAME\tTYPE\tDESCRIPTION")
		for _, t := range l.Templates {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.URITemplate, clipLine(cmp.Or(t.Title, t.Name), 40), t.MIMEType, clipLine(strings.TrimSpace(t.Description), 70))
		}
		tw.Flush()
	}
	for _, n := range l.Notes {
		fmt.Fprintln(env.Stderr, "note:", n)
	}
}

// writeResource prints a resource's text parts, or saves it into file.
func writeResource(env *Env, res *mcpconn.ResourceContents, file string) int {
	if file != "" {
		if len(res.Contents) != 1 {
			return failWith(env, fmt.Errorf("%s has %d parts; -o saves a resource of one part (without -o its text parts are printed)", res.URI, len(res.Contents)))
		}
		c := res.Contents[0]
		data := c.Blob
		if !c.Binary {
			data = []byte(c.Text)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return failWith(env, err)
		}
		fmt.Fprintf(env.Stderr, "saved %s (%s, %d bytes) to %s\n", res.URI, cmp.Or(c.MIMEType, "no type given"), len(data), file)
		return 0
	}
	for i, c := range res.Contents {
		if c.Binary {
			return failWith(env, fmt.Errorf("part %d of %s is binary (%s, %d bytes); save it with -o FILE", i+1, res.URI, cmp.Or(c.MIMEType, "no type given"), len(c.Blob)))
		}
	}
	for i, c := range res.Contents {
		if i > 0 && !strings.HasSuffix(res.Contents[i-1].Text, "\n") {
			fmt.Fprintln(env.Stdout)
		}
		io.WriteString(env.Stdout, c.Text)
	}
	if n := len(res.Contents); n > 0 && !strings.HasSuffix(res.Contents[n-1].Text, "\n") {
		fmt.Fprintln(env.Stdout)
	}
	return 0
}

// parseAssignments reads NAME=VALUE arguments.
func parseAssignments(args []string) (map[string]string, error) {
	out := make(map[string]string, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not NAME=VALUE", a)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s is given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

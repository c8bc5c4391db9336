package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// serversLogLevel sets the least severe MCP log message server id is asked
// for; "default" (or "") leaves it to the server. Nothing connects (see
// serversChange): the level is sent when the server next connects, in the
// window or in ask.
func serversLogLevel(ctx context.Context, env *Env, id, level string) int {
	if level == "default" {
		level = ""
	}
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		_, err := s.Servers.SetLogLevel(ctx, id, serverconf.LogLevel(level))
		return err
	})
	switch {
	case !ok:
		return 1
	case level == "":
		fmt.Fprintf(env.Stdout, "server %s sends the log messages it chooses (no level is asked for)\n", id)
	default:
		fmt.Fprintf(env.Stdout, "server %s is asked for log messages at %s and above, from its next connection (at once in an open window)\n", id, level)
	}
	return 0
}

// serversLog prints the last lines of server id's log: its stderr, its MCP
// log messages and Switchboard's notes, as the window's Logs tab shows them.
func serversLog(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	n := fs.Int("n", 100, "how many of the last lines to print")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, "usage: switchboard servers log [-n N] ID")
		return 2
	}
	id := fs.Arg(0)
	return withConfigs(ctx, env, func(s *core.Services, cfgs []serverconf.Config) int {
		if !slices.ContainsFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id }) {
			fmt.Fprintf(env.Stderr, "switchboard: no server %q (see switchboard servers list)\n", id)
			return 1
		}
		lines, err := logbuf.ReadTail(s.Manager.LogFile(id), min(max(*n, 1), 100000))
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard: reading the server's log:", err)
			return 1
		}
		for _, l := range lines {
			fmt.Fprintf(env.Stdout, "%s %-5s %s\n", l.Time.Format("2006-01-02 15:04:05.000"), l.Level, l.Text)
		}
		return 0
	})
}

// serversReadOnly lets the tools server id says are read-only run without
// asking (on), in the window and in ask, or stops that.
func serversReadOnly(ctx context.Context, env *Env, id string, on bool) int {
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		return s.SetReadOnly(ctx, id, on)
	})
	switch {
	case !ok:
		return 1
	case on:
		fmt.Fprintf(env.Stdout, "the tools server %s says are read-only now run without asking (the server's claim; a tool it also calls destructive still asks); a change to what the server runs turns this off\n", id)
	default:
		fmt.Fprintf(env.Stdout, "server %s's read-only tools ask again\n", id)
	}
	return 0
}

// hintWords is what a server says about a tool (its annotations), for a
// table: "read-only,idempotent", or "-" when it says nothing.
func hintWords(raw json.RawMessage) string {
	a := core.ToolHints(raw)
	if a == nil {
		return "-"
	}
	var words []string
	say := func(v *bool, yes, no string) {
		switch {
		case v == nil:
		case *v && yes != "":
			words = append(words, yes)
		case !*v && no != "":
			words = append(words, no)
		}
	}
	say(a.ReadOnly, "read-only", "")
	if a.ReadOnly == nil || !*a.ReadOnly || a.Destructive != nil && *a.Destructive {
		say(a.Destructive, "destructive", "not-destructive")
	}
	say(a.Idempotent, "idempotent", "")
	say(a.OpenWorld, "open-world", "closed-world")
	if len(words) == 0 {
		return "-"
	}
	return strings.Join(words, ",")
}

// serversRoots prints the folders server id is offered as MCP roots, or,
// given dirs, makes them those ("none" offers none). Relative folders are
// taken from the working directory.
func serversRoots(ctx context.Context, env *Env, id string, dirs []string) int {
	if len(dirs) == 0 {
		return withConfigs(ctx, env, func(_ *core.Services, cfgs []serverconf.Config) int {
			for _, c := range cfgs {
				if c.ID != id {
					continue
				}
				if len(c.Roots) == 0 {
					fmt.Fprintf(env.Stdout, "server %s is offered no roots (the default)\n", id)
				}
				for _, r := range c.Roots {
					fmt.Fprintln(env.Stdout, r)
				}
				return 0
			}
			fmt.Fprintf(env.Stderr, "switchboard: no server %q (see switchboard servers list)\n", id)
			return 1
		})
	}
	var roots []string
	if !(len(dirs) == 1 && dirs[0] == "none") {
		for _, d := range dirs {
			abs, err := filepath.Abs(d)
			if err != nil {
				fmt.Fprintln(env.Stderr, "switchboard:", err)
				return 1
			}
			if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
				fmt.Fprintf(env.Stderr, "switchboard: %s is not a folder\n", abs)
				return 1
			}
			roots = append(roots, abs)
		}
	}
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		_, err := s.Servers.SetRoots(ctx, id, roots)
		return err
	})
	switch {
	case !ok:
		return 1
	case len(roots) == 0:
		fmt.Fprintf(env.Stdout, "server %s is offered no roots; a server such as server-filesystem goes back to the folders in its arguments\n", id)
	default:
		fmt.Fprintf(env.Stdout, "server %s is offered %d root(s): %s\n", id, len(roots), strings.Join(roots, ", "))
	}
	return 0
}

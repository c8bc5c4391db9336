// Package cli runs Switchboard's subcommands: headless work that never
// touches the window toolkit, so it works over SSH, in scripts and in tests.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
)

// A command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env *Env, args []string) int
}

// Env is what a command reads and writes; tests replace it.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, env *Env, args []string) int) {
	commands[name] = command{summary: summary, run: run}
}

func init() {
	register("version", "print the version", runVersion)
	register("paths", "print the data directory, database file and log directory", runPaths)
	register("doctor", "check the data directory, database and keyring, and say what is wrong", runDoctor)
}

// IsCommand reports whether args name a subcommand (rather than flags for
// the window, such as Wails' -devserver in development builds).
func IsCommand(args []string) bool {
	return len(args) > 0 && !strings.HasPrefix(args[0], "-")
}

// Main runs the subcommand named by args[0] and returns the exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Run(ctx, &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, args)
}

// Run is Main with its inputs and outputs given.
func Run(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
		usage(env.Stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "switchboard: unknown command %q\n\n", args[0])
		usage(env.Stderr)
		return 2
	}
	return cmd.run(ctx, env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: switchboard [command]")
	fmt.Fprintln(w, "\nWithout a command, Switchboard opens its window.")
	fmt.Fprintln(w, "\nCommands (none of them needs a display):")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nThe data directory is chosen by SWITCHBOARD_DATA_DIR when set.")
}

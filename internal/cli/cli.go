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
	if wantsHelp(args[1:]) {
		commandHelp(ctx, env, args[0], cmd)
		return 0
	}
	return cmd.run(ctx, env, args[1:])
}

// wantsHelp reports whether args (before a "--") ask for help. It is
// checked before a command runs, so help never opens the data directory.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// commandHelp prints a command's help to stdout.
func commandHelp(ctx context.Context, env *Env, name string, cmd command) {
	if name == "ask" {
		// ask's flags describe themselves; its flag set prints them and
		// stops before anything is opened.
		fmt.Fprintf(env.Stdout, "switchboard ask: %s\n\n", cmd.summary)
		runAsk(ctx, &Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stdout}, []string{"-h"})
		return
	}
	text, ok := helpText[name]
	if !ok {
		text = "Usage: switchboard " + name + "\n"
	}
	fmt.Fprintf(env.Stdout, "switchboard %s: %s.\n\n%s\n", name, cmd.summary, strings.TrimRight(text, "\n"))
}

// helpText is the usage of each command but ask.
var helpText = map[string]string{
	"version": "Usage: switchboard version",
	"paths":   "Usage: switchboard paths",
	"doctor":  "Usage: switchboard doctor\n\nExits 1 when something is broken; creates the data directory if it is missing.",
	"servers": `Usage:
  switchboard servers [list]             list the configured MCP servers
  switchboard servers tools [-schema] [ID]
                                         connect the enabled servers (or only ID) and list their tools;
                                         -schema prints each tool's input schema as the server sent it
  switchboard servers import FILE        import a claude_desktop_config.json, .vscode/mcp.json or ~/.cursor/mcp.json
                                         (- reads standard input); all or nothing
  switchboard servers add-command [-replace] FILE
                                         add a server of command tools from a JSON file (- reads standard input):
                                         {"id": "search", "tools": [{"name": "grep", "description": "...",
                                           "inputSchema": {"type": "object", "properties": {"pattern": {"type": "string"}}},
                                           "command": ["rg", "--json", "--", "{{pattern}}"], "cwd": "~/src",
                                           "timeout": "30s", "outputLimit": 65536}]}
                                         each {{name}} is one argument, never read by a shell; -replace replaces
                                         the server of the same id
  switchboard servers export [-format F] print the servers as claude, vscode or cursor JSON
  switchboard servers remove ID          delete a server, its grants and its secrets
  switchboard servers disable ID         keep a server but do not start it
  switchboard servers enable ID          start a disabled server again
  switchboard servers workload-identity ID CLIENT-ID TOKEN-FILE
                                         sign in to a remote server as a workload, with the identity
                                         token (a JWT) the platform keeps in TOKEN-FILE; ID off removes it
  switchboard servers set-secret ID NAME set env variable (local server) or header (remote server) NAME
                                         to the value read from standard input, kept in the OS keyring
  switchboard servers log-level ID LEVEL ask server ID for MCP log messages at LEVEL and above (debug, info,
                                         notice, warning, error, critical, alert, emergency; default: the server's choice)
  switchboard servers log [-n N] ID      print the last N lines of the server's log (stderr, MCP log messages)
  switchboard servers roots ID [FOLDER... | none]
                                         print, or set, the folders the server is offered as MCP roots
                                         (none by default; server-filesystem then works in those instead)
  switchboard servers read-only ID on|off
                                         on: the tools the server says are read-only (readOnlyHint, and not
                                         destructiveHint) run without asking; the server's claim, so off by default
  switchboard servers private ID TOOL on|off
                                         on: the tool's results count as private data for the lethal-trifecta
                                         guard (shown as marked-private by servers tools)`,
	"settings": `Usage:
  switchboard settings [list]            print the app-wide settings
  switchboard settings set NAME VALUE    change one; NAME is one of:
      trifecta-guard on|off              ask again before a tool could send out private data (default on)
      tool-result-limit N                characters of a tool result a model sees
      max-tool-rounds N                  model→tools→model rounds in one reply
      theme system|light|dark
      default-provider ID
      system-prompt TEXT`,
	"providers": `Usage:
  switchboard providers [list]
  switchboard providers add [-id ID] [-preset P] [-base-url URL] [-model M] [-key-stdin]
  switchboard providers test ID
  switchboard providers remove ID`,
	"registry": `Usage:
  switchboard registry search [QUERY] [--limit N] [--cursor C] [--json]
                                         the latest version of each server whose name or description has QUERY;
                                         ADD AS says how Switchboard would add it (npm, mcpb, remote, stdio)
  switchboard registry show NAME [--version V] [--json]
                                         a server's details and each way to add it: what it installs or runs,
                                         and the values it asks for (secrets go to the OS keyring)
  Both read the registry at --registry URL, else the mcp-registry setting, else
  https://registry.modelcontextprotocol.io (its API version v0.1, or v0 for older registries).`,
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
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nThe data directory is chosen by SWITCHBOARD_DATA_DIR when set.")
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

func init() {
	register("servers", "list, install (npm, .tgz, .mcpb), update, uninstall, import (Claude Desktop, VS Code, Cursor), export, remove, enable, disable MCP servers, add command tools, list their tools and set their secrets", runServers)
	doctorExtras = append(doctorExtras, doctorServers)
}

func runServers(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"list"}
	}
	switch args[0] {
	case "list":
		return serversList(ctx, env)
	case "add-command":
		return serversAddCommand(ctx, env, args[1:]) // cmdtools.go
	case "install":
		return serversInstall(ctx, env, args[1:]) // install.go
	case "update":
		return serversUpdate(ctx, env, args[1:])
	case "uninstall", "pin", "unpin":
		if len(args) != 2 {
			fmt.Fprintf(env.Stderr, "usage: switchboard servers %s ID   (IDs: switchboard servers list)\n", args[0])
			return 2
		}
		if args[0] == "uninstall" {
			return serversUninstall(ctx, env, args[1])
		}
		return serversPin(ctx, env, args[1], args[0] == "pin")
	case "import":
		if len(args) != 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers import FILE   (claude_desktop_config.json, .vscode/mcp.json, ~/.cursor/mcp.json; - for stdin)")
			return 2
		}
		return serversImport(ctx, env, args[1])
	case "export":
		fs := flag.NewFlagSet("export", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		format := fs.String("format", "claude", "claude, vscode or cursor")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		return serversExport(ctx, env, *format)
	case "remove", "enable", "disable":
		if len(args) != 2 {
			fmt.Fprintf(env.Stderr, "usage: switchboard servers %s ID   (IDs: switchboard servers list)\n", args[0])
			return 2
		}
		return serversChange(ctx, env, args[0], args[1])
	case "inherit-env":
		if len(args) != 3 || (args[2] != "on" && args[2] != "off") {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers inherit-env ID on|off   (on: the server sees your whole environment; off: PATH, HOME, LANG and the like, plus its own variables)")
			return 2
		}
		return serversInheritEnv(ctx, env, args[1], args[2] == "on")
	case "workload-identity":
		if len(args) != 4 && !(len(args) == 3 && args[2] == "off") {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers workload-identity ID CLIENT-ID TOKEN-FILE   (sign in with the workload's identity token, a JWT the platform keeps in TOKEN-FILE)\n       switchboard servers workload-identity ID off")
			return 2
		}
		clientID, file := "", ""
		if len(args) == 4 {
			clientID, file = args[2], args[3]
		}
		return serversWorkloadIdentity(ctx, env, args[1], clientID, file)
	case "tools":
		fs := flag.NewFlagSet("tools", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		schema := fs.Bool("schema", false, "print each tool's input schema as the server sent it")
		wait := fs.Duration("wait-servers", 15*time.Second, "how long to wait for the servers to connect")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if fs.NArg() > 1 {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers tools [-schema] [-wait-servers D] [ID]   (flags before the ID)")
			return 2
		}
		return serversTools(ctx, env, fs.Arg(0), *schema, *wait)
	case "log-level":
		if len(args) != 3 {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers log-level ID LEVEL   (debug, info, notice, warning, error, critical, alert, emergency, or default)")
			return 2
		}
		return serversLogLevel(ctx, env, args[1], args[2])
	case "log":
		return serversLog(ctx, env, args[1:])
	case "roots":
		if len(args) < 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers roots ID [FOLDER... | none]   (the folders the server may work in, as MCP roots)")
			return 2
		}
		return serversRoots(ctx, env, args[1], args[2:])
	case "read-only":
		if len(args) != 3 || (args[2] != "on" && args[2] != "off") {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers read-only ID on|off   (on: the tools the server says are read-only run without asking; its claim, not a guarantee)")
			return 2
		}
		return serversReadOnly(ctx, env, args[1], args[2] == "on")
	case "private":
		if len(args) != 4 || (args[3] != "on" && args[3] != "off") {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers private ID TOOL on|off   (on: the tool's results count as private data for the lethal-trifecta guard)")
			return 2
		}
		return serversPrivate(ctx, env, args[1], args[2], args[3] == "on")
	case "set-secret":
		if len(args) != 3 {
			fmt.Fprintln(env.Stderr, "usage: switchboard servers set-secret ID NAME   (the value is read from standard input)")
			return 2
		}
		return serversSetSecret(ctx, env, args[1], args[2])
	}
	fmt.Fprintf(env.Stderr, "switchboard servers: unknown subcommand %q (list, tools [-schema] [ID], import FILE, add-command [-replace] FILE, export [-format F], remove ID, enable ID, disable ID, inherit-env ID on|off, workload-identity ID CLIENT-ID TOKEN-FILE|off, set-secret ID NAME, log-level ID LEVEL, log [-n N] ID, read-only ID on|off, private ID TOOL on|off, roots ID [FOLDER...|none])\n", args[0])
	return 2
}

// serversChange removes, enables or disables a server. The configs are
// handed to the connection manager, which is not started: nothing
// connects, so a server that crashes at start can be dealt with here.
func serversChange(ctx context.Context, env *Env, verb, id string) int {
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		if verb == "remove" {
			return s.UninstallServer(ctx, id) // and its files, if installed
		}
		return s.Servers.SetEnabled(ctx, id, verb == "enable")
	})
	if !ok {
		return 1
	}
	fmt.Fprintf(env.Stdout, "%sd server %s\n", verb, id)
	return 0
}

// changeServer runs change with the servers handed to a connection manager
// that is not started, and reports a missing server or a failure; it
// returns whether the change was made.
func changeServer(ctx context.Context, env *Env, id string, change func(*core.Services) error) bool {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return false
	}
	defer c.Close()
	err := s.Servers.Start(ctx)
	if err == nil {
		err = change(s)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(env.Stderr, "switchboard: no server %q (see switchboard servers list)\n", id)
		return false
	case err != nil:
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return false
	}
	return true
}

// serversInheritEnv switches a stdio server between the allowlisted
// environment and the app's whole one. Nothing connects (see
// serversChange).
func serversInheritEnv(ctx context.Context, env *Env, id string, on bool) int {
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		_, err := s.Servers.SetInheritEnv(ctx, id, on)
		return err
	})
	switch {
	case !ok:
		return 1
	case on:
		fmt.Fprintf(env.Stdout, "server %s now sees your whole environment; its \"always allow\" grants were reset\n", id)
	default:
		fmt.Fprintf(env.Stdout, "server %s now sees only PATH, HOME, LANG and the like, plus its own variables; its \"always allow\" grants were reset\n", id)
	}
	return 0
}

// serversWorkloadIdentity sets or removes a remote server's sign-in as a
// workload. A relative TOKEN-FILE is taken from the working directory.
func serversWorkloadIdentity(ctx context.Context, env *Env, id, clientID, file string) int {
	if file != "" && !filepath.IsAbs(file) {
		abs, err := filepath.Abs(file)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		file = abs
	}
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		_, err := s.Servers.SetWorkloadIdentity(ctx, id, clientID, file)
		return err
	})
	switch {
	case !ok:
		return 1
	case clientID == "":
		fmt.Fprintf(env.Stdout, "server %s no longer signs in as a workload\n", id)
	default:
		fmt.Fprintf(env.Stdout, "server %s signs in as client %s with the identity token in %s, read for every sign-in\n", id, clientID, file)
	}
	return 0
}

// serversSetSecret keeps the value on stdin (less one trailing newline) in
// the keyring as the server's env variable or header NAME.
func serversSetSecret(ctx context.Context, env *Env, id, name string) int {
	data, err := io.ReadAll(io.LimitReader(env.Stdin, 64<<10))
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard: reading the value from standard input:", err)
		return 1
	}
	value := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	if value == "" {
		fmt.Fprintf(env.Stderr, "switchboard: no value on standard input; e.g. printf '%%s' \"$TOKEN\" | switchboard servers set-secret %s %s\n", id, name)
		return 2
	}
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	if !c.Keyring.Persistent {
		fmt.Fprintf(env.Stderr, "switchboard: the OS keyring is not available (%s), so the value cannot be kept; nothing was changed. %s\n", c.Keyring.Problem, c.Keyring.Advice)
		return 1
	}
	if err := s.Servers.Start(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	cfg, err := s.Servers.SetSecret(ctx, id, name, value)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	what := "env variable"
	if !cfg.Transport.Local() {
		what = "header"
	}
	fmt.Fprintf(env.Stdout, "set %s %s of server %s (kept in the OS keyring)\n", what, name, id)
	return 0
}

// withConfigs opens the core and runs f with the configured servers,
// returning f's exit code, or 1, saying why, when either cannot be had.
func withConfigs(ctx context.Context, env *Env, f func(s *core.Services, cfgs []serverconf.Config) int) int {
	return withConfigsWith(ctx, env, nil, f)
}

// withConfigsWith is withConfigs with the services built by opts.
func withConfigsWith(ctx context.Context, env *Env, opts *core.ServiceOptions, f func(s *core.Services, cfgs []serverconf.Config) int) int {
	c, s, ok := openCoreWith(ctx, env, opts)
	if !ok {
		return 1
	}
	defer c.Close()
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	return f(s, cfgs)
}

func serversList(ctx context.Context, env *Env) int {
	return withConfigs(ctx, env, func(_ *core.Services, cfgs []serverconf.Config) int {
		return printServers(env, cfgs)
	})
}

// printServers prints the configured servers as a table.
func printServers(env *Env, cfgs []serverconf.Config) int {
	if len(cfgs) == 0 {
		fmt.Fprintln(env.Stdout, "No MCP servers configured. Add one in the app, or: switchboard servers import FILE")
		return 0
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTRANSPORT\tENABLED\tTARGET")
	for _, cfg := range cfgs {
		target := cfg.URL
		if cfg.Transport == serverconf.TransportStdio {
			// A config saved by an older version may still hold a
			// password in an argument.
			target = serverconf.RedactURLPasswords(strings.TrimSpace(cfg.Command + " " + strings.Join(cfg.Args, " ")))
		}
		if cfg.Transport == serverconf.TransportCommand {
			target = commandTarget(&cfg)
		}
		if in := cfg.Install; in != nil {
			target = fmt.Sprintf("installed %s %s", in.Package, in.Version)
			if in.Pinned {
				target += " (pinned)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", cfg.ID, cfg.DisplayName(), cfg.Transport, cfg.Enabled, target)
	}
	tw.Flush()
	return 0
}

// serversTools connects the enabled servers, or only server id, waits up
// to wait for them, and lists their tools. With schema, each tool's input
// schema follows as the server sent it (mcpconn.Tool.Schema): the JSON
// Schema whole, its $refs neither resolved nor fetched; models get a
// cleaned copy.
func serversTools(ctx context.Context, env *Env, id string, schema bool, wait time.Duration) int {
	return withConfigs(ctx, env, func(s *core.Services, cfgs []serverconf.Config) int {
		return listTools(ctx, env, s, cfgs, id, schema, wait)
	})
}

// startServers connects the enabled servers of cfgs (or only id, which
// must be there and enabled) and waits up to wait for them; false after
// saying why on stderr.
func startServers(ctx context.Context, env *Env, s *core.Services, cfgs []serverconf.Config, id string, wait time.Duration) bool {
	if id != "" {
		i := slices.IndexFunc(cfgs, func(c serverconf.Config) bool { return c.ID == id })
		switch {
		case i < 0:
			fmt.Fprintf(env.Stderr, "switchboard: no server %q (see switchboard servers list)\n", id)
			return false
		case !cfgs[i].Enabled:
			fmt.Fprintf(env.Stderr, "switchboard: server %s is disabled; switchboard servers enable %s starts it\n", id, id)
			return false
		}
		cfgs = cfgs[i : i+1]
	}
	err := s.Manager.SetServers(cfgs)
	if err == nil {
		err = s.Manager.Start(ctx)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return false
	}
	waitForServers(ctx, s.Manager, wait, env.Stderr)
	return true
}

// listTools is serversTools once the configs are read.
func listTools(ctx context.Context, env *Env, s *core.Services, cfgs []serverconf.Config, id string, schema bool, wait time.Duration) int {
	if !startServers(ctx, env, s, cfgs, id, wait) {
		return 1
	}
	tools := s.Manager.Tools()
	if len(tools) == 0 {
		fmt.Fprintln(env.Stdout, "No tools: no enabled server is connected.")
		return 0
	}
	if schema {
		printToolSchemas(env.Stdout, tools)
		return 0
	}
	if err := s.Broker.Load(ctx); err != nil { // the private marks
		fmt.Fprintln(env.Stderr, "switchboard:", err)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOL\tENABLED\tHINTS\tDESCRIPTION")
	for _, t := range tools {
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		if r := []rune(desc); len(r) > 80 {
			desc = string(r[:79]) + "…"
		}
		hints := hintWords(t.Annotations)
		if s.Broker.IsPrivate(t.Fingerprint, t.OriginalName) {
			hints = strings.TrimPrefix(hints+",marked-private", "-,")
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", t.ServerID, t.OriginalName, t.Enabled, hints, desc)
	}
	tw.Flush()
	return 0
}

// printToolSchemas prints each tool, then its input schema as the server
// sent it, indented.
func printToolSchemas(w io.Writer, tools []mcpconn.Tool) {
	for i, t := range tools {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s/%s (models see %s)\n", t.ServerID, t.OriginalName, t.Name)
		var out bytes.Buffer
		if len(t.Schema) == 0 || json.Indent(&out, t.Schema, "  ", "  ") != nil {
			fmt.Fprintln(w, "  (not kept: the server sent no schema, or one larger than 256 KiB)")
			continue
		}
		fmt.Fprintf(w, "  %s\n", out.Bytes())
	}
}

func serversImport(ctx context.Context, env *Env, file string) int {
	var data []byte
	var err error
	dir := "" // stdin has no directory: relative paths are left and warned about
	if file == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else if data, err = os.ReadFile(file); err == nil {
		dir, err = filepath.Abs(filepath.Dir(file))
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard: reading", file+":", err)
		return 1
	}
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	rep, err := s.Servers.ImportFile(ctx, data, dir)
	if err != nil {
		if rep != nil {
			printReport(env.Stdout, rep, false)
		}
		fmt.Fprintf(env.Stderr, "switchboard: %s: %v\nNothing was imported.\n", file, err)
		return 1
	}
	printReport(env.Stdout, rep, true)
	if lost := droppedSecrets(rep); !c.Keyring.Persistent && len(lost) > 0 {
		fmt.Fprintf(env.Stderr, "warning: the OS keyring is not available (%s), so these secret values were not kept: %s. "+
			"Set each again once the keyring works (printf '%%s' \"$VALUE\" | switchboard servers set-secret ID NAME) or in the app's server settings. %s\n",
			c.Keyring.Problem, strings.Join(lost, ", "), c.Keyring.Advice)
	}
	return 0
}

// printReport prints what an import found; saved says whether its servers
// were added, or only would have been (the import was refused as a whole).
func printReport(w io.Writer, rep *serverconf.ImportReport, saved bool) {
	fmt.Fprintf(w, "Format: %s\n", rep.Format)
	verb := "added   "
	if !saved {
		verb = "valid   "
	}
	for _, cfg := range rep.Added {
		fmt.Fprintf(w, "%s %s (%s)\n", verb, cfg.ID, cfg.Transport)
	}
	for _, n := range rep.Skipped {
		fmt.Fprintf(w, "skipped  %s\n", n)
	}
	for _, n := range rep.Failed {
		fmt.Fprintf(w, "failed   %s\n", n)
	}
	for _, n := range rep.Warnings {
		fmt.Fprintf(w, "warning  %s\n", n)
	}
	for _, in := range rep.NeedsInput {
		fmt.Fprintf(w, "needs a value: %+v (set it in the app's server form)\n", in)
	}
	if !saved {
		fmt.Fprintf(w, "%d valid, %d skipped, %d failed\n", len(rep.Added), len(rep.Skipped), len(rep.Failed))
		return
	}
	fmt.Fprintf(w, "%d added, %d skipped, %d failed\n", len(rep.Added), len(rep.Skipped), len(rep.Failed))
}

func serversExport(ctx context.Context, env *Env, format string) int {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	data, warnings, err := s.Servers.Export(ctx, format)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	env.Stdout.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		fmt.Fprintln(env.Stdout)
	}
	for _, w := range warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	return 0
}

// doctorServers connects each configured server once and reports it.
func doctorServers(ctx context.Context, env *Env, report func(ok bool, what, detail string)) bool {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return false
	}
	defer c.Close()
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		report(false, "servers", err.Error())
		return false
	}
	if len(cfgs) == 0 {
		fmt.Fprintln(env.Stdout, "      servers    none configured")
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	allOK := true
	installed := map[string]*serverconf.Install{}
	for _, c := range cfgs {
		if c.Install != nil {
			installed[c.ID] = c.Install
		}
	}
	if len(installed) > 0 {
		// Which Node the installed servers run on (noderuntime.Find).
		if n, err := s.Node(ctx); err != nil {
			report(false, "node", err.Error()+"; switchboard servers install --fetch-node PACKAGE downloads one")
		} else {
			report(true, "node", fmt.Sprintf("Node %s at %s (%s), for the installed servers", n.Version, n.Path, n.Source))
		}
	}
	for _, r := range s.Manager.Doctor(ctx, cfgs) {
		name := "server " + r.ServerID
		if in := installed[r.ServerID]; in != nil {
			pin := ""
			if in.Pinned {
				pin = ", pinned"
			}
			fmt.Fprintf(env.Stdout, "      %-10s installed %s %s (%s%s), runs on %s\n", name, in.Package, in.Version, in.Kind, pin, in.Runtime)
		}
		switch r.State {
		case "connected":
			report(true, name, fmt.Sprintf("connected in %s, %d tools, %s %s", r.ConnectTime.Round(time.Millisecond), len(r.Tools), r.Server, r.ProtocolVersion))
			if r.Warning != "" {
				fmt.Fprintf(env.Stdout, "warn  %-10s %s\n", name, r.Warning)
			}
		case "needs-auth":
			fmt.Fprintf(env.Stdout, "warn  %-10s needs authorization: open the app and click Authorize\n", name)
		default:
			allOK = false
			report(false, name, r.Error)
			for _, l := range r.Stderr {
				fmt.Fprintf(env.Stdout, "        stderr | %s\n", l)
			}
		}
	}
	// report already counted failures; tell runDoctor nothing more failed.
	_ = allOK
	return true
}

// droppedSecrets names each secret value the import moved to the keyring
// ("server search env SEARCH_API_KEY"); those the file did not hold (VS
// Code inputs) are not counted.
func droppedSecrets(rep *serverconf.ImportReport) []string {
	asked := map[string]bool{}
	for _, in := range rep.NeedsInput {
		asked[in.Ref] = true
	}
	var out []string
	for _, c := range rep.Added {
		for _, f := range []struct {
			what string
			vals map[string]serverconf.Value
		}{{"env", c.Env}, {"header", c.Headers}} {
			for _, name := range slices.Sorted(maps.Keys(f.vals)) {
				if ref := f.vals[name].SecretRef; ref != "" && !asked[ref] {
					out = append(out, fmt.Sprintf("server %s %s %s", c.ID, f.what, name))
				}
			}
		}
		for i, a := range c.Args {
			if strings.Contains(a, "${secret:") {
				out = append(out, fmt.Sprintf("server %s args[%d] (a password in a URL)", c.ID, i))
			}
		}
	}
	return out
}

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

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

func init() {
	register("servers", "list, import (Claude Desktop, VS Code, Cursor) and export MCP servers", runServers)
	doctorExtras = append(doctorExtras, doctorServers)
}

func runServers(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"list"}
	}
	switch args[0] {
	case "list":
		return serversList(ctx, env)
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
	}
	fmt.Fprintf(env.Stderr, "switchboard servers: unknown subcommand %q (list, import FILE, export [-format F])\n", args[0])
	return 2
}

func serversList(ctx context.Context, env *Env) int {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", cfg.ID, cfg.DisplayName(), cfg.Transport, cfg.Enabled, target)
	}
	tw.Flush()
	return 0
}

func serversImport(ctx context.Context, env *Env, file string) int {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(file)
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
	rep, err := s.Servers.Import(ctx, data)
	if err != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s: %v\nNothing was imported.\n", file, err)
		return 1
	}
	printReport(env.Stdout, rep)
	if !c.Keyring.Persistent && hasSecrets(rep.Added) {
		fmt.Fprintf(env.Stderr, "warning: the OS keyring is not available (%s), so the secret values of these servers were not kept; set them again in the app's server settings. %s\n", c.Keyring.Problem, c.Keyring.Advice)
	}
	if len(rep.Failed) > 0 {
		return 1
	}
	return 0
}

func printReport(w io.Writer, rep *serverconf.ImportReport) {
	fmt.Fprintf(w, "Format: %s\n", rep.Format)
	for _, cfg := range rep.Added {
		fmt.Fprintf(w, "added    %s (%s)\n", cfg.ID, cfg.Transport)
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
	for _, r := range s.Manager.Doctor(ctx, cfgs) {
		name := "server " + r.ServerID
		switch r.State {
		case "connected":
			report(true, name, fmt.Sprintf("connected in %s, %d tools, %s %s", r.ConnectTime.Round(time.Millisecond), len(r.Tools), r.Server, r.ProtocolVersion))
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

func hasSecrets(cfgs []serverconf.Config) bool {
	for _, c := range cfgs {
		for _, v := range c.Env {
			if v.SecretRef != "" {
				return true
			}
		}
		for _, v := range c.Headers {
			if v.SecretRef != "" {
				return true
			}
		}
	}
	return false
}

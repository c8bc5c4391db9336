package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpregistry"
)

func init() {
	register("registry", "search an MCP registry (the official one, or the registry URL setting) and show how each server would be added", runRegistry)
}

const registryUsage = `usage: switchboard registry search [QUERY] [--limit N] [--cursor C] [--json] [--registry URL]
       switchboard registry show NAME [--version V] [--json] [--registry URL]
       switchboard registry install NAME [--choice N] [--id ID] [--set KEY=VALUE ...] [--fetch-node]`

func runRegistry(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, registryUsage)
		return 2
	}
	switch args[0] {
	case "search":
		return registrySearch(ctx, env, args[1:])
	case "show":
		return registryShow(ctx, env, args[1:])
	case "install":
		return registryInstall(ctx, env, args[1:]) // install.go
	}
	fmt.Fprintln(env.Stderr, registryUsage)
	return 2
}

// registryFlags are the flags both verbs take.
type registryFlags struct {
	registry *string
	asJSON   *bool
}

func newRegistryFlags(fs *flag.FlagSet) registryFlags {
	return registryFlags{
		registry: fs.String("registry", "", "the registry's URL (default: the mcp-registry setting, else "+mcpregistry.DefaultURL+")"),
		asJSON:   fs.Bool("json", false, "print JSON"),
	}
}

// registryClient is a client of the registry the flag names, else the
// one the settings name, else the official one.
func registryClient(ctx context.Context, env *Env, flagURL string) (*mcpregistry.Client, bool) {
	url := flagURL
	if url == "" {
		c, err := core.Open(ctx, testCoreOptions)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return nil, false
		}
		defer c.Close()
		if p := c.Fatal(); p != nil {
			fmt.Fprintf(env.Stderr, "switchboard: %s\n%s\n", p.Message, p.Advice)
			return nil, false
		}
		s, err := core.LoadSettings(ctx, c.Store)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return nil, false
		}
		url = s.MCPRegistry
	}
	return &mcpregistry.Client{BaseURL: url}, true
}

func registrySearch(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("registry search", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	rf := newRegistryFlags(fs)
	limit := fs.Int("limit", 20, fmt.Sprintf("servers per page (1 to %d)", mcpregistry.MaxLimit))
	cursor := fs.String("cursor", "", "the page after the one that printed this cursor")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 || *limit < 1 || *limit > mcpregistry.MaxLimit {
		fmt.Fprintln(env.Stderr, registryUsage+"\n(quote a QUERY of several words; --limit is 1 to 100)")
		return 2
	}
	query := strings.Join(pos, "")
	client, ok := registryClient(ctx, env, *rf.registry)
	if !ok {
		return 1
	}
	page, err := client.Search(ctx, query, *cursor, *limit)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	if *rf.asJSON {
		return printJSON(env, page)
	}
	if len(page.Entries) == 0 {
		if query == "" {
			fmt.Fprintln(env.Stdout, "The registry lists no servers.")
		} else {
			fmt.Fprintf(env.Stdout, "No server's name or description contains %q.\n", query)
		}
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tVERSION\tADD AS\tDESCRIPTION")
		for _, e := range page.Entries {
			desc := e.Server.Description
			if st := e.Status(); st != "active" {
				desc = "[" + st + "] " + desc
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Server.Name, cut(e.Server.Version, 20), addAs(e), cut(desc, 70))
		}
		tw.Flush()
	}
	if page.Skipped > 0 {
		fmt.Fprintf(env.Stderr, "(%d entries the registry sent are not valid and are left out)\n", page.Skipped)
	}
	if page.NextCursor != "" {
		more := "switchboard registry search"
		if query != "" {
			more += " " + shellWord(query)
		}
		fmt.Fprintf(env.Stdout, "More: %s --limit %d --cursor %s\n", more, *limit, shellWord(page.NextCursor))
	}
	if len(page.Entries) > 0 {
		fmt.Fprintln(env.Stdout, "Details and what each needs: switchboard registry show NAME")
	}
	return 0
}

// addAs lists the kinds of the ways Switchboard can add e, best first,
// or says there is none.
func addAs(e mcpregistry.Entry) string {
	var kinds []string
	best := mcpregistry.Preferred(e)
	opts := mcpregistry.Options(e)
	if best >= 0 {
		kinds = append(kinds, string(opts[best].Kind))
	}
	for i, o := range opts {
		if i != best && o.Unsupported == "" && !slices.Contains(kinds, string(o.Kind)) {
			kinds = append(kinds, string(o.Kind))
		}
	}
	if len(kinds) == 0 {
		return "-"
	}
	return strings.Join(kinds, ", ")
}

// showOption is one way to add an entry, as show --json prints it.
type showOption struct {
	mcpregistry.Option
	Index int `json:"index"`
	// Plan is what adding it does; nil when Switchboard cannot use it.
	Plan *mcpregistry.Plan `json:"plan,omitempty"`
	// CommandLine is what it runs (Plan.CommandLine), for a local server.
	CommandLine string `json:"commandLine,omitempty"`
}

func registryShow(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("registry show", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	rf := newRegistryFlags(fs)
	version := fs.String("version", "", "a version other than the latest")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, registryUsage+"\n(NAME as search prints it, like io.github.modelcontextprotocol/server-memory)")
		return 2
	}
	client, ok := registryClient(ctx, env, *rf.registry)
	if !ok {
		return 1
	}
	e, err := client.Get(ctx, pos[0], *version)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	best := mcpregistry.Preferred(e)
	var opts []showOption
	for i, o := range mcpregistry.Options(e) {
		so := showOption{Option: o, Index: i}
		if o.Unsupported == "" {
			if p, err := mcpregistry.PlanInstall(e, i); err == nil {
				so.Plan, so.CommandLine = &p, p.CommandLine()
			}
		}
		opts = append(opts, so)
	}
	if *rf.asJSON {
		return printJSON(env, struct {
			Entry     mcpregistry.Entry `json:"entry"`
			Options   []showOption      `json:"options"`
			Preferred int               `json:"preferred"`
		}{e, opts, best})
	}
	printEntry(env.Stdout, e, opts, best)
	return 0
}

func printEntry(w io.Writer, e mcpregistry.Entry, opts []showOption, best int) {
	s := e.Server
	fmt.Fprintf(w, "%s %s", s.Name, s.Version)
	if s.Title != "" {
		fmt.Fprintf(w, "  (%s)", s.Title)
	}
	fmt.Fprintln(w)
	if s.Description != "" {
		fmt.Fprintf(w, "  %s\n", s.Description)
	}
	status := e.Status()
	if o := e.Meta.Official; o != nil {
		if o.StatusMessage != "" {
			status += ": " + o.StatusMessage
		}
		if o.PublishedAt != "" {
			status += ", published " + o.PublishedAt
		}
	}
	fmt.Fprintf(w, "  status: %s\n", status)
	if s.WebsiteURL != "" {
		fmt.Fprintf(w, "  website: %s\n", s.WebsiteURL)
	}
	if r := s.Repository; r != nil && r.URL != "" {
		src := r.URL
		if r.Subfolder != "" {
			src += " (" + r.Subfolder + ")"
		}
		fmt.Fprintf(w, "  source: %s\n", src)
	}
	if len(opts) == 0 {
		fmt.Fprintln(w, "\nIt lists no package and no remote: nothing to add. See its website or source.")
		return
	}
	fmt.Fprintln(w, "\nWays to add it (* the one offered first):")
	for _, o := range opts {
		mark := " "
		if o.Index == best {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %d  %s\n", mark, o.Index, o.Label)
		if o.Plan == nil {
			fmt.Fprintf(w, "     not usable: %s\n", o.Unsupported)
			continue
		}
		p := o.Plan
		fmt.Fprintf(w, "     adds: %s server %q", p.Kind, p.ID)
		switch p.Kind {
		case mcpregistry.KindRemote:
			fmt.Fprintf(w, " at %s", p.Config.URL)
		case mcpregistry.KindMCPB:
			fmt.Fprintf(w, " from %s (sha256 %s)", p.URL, p.SHA256)
		}
		fmt.Fprintln(w)
		if o.CommandLine != "" {
			fmt.Fprintf(w, "     runs: %s\n", o.CommandLine)
		}
		for _, h := range p.Headers {
			if len(h.Vars) == 0 {
				fmt.Fprintf(w, "     header: %s: %s\n", h.Name, h.Text)
			}
		}
		for _, f := range p.Fields {
			fmt.Fprintf(w, "     %s  %s", f.Key, fieldTraits(f))
			if f.Description != "" {
				fmt.Fprintf(w, " — %s", f.Description)
			}
			fmt.Fprintln(w)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "     note: %s\n", n)
		}
	}
}

// fieldTraits describes a field in a few words: "required, secret",
// "optional, default info, one of debug|info".
func fieldTraits(f mcpregistry.Field) string {
	var t []string
	if f.Required {
		t = append(t, "required")
	} else {
		t = append(t, "optional")
	}
	if f.Secret {
		t = append(t, "secret (kept in the OS keyring)")
	}
	if f.Format != "" && f.Format != "string" {
		t = append(t, f.Format)
	}
	if f.Repeated {
		t = append(t, "one or more, one a line")
	}
	if f.Default != "" {
		t = append(t, "default "+shellWord(f.Default))
	}
	if len(f.Choices) > 0 {
		t = append(t, "one of "+strings.Join(f.Choices, "|"))
	}
	return "(" + strings.Join(t, ", ") + ")"
}

func printJSON(env *Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	return 0
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

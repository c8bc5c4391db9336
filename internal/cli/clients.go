package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/clientconfig"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/store"
)

func init() {
	register("clients", "connect other apps (MCP clients): add one, share conversations with it, revoke it, read its audit", runClients)
	helpText["clients"] = `Usage:
  switchboard clients [list]                 the connected apps
  switchboard clients add NAME [--can-start] register an app; prints its token once (on standard output, alone)
                                             --can-start: it may start conversations of its own
  switchboard clients show NAME              its grants (conversation, access, expiry) and allowed tools
  switchboard clients grant NAME CONVERSATION [--write] [--expires WHEN]
                                             share a conversation (an ID or a unique start of one): read,
                                             or read and write; WHEN is a duration (90m, 24h, 7d) or RFC 3339 time
  switchboard clients ungrant NAME CONVERSATION
  switchboard clients revoke NAME            refuse its token from now on (grants kept; rotate lets it in again)
  switchboard clients rotate NAME            a new token (printed once); the old one stops at once
  switchboard clients remove NAME            delete it with its grants and allowed tools (its audit stays)
  switchboard clients can-start NAME on|off  whether it may start conversations of its own
  switchboard clients allow NAME SERVER TOOL let its turns run the tool without asking (also with no window
                                             open); TOOL as switchboard servers tools lists it
  switchboard clients disallow NAME SERVER TOOL
  switchboard clients connect APP [--can-start] [--write]
                                             connect claude-desktop, vscode or cursor: registers it (or gives
                                             it a new token) and prints the entry for its config file, token
                                             included; --write merges it into the file (others kept, a backup made)
  switchboard clients audit [NAME] [--denied] [--limit N] [--before ID] [--json]
                                             its requests (or every app's), newest first; --before pages back

Nothing is shared until you grant it. The app runs "switchboard mcp serve" with the token in the
environment variable SWITCHBOARD_CLIENT_TOKEN. Flags may go before or after the arguments.`
}

const clientsUsage = "usage: switchboard clients [list|add|show|grant|ungrant|revoke|rotate|remove|can-start|allow|disallow|connect|audit] … (switchboard clients -h)"

func runClients(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"list"}
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("clients "+sub, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	usage := func(u string) int {
		fmt.Fprintln(env.Stderr, "usage: switchboard clients "+u)
		return 2
	}
	parse := func(n int, u string) ([]string, bool) {
		pos, err := parseInterleaved(fs, args)
		if err != nil || (n >= 0 && len(pos) != n) {
			usage(u)
			return nil, false
		}
		return pos, true
	}
	switch sub {
	case "list":
		if _, ok := parse(0, "list"); !ok {
			return 2
		}
		return withClients(ctx, env, clientsList)
	case "add":
		canStart := fs.Bool("can-start", false, "it may start conversations of its own")
		pos, ok := parse(1, "add NAME [--can-start]")
		if !ok {
			return 2
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, _ *store.Store) int {
			return clientsAdd(ctx, env, r, pos[0], *canStart)
		})
	case "connect":
		canStart := fs.Bool("can-start", false, "it may start conversations of its own (when it is new)")
		write := fs.Bool("write", false, "merge the entry into the app's config file")
		pos, ok := parse(1, "connect claude-desktop|vscode|cursor [--can-start] [--write]")
		if !ok {
			return 2
		}
		app, err := clientconfig.ParseApp(pos[0])
		if err != nil {
			return failWith(env, err)
		}
		return clientsConnect(ctx, env, app, *canStart, *write)
	case "show", "revoke", "rotate", "remove":
		pos, ok := parse(1, sub+" NAME")
		if !ok {
			return 2
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			return clientsOne(ctx, env, r, sub, pos[0])
		})
	case "grant":
		write := fs.Bool("write", false, "read and write (default: read only)")
		expires := fs.String("expires", "", "when the grant stops: a duration (90m, 24h, 7d) or an RFC 3339 time")
		pos, ok := parse(2, "grant NAME CONVERSATION [--write] [--expires WHEN]")
		if !ok {
			return 2
		}
		until, err := parseExpiry(*expires, time.Now())
		if err != nil {
			return failWith(env, err)
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			return clientsGrant(ctx, env, r, st, pos[0], pos[1], *write, until)
		})
	case "ungrant":
		pos, ok := parse(2, "ungrant NAME CONVERSATION")
		if !ok {
			return 2
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			conv, err := findConversation(ctx, st, pos[1])
			if err != nil {
				return failWith(env, err)
			}
			if err := r.Ungrant(ctx, pos[0], conv.ID); err != nil {
				return failWith(env, err)
			}
			fmt.Fprintf(env.Stdout, "conversation %s is no longer shared with %s\n", conv.ID, pos[0])
			return 0
		})
	case "can-start":
		pos, ok := parse(2, "can-start NAME on|off")
		if !ok {
			return 2
		}
		on, err := parseOnOff(pos[1])
		if err != nil {
			return failWith(env, err)
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			if err := r.SetCanStart(ctx, pos[0], on); err != nil {
				return failWith(env, err)
			}
			if on {
				fmt.Fprintf(env.Stdout, "%s may start conversations of its own (only it and you see them)\n", pos[0])
			} else {
				fmt.Fprintf(env.Stdout, "%s may no longer start conversations (those it started stay shared with it)\n", pos[0])
			}
			return 0
		})
	case "allow", "disallow":
		pos, ok := parse(3, sub+" NAME SERVER TOOL")
		if !ok {
			return 2
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			return clientsAllow(ctx, env, r, st, sub == "allow", pos[0], pos[1], pos[2])
		})
	case "audit":
		denied := fs.Bool("denied", false, "only the refused requests")
		limit := fs.Int("limit", 50, "how many entries, newest first (at most 1000)")
		before := fs.Int64("before", 0, "only entries older than this entry ID (to page back)")
		asJSON := fs.Bool("json", false, "print JSON")
		pos, ok := parse(-1, "audit [NAME] [--denied] [--limit N] [--before ID] [--json]")
		if !ok {
			return 2
		}
		if len(pos) > 1 || *limit < 1 || *limit > store.MaxClientAuditLimit || *before < 0 {
			return usage("audit [NAME] [--denied] [--limit N (1 to 1000)] [--before ID] [--json]")
		}
		f := clients.AuditFilter{Limit: *limit, Before: *before}
		if len(pos) == 1 {
			f.Client = pos[0]
		}
		if *denied {
			f.Allowed = new(bool)
		}
		return withClients(ctx, env, func(ctx context.Context, env *Env, r *clients.Registry, st *store.Store) int {
			return clientsAudit(ctx, env, r, f, *asJSON)
		})
	}
	fmt.Fprintf(env.Stderr, "switchboard clients: unknown subcommand %q\n%s\n", sub, clientsUsage)
	return 2
}

// parseInterleaved parses fs's flags wherever they stand among args and
// returns the other arguments in order; everything after "--" is an
// argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// withClients opens the database (no servers start) and runs f with a
// Registry over it. Like the other commands it takes no instance lock: the
// window and `mcp serve` share the database safely, and they re-read it,
// so a revocation made here reaches their open sessions within seconds.
// clientsConnect registers app (or gives it a new token) and prints its
// config entry, or writes it into the app's file (write).
func clientsConnect(ctx context.Context, env *Env, app clientconfig.App, canStart, write bool) int {
	c, svc, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	opts := c.ClientConfigOptions()
	if write { // refuse before a token is made for a file that cannot take it
		if p, err := clientconfig.Check(app, opts); err != nil {
			return failWith(env, err)
		} else if p.Problem != "" {
			return failWith(env, fmt.Errorf("%s; run without --write to print the entry and paste it yourself", p.Problem))
		}
	}
	conn, err := svc.ConnectApp(ctx, app, canStart, opts)
	if err != nil {
		return failWith(env, err)
	}
	if conn.Rotated {
		fmt.Fprintf(env.Stderr, "%s was connected already: it has a new token now, and the old one no longer works.\n", conn.Client.Name)
	}
	if !write {
		fmt.Fprintln(env.Stdout, conn.Preview.JSON)
		fmt.Fprintf(env.Stderr, "Add this to %s (under %q), or run again with --write. The token in it is shown this once.\n"+
			"%s sees nothing until you share a conversation with it: switchboard clients grant %q CONVERSATION [--write]\n",
			conn.Preview.Path, conn.Preview.Key, conn.Client.Name, conn.Client.Name)
		return 0
	}
	w, err := clientconfig.Write(app, conn.Token, opts)
	if err != nil {
		return failWith(env, fmt.Errorf("%w (the new token works; run without --write to print the entry)", err))
	}
	fmt.Fprintf(env.Stdout, "wrote the %q entry into %s\n", clientconfig.ServerName, w.Path)
	if w.Backup != "" {
		fmt.Fprintf(env.Stdout, "the file as it was is in %s\n", w.Backup)
	}
	fmt.Fprintf(env.Stdout, "restart %s to connect; it sees nothing until you share a conversation with it: switchboard clients grant %q CONVERSATION [--write]\n",
		conn.Client.Name, conn.Client.Name)
	return 0
}

func withClients(ctx context.Context, env *Env, f func(context.Context, *Env, *clients.Registry, *store.Store) int) int {
	c, err := core.Open(ctx, testCoreOptions)
	if err != nil {
		return failWith(env, err)
	}
	defer c.Close()
	if p := c.Fatal(); p != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s\n%s\n", p.Message, p.Advice)
		return 1
	}
	return f(ctx, env, clients.New(c.Store), c.Store)
}

func clientsList(ctx context.Context, env *Env, r *clients.Registry, _ *store.Store) int {
	list, err := r.List(ctx)
	if err != nil {
		return failWith(env, err)
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No connected apps. switchboard clients add NAME registers one.")
		return 0
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tSTATE\tGRANTS\tCAN-START\tLAST-SEEN\tADDED")
	for _, c := range list {
		state := "active"
		if c.Revoked() {
			state = "revoked " + c.RevokedAt.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", c.Name, c.ID, state, c.Grants, yesNo(c.CanStart),
			when(c.LastSeenAt, "never"), c.CreatedAt.Local().Format(time.DateTime))
	}
	tw.Flush()
	return 0
}

func clientsAdd(ctx context.Context, env *Env, r *clients.Registry, name string, canStart bool) int {
	c, token, err := r.Add(ctx, name, canStart)
	if err != nil {
		return failWith(env, err)
	}
	fmt.Fprintln(env.Stdout, token)
	fmt.Fprintf(env.Stderr, "Added %s (ID %s). Its token is printed above, this once only: Switchboard keeps only its hash.\n", c.Name, c.ID)
	printTokenUse(env.Stderr, c.Name, token)
	return 0
}

// printTokenUse tells how an app uses its token.
func printTokenUse(w io.Writer, name, token string) {
	exe, err := os.Executable()
	if err != nil {
		exe = "switchboard"
	}
	entry, _ := json.Marshal(map[string]any{"command": exe, "args": []string{"mcp", "serve"},
		"env": map[string]string{"SWITCHBOARD_CLIENT_TOKEN": token}})
	fmt.Fprintf(w, `
The app starts Switchboard as an MCP server over stdio, with the token in its environment. In its config
(claude_desktop_config.json "mcpServers", VS Code mcp.json "servers", Cursor mcp.json "mcpServers"):

  "switchboard": %s

It sees nothing until you share a conversation with it:
  switchboard clients grant %q CONVERSATION [--write]
`, entry, name)
}

func clientsOne(ctx context.Context, env *Env, r *clients.Registry, sub, name string) int {
	switch sub {
	case "show":
		return clientsShow(ctx, env, r, name)
	case "revoke":
		if err := r.Revoke(ctx, name); err != nil {
			return failWith(env, err)
		}
		fmt.Fprintf(env.Stdout, "revoked %s: its token is refused from now on, and its open sessions end within seconds; "+
			"its grants are kept (switchboard clients rotate %q lets it in again with a new token)\n", name, name)
	case "rotate":
		token, err := r.Rotate(ctx, name)
		if err != nil {
			return failWith(env, err)
		}
		fmt.Fprintln(env.Stdout, token)
		fmt.Fprintf(env.Stderr, "%s has a new token, printed above this once only; the old one no longer works.\n", name)
		printTokenUse(env.Stderr, name, token)
	case "remove":
		if err := r.Remove(ctx, name); err != nil {
			return failWith(env, err)
		}
		fmt.Fprintf(env.Stdout, "removed %s with its grants and allowed tools; its audit stays\n", name)
	}
	return 0
}

func clientsShow(ctx context.Context, env *Env, r *clients.Registry, name string) int {
	c, err := r.Get(ctx, name)
	if err != nil {
		return failWith(env, err)
	}
	grants, err := r.Grants(ctx, c.ID)
	if err != nil {
		return failWith(env, err)
	}
	tools, err := r.AllowedTools(ctx, c.ID)
	if err != nil {
		return failWith(env, err)
	}
	state := "active"
	if c.Revoked() {
		state = "revoked " + c.RevokedAt.Local().Format(time.DateTime) + " (its grants do not work; rotate lets it in again)"
	}
	fmt.Fprintf(env.Stdout, "%s (ID %s)\nstate:      %s\ncan start:  %s\nlast seen:  %s\nadded:      %s\n",
		c.Name, c.ID, state, yesNo(c.CanStart), when(c.LastSeenAt, "never"), c.CreatedAt.Local().Format(time.DateTime))
	fmt.Fprintln(env.Stdout)
	if len(grants) == 0 {
		fmt.Fprintf(env.Stdout, "No conversation is shared with it (switchboard clients grant %q CONVERSATION).\n", c.Name)
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CONVERSATION\tACCESS\tEXPIRES\tSTATE\tTITLE")
		for _, g := range grants {
			access := string(g.Access)
			if g.Owned {
				access += " (started it)"
			}
			gs := "works"
			switch {
			case c.Revoked():
				gs = "app revoked"
			case g.Expired:
				gs = "expired"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.ConversationID, access, when(g.ExpiresAt, "never"), gs, clipLine(g.Title, 60))
		}
		tw.Flush()
	}
	fmt.Fprintln(env.Stdout)
	if len(tools) == 0 {
		fmt.Fprintln(env.Stdout, "No tool runs without asking in its turns (switchboard clients allow NAME SERVER TOOL).")
	} else {
		fmt.Fprintln(env.Stdout, "Tools its turns run without asking:")
		for _, t := range tools {
			fmt.Fprintf(env.Stdout, "  %s/%s\n", t.ServerID, t.Tool)
		}
	}
	return 0
}

func clientsGrant(ctx context.Context, env *Env, r *clients.Registry, st *store.Store, name, convRef string, write bool, until time.Time) int {
	conv, err := findConversation(ctx, st, convRef)
	if err != nil {
		return failWith(env, err)
	}
	access := clients.Read
	if write {
		access = clients.Write
	}
	if err := r.Grant(ctx, name, conv.ID, access, until); err != nil {
		return failWith(env, err)
	}
	what := "to read"
	if write {
		what = "to read and write"
	}
	fmt.Fprintf(env.Stdout, "shared conversation %s (%s) with %s %s, %s\n", conv.ID, clipLine(titleOr(conv.Title), 60), name, what,
		"until "+when(until, "it is ungranted"))
	return 0
}

// findConversation resolves an ID or a unique start of one, or says how
// to find it.
func findConversation(ctx context.Context, st *store.Store, ref string) (store.Conversation, error) {
	conv, err := st.ConversationByPrefix(ctx, strings.TrimSpace(ref))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return conv, fmt.Errorf("no conversation %q; copy its ID from the window (the conversation's menu), or from switchboard ask's output", ref)
	case errors.Is(err, store.ErrAmbiguous):
		return conv, fmt.Errorf("more than one conversation's ID starts with %q; give more of the ID", ref)
	}
	return conv, err
}

func clientsAllow(ctx context.Context, env *Env, r *clients.Registry, st *store.Store, allow bool, name, server, tool string) int {
	serverID, err := findServer(ctx, st, server)
	if err != nil && allow {
		return failWith(env, err)
	}
	if err != nil {
		serverID = server // disallowing what a removed server had is fine
	}
	if allow {
		if err := r.AllowTool(ctx, name, serverID, tool); err != nil {
			return failWith(env, err)
		}
		fmt.Fprintf(env.Stdout, "%s's turns run %s of %s without asking, also with no window open\n", name, tool, serverID)
		return 0
	}
	if err := r.DisallowTool(ctx, name, serverID, tool); err != nil {
		return failWith(env, err)
	}
	fmt.Fprintf(env.Stdout, "%s's turns ask again before running %s of %s (and with no window open, it does not run)\n", name, tool, serverID)
	return 0
}

// findServer returns the ID of the server whose ID, or name (ignoring
// case), is ref.
func findServer(ctx context.Context, st *store.Store, ref string) (string, error) {
	list, err := st.Servers(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if s.ID == ref {
			return s.ID, nil
		}
	}
	var found []string
	for _, s := range list {
		if strings.EqualFold(s.Name, ref) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no server %q; switchboard servers list shows their IDs", ref)
	}
	return "", fmt.Errorf("%d servers are named %q (%s); give the ID", len(found), ref, strings.Join(found, ", "))
}

func clientsAudit(ctx context.Context, env *Env, r *clients.Registry, f clients.AuditFilter, asJSON bool) int {
	if f.Client != "" {
		// A removed client's audit stays, under its name: only say a
		// name is unknown when it is in neither.
		if _, err := r.Get(ctx, f.Client); err != nil && !errors.Is(err, clients.ErrNoClient) {
			return failWith(env, err)
		}
	}
	list, err := r.Audit(ctx, f)
	if err != nil {
		return failWith(env, err)
	}
	if asJSON {
		return printIndented(env, list)
	}
	if len(list) == 0 {
		if _, err := r.Get(ctx, f.Client); f.Client != "" && err != nil {
			return failWith(env, err)
		}
		fmt.Fprintln(env.Stdout, "No requests recorded.")
		return 0
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tAPP\tVIA\tOPERATION\tCONVERSATION\tRESULT\tREASON")
	for _, e := range list {
		result := "allowed"
		if !e.Allowed {
			result = "denied"
		}
		app := e.ClientName
		if app == "" {
			app = "(no valid token)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.At.Local().Format(time.DateTime), clipLine(app, 32), e.Transport,
			clipLine(e.Operation, 48), e.ConversationID, result, clipLine(e.Reason, 100))
	}
	tw.Flush()
	if len(list) == f.Limit {
		fmt.Fprintf(env.Stderr, "(older entries: --before %d)\n", list[len(list)-1].ID)
	}
	return 0
}

// parseExpiry reads WHEN of --expires: "" (never), a duration from now
// (90m, 24h, or whole days such as 7d), or an RFC 3339 time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		if err == nil && (n < 1 || n > 100*365) {
			err = errors.New("out of range")
		}
		d = time.Duration(n) * 24 * time.Hour
	} else if d, err = time.ParseDuration(s); err != nil {
		if t, terr := time.Parse(time.RFC3339, s); terr == nil {
			return t, nil
		}
	}
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--expires %q is neither a duration (90m, 24h, 7d) nor an RFC 3339 time (2030-01-02T15:04:05Z)", s)
	}
	return now.Add(d), nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// when formats t, or says none when it is zero.
func when(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.Local().Format(time.DateTime)
}

func titleOr(title string) string {
	if title == "" {
		return "untitled"
	}
	return title
}

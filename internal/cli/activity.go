package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/store"
)

func init() {
	register("activity", "list or export every tool call across conversations: who allowed it, how long it took, what it returned (--format jsonl|csv)", runActivity)
}

const activityUsage = `usage: switchboard activity [--server S] [--tool T] [--decision D] [--since DATE] [--until DATE] [--query Q] [--limit N] [--format table|jsonl|csv]
  --decision takes who decided (` + "user, always, yolo, read-only, app-grant, guard, system, none" + `)
             or how the call ended (done, failed, denied, cancelled, running, waiting_approval, pending)
  DATE is 2006-01-02 (a local day; --until includes it) or an RFC 3339 time`

// activityTableLimit is how many calls the table shows unless --limit says.
const activityTableLimit = 50

func runActivity(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("activity", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	server := fs.String("server", "", "only this server's calls (its ID or name)")
	tool := fs.String("tool", "", "only calls of this tool (the server's name for it)")
	decision := fs.String("decision", "", "only calls decided by this, or that ended so")
	since := fs.String("since", "", "only calls requested from this day or time on")
	until := fs.String("until", "", "only calls requested before this time, or on or before this day")
	query := fs.String("query", "", "only calls whose tool, arguments, result text or error hold these words")
	limit := fs.Int("limit", 0, fmt.Sprintf("at most this many calls (the table: %d; an export: all)", activityTableLimit))
	format := fs.String("format", "table", "table, jsonl (whole records, results included) or csv")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, activityUsage)
		return 2
	}
	f := store.ActivityFilter{Tool: *tool, Query: *query}
	var err error
	if f.Since, err = parseDay(*since, false); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard: --since:", err)
		return 2
	}
	if f.Until, err = parseDay(*until, true); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard: --until:", err)
		return 2
	}
	switch d := *decision; {
	case d == "":
	case slices.Contains(store.Whos, d):
		f.Who = d
	case slices.Contains(store.CallStatuses, d):
		f.Status = d
	default:
		fmt.Fprintf(env.Stderr, "switchboard: --decision %q is neither who decided (%s) nor how a call ended (%s)\n",
			d, strings.Join(store.Whos, ", "), strings.Join(store.CallStatuses, ", "))
		return 2
	}
	if *format != "table" && !slices.Contains(core.ActivityFormats, *format) {
		fmt.Fprintf(env.Stderr, "switchboard: --format %q: use table, jsonl or csv\n", *format)
		return 2
	}
	if *limit < 0 {
		fmt.Fprintln(env.Stderr, "switchboard: --limit must be 0 or more")
		return 2
	}

	c, _, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	if *server != "" {
		id, err := resolveActivityServer(ctx, c.Store, *server)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		f.ServerID = id
	}
	if *format != "table" {
		if _, err := core.WriteActivity(ctx, c.Store, env.Stdout, f, *format, *limit); err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		return 0
	}
	if *limit == 0 {
		*limit = activityTableLimit
	}
	f.Limit = min(*limit, store.MaxActivityLimit)
	var rows []store.ActivityRow
	more := false
	for len(rows) < *limit {
		page, err := c.Store.Activity(ctx, f, false)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		rows = append(rows, page.Rows...)
		if more = page.Next != ""; !more {
			break
		}
		f.Cursor = page.Next
	}
	if len(rows) > *limit {
		rows, more = rows[:*limit], true
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.Stdout, "no tool calls match")
		return 0
	}
	printActivity(env.Stdout, rows)
	if more {
		fmt.Fprintf(env.Stdout, "(the newest %d shown; --limit N shows more, --format jsonl or csv exports them all)\n", len(rows))
	}
	return 0
}

// parseDay reads a local day (2006-01-02) or an RFC 3339 time; a day
// given as an end means the end of that day.
func parseDay(s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a day (2006-01-02) nor an RFC 3339 time (2006-01-02T15:04:05Z)", s)
	}
	return t, nil
}

// resolveActivityServer finds a server among those that made calls, by ID
// or, failing that, by name (any case).
func resolveActivityServer(ctx context.Context, st *store.Store, s string) (string, error) {
	facets, err := st.ActivityFacets(ctx)
	if err != nil {
		return "", err
	}
	var names []string
	for _, sv := range facets.Servers {
		if sv.ID == s {
			return sv.ID, nil
		}
	}
	for _, sv := range facets.Servers {
		if strings.EqualFold(sv.Name, s) {
			return sv.ID, nil
		}
		names = append(names, fmt.Sprintf("%s (%s)", sv.ID, sv.Name))
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no server %q: no tool calls are recorded yet", s)
	}
	return "", fmt.Errorf("no server %q made tool calls; these did: %s", s, strings.Join(names, ", "))
}

func printActivity(w io.Writer, rows []store.ActivityRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUESTED\tSERVER\tTOOL\tWHO\tSTATUS\tDURATION\tRESULT\tARGUMENTS\tERROR")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.RequestedAt.Local().Format(time.DateTime), r.ServerName, r.Tool,
			r.Who, r.Status, (time.Duration(r.DurationMs) * time.Millisecond).String(), byteSize(r.ResultSize),
			clipLine(r.Arguments, 60), clipLine(r.Error, 60))
	}
	tw.Flush()
}

// byteSize says n bytes as people read it ("-" for none).
func byteSize(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

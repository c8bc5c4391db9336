package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/store"
)

func init() {
	register("conversations", "list conversations (pinned first; archived ones with -archived), pin, unpin, archive, unarchive", runConversations)
	helpText["conversations"] = `Usage:
  switchboard conversations [list] [-archived] [-json] [-n N]
                                         the conversations the sidebar shows, pinned first, then the most recently
                                         updated: ID, PINNED, UPDATED, TITLE; -archived lists the archived ones
                                         instead; -n bounds the count (default 100, 0 for all)
  switchboard conversations pin ID       keep it at the top of the sidebar (unpin undoes it)
  switchboard conversations archive ID   take it out of the sidebar; it stays searchable and keeps its pin
                                         (unarchive brings it back)
ID is a conversation's ID or a unique start of one. A window already open shows the change when it next
loads the list.`
}

const conversationsUsage = "usage: switchboard conversations [list [-archived] [-json] [-n N]] | pin|unpin|archive|unarchive ID"

func runConversations(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-') {
		args = append([]string{"list"}, args...)
	}
	switch args[0] {
	case "list":
		fs := flag.NewFlagSet("conversations list", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		archived := fs.Bool("archived", false, "list the archived conversations")
		asJSON := fs.Bool("json", false, "print JSON (an array of conversations)")
		n := fs.Int("n", 100, "at most this many (0 for all)")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 || *n < 0 {
			fmt.Fprintln(env.Stderr, conversationsUsage)
			return 2
		}
		shelf := store.ShelfActive
		if *archived {
			shelf = store.ShelfArchived
		}
		return withConversations(ctx, env, func(st *store.Store) int {
			return conversationsList(ctx, env, st, shelf, *n, *asJSON)
		})
	case "pin", "unpin", "archive", "unarchive":
		if len(args) != 2 {
			fmt.Fprintln(env.Stderr, conversationsUsage)
			return 2
		}
		verb := args[0]
		return withConversations(ctx, env, func(st *store.Store) int {
			conv, err := findConversation(ctx, st, args[1])
			if err != nil {
				return failWith(env, err)
			}
			switch verb {
			case "pin", "unpin":
				err = st.PinConversation(ctx, conv.ID, verb == "pin")
			default:
				err = st.ArchiveConversation(ctx, conv.ID, verb == "archive")
			}
			if err != nil {
				return failWith(env, err)
			}
			fmt.Fprintf(env.Stdout, "%s conversation %s (%s)\n", conversationsDone[verb], conv.ID, clipLine(titleOr(conv.Title), 60))
			return 0
		})
	}
	fmt.Fprintf(env.Stderr, "switchboard conversations: unknown subcommand %q\n%s\n", args[0], conversationsUsage)
	return 2
}

// conversationsDone says what a verb did.
var conversationsDone = map[string]string{"pin": "pinned", "unpin": "unpinned", "archive": "archived", "unarchive": "unarchived"}

func conversationsList(ctx context.Context, env *Env, st *store.Store, shelf store.Shelf, n int, asJSON bool) int {
	list, err := st.ListShelf(ctx, shelf, n, 0)
	if err != nil {
		return failWith(env, err)
	}
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return failWith(env, err)
		}
		return 0
	}
	if len(list) == 0 {
		if shelf == store.ShelfArchived {
			fmt.Fprintln(env.Stdout, "No archived conversations.")
		} else {
			fmt.Fprintln(env.Stdout, "No conversations (switchboard conversations -archived lists the archived ones).")
		}
		return 0
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPINNED\tUPDATED\tTITLE")
	for _, c := range list {
		pinned := "-"
		if c.Pinned {
			pinned = "pinned"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, pinned, c.UpdatedAt.Local().Format(time.DateTime), clipLine(titleOr(c.Title), 60))
	}
	if err := tw.Flush(); err != nil {
		return failWith(env, err)
	}
	return 0
}

// withConversations opens the database only (no servers, no keyring) and runs f.
func withConversations(ctx context.Context, env *Env, f func(*store.Store) int) int {
	c, err := core.Open(ctx, testCoreOptions)
	if err != nil {
		return failWith(env, err)
	}
	defer c.Close()
	if p := c.Fatal(); p != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s\n%s\n", p.Message, p.Advice)
		return 1
	}
	return f(c.Store)
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

func init() {
	register("tasks", "list the tasks servers run for tool calls, wait for one to end, or cancel one", runTasks)
}

const tasksUsage = "usage: switchboard tasks [list] [-all] [-conversation ID]\n       switchboard tasks wait [-timeout D] ID\n       switchboard tasks cancel ID"

func runTasks(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-') {
		args = append([]string{"list"}, args...)
	}
	switch args[0] {
	case "list":
		fs := flag.NewFlagSet("list", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		all := fs.Bool("all", false, "finished tasks too, not only running ones")
		conv := fs.String("conversation", "", "only the tasks of this conversation")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			fmt.Fprintln(env.Stderr, tasksUsage)
			return 2
		}
		return tasksList(ctx, env, store.TaskFilter{Active: !*all, ConversationID: *conv})
	case "wait":
		fs := flag.NewFlagSet("wait", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		timeout := fs.Duration("timeout", 0, "give up after this long (the task goes on); 0 waits until it ends")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			fmt.Fprintln(env.Stderr, tasksUsage)
			return 2
		}
		return tasksWait(ctx, env, fs.Arg(0), *timeout)
	case "cancel":
		if len(args) != 2 {
			fmt.Fprintln(env.Stderr, tasksUsage)
			return 2
		}
		return tasksCancel(ctx, env, args[1])
	}
	fmt.Fprintf(env.Stderr, "switchboard tasks: unknown subcommand %q\n%s\n", args[0], tasksUsage)
	return 2
}

// tasksList prints tasks from the database; nothing connects.
func tasksList(ctx context.Context, env *Env, f store.TaskFilter) int {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	list, err := s.Tasks.List(ctx, f)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	if len(list) == 0 {
		if f.Active {
			fmt.Fprintln(env.Stdout, "no running tasks (switchboard tasks list -all shows finished ones)")
		} else {
			fmt.Fprintln(env.Stdout, "no tasks")
		}
		return 0
	}
	printTasks(env.Stdout, list)
	return 0
}

func printTasks(w io.Writer, list []store.Task) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tSERVER\tTOOL\tSTARTED\tMESSAGE")
	for _, t := range list {
		msg := t.StatusMessage
		if t.Error != "" {
			msg = t.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Status, t.ServerName, t.Tool, t.CreatedAt.Local().Format(time.DateTime), clipLine(msg, 80))
	}
	tw.Flush()
}

// clipLine keeps the first n characters of s's first line.
func clipLine(s string, n int) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// withRunning starts the services as the window does (servers connect,
// unfinished tasks are followed again) and runs f.
func withRunning(ctx context.Context, env *Env, f func(*core.Services) int) int {
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	if err := s.Start(ctx, c.Log); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	return f(s)
}

// tasksWait follows a task until it ends; its result lands in its
// conversation as it would in the window, and is printed.
func tasksWait(ctx context.Context, env *Env, id string, timeout time.Duration) int {
	return withRunning(ctx, env, func(s *core.Services) int {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		t, err := s.Tasks.Wait(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			fmt.Fprintf(env.Stderr, "switchboard: no task %q (see switchboard tasks list -all)\n", id)
			return 1
		case errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintf(env.Stderr, "switchboard: task %s is still running after %s; it goes on, and the window or switchboard tasks wait follows it again\n", id, timeout)
			return 1
		case err != nil:
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		return printTaskEnd(env, t)
	})
}

// printTaskEnd prints how a task ended; the exit code is 0 only for a
// completed task whose tool did not report an error.
func printTaskEnd(env *Env, t store.Task) int {
	switch t.Status {
	case mcpconn.TaskCompleted:
		var r mcpconn.Result
		if err := json.Unmarshal(t.Result, &r); err != nil {
			fmt.Fprintln(env.Stderr, "switchboard: the task completed, but its result is unreadable:", err)
			return 1
		}
		fmt.Fprintln(env.Stdout, r.ForModel(1<<30))
		if r.IsError {
			return 1
		}
		return 0
	case mcpconn.TaskCancelled:
		fmt.Fprintf(env.Stderr, "switchboard: task %s was cancelled\n", t.ID)
	default:
		fmt.Fprintf(env.Stderr, "switchboard: task %s %s: %s\n", t.ID, t.Status, t.Error)
	}
	return 1
}

// tasksCancel asks the task's server to cancel it.
func tasksCancel(ctx context.Context, env *Env, id string) int {
	return withRunning(ctx, env, func(s *core.Services) int {
		err := s.Tasks.Cancel(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			fmt.Fprintf(env.Stderr, "switchboard: no task %q (see switchboard tasks list)\n", id)
			return 1
		case err != nil:
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		fmt.Fprintf(env.Stdout, "cancelled task %s\n", id)
		return 0
	})
}

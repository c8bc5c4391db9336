package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/paths"
)

func runVersion(ctx context.Context, env *Env, args []string) int {
	fmt.Fprintln(env.Stdout, buildinfo.String())
	return 0
}

func runPaths(ctx context.Context, env *Env, args []string) int {
	p, err := paths.Resolve()
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "data dir:  %s\ndatabase:  %s\nlog dir:   %s\n", p.Dir, p.Database, p.Logs)
	return 0
}

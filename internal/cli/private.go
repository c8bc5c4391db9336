package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/core"
)

// serversPrivate marks tool (the server's own name for it) of server id as
// reading private data, or removes the mark, for the lethal-trifecta
// guard. Nothing connects: the tool need not be listed yet.
func serversPrivate(ctx context.Context, env *Env, id, tool string, on bool) int {
	ok := changeServer(ctx, env, id, func(s *core.Services) error {
		return s.SetPrivate(ctx, id, tool, on)
	})
	switch {
	case !ok:
		return 1
	case on:
		fmt.Fprintf(env.Stdout, "%s of server %s is marked private: once a conversation has its result and outside content, a tool that can send data out asks again, even under a grant or yolo\n", tool, id)
	default:
		fmt.Fprintf(env.Stdout, "%s of server %s is no longer marked private (a local tool that does not claim to be read-only still counts as private)\n", tool, id)
	}
	return 0
}

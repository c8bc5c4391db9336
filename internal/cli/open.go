package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/core"
)

// openCore opens the data directory for a command and prints why it could
// not; the caller closes the Core. CLI commands take no instance lock: the
// database is shared safely (WAL), so they work while the window is open.
func openCore(ctx context.Context, env *Env) (*core.Core, *core.Services, bool) {
	return openCoreWith(ctx, env, nil)
}

// openCoreWith is openCore with the services built by opts (nil: the
// defaults).
func openCoreWith(ctx context.Context, env *Env, opts *core.ServiceOptions) (*core.Core, *core.Services, bool) {
	c, err := core.Open(ctx, testCoreOptions)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return nil, nil, false
	}
	if p := c.Fatal(); p != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s\n%s\n", p.Message, p.Advice)
		c.Close()
		return nil, nil, false
	}
	s, err := c.Services(opts)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		c.Close()
		return nil, nil, false
	}
	return c, s, true
}

// testCoreOptions, when set by a test, replaces the defaults of openCore
// (a keyring that works, say); nil in the program.
var testCoreOptions *core.Options

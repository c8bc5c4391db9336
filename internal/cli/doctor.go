package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

// runDoctor checks what Switchboard depends on and prints a verdict per
// item; it exits 1 when something is broken. It opens nothing for writing
// beyond the database's own migration, so it is safe while the app runs.
func runDoctor(ctx context.Context, env *Env, args []string) int {
	broken := 0
	report := func(ok bool, what, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			broken++
		}
		fmt.Fprintf(env.Stdout, "%s  %-10s %s\n", mark, what, detail)
	}
	warn := func(what, detail string) { fmt.Fprintf(env.Stdout, "warn  %-10s %s\n", what, detail) }

	p, err := paths.Resolve()
	if err != nil {
		report(false, "data dir", err.Error())
		return 1
	}
	if err := p.Ensure(); err != nil {
		report(false, "data dir", err.Error())
		return 1
	}
	probe := filepath.Join(p.Dir, ".doctor-write-test")
	if err := os.WriteFile(probe, []byte("ok"), 0o600); err != nil {
		report(false, "data dir", fmt.Sprintf("%s is not writable: %v", p.Dir, err))
	} else {
		os.Remove(probe)
		report(true, "data dir", p.Dir)
	}
	if err := p.CheckPrivate(); err != nil {
		warn("data dir", err.Error())
	}

	st, err := store.Open(ctx, p.Database, nil)
	if err != nil {
		report(false, "database", err.Error())
	} else {
		verdict, err := st.IntegrityCheck(ctx)
		v, _ := st.SchemaVersion(ctx)
		st.Close()
		switch {
		case err != nil:
			report(false, "database", err.Error())
		case verdict != "ok":
			report(false, "database", "integrity check: "+verdict)
		default:
			report(true, "database", fmt.Sprintf("%s (schema v%d, integrity ok)", p.Database, v))
		}
	}

	_, status := secrets.Open(ctx, 3*time.Second)
	if status.Persistent {
		report(true, "keyring", "the OS keyring answers; secrets are kept there")
	} else {
		warn("keyring", status.Problem+". "+status.Advice)
	}

	for _, ex := range doctorExtras {
		if !ex(ctx, env, report) {
			broken++
		}
	}
	if broken > 0 {
		fmt.Fprintf(env.Stdout, "\n%d problem(s) found.\n", broken)
		return 1
	}
	fmt.Fprintln(env.Stdout, "\nEverything checked is working.")
	return 0
}

// doctorExtras are further checks registered by other files (servers).
var doctorExtras []func(ctx context.Context, env *Env, report func(ok bool, what, detail string)) bool

// Package core wires Switchboard's services for one data directory: the
// data paths, the app log, the database and the secret store. The window
// (package app) and the command line (package cli) both start from a Core,
// so the same code runs behind a button and behind a subcommand.
package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/applog"
	"github.com/switchboard-app/switchboard/internal/buildinfo"
	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Options configure Open; nil means defaults.
type Options struct {
	// Paths overrides the resolved data paths.
	Paths *paths.Paths
	// KeyringTimeout bounds the keyring probe; zero means 3 s.
	KeyringTimeout time.Duration
	// LogLevel is the app log's level; zero means Info.
	LogLevel slog.Level
	// Secrets replaces the OS keyring (tests).
	Secrets secrets.Store
}

// A Problem is something the user must know about at start.
type Problem struct {
	// Kind is "database" (fatal: nothing can be stored), "keyring", or
	// "permissions" (other users can open the data directory).
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Advice  string `json:"advice,omitempty"`
	Fatal   bool   `json:"fatal"`
}

// A Core holds the services. Fields are nil when their start failed; the
// reason is in Problems.
type Core struct {
	Paths    paths.Paths
	Log      *slog.Logger
	AppLog   *logbuf.Ring
	Redactor *applog.Redactor
	Store    *store.Store
	Secrets  secrets.Store
	Keyring  secrets.Status
	Problems []Problem

	servicesMu sync.Mutex
	services   *Services
}

// Open starts the services. It fails only when the data directory itself is
// unusable; a database that cannot be opened becomes a fatal Problem so
// that the window can say what happened.
func Open(ctx context.Context, opts *Options) (*Core, error) {
	if opts == nil {
		opts = &Options{}
	}
	var p paths.Paths
	if opts.Paths != nil {
		p = *opts.Paths
	} else {
		var err error
		if p, err = paths.Resolve(); err != nil {
			return nil, err
		}
	}
	if err := p.Ensure(); err != nil {
		return nil, err
	}
	c := &Core{Paths: p, Redactor: &applog.Redactor{}}

	ring, err := logbuf.Open(filepath.Join(p.Logs, "app.log"), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the app log in %s: %w", p.Logs, err)
	}
	c.AppLog = ring
	c.Log = applog.New(c.Redactor, opts.LogLevel, ring.Writer())
	c.Log.Info("starting", "version", buildinfo.String(), "dataDir", p.Dir, "pid", os.Getpid())

	if opts.Secrets != nil {
		c.Secrets, c.Keyring = opts.Secrets, secrets.Status{Backend: "custom", Persistent: true}
	} else {
		c.Secrets, c.Keyring = secrets.Open(ctx, opts.KeyringTimeout)
	}
	c.Secrets = secrets.Watched{Store: c.Secrets, OnValue: c.Redactor.Add}
	if c.Keyring.Problem != "" {
		c.Problems = append(c.Problems, Problem{Kind: "keyring", Message: "Secrets are kept in memory only: " + c.Keyring.Problem, Advice: c.Keyring.Advice})
		c.Log.Warn("keyring unavailable; secrets kept in memory for this session", "problem", c.Keyring.Problem)
	}

	if err := p.CheckPrivate(); err != nil {
		c.Problems = append(c.Problems, Problem{Kind: "permissions", Message: err.Error()})
		c.Log.Warn("data directory not private", "err", err)
	}

	st, err := store.Open(ctx, p.Database, nil)
	if err != nil {
		c.Problems = append(c.Problems, Problem{Kind: "database", Message: err.Error(), Advice: databaseAdvice(err, p.Database), Fatal: true})
		c.Log.Error("database unavailable", "path", p.Database, "err", err)
	} else {
		c.Store = st
	}
	return c, nil
}

func databaseAdvice(err error, path string) string {
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return fmt.Sprintf("Switchboard has not changed the file. Quit, move %s aside (or restore %s.bak-* if there is one), and start again to begin with an empty database.", path, path)
	case errors.Is(err, store.ErrTooNew):
		return "Install the newer version of Switchboard that wrote this database."
	case errors.Is(err, store.ErrUnreadable):
		return "Check that the file and its folder belong to you and are readable and writable."
	}
	return "See the app log for details."
}

// Fatal returns the first fatal problem, or nil.
func (c *Core) Fatal() *Problem {
	for i := range c.Problems {
		if c.Problems[i].Fatal {
			return &c.Problems[i]
		}
	}
	return nil
}

// Close stops everything; it is safe to call twice.
func (c *Core) Close() error {
	if c == nil {
		return nil
	}
	var errs []error
	c.servicesMu.Lock()
	svc := c.services
	c.services = nil
	c.servicesMu.Unlock()
	if svc != nil {
		errs = append(errs, svc.Close())
	}
	if c.Store != nil {
		errs = append(errs, c.Store.Close())
		c.Store = nil
	}
	if c.AppLog != nil {
		c.Log.Info("stopped")
		errs = append(errs, c.AppLog.Close())
		c.AppLog = nil
	}
	return errors.Join(errs...)
}

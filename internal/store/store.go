// Package store keeps Switchboard's data in one SQLite file (modernc.org/sqlite,
// no cgo): conversations, messages, the tool-call audit, server and provider
// configs, approval policies and settings. It never holds a secret value;
// secrets live in the OS keyring (package secrets) and rows hold references.
//
// The file is opened in WAL mode with foreign keys on and a busy timeout, and
// versioned migrations run at open. A file that is not a database, is
// damaged, unreadable, or written by a newer version is never replaced: Open
// returns an error saying what happened and the file stays as it was.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Sentinel errors returned (wrapped) by Open.
var (
	// ErrCorrupt means the file exists but is not a readable SQLite database.
	ErrCorrupt = errors.New("database file is damaged or not a SQLite database")
	// ErrUnreadable means the file could not be opened (permissions, a directory, ...).
	ErrUnreadable = errors.New("database file cannot be opened")
	// ErrTooNew means a newer Switchboard wrote the file.
	ErrTooNew = errors.New("database was written by a newer version of Switchboard")
)

// ErrNotFound is returned when a row asked for by key does not exist.
var ErrNotFound = errors.New("not found")

// A Store is an open database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // see stmt
}

// Options tune Open; nil means defaults.
type Options struct {
	// BusyTimeout is how long a writer waits for a lock; zero means 5 s.
	BusyTimeout time.Duration
	// TargetVersion migrates only up to this schema version; zero means the
	// latest. Tests use it to build databases of earlier versions.
	TargetVersion int
	// NoBackup skips the copy made before migrating an existing file.
	NoBackup bool
}

var sqliteMagic = []byte("SQLite format 3\x00")

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	if err := makePrivate(path); err != nil {
		return nil, err
	}
	busy := opts.BusyTimeout
	if busy == 0 {
		busy = 5 * time.Second
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	if err := s.migrate(ctx, opts); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkFile rejects an existing file that is not a SQLite database before the
// driver can touch it, so that it is never overwritten.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v; check its permissions (the file was left as it is)", ErrUnreadable, path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreadable, path, err)
	}
	if st.IsDir() {
		return fmt.Errorf("%w: %s is a directory", ErrUnreadable, path)
	}
	if st.Size() == 0 {
		return nil // an empty file is a valid empty database
	}
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteMagic) {
		return fmt.Errorf("%w: %s does not start with the SQLite header; it was left untouched — move it aside to start with an empty database, or restore a backup (%s.bak-*)", ErrCorrupt, path, path)
	}
	return nil
}

// makePrivate creates the database file readable by the user only (0600)
// before SQLite opens it, or narrows an existing one, and its -wal and -shm
// files, to that: SQLite makes the -wal and -shm files with the
// permissions of the database file, and would make a new file 0644.
// Narrowing is best effort (the data directory is 0700 as well); on Windows
// the user's profile ACL does this job and Chmod does nothing.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s: %v; check the permissions of the file and its folder", ErrUnreadable, path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(p, st.Mode().Perm()&0o700)
		}
	}
	return nil
}

// classify turns a driver error met while opening into one of the sentinels.
func classify(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database"), strings.Contains(msg, "malformed"), strings.Contains(msg, "corrupt"):
		return fmt.Errorf("%w: %s: %v; it was left untouched — move it aside to start with an empty database, or restore a backup", ErrCorrupt, path, err)
	case strings.Contains(msg, "unable to open"), strings.Contains(msg, "readonly"), strings.Contains(msg, "permission"):
		return fmt.Errorf("%w: %s: %v; check the permissions of the file and its folder", ErrUnreadable, path, err)
	}
	return fmt.Errorf("opening %s: %w", path, err)
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// DB exposes the handle for packages' own queries in tests and benchmarks.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database; it is safe to call twice.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.mu.Unlock()
	err := s.db.Close()
	if errors.Is(err, sql.ErrConnDone) {
		return nil
	}
	return err
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok"
// when healthy).
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n"), rows.Err()
}

// SchemaVersion is the schema version the file is at.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func now() int64 { return time.Now().UnixMilli() }

// stmt returns query prepared, preparing it once. The writes on the hot
// paths (a tool call's audit, appending a message, saving a streaming
// reply) use it: without it the driver parses the SQL anew on every call,
// a third of such a write's time.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// exec runs a statement of the hot paths through the statement cache, on
// tx when it is not nil.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if tx != nil {
		st = tx.StmtContext(ctx, st)
	}
	return st.ExecContext(ctx, args...)
}

// queryRow is exec's counterpart for a statement that returns a row.
func (s *Store) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	st, err := s.stmt(ctx, query)
	if err != nil {
		// Let the caller meet the error at Scan, as with QueryRowContext.
		if tx != nil {
			return tx.QueryRowContext(ctx, query, args...)
		}
		return s.db.QueryRowContext(ctx, query, args...)
	}
	if tx != nil {
		st = tx.StmtContext(ctx, st)
	}
	return st.QueryRowContext(ctx, args...)
}

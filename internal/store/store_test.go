package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func openTemp(t *testing.T, opts *Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// schema returns the normalized schema (sqlite_master) of a database.
func schema(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.db.Query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	sort.Strings(out)
	return out
}

func TestOpenEmptyFileMigratesToLatest(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != LatestVersion() {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, LatestVersion())
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := s.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	var busy int
	if err := s.db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy != 5000 {
		t.Errorf("busy_timeout = %d, %v; want 5000", busy, err)
	}
	if got, err := s.IntegrityCheck(ctx); err != nil || got != "ok" {
		t.Errorf("IntegrityCheck = %q, %v", got, err)
	}
}

// seed writes rows that every schema version has, so that migrations are
// shown to keep them.
func seed(t *testing.T, s *Store) {
	t.Helper()
	stmts := []string{
		`INSERT INTO settings(key, value) VALUES ('theme', '"dark"')`,
		`INSERT INTO providers(id, name, preset, base_url, key_ref, created_at, updated_at) VALUES ('p1', 'Cerebras', 'cerebras', 'https://api.cerebras.ai/v1', 'provider/p1', 1, 1)`,
		`INSERT INTO servers(id, name, transport, config, created_at, updated_at) VALUES ('fs', 'Files', 'stdio', '{"id":"fs"}', 1, 1)`,
		`INSERT INTO conversations(id, title, created_at, updated_at) VALUES ('c1', 'Hello', 1, 1)`,
		`INSERT INTO messages(conversation_id, seq, role, content, created_at, updated_at) VALUES ('c1', 1, 'user', 'where is the quokka picture', 1, 1)`,
		`INSERT INTO messages(conversation_id, seq, role, content, created_at, updated_at) VALUES ('c1', 2, 'assistant', 'in the holiday folder', 1, 1)`,
		`INSERT INTO tool_calls(id, conversation_id, tool, status, started_at) VALUES ('call_1', 'c1', 'read_file', 'done', 1)`,
		`INSERT INTO approval_grants(server_id, tool, fingerprint, created_at) VALUES ('fs', 'read_file', 'abc', 1)`,
	}
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func count(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func TestMigrateFromEveryEarlierVersion(t *testing.T) {
	fresh, _ := openTemp(t, nil)
	want := schema(t, fresh)
	ctx := context.Background()

	for from := 1; from < LatestVersion(); from++ {
		t.Run("v"+strconv.Itoa(from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old, err := Open(ctx, path, &Options{TargetVersion: from})
			if err != nil {
				t.Fatal(err)
			}
			seed(t, old)
			old.Close()

			s, err := Open(ctx, path, nil)
			if err != nil {
				t.Fatalf("migrating from v%d: %v", from, err)
			}
			defer s.Close()
			if diff := cmp.Diff(want, schema(t, s)); diff != "" {
				t.Errorf("schema after migrating from v%d differs from a fresh one (-want +got):\n%s", from, diff)
			}
			for table, n := range map[string]int{"settings": 1, "providers": 1, "servers": 1, "conversations": 1, "messages": 2, "tool_calls": 1, "approval_grants": 1} {
				if got := count(t, s, table); got != n {
					t.Errorf("%s rows = %d after migration; want %d", table, got, n)
				}
			}
			// A grant from before definitions were pinned reads back without
			// one, so it allows no call that carries a definition.
			if gs, err := s.Grants(ctx); err != nil || len(gs) != 1 || gs[0].Fingerprint != "abc" || gs[0].DefinitionHash != "" || gs[0].InputSchema != nil {
				t.Errorf("grants after migration = %+v, %v", gs, err)
			}
			// Rows written before FTS existed are searchable after it.
			var hits int
			if err := s.db.QueryRow("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'quokka'").Scan(&hits); err != nil || hits != 1 {
				t.Errorf("fts hits = %d, %v; want 1", hits, err)
			}
			if st, err := os.Stat(path + ".bak-v" + strconv.Itoa(from)); err != nil {
				t.Errorf("no backup made before migrating: %v", err)
			} else if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
				t.Errorf("backup mode = %04o, want 0600: it holds the same conversations", st.Mode().Perm())
			}
		})
	}
}

func TestCorruptFileIsKept(t *testing.T) {
	ctx := context.Background()
	for name, content := range map[string][]byte{
		"text":        []byte("this is my shopping list, not a database\n"),
		"binary":      bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 4096),
		"bad-header":  append([]byte("SQLite format 2\x00"), make([]byte, 4096)...),
		"header-only": append(append([]byte{}, sqliteMagic...), bytes.Repeat([]byte{0xff}, 8192)...),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "switchboard.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, path, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded on a damaged file")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error = %v; want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, content) {
				t.Error("the damaged file was changed")
			}
		})
	}
}

func TestDirectoryIsUnreadable(t *testing.T) {
	path := t.TempDir()
	_, err := Open(context.Background(), path, nil)
	if !errors.Is(err, ErrUnreadable) {
		t.Fatalf("error = %v; want ErrUnreadable", err)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: file permissions do not stop root from reading")
	}
	_, path := openTemp(t, nil)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, nil)
	if !errors.Is(err, ErrUnreadable) {
		t.Fatalf("error = %v; want ErrUnreadable", err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	s, path := openTemp(t, nil)
	if _, err := s.db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), path, nil)
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("error = %v; want ErrTooNew", err)
	}
}

func TestForeignKeysCascade(t *testing.T) {
	s, _ := openTemp(t, nil)
	seed(t, s)
	if _, err := s.db.Exec("DELETE FROM conversations WHERE id = 'c1'"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "messages"); n != 0 {
		t.Errorf("messages left after deleting their conversation: %d", n)
	}
	if n := count(t, s, "tool_calls"); n != 0 {
		t.Errorf("tool calls left after deleting their conversation: %d", n)
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	var theme string
	if err := s.Setting(ctx, "theme", &theme); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unset setting: %v; want ErrNotFound", err)
	}
	type win struct{ W, H int }
	if err := s.SetSetting(ctx, "window", win{1024, 700}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, "window", win{1200, 800}); err != nil {
		t.Fatal(err)
	}
	var got win
	if err := s.Setting(ctx, "window", &got); err != nil || got != (win{1200, 800}) {
		t.Fatalf("Setting = %+v, %v", got, err)
	}
}

func TestSplitStatementsKeepsTriggers(t *testing.T) {
	got := splitStatements(migrations[1])
	if len(got) != 5 {
		t.Fatalf("got %d statements, want 5:\n%s", len(got), strings.Join(got, "\n---\n"))
	}
	if !strings.HasSuffix(got[2], "END;") {
		t.Errorf("trigger split apart: %q", got[2])
	}
}

func TestCloseTwice(t *testing.T) {
	s, _ := openTemp(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestMigrateOneWordPerState checks migration 5: a tool call's "error"
// (and "done" with an error result) reads back as "failed", and a tool
// selection stored as a list reads back as an object.
func TestMigrateOneWordPerState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := Open(ctx, path, &Options{TargetVersion: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Written as version 4 wrote it: today's CreateConversation writes
	// columns added since.
	conv := Conversation{ID: "c1"}
	if _, err := old.db.Exec(`INSERT INTO conversations (id, tools, created_at, updated_at) VALUES ('c1', '["a__b"]', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	for id, st := range map[string][2]any{"e": {"error", false}, "d": {"done", true}, "ok": {"done", false}} {
		if _, err := old.db.Exec(`INSERT INTO tool_calls (id, call_id, conversation_id, message_id, server_id, server_name, tool, arguments, status, decision, decided_by, is_error, error, requested_at, started_at, duration_ms)
			VALUES (?, ?, ?, NULL, 's', 'S', 't', '{}', ?, '', '', ?, '', 0, 0, 0)`, id, id, conv.ID, st[0], st[1]); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	calls, err := s.ToolCalls(ctx, conv.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range calls {
		got[c.ID] = c.Status
	}
	if diff := cmp.Diff(map[string]string{"e": CallFailed, "d": CallFailed, "ok": CallDone}, got); diff != "" {
		t.Errorf("statuses after migration (-want +got):\n%s", diff)
	}
	c, err := s.Conversation(ctx, conv.ID)
	if err != nil || string(c.Tools) != `{"only":["a__b"]}` {
		t.Errorf("tools after migration = %s, %v; want an object", c.Tools, err)
	}
}

package store

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// migrations[i] takes the schema from version i to version i+1. A released
// migration is never edited: later changes append a new one.
var migrations = []string{
	// 1: the core schema.
	`
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE providers (
	id            TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	preset        TEXT NOT NULL,
	base_url      TEXT NOT NULL,
	default_model TEXT NOT NULL DEFAULT '',
	key_ref       TEXT NOT NULL DEFAULT '',   -- keyring entry name, never the key
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE servers (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	transport   TEXT NOT NULL CHECK (transport IN ('stdio', 'sse', 'http')),
	enabled     INTEGER NOT NULL DEFAULT 1,
	config      TEXT NOT NULL,                -- serverconf.Config as JSON; secrets as references
	fingerprint TEXT NOT NULL DEFAULT '',
	position    INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE conversations (
	id            TEXT PRIMARY KEY,
	title         TEXT NOT NULL DEFAULT '',
	provider_id   TEXT NOT NULL DEFAULT '',
	model         TEXT NOT NULL DEFAULT '',
	system_prompt TEXT,                        -- NULL means the default
	tools         TEXT,                        -- JSON selection; NULL means all enabled
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX conversations_updated ON conversations(updated_at DESC);

CREATE TABLE messages (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
	content         TEXT NOT NULL DEFAULT '',
	reasoning       TEXT NOT NULL DEFAULT '',
	tool_calls      TEXT,                      -- JSON, assistant messages
	tool_call_id    TEXT,                      -- tool messages
	status          TEXT NOT NULL DEFAULT 'done',  -- streaming, done, stopped, error
	error           TEXT NOT NULL DEFAULT '',
	meta            TEXT,                      -- JSON: model, usage, timings
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	UNIQUE (conversation_id, seq)
) STRICT;

CREATE TABLE tool_calls (
	id              TEXT PRIMARY KEY,          -- the model's tool_call_id
	conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
	message_id      INTEGER REFERENCES messages(id) ON DELETE SET NULL,
	server_id       TEXT NOT NULL DEFAULT '',
	server_name     TEXT NOT NULL DEFAULT '',
	tool            TEXT NOT NULL,
	arguments       TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,             -- pending, running, done, error, denied, cancelled
	decision        TEXT NOT NULL DEFAULT '',
	decided_by      TEXT NOT NULL DEFAULT '',
	result          TEXT,                      -- JSON
	is_error        INTEGER NOT NULL DEFAULT 0,
	error           TEXT NOT NULL DEFAULT '',
	started_at      INTEGER NOT NULL,
	duration_ms     INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX tool_calls_conversation ON tool_calls(conversation_id, started_at);

CREATE TABLE approval_grants (
	server_id   TEXT NOT NULL,
	tool        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (server_id, tool)
) STRICT;
`,
	// 2: full-text search over message content.
	`
CREATE VIRTUAL TABLE messages_fts USING fts5(
	content,
	content = 'messages',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO messages_fts(rowid, content) SELECT id, content FROM messages WHERE role IN ('user', 'assistant');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') BEGIN
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.role IN ('user', 'assistant') BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages WHEN old.role IN ('user', 'assistant') BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
`,
	// 3: tool-call audit records get their own ID: the model's tool_call_id
	// moves to call_id, because models repeat IDs ("call_0") across rounds.
	`
ALTER TABLE tool_calls ADD COLUMN call_id TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN requested_at INTEGER NOT NULL DEFAULT 0;
UPDATE tool_calls SET call_id = id, requested_at = started_at;
CREATE INDEX tool_calls_message ON tool_calls(message_id);
`,
	// 4: an "always" grant pins the tool's definition (a server cannot swap
	// what an allowed tool does) and keeps it, to show what changed.
	`
ALTER TABLE approval_grants ADD COLUMN definition_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE approval_grants ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE approval_grants ADD COLUMN input_schema TEXT;  -- JSON; NULL when unknown
`,
	// 5: one word per tool-call state: "failed" (was "error"), also for a
	// call whose tool reported an error (was "done" with is_error set).
	`
UPDATE tool_calls SET status = 'failed' WHERE status = 'error' OR (status = 'done' AND is_error);
-- A tool selection is always an object: the first versions stored a list.
UPDATE conversations SET tools = json_object('only', json(tools)) WHERE json_valid(tools) AND json_type(tools) = 'array';
`,
	// 6: tasks (io.modelcontextprotocol/tasks) a server runs for a tool
	// call, kept so that polling resumes after a restart. A task goes with
	// its conversation, as the conversation's tool_calls do: its result is
	// the conversation's content, which the user asked to delete (the
	// tracker stops following a task whose record vanished). Tasks run
	// outside a conversation hold NULL, which the foreign key lets be.
	`
CREATE TABLE tasks (
	id               TEXT PRIMARY KEY,
	server_id        TEXT NOT NULL,
	server_name      TEXT NOT NULL DEFAULT '',
	task_id          TEXT NOT NULL,              -- the server's ID
	tool_call_id     TEXT NOT NULL DEFAULT '',   -- the tool_calls record; '' if none
	conversation_id  TEXT REFERENCES conversations(id) ON DELETE CASCADE,  -- NULL if none
	tool             TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL,
	status_message   TEXT NOT NULL DEFAULT '',
	result           TEXT,                       -- JSON of mcpconn.Result; NULL until completed
	error            TEXT NOT NULL DEFAULT '',
	poll_interval_ms INTEGER NOT NULL DEFAULT 0,
	ttl_ms           INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	ended_at         INTEGER NOT NULL DEFAULT 0, -- 0 while the task runs
	UNIQUE (server_id, task_id)
) STRICT;
CREATE INDEX tasks_active ON tasks(ended_at, created_at);  -- active ones: ended_at = 0, newest first
CREATE INDEX tasks_conversation ON tasks(conversation_id, created_at);
CREATE INDEX tasks_tool_call ON tasks(tool_call_id);
`,
	// 7: attachments. A user message lists its attachments (JSON of
	// []Attachment); their bytes are blobs, named by their SHA-256, so the
	// same file attached twice is stored once. A blob no message names is
	// pruned after a day (PruneBlobs).
	`
CREATE TABLE blobs (
	id         TEXT PRIMARY KEY,               -- sha256 of data, hex
	mime       TEXT NOT NULL,
	size       INTEGER NOT NULL,
	data       BLOB NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
ALTER TABLE messages ADD COLUMN attachments TEXT;  -- JSON []Attachment; NULL for none
`,
	// 8: each tool call records the legs of the lethal trifecta its tool
	// brings (LegPrivate | LegUntrusted | LegOutbound), so the guard
	// finds what a conversation's results brought, across restarts.
	`
ALTER TABLE tool_calls ADD COLUMN legs INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tool_calls_legs ON tool_calls(conversation_id) WHERE legs != 0;
`,
	// 9: a tool call records who asked for it: '' the model, 'view' the
	// server's own view shown in the conversation (MCP Apps), whose calls
	// belong to no message and are not the model's to see.
	`
ALTER TABLE tool_calls ADD COLUMN requested_by TEXT NOT NULL DEFAULT '';
`,
	// 10: other apps (MCP clients) the user connects: each holds a token
	// (only its SHA-256 is kept), sees only the conversations granted to
	// it, runs without asking only the tools allowed to it, and every
	// request it makes is audited. The audit outlives its client (no
	// foreign key) and keeps the newest MaxClientAudit rows.
	`
CREATE TABLE clients (
	id           TEXT PRIMARY KEY,
	name         TEXT NOT NULL UNIQUE COLLATE NOCASE,
	token_hash   TEXT NOT NULL UNIQUE,           -- hex sha256 of the token, never the token
	can_start    INTEGER NOT NULL DEFAULT 0,     -- may start conversations of its own
	created_at   INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL DEFAULT 0,
	revoked_at   INTEGER NOT NULL DEFAULT 0      -- 0 while the token works
) STRICT;

CREATE TABLE client_grants (
	client_id       TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
	access          TEXT NOT NULL CHECK (access IN ('read', 'write')),
	owned           INTEGER NOT NULL DEFAULT 0,  -- the client started the conversation
	expires_at      INTEGER NOT NULL DEFAULT 0,  -- 0 never
	created_at      INTEGER NOT NULL,
	PRIMARY KEY (client_id, conversation_id)
) STRICT;
CREATE INDEX client_grants_conversation ON client_grants(conversation_id);

CREATE TABLE client_tools (
	client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
	server_id TEXT NOT NULL,
	tool      TEXT NOT NULL,                     -- the server's own tool name
	PRIMARY KEY (client_id, server_id, tool)
) STRICT;

CREATE TABLE client_audit (
	id              INTEGER PRIMARY KEY,
	client_id       TEXT NOT NULL DEFAULT '',    -- '' for a request with no valid token
	client_name     TEXT NOT NULL DEFAULT '',
	transport       TEXT NOT NULL,               -- stdio, http
	operation       TEXT NOT NULL,
	conversation_id TEXT NOT NULL DEFAULT '',
	allowed         INTEGER NOT NULL,
	reason          TEXT NOT NULL DEFAULT '',
	at              INTEGER NOT NULL
) STRICT;
CREATE INDEX client_audit_at ON client_audit(at);
CREATE INDEX client_audit_client ON client_audit(client_id, at);
`,
	// 11: a server may be a set of command tools (serverconf.
	// TransportCommand). SQLite cannot change a CHECK constraint, so the
	// table is made again with the new one (nothing refers to it).
	`
CREATE TABLE servers_new (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	transport   TEXT NOT NULL CHECK (transport IN ('stdio', 'sse', 'http', 'command')),
	enabled     INTEGER NOT NULL DEFAULT 1,
	config      TEXT NOT NULL,                -- serverconf.Config as JSON; secrets as references
	fingerprint TEXT NOT NULL DEFAULT '',
	position    INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;
INSERT INTO servers_new (id, name, transport, enabled, config, fingerprint, position, created_at, updated_at)
	SELECT id, name, transport, enabled, config, fingerprint, position, created_at, updated_at FROM servers;
DROP TABLE servers;
ALTER TABLE servers_new RENAME TO servers;
`,
	// 12: a conversation may be pinned to the top of the list or archived
	// out of it.
	`
ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
`,
	// 13: the Tool activity view: full-text search over tool calls (the
	// tool's name, the arguments, the result's text and the error), kept by
	// triggers and filled from the calls already recorded, and indexes for
	// its newest-first pages, whole or of one server or tool. The index is
	// contentless: it holds the text of a result's blocks (not its JSON
	// keys or base64 images), at most the first 4,096 characters of the
	// arguments and error and 16,384 of the result; rows leave it
	// by rowid (contentless_delete), so a removal never depends on
	// recomputing what was indexed.
	`
CREATE VIRTUAL TABLE tool_calls_fts USING fts5(
	tool,
	arguments,
	result,
	error,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO tool_calls_fts(rowid, tool, arguments, result, error)
	SELECT rowid, tool, ` + ftsCallText("arguments") + `, ` + ftsResultText("result") + `, ` + ftsCallText("error") + ` FROM tool_calls;
CREATE TRIGGER tool_calls_fts_insert AFTER INSERT ON tool_calls BEGIN
	INSERT INTO tool_calls_fts(rowid, tool, arguments, result, error)
		VALUES (new.rowid, new.tool, ` + ftsCallText("new.arguments") + `, ` + ftsResultText("new.result") + `, ` + ftsCallText("new.error") + `);
END;
CREATE TRIGGER tool_calls_fts_delete AFTER DELETE ON tool_calls BEGIN
	DELETE FROM tool_calls_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER tool_calls_fts_update AFTER UPDATE OF tool, arguments, result, error ON tool_calls BEGIN
	DELETE FROM tool_calls_fts WHERE rowid = old.rowid;
	INSERT INTO tool_calls_fts(rowid, tool, arguments, result, error)
		VALUES (new.rowid, new.tool, ` + ftsCallText("new.arguments") + `, ` + ftsResultText("new.result") + `, ` + ftsCallText("new.error") + `);
END;
CREATE INDEX tool_calls_requested ON tool_calls(requested_at);
CREATE INDEX tool_calls_server ON tool_calls(server_id, requested_at);
CREATE INDEX tool_calls_tool ON tool_calls(tool, requested_at);
`,
}

// ftsCallText and ftsResultText are the text migration 13 indexes of a
// tool call's column (part of a released migration: never edit them).
// A result's text is its content blocks' text and its structured content,
// or the stored text itself if it is not JSON. Arguments and errors are
// cut at 4,096 characters, a result's text at 16,384, so a huge call
// costs the index a bounded amount.
func ftsCallText(col string) string {
	return "substr(" + col + ", 1, 4096)"
}

func ftsResultText(col string) string {
	return "substr(CASE WHEN json_valid(" + col + ") THEN " +
		"coalesce((SELECT group_concat(CASE WHEN type = 'object' THEN json_extract(value, '$.text') END, ' ') FROM json_each(" + col + ", '$.content')), '') || ' ' || " +
		"coalesce(json_extract(" + col + ", '$.structuredContent'), '') " +
		"ELSE coalesce(" + col + ", '') END, 1, 16384)"
}

// LatestVersion is the schema version this build writes.
func LatestVersion() int { return len(migrations) }

func (s *Store) migrate(ctx context.Context, opts *Options) error {
	target := opts.TargetVersion
	if target == 0 || target > len(migrations) {
		target = len(migrations)
	}
	cur, err := s.SchemaVersion(ctx)
	if err != nil {
		return classify(s.path, err)
	}
	if cur > len(migrations) {
		return fmt.Errorf("%w: %s is at schema version %d, this build knows %d; update Switchboard (the file was left as it is)", ErrTooNew, s.path, cur, len(migrations))
	}
	if cur >= target {
		return nil
	}
	if cur > 0 && !opts.NoBackup {
		backup := fmt.Sprintf("%s.bak-v%d", s.path, cur)
		os.Remove(backup)
		if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", backup); err != nil {
			return fmt.Errorf("backing up %s before migrating: %w", s.path, classify(s.path, err))
		}
		// SQLite creates the copy with the default mode; it holds the
		// same conversations as the database, so it is as private.
		if err := os.Chmod(backup, 0o600); err != nil {
			return fmt.Errorf("making the backup %s private: %w", backup, err)
		}
	}
	for v := cur; v < target; v++ {
		if err := s.apply(ctx, v+1, migrations[v]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, version int, script string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.path, err)
	}
	defer tx.Rollback()
	for _, stmt := range splitStatements(script) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrating %s to version %d: %w", s.path, version, classify(s.path, err))
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		return fmt.Errorf("migrating %s to version %d: %w", s.path, version, err)
	}
	return tx.Commit()
}

// splitStatements splits a migration script at semicolons that end a line,
// keeping trigger bodies (BEGIN ... END;) whole.
func splitStatements(script string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	for _, line := range strings.Split(script, "\n") {
		trimmed := strings.TrimSpace(line)
		if i := strings.Index(trimmed, "--"); i >= 0 {
			trimmed = strings.TrimSpace(trimmed[:i])
		}
		if trimmed == "" {
			continue
		}
		upper := strings.ToUpper(trimmed)
		if strings.HasSuffix(upper, " BEGIN") {
			depth++
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			if depth > 0 && upper == "END;" {
				depth--
			}
			if depth == 0 {
				out = append(out, strings.TrimSpace(cur.String()))
				cur.Reset()
			}
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

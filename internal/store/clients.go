package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrClientNameTaken is returned (wrapped) by InsertClient and
// RenameClient when another client has the name (names ignore case).
var ErrClientNameTaken = errors.New("a client with this name exists")

// A Client is an external app (an MCP client) the user registered. The
// store keeps only the SHA-256 of its token; package clients makes and
// checks tokens.
type Client struct {
	ID   string
	Name string
	// TokenHash is the hex SHA-256 of the client's token.
	TokenHash string
	// CanStart lets the client start conversations of its own.
	CanStart  bool
	CreatedAt time.Time
	// LastSeenAt is the last time the client authenticated (to the
	// minute); zero if never.
	LastSeenAt time.Time
	// RevokedAt is when the user revoked the client; zero while its token
	// works.
	RevokedAt time.Time
	// Grants is the number of conversations granted to it (expired ones
	// too); read-only, filled in by the queries.
	Grants int
}

const clientColumns = `id, name, token_hash, can_start, created_at, last_seen_at, revoked_at,
	(SELECT count(*) FROM client_grants g WHERE g.client_id = clients.id)`

func scanClient(r scanner) (Client, error) {
	var c Client
	var created, seen, revoked int64
	if err := r.Scan(&c.ID, &c.Name, &c.TokenHash, &c.CanStart, &created, &seen, &revoked, &c.Grants); err != nil {
		return Client{}, err
	}
	c.CreatedAt, c.LastSeenAt, c.RevokedAt = fromMillis(created), fromMillis(seen), fromMillis(revoked)
	return c, nil
}

// InsertClient stores a new client; CreatedAt zero means now. A name
// another client has (ignoring case) is refused with ErrClientNameTaken.
func (s *Store) InsertClient(ctx context.Context, c Client) error {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = fromMillis(now())
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO clients(id, name, token_hash, can_start, created_at, last_seen_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, c.TokenHash, c.CanStart, millis(c.CreatedAt), millis(c.LastSeenAt), millis(c.RevokedAt))
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed: clients.name") {
			return fmt.Errorf("adding client %q: %w", c.Name, ErrClientNameTaken)
		}
		return fmt.Errorf("adding client %q: %w", c.Name, err)
	}
	return nil
}

// Client returns the client whose ID is nameOrID or, failing that, whose
// name is (ignoring case); ErrNotFound if there is none.
func (s *Store) Client(ctx context.Context, nameOrID string) (Client, error) {
	c, err := scanClient(s.db.QueryRowContext(ctx, `SELECT `+clientColumns+` FROM clients
		WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC LIMIT 1`, nameOrID))
	if errors.Is(err, sql.ErrNoRows) {
		return Client{}, fmt.Errorf("client %q: %w", nameOrID, ErrNotFound)
	}
	return c, err
}

// ClientByTokenHash returns the client whose token hashes to hash, revoked
// or not; ErrNotFound if there is none.
func (s *Store) ClientByTokenHash(ctx context.Context, hash string) (Client, error) {
	c, err := scanClient(s.queryRow(ctx, nil, `SELECT `+clientColumns+` FROM clients WHERE token_hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return Client{}, ErrNotFound // no detail: the caller refuses every bad token alike
	}
	return c, err
}

// Clients returns every client, by name.
func (s *Store) Clients(ctx context.Context) ([]Client, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+clientColumns+` FROM clients ORDER BY name, id`)
	if err != nil {
		return nil, fmt.Errorf("listing clients: %w", err)
	}
	return collect(rows, scanClient)
}

// SetClientToken replaces client id's token hash and makes the token work
// (it clears RevokedAt): the old token stops at once.
func (s *Store) SetClientToken(ctx context.Context, id, hash string) error {
	return s.updateClient(ctx, id, `token_hash = ?, revoked_at = 0`, hash)
}

// RevokeClient marks client id revoked at at, if it is not already.
func (s *Store) RevokeClient(ctx context.Context, id string, at time.Time) error {
	return s.updateClient(ctx, id, `revoked_at = CASE WHEN revoked_at = 0 THEN ? ELSE revoked_at END`, millis(at))
}

// SetClientCanStart sets whether client id may start conversations.
func (s *Store) SetClientCanStart(ctx context.Context, id string, on bool) error {
	return s.updateClient(ctx, id, `can_start = ?`, on)
}

// TouchClient sets client id's LastSeenAt to at.
func (s *Store) TouchClient(ctx context.Context, id string, at time.Time) error {
	_, err := s.exec(ctx, nil, `UPDATE clients SET last_seen_at = ? WHERE id = ?`, millis(at), id)
	return err
}

func (s *Store) updateClient(ctx context.Context, id, set string, args ...any) error {
	res, err := s.db.ExecContext(ctx, `UPDATE clients SET `+set+` WHERE id = ?`, append(args, id)...)
	if err != nil {
		return fmt.Errorf("updating client %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("client %s: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteClient deletes client id with its grants and allowed tools; its
// audit stays. ErrNotFound if there is none.
func (s *Store) DeleteClient(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM clients WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("deleting client %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("client %s: %w", id, ErrNotFound)
	}
	return nil
}

// A ClientGrant lets one client see, or see and write, one conversation.
type ClientGrant struct {
	ClientID       string
	ConversationID string
	// Access is "read" or "write".
	Access string
	// Owned marks a conversation the client started.
	Owned bool
	// ExpiresAt is when the grant stops working; zero means never.
	ExpiresAt time.Time
	CreatedAt time.Time
	// ClientName, ClientRevokedAt and Title are read-only, filled in by
	// the queries: the client's name and revocation, the conversation's
	// title.
	ClientName      string
	ClientRevokedAt time.Time
	Title           string
}

const clientGrantColumns = `g.client_id, g.conversation_id, g.access, g.owned, g.expires_at, g.created_at,
	c.name, c.revoked_at, v.title`

const clientGrantFrom = ` FROM client_grants g JOIN clients c ON c.id = g.client_id JOIN conversations v ON v.id = g.conversation_id`

func scanClientGrant(r scanner) (ClientGrant, error) {
	var g ClientGrant
	var expires, created, revoked int64
	if err := r.Scan(&g.ClientID, &g.ConversationID, &g.Access, &g.Owned, &expires, &created, &g.ClientName, &revoked, &g.Title); err != nil {
		return ClientGrant{}, err
	}
	g.ExpiresAt, g.CreatedAt, g.ClientRevokedAt = fromMillis(expires), fromMillis(created), fromMillis(revoked)
	return g, nil
}

// PutClientGrant stores g, replacing the access and expiry of a grant for
// the same client and conversation; a grant stays owned once it is, and
// keeps its CreatedAt. A zero CreatedAt means now. The client and the
// conversation must exist.
func (s *Store) PutClientGrant(ctx context.Context, g ClientGrant) error {
	if g.CreatedAt.IsZero() {
		g.CreatedAt = fromMillis(now())
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO client_grants(client_id, conversation_id, access, owned, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(client_id, conversation_id) DO UPDATE SET access = excluded.access,
			owned = client_grants.owned OR excluded.owned, expires_at = excluded.expires_at`,
		g.ClientID, g.ConversationID, g.Access, g.Owned, millis(g.ExpiresAt), millis(g.CreatedAt))
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
			return fmt.Errorf("granting conversation %s to client %s: %w", g.ConversationID, g.ClientID, ErrNotFound)
		}
		return fmt.Errorf("granting conversation %s to client %s: %w", g.ConversationID, g.ClientID, err)
	}
	return nil
}

// ClaimClientGrant stores an owned write grant of conversation convID to
// client clientID, only while no client holds a grant of it: it returns
// false, storing nothing, when one does.
func (s *Store) ClaimClientGrant(ctx context.Context, clientID, convID string, at time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO client_grants(client_id, conversation_id, access, owned, expires_at, created_at)
		SELECT ?1, ?2, 'write', 1, 0, ?3 WHERE NOT EXISTS (SELECT 1 FROM client_grants WHERE conversation_id = ?2)`,
		clientID, convID, millis(at))
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
			return false, fmt.Errorf("claiming conversation %s for client %s: %w", convID, clientID, ErrNotFound)
		}
		return false, fmt.Errorf("claiming conversation %s for client %s: %w", convID, clientID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// DeleteClientGrant removes client clientID's grant of conversation
// convID; ErrNotFound if there is none.
func (s *Store) DeleteClientGrant(ctx context.Context, clientID, convID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM client_grants WHERE client_id = ? AND conversation_id = ?`, clientID, convID)
	if err != nil {
		return fmt.Errorf("removing the grant of conversation %s to client %s: %w", convID, clientID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("grant of conversation %s to client %s: %w", convID, clientID, ErrNotFound)
	}
	return nil
}

// ClientGrant returns client clientID's grant of conversation convID;
// ErrNotFound if there is none (and so when the conversation is missing).
func (s *Store) ClientGrant(ctx context.Context, clientID, convID string) (ClientGrant, error) {
	g, err := scanClientGrant(s.queryRow(ctx, nil, `SELECT `+clientGrantColumns+clientGrantFrom+`
		WHERE g.client_id = ? AND g.conversation_id = ?`, clientID, convID))
	if errors.Is(err, sql.ErrNoRows) {
		return ClientGrant{}, ErrNotFound // no detail: missing and ungranted read alike
	}
	return g, err
}

// ClientGrants returns client clientID's grants, expired ones too, the
// most recently updated conversation first.
func (s *Store) ClientGrants(ctx context.Context, clientID string) ([]ClientGrant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+clientGrantColumns+clientGrantFrom+`
		WHERE g.client_id = ? ORDER BY v.updated_at DESC, v.id`, clientID)
	if err != nil {
		return nil, fmt.Errorf("reading the grants of client %s: %w", clientID, err)
	}
	return collect(rows, scanClientGrant)
}

// LiveClientGrants returns the grants of client clientID that work at at:
// none if the client is revoked, and no grant that expired by at. The
// most recently updated conversation comes first.
func (s *Store) LiveClientGrants(ctx context.Context, clientID string, at time.Time) ([]ClientGrant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+clientGrantColumns+clientGrantFrom+`
		WHERE g.client_id = ? AND c.revoked_at = 0 AND (g.expires_at = 0 OR g.expires_at > ?)
		ORDER BY v.updated_at DESC, v.id`, clientID, millis(at))
	if err != nil {
		return nil, fmt.Errorf("reading the grants of client %s: %w", clientID, err)
	}
	return collect(rows, scanClientGrant)
}

// ConversationGrants returns every grant of conversation convID, by
// client name.
func (s *Store) ConversationGrants(ctx context.Context, convID string) ([]ClientGrant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+clientGrantColumns+clientGrantFrom+`
		WHERE g.conversation_id = ? ORDER BY c.name, c.id`, convID)
	if err != nil {
		return nil, fmt.Errorf("reading the grants of conversation %s: %w", convID, err)
	}
	return collect(rows, scanClientGrant)
}

// A ClientTool is a tool a client's turns may run without anyone asking.
type ClientTool struct {
	ServerID string
	// Tool is the server's own name of the tool, not the namespaced one.
	Tool string
}

// AllowClientTool stores that client clientID's turns may run tool of
// server serverID without asking; allowing it twice is not an error.
// ErrNotFound if there is no such client.
func (s *Store) AllowClientTool(ctx context.Context, clientID, serverID, tool string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO client_tools(client_id, server_id, tool) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, clientID, serverID, tool)
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
			return fmt.Errorf("client %s: %w", clientID, ErrNotFound)
		}
		return fmt.Errorf("allowing %s of %s for client %s: %w", tool, serverID, clientID, err)
	}
	return nil
}

// DisallowClientTool removes what AllowClientTool stored; ErrNotFound if
// it was not allowed.
func (s *Store) DisallowClientTool(ctx context.Context, clientID, serverID, tool string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM client_tools WHERE client_id = ? AND server_id = ? AND tool = ?`, clientID, serverID, tool)
	if err != nil {
		return fmt.Errorf("disallowing %s of %s for client %s: %w", tool, serverID, clientID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("tool %s of %s for client %s: %w", tool, serverID, clientID, ErrNotFound)
	}
	return nil
}

// ClientTools returns the tools client clientID's turns may run without
// asking, by server and tool.
func (s *Store) ClientTools(ctx context.Context, clientID string) ([]ClientTool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT server_id, tool FROM client_tools WHERE client_id = ? ORDER BY server_id, tool`, clientID)
	if err != nil {
		return nil, fmt.Errorf("reading the tools of client %s: %w", clientID, err)
	}
	return collect(rows, func(r scanner) (ClientTool, error) {
		var t ClientTool
		err := r.Scan(&t.ServerID, &t.Tool)
		return t, err
	})
}

// ClientToolAllowed reports whether client clientID's turns may run tool
// of server serverID without asking; never for a revoked client.
func (s *Store) ClientToolAllowed(ctx context.Context, clientID, serverID, tool string) (bool, error) {
	var ok bool
	err := s.queryRow(ctx, nil, `SELECT EXISTS (SELECT 1 FROM client_tools t JOIN clients c ON c.id = t.client_id
		WHERE t.client_id = ? AND t.server_id = ? AND t.tool = ? AND c.revoked_at = 0)`, clientID, serverID, tool).Scan(&ok)
	return ok, err
}

// MaxClientAudit is the number of client audit records kept: inserting
// one more deletes the oldest.
const MaxClientAudit = 100_000

// A ClientAuditEntry records one request of a client: what it asked, and
// whether it was allowed and why.
type ClientAuditEntry struct {
	ID int64
	// ClientID and ClientName are empty for a request that carried no
	// valid token.
	ClientID       string
	ClientName     string
	Transport      string
	Operation      string
	ConversationID string
	Allowed        bool
	Reason         string
	At             time.Time
}

// InsertClientAudit records e (At zero means now) and returns its ID. It
// keeps the newest keep records (zero means MaxClientAudit), deleting
// older ones in the same transaction: IDs grow by one per record and only
// this deletes records, so the bound costs one range delete.
func (s *Store) InsertClientAudit(ctx context.Context, e ClientAuditEntry, keep int) (int64, error) {
	if keep <= 0 {
		keep = MaxClientAudit
	}
	if e.At.IsZero() {
		e.At = fromMillis(now())
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("recording a client request: %w", err)
	}
	defer tx.Rollback()
	var id int64
	err = s.queryRow(ctx, tx, `INSERT INTO client_audit(client_id, client_name, transport, operation, conversation_id, allowed, reason, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.ClientID, e.ClientName, e.Transport, e.Operation, e.ConversationID, e.Allowed, e.Reason, millis(e.At)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording a client request: %w", err)
	}
	if _, err := s.exec(ctx, tx, `DELETE FROM client_audit WHERE id <= ?`, id-int64(keep)); err != nil {
		return 0, fmt.Errorf("pruning the client audit: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("recording a client request: %w", err)
	}
	return id, nil
}

// A ClientAuditFilter selects the records ClientAudit returns; its zero
// value selects the newest DefaultClientAuditLimit.
type ClientAuditFilter struct {
	// Client keeps a client's records: its ID, or its name (ignoring case).
	Client         string
	Operation      string
	ConversationID string
	// Allowed keeps only allowed (true) or denied (false) requests; nil
	// keeps both.
	Allowed *bool
	// Since and Until bound the time (Since inclusive, Until exclusive);
	// zero means unbounded.
	Since, Until time.Time
	// Query keeps records whose operation or reason holds it (ignoring
	// ASCII case).
	Query string
	// Before keeps records with smaller IDs, to page back; zero means none.
	Before int64
	// Limit is at most MaxClientAuditLimit; zero means
	// DefaultClientAuditLimit.
	Limit int
}

// Bounds of ClientAuditFilter.Limit.
const (
	DefaultClientAuditLimit = 200
	MaxClientAuditLimit     = 1000
)

// ClientAudit returns the records f selects, newest first.
func (s *Store) ClientAudit(ctx context.Context, f ClientAuditFilter) ([]ClientAuditEntry, error) {
	var where []string
	var args []any
	if f.Client != "" {
		where = append(where, `(client_id = ? OR client_name = ? COLLATE NOCASE)`)
		args = append(args, f.Client, f.Client)
	}
	if f.Operation != "" {
		where = append(where, `operation = ?`)
		args = append(args, f.Operation)
	}
	if f.ConversationID != "" {
		where = append(where, `conversation_id = ?`)
		args = append(args, f.ConversationID)
	}
	if f.Allowed != nil {
		where = append(where, `allowed = ?`)
		args = append(args, *f.Allowed)
	}
	if !f.Since.IsZero() {
		where = append(where, `at >= ?`)
		args = append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		where = append(where, `at < ?`)
		args = append(args, f.Until.UnixMilli())
	}
	if f.Query != "" {
		where = append(where, `(instr(lower(operation), lower(?)) > 0 OR instr(lower(reason), lower(?)) > 0)`)
		args = append(args, f.Query, f.Query)
	}
	if f.Before > 0 {
		where = append(where, `id < ?`)
		args = append(args, f.Before)
	}
	limit := clampLimit(f.Limit, DefaultClientAuditLimit, MaxClientAuditLimit)
	q := `SELECT id, client_id, client_name, transport, operation, conversation_id, allowed, reason, at FROM client_audit` + whereAll(where)
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("reading the client audit: %w", err)
	}
	return collect(rows, func(r scanner) (ClientAuditEntry, error) {
		var e ClientAuditEntry
		var at int64
		err := r.Scan(&e.ID, &e.ClientID, &e.ClientName, &e.Transport, &e.Operation, &e.ConversationID, &e.Allowed, &e.Reason, &at)
		e.At = fromMillis(at)
		return e, err
	})
}

// SearchWithin is Search restricted to the conversations convIDs: the
// restriction is part of the query, so no other conversation's text (not
// even a snippet) leaves the database. No IDs means no hits.
func (s *Store) SearchWithin(ctx context.Context, text string, convIDs []string, limit int) ([]SearchHit, error) {
	if len(convIDs) == 0 {
		return []SearchHit{}, nil
	}
	ids, err := json.Marshal(convIDs)
	if err != nil {
		return nil, err
	}
	return s.search(ctx, text, limit, `m.conversation_id IN (SELECT value FROM json_each(?))`, string(ids))
}

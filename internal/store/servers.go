package store

import (
	"context"
	"database/sql"
	"errors"
)

// A Server is a stored MCP server config. Config is serverconf.Config as
// JSON, with secret values replaced by keyring references.
type Server struct {
	ID          string
	Name        string
	Transport   string
	Enabled     bool
	Config      string
	Fingerprint string
	Position    int
}

// Servers returns every stored server in display order.
func (s *Store) Servers(ctx context.Context) ([]Server, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+serverColumns+" FROM servers ORDER BY position, created_at, id")
	if err != nil {
		return nil, err
	}
	return collect(rows, scanServer)
}

// Server returns one server; ErrNotFound when there is none with that id.
func (s *Store) Server(ctx context.Context, id string) (Server, error) {
	v, err := scanServer(s.db.QueryRowContext(ctx, "SELECT "+serverColumns+" FROM servers WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return v, ErrNotFound
	}
	return v, err
}

// PutServers inserts or replaces servers in one transaction: all or none.
func (s *Store) PutServers(ctx context.Context, servers ...Server) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	t := now()
	for _, v := range servers {
		_, err := tx.ExecContext(ctx, `INSERT INTO servers(id, name, transport, enabled, config, fingerprint, position, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, coalesce(nullif(?, 0), (SELECT coalesce(max(position), 0) + 1 FROM servers)), ?, ?)
			ON CONFLICT(id) DO UPDATE SET name = excluded.name, transport = excluded.transport, enabled = excluded.enabled,
				config = excluded.config, fingerprint = excluded.fingerprint, position = excluded.position, updated_at = excluded.updated_at`,
			v.ID, v.Name, v.Transport, v.Enabled, v.Config, v.Fingerprint, v.Position, t, t)
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

// DeleteServer removes a server and its approval grants.
func (s *Store) DeleteServer(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM approval_grants WHERE server_id = ?", id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM servers WHERE id = ?", id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return tx.Commit()
}

const serverColumns = "id, name, transport, enabled, config, fingerprint, position"

func scanServer(r scanner) (Server, error) {
	var v Server
	err := r.Scan(&v.ID, &v.Name, &v.Transport, &v.Enabled, &v.Config, &v.Fingerprint, &v.Position)
	return v, err
}

package store

import (
	"context"
	"database/sql"
	"errors"
)

// A Provider is a configured model provider. KeyRef names the keyring entry
// holding its API key; the key itself is never stored here.
type Provider struct {
	ID           string
	Name         string
	Preset       string
	BaseURL      string
	DefaultModel string
	KeyRef       string
}

// Providers returns every configured provider, oldest first.
func (s *Store) Providers(ctx context.Context) ([]Provider, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+providerColumns+" FROM providers ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return collect(rows, scanProvider)
}

// Provider returns one provider; ErrNotFound when there is none with that id.
func (s *Store) Provider(ctx context.Context, id string) (Provider, error) {
	p, err := scanProvider(s.db.QueryRowContext(ctx, "SELECT "+providerColumns+" FROM providers WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, ErrNotFound
	}
	return p, err
}

// PutProvider inserts or replaces a provider.
func (s *Store) PutProvider(ctx context.Context, p Provider) error {
	t := now()
	_, err := s.db.ExecContext(ctx, `INSERT INTO providers(id, name, preset, base_url, default_model, key_ref, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, preset = excluded.preset, base_url = excluded.base_url,
			default_model = excluded.default_model, key_ref = excluded.key_ref, updated_at = excluded.updated_at`,
		p.ID, p.Name, p.Preset, p.BaseURL, p.DefaultModel, p.KeyRef, t, t)
	return err
}

// DeleteProvider removes a provider.
func (s *Store) DeleteProvider(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM providers WHERE id = ?", id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

const providerColumns = "id, name, preset, base_url, default_model, key_ref"

func scanProvider(r scanner) (Provider, error) {
	var p Provider
	err := r.Scan(&p.ID, &p.Name, &p.Preset, &p.BaseURL, &p.DefaultModel, &p.KeyRef)
	return p, err
}

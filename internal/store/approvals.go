package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// A Grant is a remembered "always allow" for one tool of one server, valid
// while the server's fingerprint and the tool's definition are unchanged.
type Grant struct {
	ServerID    string
	Tool        string
	Fingerprint string
	// DefinitionHash is the tool's definition the user allowed; empty for
	// a grant made before definitions were pinned.
	DefinitionHash string
	// Description and InputSchema are that definition, to show the user
	// what changed; InputSchema is nil when unknown.
	Description string
	InputSchema json.RawMessage
	CreatedAt   time.Time
}

// Grants returns every stored grant.
func (s *Store) Grants(ctx context.Context) ([]Grant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT server_id, tool, fingerprint, definition_hash, description, input_schema, created_at
		FROM approval_grants ORDER BY server_id, tool`)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r scanner) (Grant, error) {
		var g Grant
		var schema *string
		var at int64
		err := r.Scan(&g.ServerID, &g.Tool, &g.Fingerprint, &g.DefinitionHash, &g.Description, &schema, &at)
		if schema != nil {
			g.InputSchema = json.RawMessage(*schema)
		}
		g.CreatedAt = time.UnixMilli(at)
		return g, err
	})
}

// PutGrant stores g, replacing any grant for the same server and tool.
func (s *Store) PutGrant(ctx context.Context, g Grant) error {
	at := g.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	var schema *string
	if len(g.InputSchema) > 0 {
		schema = new(string(g.InputSchema))
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO approval_grants(server_id, tool, fingerprint, definition_hash, description, input_schema, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(server_id, tool) DO UPDATE SET fingerprint = excluded.fingerprint, definition_hash = excluded.definition_hash,
			description = excluded.description, input_schema = excluded.input_schema, created_at = excluded.created_at`,
		g.ServerID, g.Tool, g.Fingerprint, g.DefinitionHash, g.Description, schema, at.UnixMilli())
	return err
}

// DeleteGrant removes a grant; a missing grant is not an error.
func (s *Store) DeleteGrant(ctx context.Context, serverID, tool string) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM approval_grants WHERE server_id = ? AND tool = ?", serverID, tool)
	return err
}

const yoloKey = "approval.yolo"

// Yolo reports the approve-everything switch; false when never set.
func (s *Store) Yolo(ctx context.Context) (bool, error) {
	var on bool
	err := s.Setting(ctx, yoloKey, &on)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return on, err
}

// SetYolo stores the approve-everything switch.
func (s *Store) SetYolo(ctx context.Context, on bool) error {
	return s.SetSetting(ctx, yoloKey, on)
}

// A ReadOnlyServer remembers that the user lets the tools a server claims
// are read-only run without asking, while the server's fingerprint is
// Fingerprint.
type ReadOnlyServer struct {
	ServerID    string    `json:"serverId"`
	Fingerprint string    `json:"fingerprint"`
	CreatedAt   time.Time `json:"createdAt"`
}

// readOnlyKey holds the ReadOnlyServers, a short list, as one setting: the
// approval Broker serializes its writes.
const readOnlyKey = "approval.readOnlyServers"

// ReadOnlyServers returns every stored ReadOnlyServer, by server ID.
func (s *Store) ReadOnlyServers(ctx context.Context) ([]ReadOnlyServer, error) {
	var list []ReadOnlyServer
	err := s.Setting(ctx, readOnlyKey, &list)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return list, err
}

// PutReadOnlyServer stores r, replacing any for the same server.
func (s *Store) PutReadOnlyServer(ctx context.Context, r ReadOnlyServer) error {
	list, err := s.ReadOnlyServers(ctx)
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(x ReadOnlyServer) bool { return x.ServerID == r.ServerID })
	list = append(list, r)
	slices.SortFunc(list, func(x, y ReadOnlyServer) int { return strings.Compare(x.ServerID, y.ServerID) })
	return s.SetSetting(ctx, readOnlyKey, list)
}

// DeleteReadOnlyServer removes server serverID's; a missing one is not an
// error.
func (s *Store) DeleteReadOnlyServer(ctx context.Context, serverID string) error {
	list, err := s.ReadOnlyServers(ctx)
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(x ReadOnlyServer) bool { return x.ServerID == serverID })
	if len(kept) == len(list) {
		return nil
	}
	return s.SetSetting(ctx, readOnlyKey, kept)
}

// A PrivateTool is the user's mark that a tool reads private data, tied
// to the server's fingerprint and the tool's own name; ServerID is the
// server it was made on.
type PrivateTool struct {
	Fingerprint string    `json:"fingerprint"`
	Tool        string    `json:"tool"`
	ServerID    string    `json:"serverId"`
	CreatedAt   time.Time `json:"createdAt"`
}

// privateKey holds the PrivateTools as one setting, as readOnlyKey does:
// a short list (the approval Broker bounds it) whose writes the Broker
// serializes.
const privateKey = "approval.privateTools"

// PrivateTools returns every stored PrivateTool, by fingerprint and tool.
func (s *Store) PrivateTools(ctx context.Context) ([]PrivateTool, error) {
	var list []PrivateTool
	err := s.Setting(ctx, privateKey, &list)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return list, err
}

// PutPrivateTool stores p, replacing any for the same fingerprint and
// tool.
func (s *Store) PutPrivateTool(ctx context.Context, p PrivateTool) error {
	list, err := s.PrivateTools(ctx)
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(x PrivateTool) bool { return x.Fingerprint == p.Fingerprint && x.Tool == p.Tool })
	list = append(list, p)
	slices.SortFunc(list, func(x, y PrivateTool) int {
		return cmp.Or(strings.Compare(x.Fingerprint, y.Fingerprint), strings.Compare(x.Tool, y.Tool))
	})
	return s.SetSetting(ctx, privateKey, list)
}

// DeletePrivateTool removes the mark of fingerprint and tool; a missing
// one is not an error.
func (s *Store) DeletePrivateTool(ctx context.Context, fingerprint, tool string) error {
	list, err := s.PrivateTools(ctx)
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(x PrivateTool) bool { return x.Fingerprint == fingerprint && x.Tool == tool })
	if len(kept) == len(list) {
		return nil
	}
	return s.SetSetting(ctx, privateKey, kept)
}

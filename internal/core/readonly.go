package core

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// SetReadOnly lets the tools server id claims are read-only run without
// asking (on), or stops that. It is tied to the server's fingerprint now:
// a change to what runs (command, args, URL) turns it off.
func (s *Services) SetReadOnly(ctx context.Context, id string, on bool) error {
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return err
	}
	for _, c := range cfgs {
		if c.ID == id {
			return s.Broker.SetReadOnly(ctx, id, serverconf.Fingerprint(&c), on)
		}
	}
	return fmt.Errorf("no server %q: %w", id, store.ErrNotFound)
}

// grantStore is an approval.ReadOnlyStore too.

func (g grantStore) ReadOnlyServers(ctx context.Context) ([]approval.ReadOnlyServer, error) {
	recs, err := g.s.ReadOnlyServers(ctx)
	out := make([]approval.ReadOnlyServer, len(recs))
	for i, r := range recs {
		out[i] = approval.ReadOnlyServer(r)
	}
	return out, err
}

func (g grantStore) PutReadOnlyServer(ctx context.Context, r approval.ReadOnlyServer) error {
	return g.s.PutReadOnlyServer(ctx, store.ReadOnlyServer(r))
}

func (g grantStore) DeleteReadOnlyServer(ctx context.Context, serverID string) error {
	return g.s.DeleteReadOnlyServer(ctx, serverID)
}

var _ approval.ReadOnlyStore = grantStore{}

// ToolHints reads a tool's annotations (mcpconn.Tool.Annotations, MCP's
// ToolAnnotations as the server sent them) into what approval shows and
// decides by; nil when the server said none of the four.
func ToolHints(raw json.RawMessage) *approval.ToolHints {
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	h := approval.ToolHints(a)
	if h == (approval.ToolHints{}) {
		return nil
	}
	return &h
}

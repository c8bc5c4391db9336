package servers

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// SetLogLevel sets the least severe MCP log message server id is asked to
// send (serverconf.Config.LogLevel; empty for the server's default) and
// applies it to its live session without reconnecting.
func (s *Service) SetLogLevel(ctx context.Context, id string, level serverconf.LogLevel) (serverconf.Config, error) {
	if level != "" && !slices.Contains(serverconf.LogLevels, level) {
		return serverconf.Config{}, fmt.Errorf("unknown log level %q: use debug, info, notice, warning, error, critical, alert or emergency, or default for the server's own", level)
	}
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return cfg, err
	}
	cfg.LogLevel = level
	if err := s.Store.PutServers(ctx, record(cfg)); err != nil {
		return cfg, err
	}
	return cfg, s.Manager.Update(cfg)
}

// SetRoots sets the folders server id is offered as MCP roots
// (serverconf.Config.Roots; none for the default, no roots at all). A
// connected server is told of a change at once, or reconnected when it
// had none or has none now.
func (s *Service) SetRoots(ctx context.Context, id string, roots []string) (serverconf.Config, error) {
	cfg, err := s.stored(ctx, id)
	if err != nil {
		return cfg, err
	}
	cfg.Roots = roots
	if err := serverconf.Validate(&cfg); err != nil {
		return cfg, err
	}
	if err := s.Store.PutServers(ctx, record(cfg)); err != nil {
		return cfg, err
	}
	return cfg, s.Manager.Update(cfg)
}

package mcpconn

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A DoctorReport is what Doctor found out about one server.
type DoctorReport struct {
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	// State is StateConnected, StateNeedsAuth or StateFailed.
	State State  `json:"state"`
	Error string `json:"error,omitempty"`
	// ConnectTime is how long connecting and listing tools took.
	ConnectTime     time.Duration `json:"connectTime"`
	ProtocolVersion string        `json:"protocolVersion,omitempty"`
	// Server is the server's own name and version, as it reports them.
	Server string   `json:"server,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	// Warning is what the server does wrong without failing (Status.Warning).
	Warning string `json:"warning,omitempty"`
	// Stderr holds the server's last stderr lines (all of them, up to 20,
	// whether it failed or not).
	Stderr []string `json:"stderr,omitempty"`
}

// Doctor connects to each server once, in parallel, lists its tools and
// disconnects, independently of the supervised sessions (the Manager need
// not be started). It is the base of "switchboard doctor".
func (m *Manager) Doctor(ctx context.Context, cfgs []serverconf.Config) []DoctorReport {
	out := make([]DoctorReport, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Go(func() { out[i] = m.doctor(ctx, cfg) })
	}
	wg.Wait()
	return out
}

func (m *Manager) doctor(ctx context.Context, cfg serverconf.Config) DoctorReport {
	r := DoctorReport{ServerID: cfg.ID, ServerName: cfg.DisplayName()}
	ring := logbuf.New(&logbuf.Options{MaxLines: 200})
	start := time.Now()
	pv, _ := m.protocolFor(cfg)
	sess, err := m.dial(ctx, cfg, ring, pv)
	r.ConnectTime = time.Since(start)
	if err != nil {
		r.State, r.Error = StateFailed, err.Error()
		var de *dialError
		if errors.As(err, &de) && de.needsAuth {
			r.State = StateNeedsAuth
		}
		r.Stderr = lastStderr(ring, 0, 20)
		if h := stderrHint(r.Stderr); h != "" {
			r.Error += ": " + h
		}
		return r
	}
	r.State, r.ProtocolVersion = StateConnected, sess.protocol
	if sess.noisy.Load() {
		r.Warning = stdoutWarning
	}
	if sess.cmdWarning != "" {
		r.Warning = sess.cmdWarning
	}
	if info := sess.cs.InitializeResult().ServerInfo; info != nil {
		r.Server = info.Name + " " + info.Version
	}
	for _, t := range sess.tools {
		r.Tools = append(r.Tools, t.Name)
	}
	sess.stop(nil)
	r.Stderr = lastStderr(ring, 0, 20)
	return r
}

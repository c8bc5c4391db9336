package app

import (
	"context"
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
)

// LogAppend is the payload of EventLogAppend.
type LogAppend struct {
	// Source is "app" or a server ID.
	Source string        `json:"source"`
	Lines  []logbuf.Line `json:"lines"`
	// Skipped counts lines that scrolled out of the ring before they could
	// be sent (a flood); the viewer says so.
	Skipped uint64 `json:"skipped,omitempty"`
}

const (
	logPollInterval = 150 * time.Millisecond
	logBatchMax     = 2000
)

// AppLogs returns the app log's lines after sinceSeq (0 = from the start of
// the ring), at most max (0 = all).
func (a *App) AppLogs(sinceSeq uint64, max int) ([]logbuf.Line, error) {
	return orEmpty(a.core.AppLog.Lines(sinceSeq, max)), nil
}

// ServerLogs returns a server's stderr lines after sinceSeq, at most max.
func (a *App) ServerLogs(serverID string, sinceSeq uint64, max int) ([]logbuf.Line, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	r := svc.Manager.Stderr(serverID)
	if r == nil {
		return []logbuf.Line{}, nil
	}
	return orEmpty(r.Lines(sinceSeq, max)), nil
}

func orEmpty(l []logbuf.Line) []logbuf.Line {
	if l == nil {
		return []logbuf.Line{}
	}
	return l
}

// feedLogs sends new lines of every log to the frontend in batches, at most
// one event per source per interval, so a flood costs the UI a bounded
// amount of work.
func (a *App) feedLogs(ctx context.Context) {
	last := map[string]uint64{}
	for name, r := range a.logSources() {
		last[name] = r.LastSeq()
	}
	t := time.NewTicker(logPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for name, r := range a.logSources() {
			seq := r.LastSeq()
			prev, known := last[name]
			if known && seq == prev {
				continue
			}
			lines := r.Lines(prev, 0)
			var skipped uint64
			if len(lines) > 0 && lines[0].Seq > prev+1 {
				skipped = lines[0].Seq - prev - 1
			}
			if len(lines) > logBatchMax {
				skipped += uint64(len(lines) - logBatchMax)
				lines = lines[len(lines)-logBatchMax:]
			}
			last[name] = seq
			if len(lines) > 0 || skipped > 0 {
				a.Emit(EventLogAppend, LogAppend{Source: name, Lines: orEmpty(lines), Skipped: skipped})
			}
		}
	}
}

func (a *App) logSources() map[string]*logbuf.Ring {
	out := map[string]*logbuf.Ring{"app": a.core.AppLog}
	svc, err := a.services()
	if err != nil {
		return out
	}
	for _, st := range svc.Manager.Statuses() {
		if r := svc.Manager.Stderr(st.ServerID); r != nil {
			out[st.ServerID] = r
		}
	}
	return out
}

package app

import (
	"time"

	"github.com/switchboard-app/switchboard/internal/logbuf"
)

const (
	// logInterval is the most often one source's lines are sent: a flood
	// costs the window a bounded amount of work.
	logInterval = 150 * time.Millisecond
	logBatchMax = 2000
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

func orEmpty[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// feedLog pushes the lines appended to r from now on to the window as
// EventLogAppend, once per source: a subscription, batched so that at
// most one event per logInterval goes out.
func (a *App) feedLog(source string, r *logbuf.Ring) {
	a.mu.Lock()
	if a.feeds[source] == r {
		a.mu.Unlock()
		return
	}
	a.feeds[source] = r
	a.mu.Unlock()
	ch, cancel := r.Subscribe(logBatchMax)
	go func() {
		defer cancel()
		defer func() {
			a.mu.Lock()
			if a.feeds[source] == r {
				delete(a.feeds, source)
			}
			a.mu.Unlock()
		}()
		var batch []logbuf.Line
		var skipped uint64
		var due <-chan time.Time
		send := func() {
			if len(batch) > 0 || skipped > 0 {
				a.Emit(EventLogAppend, LogAppend{Source: source, Lines: orEmpty(batch), Skipped: skipped})
			}
			batch, skipped, due = nil, 0, nil
		}
		for {
			select {
			case <-a.life.Done():
				return
			case u, ok := <-ch:
				if !ok { // the ring closed
					send()
					return
				}
				skipped += u.Dropped
				batch = append(batch, u.Line)
				if len(batch) > logBatchMax { // a flood: keep the newest
					skipped++
					batch = batch[1:] // append moves the rest when it grows: amortised, no copy per line
				}
				if due == nil {
					due = time.After(logInterval)
				}
			case <-due:
				send()
			}
		}
	}()
}

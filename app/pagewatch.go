package app

import (
	"sync"
	"time"
)

// A pageWatch decides how the window recovers when its page stops
// answering or its web process crashes. WebKitGTK runs the app's page and
// every view's frame in one web process on one thread, so a view whose
// script never yields freezes the whole window; the only way out is to end
// that process and load the page again (frameguard_linux.go). The page's
// state lives in Go, so a reload loses nothing the user had saved; the
// page restores the conversation that was open and its unsent text.
//
// Its methods run on GTK's thread and only take a mutex.
type pageWatch struct {
	// viewsOpen reports how many servers' views are open. A page that
	// hangs without one is the app's own doing and is left to recover.
	viewsOpen func() int
	// ended is told, off GTK's thread, that the page was reloaded and
	// why: the views are stopped there and the reload is logged.
	ended func(reason string)
	now   func() time.Time

	mu      sync.Mutex
	reloads []time.Time // within reloadWindow
	killed  bool        // the process was ended by hung
	notice  string      // for the reloaded page (takeNotice)
}

// At most maxReloads reloads within reloadWindow: a page that keeps
// crashing (a view that exhausts memory as soon as it loads, say) is not
// reloaded forever.
const (
	maxReloads   = 3
	reloadWindow = 10 * time.Minute
)

// hung is asked once the web process has not answered for a few seconds:
// true ends it (a view is open, and reloads are left).
func (w *pageWatch) hung() bool {
	if w.viewsOpen() == 0 {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.mayReloadLocked() {
		return false
	}
	w.killed = true
	return true
}

// gone is told that the web process ended: by hung's decision (ended) or
// a crash. It reports whether to load the page again.
func (w *pageWatch) gone(ended bool) bool {
	w.mu.Lock()
	var reason string
	switch {
	case ended && w.killed:
		reason = "A server's view stopped responding and froze the window, so Switchboard closed every view and reloaded the window. Nothing saved was lost; a view can be shown again from its tool call (Show view)."
	case !ended:
		reason = "The window's page crashed, so Switchboard reloaded it. Nothing saved was lost; if a server's view was open, it was closed (show it again from its tool call only if you trust it)."
	default: // ended by someone else: not ours to undo
		w.mu.Unlock()
		return false
	}
	w.killed = false
	if !w.mayReloadLocked() && !ended {
		w.mu.Unlock()
		go w.ended("the window's page crashed again; not reloaded (more than 3 times in 10 minutes)")
		return false
	}
	w.reloads = append(w.reloads, w.now())
	w.notice = reason
	w.mu.Unlock()
	go w.ended(reason)
	return true
}

// mayReloadLocked drops reloads older than reloadWindow and reports
// whether one more is allowed.
func (w *pageWatch) mayReloadLocked() bool {
	cut := w.now().Add(-reloadWindow)
	kept := w.reloads[:0]
	for _, t := range w.reloads {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	w.reloads = kept
	return len(w.reloads) < maxReloads
}

// takeNotice returns, once, what the reloaded page should tell the user.
func (w *pageWatch) takeNotice() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.notice
	w.notice = ""
	return n
}

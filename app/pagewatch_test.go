package app

import (
	"strings"
	"sync"
	"testing"
	"time"
)

type watchFixture struct {
	w     *pageWatch
	views int
	clock time.Time
	mu    sync.Mutex
	told  []string
	wg    sync.WaitGroup
}

func newWatchFixture() *watchFixture {
	f := &watchFixture{views: 1, clock: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	f.w = &pageWatch{
		viewsOpen: func() int { return f.views },
		now:       func() time.Time { return f.clock },
		ended: func(reason string) {
			defer f.wg.Done()
			f.mu.Lock()
			f.told = append(f.told, reason)
			f.mu.Unlock()
		},
	}
	return f
}

// gone wraps pageWatch.gone, counting the ended call it starts.
func (f *watchFixture) gone(ended bool) bool {
	f.wg.Add(1)
	r := f.w.gone(ended)
	return r
}

func TestPageWatchHungView(t *testing.T) {
	f := newWatchFixture()
	if !f.w.hung() {
		t.Fatal("a hung page with a view open was not ended")
	}
	if !f.gone(true) {
		t.Fatal("the page was not reloaded after its process was ended")
	}
	f.wg.Wait()
	n := f.w.takeNotice()
	if !strings.Contains(n, "view stopped responding") {
		t.Errorf("notice = %q", n)
	}
	if again := f.w.takeNotice(); again != "" {
		t.Errorf("the notice came twice: %q", again)
	}
	if len(f.told) != 1 {
		t.Errorf("ended told %d times, want 1", len(f.told))
	}
}

func TestPageWatchNoViewNoKill(t *testing.T) {
	f := newWatchFixture()
	f.views = 0
	if f.w.hung() {
		t.Fatal("a hung page without a view was ended: the app's own page is left to recover")
	}
	// A process someone else ended (not hung's decision) is not reloaded.
	f.wg.Add(1) // no ended call expected; balance by hand
	if f.w.gone(true) {
		t.Fatal("reloaded after a termination that was not ours")
	}
	f.wg.Done()
}

func TestPageWatchReloadsBounded(t *testing.T) {
	f := newWatchFixture()
	for i := range maxReloads {
		if !f.w.hung() || !f.gone(true) {
			t.Fatalf("reload %d refused", i+1)
		}
		f.clock = f.clock.Add(time.Minute)
	}
	if f.w.hung() {
		t.Fatalf("a %dth kill within %v was allowed", maxReloads+1, reloadWindow)
	}
	// A crash now is not reloaded either, and ended says so.
	if f.gone(false) {
		t.Fatal("a crash past the limit was reloaded")
	}
	f.clock = f.clock.Add(reloadWindow)
	if !f.w.hung() {
		t.Fatal("no reload allowed after the window passed")
	}
	f.wg.Wait()
	if !strings.Contains(strings.Join(f.told, "\n"), "not reloaded") {
		t.Errorf("the refused crash was not told: %q", f.told)
	}
}

func TestPageWatchCrash(t *testing.T) {
	f := newWatchFixture()
	f.views = 0
	if !f.gone(false) {
		t.Fatal("a crashed page was not reloaded")
	}
	f.wg.Wait()
	if n := f.w.takeNotice(); !strings.Contains(n, "crashed") {
		t.Errorf("notice = %q", n)
	}
}

package mcptest

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Descendants lists the processes below root (not root itself), children
// before grandchildren, read from /proc. It is Linux only: elsewhere it
// finds none.
func Descendants(root int) []int {
	kids := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

// Cmdline is the command line of pid, its arguments joined by spaces ("" if
// it is gone). Linux only.
func Cmdline(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})))
}

// PeakRSS is the peak resident set size of this process (VmHWM), in bytes,
// or 0 where /proc/self/status does not tell it.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// A MemoryWatch samples the Go heap every 5 ms from its start.
type MemoryWatch struct {
	base uint64
	quit chan struct{}
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	max  uint64
}

// WatchMemory collects garbage, resets this process's peak RSS (Linux:
// "5" in /proc/self/clear_refs), so that PeakRSS is the test's own, and
// starts sampling the heap until Stop or the test's end.
func WatchMemory(t testing.TB) *MemoryWatch {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	w := &MemoryWatch{base: ms.HeapAlloc, max: ms.HeapAlloc, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			w.mu.Lock()
			w.max = max(w.max, ms.HeapAlloc)
			w.mu.Unlock()
			select {
			case <-w.quit:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { w.Stop() })
	return w
}

// Base is the heap's size when the watch started, in bytes.
func (w *MemoryWatch) Base() uint64 { return w.base }

// PeakGrowth is the most the heap grew over Base so far, in bytes.
func (w *MemoryWatch) PeakGrowth() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.max - w.base
}

// Stop ends the sampling and returns PeakGrowth. It is safe to call twice.
func (w *MemoryWatch) Stop() uint64 {
	w.once.Do(func() { close(w.quit) })
	<-w.done
	return w.PeakGrowth()
}

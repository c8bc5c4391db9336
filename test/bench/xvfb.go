package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// A display is an Xvfb server of the bench's own, and a watcher of the
// windows mapped on it.
//
// "Mapped" is taken from X's MapNotify events (xev on the root window),
// timed as they arrive. `xdotool search --sync` polls every 500 ms, far too
// coarse for start-up times of a few hundred; when xev is missing the bench
// polls xdotool every 10 ms instead and says so.
type display struct {
	name   string
	xvfb   *proc
	xev    *proc
	method string

	mu   sync.Mutex
	maps []mapEvent
	wake chan struct{}
}

type mapEvent struct {
	at     time.Time
	window string
}

func startDisplay() (*display, error) {
	if lookPath("Xvfb") == "" {
		return nil, errors.New("Xvfb not found (make test-deps installs xvfb)")
	}
	if lookPath("xdotool") == "" {
		return nil, errors.New("xdotool not found (make test-deps installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	x, err := startProc(cmd)
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		num <- strings.TrimSpace(line)
	}()
	d := &display{xvfb: x, wake: make(chan struct{}, 1)}
	select {
	case n := <-num:
		if n == "" {
			x.stop()
			return nil, errors.New("Xvfb did not report its display")
		}
		d.name = ":" + n
	case <-time.After(10 * time.Second):
		x.stop()
		return nil, errors.New("Xvfb did not start within 10 s")
	}
	d.method = "xdotool polled every 10 ms"
	if lookPath("xev") != "" {
		if err := d.watch(); err == nil {
			d.method = "X MapNotify events (xev -root)"
		}
	}
	return d, nil
}

// debug prints the windows seen (-v).
var debug bool

var mapLine = regexp.MustCompile(`window (0x[0-9a-f]+), override (YES|NO)`)

// watch reads MapNotify events of the root window's children.
func (d *display) watch() error {
	args := []string{"xev", "-display", d.name, "-root", "-event", "substructure"}
	if sb := lookPath("stdbuf"); sb != "" {
		args = append([]string{sb, "-oL"}, args...) // xev writes through stdio
	}
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	d.xev = p
	go func() {
		sc := bufio.NewScanner(out)
		inMap := false
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "MapNotify event") {
				inMap = true
				continue
			}
			if inMap {
				inMap = false
				if m := mapLine.FindStringSubmatch(l); m != nil && m[2] == "NO" {
					d.mu.Lock()
					d.maps = append(d.maps, mapEvent{at: time.Now(), window: m[1]})
					d.mu.Unlock()
					select {
					case d.wake <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	time.Sleep(200 * time.Millisecond) // let xev select its events
	return nil
}

func (d *display) close() {
	if d.xev != nil {
		d.xev.stop()
	}
	d.xvfb.stop()
}

// waitMapped returns when a top-level window of p was mapped after since.
func (d *display) waitMapped(ctx context.Context, title string, since time.Time, p *proc) (time.Time, error) {
	if d.xev == nil {
		return d.pollMapped(ctx, title, p)
	}
	checked := map[string]bool{}
	for {
		d.mu.Lock()
		events := append([]mapEvent(nil), d.maps...)
		d.mu.Unlock()
		for _, e := range events {
			if e.at.Before(since) || checked[e.window] {
				continue
			}
			checked[e.window] = true
			if d.owns(e.window, p.pid(), title) {
				return e.at, nil
			}
		}
		select {
		case <-d.wake:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("no window %q mapped: %w", title, ctx.Err())
		case <-p.done:
			return time.Time{}, fmt.Errorf("exited before its window was mapped: %v", p.err)
		}
	}
}

func (d *display) pollMapped(ctx context.Context, title string, p *proc) (time.Time, error) {
	for {
		if out, err := d.xdotool("search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(title)+"$"); err == nil && out != "" {
			return time.Now(), nil
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("no window %q mapped: %w", title, ctx.Err())
		case <-p.done:
			return time.Time{}, fmt.Errorf("exited before its window was mapped: %v", p.err)
		}
	}
}

// xdotool runs xdotool on the display and returns its trimmed output.
func (d *display) xdotool(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+d.name)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// owns tells whether window belongs to pid (_NET_WM_PID, which GTK sets
// before mapping), or failing that is titled title. The title alone will
// not do: Wails sets it just after the window is mapped. The map time is
// already taken, so the retries here cost the figure nothing.
func (d *display) owns(window string, pid int, title string) bool {
	for range 20 {
		wpid, err := d.xdotool("getwindowpid", window)
		name, _ := d.xdotool("getwindowname", window)
		if debug {
			fmt.Fprintf(os.Stderr, "  [x] window %s: pid %q (want %d), name %q\n", window, wpid, pid, name)
		}
		if err == nil && wpid == fmt.Sprint(pid) || name == title {
			return true
		}
		if err == nil && wpid != "" {
			return false // another process's window
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

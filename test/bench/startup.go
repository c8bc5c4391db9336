package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// memoryAfter is when the process trees' memory is read, from launch.
const memoryAfter = 10 * time.Second

// A launch is one start of a window and what was seen of it.
type launch struct {
	mapped time.Duration // launch → top-level window mapped
	ready  time.Duration // launch → the page called its Ready
	mem    treeMemory    // at memoryAfter; zero when not asked for
	// connected counts MCP servers the app log says connected.
	connected int
}

// benchStartup measures startup_ratio and memory_ratio: the release
// window against a minimal Wails window, both under the bench's own Xvfb,
// launched alternately so that drift in the machine's load hits both.
func benchStartup(cfg *config, rep *Report) {
	startupTarget, memTarget := ptr(1.2), ptr(1.15)
	fail := func(why string) {
		rep.add("startup_ratio", notMeasured("ratio", startupTarget, why))
		rep.add("memory_ratio", notMeasured("ratio", memTarget, why))
	}
	if m := need(cfg.bin, filepath.Join(cfg.nodeDir, ".bin", "node")); m != "" {
		fail(m)
		return
	}
	minimal, err := buildMinimal(cfg)
	if err != nil {
		fail(err.Error())
		return
	}
	d, err := startDisplay()
	if err != nil {
		fail(err.Error())
		return
	}
	defer d.close()

	plainDir := filepath.Join(cfg.tmp, "startup-app")
	serversDir := filepath.Join(cfg.tmp, "memory-app")
	minDir := filepath.Join(cfg.tmp, "startup-minimal")
	if err := importServers(cfg, serversDir); err != nil {
		fail(err.Error())
		return
	}

	var minMapped, minReady, minMem, appMapped, appReady, appSrvReady, appMem, minPriv, appPriv []float64
	byProc := map[string]map[string][]float64{"app": {}, "minimal": {}}
	addProcs := func(who string, m treeMemory) {
		for name, kb := range m.ByProcess {
			byProc[who][name] = append(byProc[who][name], float64(kb)/1024)
		}
	}
	var lastApp launch
	// A launch whose page never loads is counted and tried again, up to a
	// point: it is a finding of its own (see extra.notReady), not noise.
	notReady := map[string]int{}
	var notReadyShot string
	retry := func(what string, f func() (launch, error)) (launch, error) {
		for {
			l, err := f()
			var nr *notReadyError
			if !errors.As(err, &nr) || notReady["app"]+notReady["appWith3Servers"] >= 6 {
				return l, err
			}
			notReady[what]++
			if notReadyShot == "" {
				notReadyShot = nr.screenshot
			}
			cfg.logf("%s: %v; launching again", what, err)
		}
	}
	launches := map[string]int{}
	// One launch of each first, not counted: it creates the database and
	// WebKit's caches, and brings the binaries into the page cache.
	for _, f := range []func() (launch, error){
		func() (launch, error) { return launchMinimal(cfg, d, minimal, minDir, 0) },
		func() (launch, error) {
			return retry("app", func() (launch, error) { launches["app"]++; return launchApp(cfg, d, plainDir, 0, 0) })
		},
		func() (launch, error) {
			return retry("appWith3Servers", func() (launch, error) { launches["appWith3Servers"]++; return launchApp(cfg, d, serversDir, 0, 0) })
		},
	} {
		if _, err := f(); err != nil {
			fail("warm-up launch: " + err.Error())
			return
		}
	}

	for i := range max(cfg.runs, 5) {
		steps := []func() error{
			func() error {
				l, err := launchMinimal(cfg, d, minimal, minDir, memoryAfter)
				if err == nil {
					minMapped, minReady, minMem = append(minMapped, ms(l.mapped)), append(minReady, ms(l.ready)), append(minMem, float64(l.mem.TotalKB)/1024)
					minPriv = append(minPriv, float64(l.mem.PrivateKB)/1024)
					addProcs("minimal", l.mem)
					cfg.logf("run %d minimal: mapped %s, page ready %s, PSS %d MB", i+1, l.mapped, l.ready, l.mem.TotalKB>>10)
				}
				return err
			},
			func() error {
				l, err := retry("app", func() (launch, error) { launches["app"]++; return launchApp(cfg, d, plainDir, 0, 0) })
				if err == nil {
					appMapped, appReady = append(appMapped, ms(l.mapped)), append(appReady, ms(l.ready))
					cfg.logf("run %d app: mapped %s, chat ready %s", i+1, l.mapped, l.ready)
				}
				return err
			},
			func() error {
				l, err := retry("appWith3Servers", func() (launch, error) {
					launches["appWith3Servers"]++
					return launchApp(cfg, d, serversDir, memoryAfter, 3)
				})
				if err == nil {
					appSrvReady, appMem = append(appSrvReady, ms(l.ready)), append(appMem, float64(l.mem.TotalKB)/1024)
					appPriv = append(appPriv, float64(l.mem.PrivateKB)/1024)
					addProcs("app", l.mem)
					lastApp = l
					cfg.logf("run %d app with 3 servers: chat ready %s, PSS %d MB, %d servers connected", i+1, l.ready, l.mem.TotalKB>>10, l.connected)
				}
				return err
			},
		}
		if i%2 == 1 { // alternate who goes first
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, s := range steps {
			if err := s(); err != nil {
				fail(fmt.Sprintf("run %d: %v", i+1, err))
				return
			}
		}
	}

	// Three decimals, so that the verdict and the printed value agree.
	ratio := round(median(appReady)/median(minMapped), 3)
	readyRatio := round(median(appReady)/median(minReady), 3)
	rep.add("startup_ratio", Figure{
		Value: ptr(ratio), Unit: "ratio", Runs: len(appReady), Target: startupTarget,
		Baseline: ptr(round(median(minMapped), 1)), BaselineUnit: "ms", BaselineWhat: "minimal Wails window (same tags), launch → window mapped, median",
		How:     fmt.Sprintf("median(app launch → \"frontend ready\" in app.log) ÷ median(minimal launch → mapped), under Xvfb, %d alternating runs each; mapped from %s", len(appReady), d.method),
		Samples: roundAll(appReady, 1),
		Extra: map[string]any{
			"appReadyMs":           round(median(appReady), 1),
			"appMappedMs":          round(median(appMapped), 1),
			"minimalMappedMs":      roundAll(minMapped, 1),
			"minimalPageReadyMs":   round(median(minReady), 1),
			"appMappedRatio":       round(median(appMapped)/median(minMapped), 2),
			"readyToReadyRatio":    round(median(appReady)/median(minReady), 2),
			"appReadyWith3Servers": round(median(appSrvReady), 1),
			"notReady":             notReady, "launches": launches, "notReadyScreenshot": notReadyShot,
		},
		Note: startupNote(ratio, median(appMapped)/median(minMapped), readyRatio, median(minReady)/median(minMapped)) + notReadyNote(notReady, launches),
	})
	// The same measurement, like for like: both ends are the page's call of
	// a bound Ready method.
	rep.add("startup_ready_ratio", Figure{
		Value: ptr(readyRatio), Unit: "ratio", Runs: len(appReady), Target: startupTarget,
		Baseline: ptr(round(median(minReady), 1)), BaselineUnit: "ms", BaselineWhat: "minimal Wails window, launch → its page calls the bound Ready, median",
		How:     fmt.Sprintf("median(app launch → \"frontend ready\" in app.log) ÷ median(minimal launch → its page's Ready call), under Xvfb, %d alternating runs each; not a key the issue asks for: startup_ratio's like-for-like companion", len(appReady)),
		Samples: roundAll(minReady, 1),
	})
	mratio := round(median(appMem)/median(minMem), 3)
	rep.add("memory_ratio", Figure{
		Value: ptr(mratio), Unit: "ratio", Runs: len(appMem), Target: memTarget,
		Baseline: ptr(round(median(minMem), 1)), BaselineUnit: "MB", BaselineWhat: "minimal Wails window's process tree PSS, 10 s after launch, median",
		How:     fmt.Sprintf("median PSS (smaps_rollup) of the app's process tree, WebKit included, MCP servers excluded, 10 s after launch with 3 stdio servers connected ÷ the same of the minimal window; %d alternating runs", len(appMem)),
		Samples: roundAll(appMem, 1),
		Extra: map[string]any{
			"appMB": round(median(appMem), 1), "minimalMB": roundAll(minMem, 1),
			"appByProcessMB": medians(byProc["app"]), "minimalByProcessMB": medians(byProc["minimal"]), "excluded": lastApp.mem.Excluded,
			"privateRatio": round(median(appPriv)/median(minPriv), 2), "appPrivateMB": round(median(appPriv), 1), "minimalPrivateMB": round(median(minPriv), 1),
		},
		Note: memoryNote(mratio, median(appMem), median(minMem), median(appPriv)/median(minPriv), medians(byProc["app"]), medians(byProc["minimal"])),
	})
}

func startupNote(ratio, mapped, readyToReady, minimalOwn float64) string {
	if ratio <= 1.2 {
		return ""
	}
	return fmt.Sprintf("MISSED, and the target cannot be met as defined: it divides the app's chat-ready time by the minimal window's "+
		"mapped time, but a page becomes ready only after the window maps and WebKit starts its web process and loads the page. "+
		"The minimal window's own one-line page calls Ready at %.2f× its mapped time, so no Wails app whose readiness is a page event "+
		"can reach 1.2. Like for like, the app's window maps at %.2f× the minimal's, and the app's chat is ready at %.2f× the "+
		"minimal page's ready (startup_ready_ratio).", minimalOwn, mapped, readyToReady)
}

func memoryNote(ratio, app, min, private float64, appBy, minBy map[string]float64) string {
	if ratio <= 1.15 { // ratio is rounded as reported
		return ""
	}
	var parts []string
	for name, mb := range appBy {
		parts = append(parts, fmt.Sprintf("%s %+.0f MB", name, mb-minBy[name]))
	}
	slices.Sort(parts)
	return fmt.Sprintf("MISSED: %.0f MB against %.0f MB (medians). By process, app minus minimal: %s (the app's Go process holds SQLite, three MCP sessions with their stderr rings and a binary 2.3× the size; its WebKit web process the "+
		"Svelte app). Private memory alone (USS, unmoved by what else shares the libraries) gives %.2f×.", app, min, strings.Join(parts, ", "), private)
}

// medians maps each key to the median of its values, rounded.
func medians(m map[string][]float64) map[string]float64 {
	out := map[string]float64{}
	for k, xs := range m {
		out[k] = round(median(xs), 1)
	}
	return out
}

// readyTimeout is how long a mapped window may take to call Ready before
// the launch counts as failed.
const readyTimeout = 20 * time.Second

// A notReadyError is a launch whose window was mapped but whose frontend
// never called Ready: the page stayed blank.
type notReadyError struct {
	after      time.Duration
	screenshot string
	log        string
}

func (e *notReadyError) Error() string {
	return fmt.Sprintf("the window was mapped but the frontend did not call Ready within %s (screenshot %s, log %s)", e.after, e.screenshot, e.log)
}

// launchApp starts the release binary on dir's data directory, waits for
// the window and the frontend's Ready, and, when memAt > 0, reads the
// memory of its process tree memAt after launch (after waiting for
// wantServers MCP servers to connect).
func launchApp(cfg *config, d *display, dir string, memAt time.Duration, wantServers int) (launch, error) {
	var l launch
	logPath := filepath.Join(dir, "data", "logs", "app.log")
	var offset int64
	if info, err := os.Stat(logPath); err == nil {
		offset = info.Size()
	}
	cmd := exec.Command(cfg.bin)
	cmd.Env = appEnv(dir, d.name)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	p, err := startProc(cmd)
	if err != nil {
		return l, err
	}
	defer p.stop()
	mapped, err := d.waitMapped(ctx, "Switchboard", start, p)
	if err != nil {
		return l, fmt.Errorf("app: %v\n%s", err, stderr.String())
	}
	l.mapped = mapped.Sub(start)
	readyCtx, cancelReady := context.WithTimeout(ctx, readyTimeout)
	defer cancelReady()
	readyAt, err := waitLog(readyCtx, logPath, offset, `msg="frontend ready"`, p)
	if err != nil {
		shot := filepath.Join(cfg.root, "test-results", "bench-not-ready.png")
		if lookPath("import") != "" {
			os.MkdirAll(filepath.Dir(shot), 0o755)
			c := exec.Command("import", "-window", "root", shot)
			c.Env = append(os.Environ(), "DISPLAY="+d.name)
			if c.Run() != nil {
				shot = ""
			}
		}
		return l, &notReadyError{after: readyTimeout, screenshot: shot, log: logPath}
	}
	l.ready = readyAt.Sub(start)
	if memAt == 0 {
		return l, nil
	}
	time.Sleep(time.Until(start.Add(memAt)))
	l.connected = countLog(logPath, offset, "to=connected")
	if l.connected < wantServers {
		return l, fmt.Errorf("app: %d of %d MCP servers connected %s after launch (see %s)", l.connected, wantServers, memAt, logPath)
	}
	l.mem, err = treePSS(p.pid(), isMCPServer)
	return l, err
}

// launchMinimal starts the minimal window and waits for it to be mapped
// and its page to call Ready, then reads its memory memAt after launch.
func launchMinimal(cfg *config, d *display, bin, dir string, memAt time.Duration) (launch, error) {
	var l launch
	cmd := exec.Command(bin)
	cmd.Env = appEnv(dir, d.name)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return l, err
	}
	ready := make(chan time.Time, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- time.Now()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	p, err := startProc(cmd)
	if err != nil {
		return l, err
	}
	defer p.stop()
	mapped, err := d.waitMapped(ctx, "Minimal", start, p)
	if err != nil {
		return l, fmt.Errorf("minimal: %v", err)
	}
	l.mapped = mapped.Sub(start)
	select {
	case at := <-ready:
		l.ready = at.Sub(start)
	case <-ctx.Done():
		return l, errors.New("minimal: its page never called Ready")
	}
	if memAt == 0 {
		return l, nil
	}
	time.Sleep(time.Until(start.Add(memAt)))
	l.mem, err = treePSS(p.pid(), isMCPServer)
	return l, err
}

// waitLog waits for a line containing what in the log after offset and
// returns the time the line carries (the logger's clock, so polling adds
// no error).
func waitLog(ctx context.Context, path string, offset int64, what string, p *proc) (time.Time, error) {
	for {
		if data, err := readFrom(path, offset); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if strings.Contains(line, what) {
					ts, _, _ := strings.Cut(line, " ")
					return time.Parse(time.RFC3339Nano, ts)
				}
			}
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s never showed %s", path, what)
		case <-p.done:
			return time.Time{}, fmt.Errorf("exited before %s showed %s: %v", path, what, p.err)
		}
	}
}

func countLog(path string, offset int64, what string) int {
	data, _ := readFrom(path, offset)
	return strings.Count(string(data), what)
}

func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// importServers configures three stdio servers in dir's data directory
// through `switchboard servers import` of a Claude Desktop file, with
// absolute paths to Node 22 and the servers' scripts.
func importServers(cfg *config, dir string) error {
	node := filepath.Join(cfg.nodeDir, ".bin", "node")
	script := func(pkg string) string {
		return filepath.Join(cfg.nodeDir, "@modelcontextprotocol", pkg, "dist", "index.js")
	}
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return err
	}
	conf := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script("server-everything"), "stdio"}},
		"memory": map[string]any{"command": node, "args": []string{script("server-memory")},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		"filesystem": map[string]any{"command": node, "args": []string{script("server-filesystem"), files}},
	}}
	data, _ := json.MarshalIndent(conf, "", "  ")
	file := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(cfg.bin, "servers", "import", file)
	cmd.Env = appEnv(dir, "")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 added") {
		return fmt.Errorf("switchboard servers import: %v\n%s", err, out)
	}
	return nil
}

func notReadyNote(notReady, launches map[string]int) string {
	if len(notReady) == 0 {
		return ""
	}
	return fmt.Sprintf("\nFINDING (this was traced to Wails' asset-server pipes leaking into MCP servers and fixed in internal/spawn; "+
		"seeing it again means a new leak): in %d of %d launches with three MCP servers configured and %d of %d without, the window was mapped "+
		"but stayed blank and the frontend never called Ready (%s); those launches were repeated and are not in the figures.",
		notReady["appWith3Servers"], launches["appWith3Servers"], notReady["app"], launches["app"], readyTimeout)
}

// Command bench measures Switchboard the way a user meets it, against
// baselines measured in the same run: machines here are shared and noisy,
// so every figure is a ratio against a baseline, a difference from one, or
// a median or percentile of several runs, never a single absolute time.
//
//	go run ./test/bench [-runs 5] [-only startup,stream,...] [-out test-results/bench.json] [-strict] [-v]
//
// It needs the built binaries (make build build-dev), the real MCP servers
// and Node 22 of test/node, Xvfb and xdotool (make test-deps), and
// Chromium with frontend/node_modules/playwright-core for the figures taken
// in a browser; xev (x11-utils) times window maps from X's own events, and
// without it the bench polls xdotool every 10 ms. A figure whose
// prerequisites are missing is reported as not measured, with the reason.
// Before each group it waits (-settle) for the machine to quieten, and the
// report keeps the load each group started under. Groups (for -only):
//
//	binary    binary_bytes: the release binary, with the minimal Wails binary as baseline
//	startup   startup_ratio and memory_ratio: the release window against a minimal Wails window under Xvfb
//	stream    stream_lag_ms, stream_lost_chars: 20,000 tokens through the dev binary into Chromium at 5,000 tokens/s;
//	          stream_rich_*: the same with maths and code at 10,000 tokens/s, against that baseline
//	open      open10k_ms: a 10,000-message conversation opened in Chromium (store-level when the UI cannot)
//	views     views_*: memory of one conversation with ten, then twenty servers' views (MCP Apps), then none, in Chromium
//	toolcall  toolcall_overhead_us: BenchmarkToolCallOverhead in internal/chat
//	connect   connect10_ratio and shutdown10_ms: ten Node stdio servers through mcpconn
//	install   installed_start_ratio: a server installed into the data directory starting with the npm registry
//	          unreachable, against npx -y of the same package and version (cache warm)
//	search    search_p95_ms: store.Search over 100,000 messages
//	activity  activity_open_ms and activity_filter_p95_ms: the Tool activity view's queries over 100,000 tool calls (store+core level);
//	          activity_ui_open_ms and activity_ui_filter_p95_ms: the same view opened and filtered in Chromium
//	toolsearch toolsearch_*: tool definitions per request with tool search on against all 300 tools of 10 servers offered,
//	          and a scripted model finding and calling each of the 300 within two round trips
//
// Groups run one at a time (the benchmarks are heavy on two cores). The
// table goes to stdout and every figure, with its samples, to bench.json.
// A figure that misses its target is printed as MISSED; with -strict the
// command then exits 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

type config struct {
	root    string // the repository
	bin     string // release binary
	devBin  string // dev binary
	nodeDir string // test/node/node_modules
	tmp     string // scratch for this run
	runs    int
	keep    bool
	verbose bool
}

var groups = []string{"binary", "search", "activity", "toolsearch", "toolcall", "connect", "install", "startup", "stream", "open", "views"}

func main() {
	runs := flag.Int("runs", 5, "runs per figure taken as a median (at least 5 for the window figures)")
	only := flag.String("only", "", "comma-separated groups to run: "+strings.Join(groups, ","))
	out := flag.String("out", "", "the JSON report (default: test-results/bench.json in the repository)")
	strict := flag.Bool("strict", false, "exit 1 when a measured figure misses its target")
	keep := flag.Bool("keep", false, "keep the scratch directory (data directories, logs)")
	verbose := flag.Bool("v", false, "print each sample as it is taken")
	bin := flag.String("bin", "", "the release binary (default: build/bin/switchboard)")
	devBin := flag.String("dev-bin", "", "the dev binary (default: build/bin/switchboard-dev)")
	settleFor := flag.Duration("settle", 30*time.Second, "before each group, wait up to this long for the 1-minute load average to fall below half the CPUs")
	flag.Parse()

	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	want := groups
	if *only != "" {
		want = strings.Split(*only, ",")
		for _, g := range want {
			if !slices.Contains(groups, g) {
				fmt.Fprintf(os.Stderr, "bench: unknown group %q (groups: %s)\n", g, strings.Join(groups, ","))
				os.Exit(2)
			}
		}
	}
	if *out == "" {
		*out = filepath.Join(root, "test-results", "bench.json")
	}
	tmp, err := os.MkdirTemp("", "switchboard-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	cfg := &config{
		root: root, bin: filepath.Join(root, "build/bin/switchboard"), devBin: filepath.Join(root, "build/bin/switchboard-dev"),
		nodeDir: filepath.Join(root, "test/node/node_modules"), tmp: tmp, runs: max(*runs, 1), keep: *keep, verbose: *verbose,
	}
	if *bin != "" {
		cfg.bin, _ = filepath.Abs(*bin)
	}
	if *devBin != "" {
		cfg.devBin, _ = filepath.Abs(*devBin)
	}
	debug = *verbose
	rep := newReport()
	rep.Machine["runs"] = cfg.runs

	for _, g := range groups { // in this order, whatever -only's order
		if !slices.Contains(want, g) {
			continue
		}
		load := settle(*settleFor)
		rep.Machine["load1BeforeEachGroup"] = appendLoad(rep.Machine["load1BeforeEachGroup"], g, load)
		start := time.Now()
		fmt.Fprintf(os.Stderr, "bench: %s (load %.2f)...\n", g, load)
		func() {
			defer func() {
				if p := recover(); p != nil {
					rep.warn("%s: panic: %v", g, p)
				}
			}()
			switch g {
			case "binary":
				benchBinary(cfg, rep)
			case "search":
				benchSearch(cfg, rep)
			case "activity":
				benchActivity(cfg, rep)
			case "toolsearch":
				benchToolSearch(cfg, rep)
			case "toolcall":
				benchToolCall(cfg, rep)
			case "connect":
				benchConnect(cfg, rep)
			case "install":
				benchInstall(cfg, rep)
			case "startup":
				benchStartup(cfg, rep)
			case "stream":
				benchStream(cfg, rep)
			case "open":
				benchOpen(cfg, rep)
			case "views":
				benchViews(cfg, rep)
			}
		}()
		fmt.Fprintf(os.Stderr, "bench: %s took %s\n", g, time.Since(start).Round(100*time.Millisecond))
	}

	fmt.Println()
	rep.print(os.Stdout)
	if err := rep.write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "bench: writing the report:", err)
		os.Exit(2)
	}
	fmt.Printf("\nreport: %s (took %s)\n", *out, rep.Took)
	if cfg.keep {
		fmt.Println("scratch kept in", tmp)
	} else {
		os.RemoveAll(tmp)
	}
	if *strict {
		for _, f := range rep.Figures {
			if f.OK != nil && !*f.OK {
				os.Exit(1)
			}
		}
	}
}

func (c *config) logf(format string, args ...any) {
	if c.verbose {
		fmt.Fprintf(os.Stderr, "  "+format+"\n", args...)
	}
}

// repoRoot is the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory; run from the repository")
		}
		dir = parent
	}
}

// need returns "" when every path exists, or what is missing and how to
// get it.
func need(paths ...string) string {
	var missing []string
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "missing " + strings.Join(missing, ", ") + " (make build build-dev test-deps)"
}

// load1 is the 1-minute load average.
func load1() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(data), &l)
	return l
}

// settle waits up to d for the machine to be quiet (load below half the
// CPUs) and returns the load it starts with: figures taken while other
// work runs are noisier, and the report says what the load was.
func settle(d time.Duration) float64 {
	limit := float64(runtime.NumCPU()) / 2
	deadline := time.Now().Add(d)
	l := load1()
	if l >= limit && d > 0 {
		fmt.Fprintf(os.Stderr, "bench: waiting up to %s for the load (%.2f) to fall below %.1f\n", d, l, limit)
	}
	for l >= limit && time.Now().Before(deadline) {
		time.Sleep(2 * time.Second)
		l = load1()
	}
	return l
}

func appendLoad(v any, group string, load float64) map[string]float64 {
	m, _ := v.(map[string]float64)
	if m == nil {
		m = map[string]float64{}
	}
	m[group] = load
	return m
}

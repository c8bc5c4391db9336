package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// A uiSession is the dev binary serving the real frontend, and Chromium
// driven by browser.mjs, on the bench's own Xvfb (the dev binary opens its
// window too, as in make e2e-browser).
type uiSession struct {
	d       *display
	backend *proc
	browser *proc
	in      io.WriteCloser
	replies chan map[string]any
	out     *syncBuffer
	// base is the dev server's address (http://127.0.0.1:port), and
	// cookie what lets a request through its gate.
	base   string
	cookie *http.Cookie
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lastLines(s.b.String(), n)
}

// uiNeeds says what is missing for a browser figure, or "".
func uiNeeds(cfg *config) string {
	if m := need(cfg.devBin, filepath.Join(cfg.root, "frontend/dist/index.html"), filepath.Join(cfg.nodeDir, ".bin", "node"),
		filepath.Join(cfg.root, "frontend/node_modules/playwright-core/index.mjs")); m != "" {
		return m
	}
	chromium := os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		return "Chromium not found at " + chromium + " (make test-deps installs it)"
	}
	return ""
}

func startUI(cfg *config, dir string) (*uiSession, error) {
	d, err := startDisplay()
	if err != nil {
		return nil, err
	}
	s := &uiSession{d: d, replies: make(chan map[string]any, 4), out: &syncBuffer{}}
	port, err := freePort()
	if err != nil {
		s.close()
		return nil, err
	}
	cmd := exec.Command(cfg.devBin, "-devserver", fmt.Sprintf("127.0.0.1:%d", port), "-assetdir", filepath.Join(cfg.root, "frontend/dist"), "-loglevel", "Warning")
	// The dev build's gate lets in only a page that brings the run's token.
	token := rand.Text() + rand.Text() // the gate wants at least 32 characters; rand.Text gives 26
	s.base, s.cookie = fmt.Sprintf("http://127.0.0.1:%d", port), &http.Cookie{Name: fmt.Sprintf("switchboard_dev_%d", port), Value: token}
	cmd.Env = append(appEnv(dir, d.name), "SWITCHBOARD_DEV_TOKEN="+token)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if s.backend, err = startProc(cmd); err != nil {
		s.close()
		return nil, err
	}
	if err := waitPort(port, s.backend, 90*time.Second); err != nil {
		s.close()
		return nil, fmt.Errorf("%v\n%s", err, s.out.tail(20))
	}
	b := exec.Command(filepath.Join(cfg.nodeDir, ".bin", "node"), filepath.Join(cfg.root, "test/bench/browser.mjs"), fmt.Sprintf("http://127.0.0.1:%d/?token=%s", port, token))
	b.Dir = cfg.root
	b.Stderr = s.out
	if s.in, err = b.StdinPipe(); err != nil {
		s.close()
		return nil, err
	}
	stdout, err := b.StdoutPipe()
	if err != nil {
		s.close()
		return nil, err
	}
	if s.browser, err = startProc(b); err != nil {
		s.close()
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "@@"); ok {
				var m map[string]any
				if json.Unmarshal([]byte(rest), &m) == nil {
					s.replies <- m
				}
			} else {
				s.out.Write([]byte(sc.Text() + "\n"))
			}
		}
		close(s.replies)
	}()
	if _, err := s.await(90 * time.Second); err != nil {
		s.close()
		return nil, fmt.Errorf("the browser could not load the app: %v", err)
	}
	return s, nil
}

// do sends a command and waits for its answer.
func (s *uiSession) do(cmd map[string]any, timeout time.Duration) (map[string]any, error) {
	line, _ := json.Marshal(cmd)
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	return s.await(timeout)
}

func (s *uiSession) await(timeout time.Duration) (map[string]any, error) {
	select {
	case m, ok := <-s.replies:
		if !ok {
			return nil, fmt.Errorf("the browser script exited\n%s", s.out.tail(20))
		}
		if ok, _ := m["ok"].(bool); !ok {
			return m, fmt.Errorf("%v", m["error"])
		}
		return m, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("no answer from the browser within %s\n%s", timeout, s.out.tail(20))
	}
}

func (s *uiSession) close() {
	if s.browser != nil {
		s.do(map[string]any{"cmd": "quit"}, 10*time.Second)
		s.browser.stop()
	}
	if s.backend != nil {
		s.backend.stop()
	}
	s.d.close()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitPort(port int, p *proc, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if p.exited() {
			return fmt.Errorf("the dev binary exited before serving: %v", p.err)
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the dev binary did not listen on %d within %s", port, timeout)
}

// writeClock notes when the provider's socket writes first carry each of
// a list of texts (unique tokens): when they left the provider.
type writeClock struct {
	mu    sync.Mutex
	texts []string
	at    []time.Time
}

func (w *writeClock) arm(texts []string) {
	w.mu.Lock()
	w.texts, w.at = texts, make([]time.Time, len(texts))
	w.mu.Unlock()
}

func (w *writeClock) wrote(b []byte) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, t := range w.texts {
		if w.at[i].IsZero() && bytes.Contains(b, []byte(t)) {
			w.at[i] = now
		}
	}
}

func (w *writeClock) times() []time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Time(nil), w.at...)
}

type clockListener struct {
	net.Listener
	clock *writeClock
}

func (l clockListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return clockConn{c, l.clock}, nil
}

type clockConn struct {
	net.Conn
	clock *writeClock
}

func (c clockConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.clock.wrote(b[:n])
	return n, err
}

const (
	streamTokens = 20_000
	streamRate   = 5_000.0  // the plain baseline
	richRate     = 10_000.0 // the reply with math and code
	streamEvery  = 50       // tokens per paragraph
	streamCheck  = 1000     // a checkpoint every so many tokens, for the lag mid-stream
	// Targets of the rich stream (issue #20): p95 lag, longest task.
	richLagTarget  = 33.0
	richTaskTarget = 50.0
)

// A streamSpec is one reply to stream: its SSE chunks (pieces, one per
// token), the words looked for in the page in order (the last one the
// marker), and the checkpoint words timed mid-stream.
type streamSpec struct {
	pieces, words, checks []string
}

// plainSpec is the reply: tokens "t00000 " … with a paragraph break
// every streamEvery, the last one being marker; every 1000th token
// (t00999, t01999, …) a checkpoint.
func plainSpec(marker string) streamSpec {
	var sp streamSpec
	for i := range streamTokens - 1 {
		sep := " "
		if (i+1)%streamEvery == 0 {
			sep = "\n\n"
		}
		w := fmt.Sprintf("t%05d", i)
		sp.pieces, sp.words = append(sp.pieces, w+sep), append(sp.words, w)
		if i%streamCheck == streamCheck-1 && i < streamTokens-2 {
			sp.checks = append(sp.checks, w)
		}
	}
	sp.pieces, sp.words = append(sp.pieces, marker), append(sp.words, marker)
	return sp
}

// richSpec is a reply as a model writes one with maths and code, chunk by
// chunk: paragraphs of streamEvery tokens, and in turn after them an
// inline formula (mid-paragraph), a displayed one, a Go code block and
// nothing; every formula and block different, so none is cached; each
// formula and fence split over several chunks, so the page sees them
// unclosed first. streamTokens chunks in all.
func richSpec(marker string) streamSpec {
	var sp streamSpec
	add := func(ps ...string) { sp.pieces = append(sp.pieces, ps...) }
	n := 0
	for p := 0; len(sp.pieces) < streamTokens-1; p++ {
		for j := 0; j < streamEvery && len(sp.pieces) < streamTokens-1; j++ {
			w := fmt.Sprintf("t%05d", n)
			add(w + " ")
			sp.words = append(sp.words, w)
			if n%streamCheck == streamCheck-1 {
				sp.checks = append(sp.checks, w)
			}
			n++
			if p%4 == 0 && j == streamEvery/2 {
				add("$x_{", fmt.Sprint(p), "} = \\frac{", fmt.Sprint(p), "}{2}$ ")
			}
		}
		switch p % 4 {
		case 1:
			add("\n\n$$\n", fmt.Sprintf("\\sum_{i=1}^{%d} i", p), fmt.Sprintf(" = \\frac{%d(%d+1)}{2}", p, p), "\n$$")
		case 2:
			add("\n\n```go\n", fmt.Sprintf("func f%d(x int) int {\n", p), fmt.Sprintf("\treturn x * %d\n", p), "}\n", "```")
		}
		add("\n\n")
	}
	sp.pieces = sp.pieces[:min(len(sp.pieces), streamTokens-1)]
	sp.pieces, sp.words = append(sp.pieces, marker), append(sp.words, marker)
	if len(sp.checks) > 0 && sp.checks[len(sp.checks)-1] == sp.words[len(sp.words)-2] {
		sp.checks = sp.checks[:len(sp.checks)-1] // the marker's lag is the last token's
	}
	return sp
}

// streamRuns is what the runs of one stream measured (run 0, the warm-up, left out).
type streamRuns struct {
	lags, paints, longest, steady, rates []float64
	// The same lags split where the delta event reaches the page's IPC
	// socket: provider → socket (backend, IPC) and socket → DOM (page).
	toSocket, toDom    []float64
	lostDom, lostStore float64
	detected           []string
}

// runStreams streams the reply of spec(marker) runs+1 times through the
// pacer (whose rate is fixed) into the page, and collects the lags.
func runStreams(cfg *config, ui *uiSession, upstream *llmtest.Server, clock *writeClock, name string, spec func(marker string) streamSpec, sendPieces bool) (streamRuns, error) {
	var r streamRuns
	for i := range max(cfg.runs, 5) + 1 {
		marker := fmt.Sprintf("zqxend%s%dmark", name, i)
		sp := spec(marker)
		upstream.Enqueue(llmtest.Reply{Content: sp.pieces})
		clock.arm(append([]string{sp.words[0], marker}, sp.checks...))
		cmd := map[string]any{"cmd": "stream", "tokens": streamTokens, "every": streamEvery, "marker": marker,
			"checkpoints": sp.checks, "title": fmt.Sprintf("Bench %s stream %d", name, i), "timeoutMs": 60_000}
		if sendPieces {
			cmd["pieces"], cmd["words"] = sp.pieces, sp.words
		}
		res, err := ui.do(cmd, 120*time.Second)
		if err != nil {
			return r, fmt.Errorf("run %d: %v\n%s", i, err, ui.out.tail(15))
		}
		at := clock.times()
		first, last := at[0], at[1]
		if last.IsZero() {
			return r, fmt.Errorf("run %d: the provider never sent the last token", i)
		}
		rate := float64(len(sp.pieces)-1) / last.Sub(first).Seconds()
		domAt := time.UnixMilli(int64(res["domAt"].(float64)))
		paintAt := time.UnixMilli(int64(res["paintAt"].(float64)))
		lag, paint := ms(domAt.Sub(last)), ms(paintAt.Sub(last))
		cfg.logf("%s run %d: %.0f tokens/s; lag %.0f ms to the DOM (%s), %.0f ms to the next frame; longest task %.0f ms (long tasks [start after Send, ms]: %v); lost %v in the DOM, %v in the store; status %v; page errors %v",
			name, i, rate, lag, res["detectedBy"], paint, res["longestTaskMs"], res["longTaskAt"], res["lostDom"], res["lostStore"], res["status"], res["pageErrors"])
		if i == 0 {
			continue
		}
		r.lags, r.paints, r.rates = append(r.lags, lag), append(r.paints, paint), append(r.rates, rate)
		seenAt, _ := res["checkpointsAt"].([]any)
		arrivedAt, _ := res["arrivedAt"].([]any)
		split := func(wrote time.Time, arrived, seen any) {
			a, _ := arrived.(float64)
			d, _ := seen.(float64)
			if a > 0 && d > 0 && !wrote.IsZero() {
				r.toSocket = append(r.toSocket, ms(time.UnixMilli(int64(a)).Sub(wrote)))
				r.toDom = append(r.toDom, ms(time.UnixMilli(int64(d)).Sub(time.UnixMilli(int64(a)))))
			}
		}
		for j, v := range seenAt {
			if t, ok := v.(float64); ok && t > 0 && !at[2+j].IsZero() {
				r.steady = append(r.steady, ms(time.UnixMilli(int64(t)).Sub(at[2+j])))
			}
			if j < len(arrivedAt) {
				split(at[2+j], arrivedAt[j], v)
			}
		}
		split(last, res["markerArrivedAt"], res["domAt"])
		r.longest = append(r.longest, res["longestTaskMs"].(float64))
		r.lostDom = max(r.lostDom, res["lostDom"].(float64))
		r.lostStore = max(r.lostStore, res["lostStore"].(float64))
		r.detected = append(r.detected, fmt.Sprint(res["detectedBy"]))
	}
	return r, nil
}

// benchStream streams 20,000 tokens from the fake provider through the
// dev binary into the frontend in Chromium: first plain text at 5,000
// tokens/s (the baseline, stream_lag_ms), then, in the same session, a
// reply with maths and code at 10,000 tokens/s (stream_rich_*).
func benchStream(cfg *config, rep *Report) {
	lagTarget, lostTarget := ptr(50.0), ptr(0.0)
	richLag, richTask := ptr(richLagTarget), ptr(richTaskTarget)
	failRich := func(why string) {
		rep.add("stream_rich_lag_ms", notMeasured("ms", richLag, why))
		rep.add("stream_rich_longest_task_ms", notMeasured("ms", richTask, why))
		rep.add("stream_rich_lost_chars", notMeasured("chars", lostTarget, why))
	}
	fail := func(why string) {
		rep.add("stream_lag_ms", notMeasured("ms", lagTarget, why))
		rep.add("stream_lost_chars", notMeasured("chars", lostTarget, why))
		failRich(why)
	}
	if m := uiNeeds(cfg); m != "" {
		fail(m)
		return
	}
	// llmtest writes the reply at once; the pacers in front of it send its
	// chunks at their rates (see pacer for why llmtest's own pacing is not
	// used), and note when the last token leaves.
	upstream := llmtest.NewServer(nil, &llmtest.Options{Models: []string{"m"}})
	defer upstream.Close()
	clock := &writeClock{}
	plain, err := startPacer(upstream.URL, streamRate, clock)
	if err != nil {
		fail(err.Error())
		return
	}
	defer plain.Close()
	fast, err := startPacer(upstream.URL, richRate, clock)
	if err != nil {
		fail(err.Error())
		return
	}
	defer fast.Close()

	ui, err := startUI(cfg, filepath.Join(cfg.tmp, "stream"))
	if err != nil {
		fail(err.Error())
		return
	}
	defer ui.close()
	if _, err := ui.do(map[string]any{"cmd": "provider", "baseUrl": plain.URL + "/v1"}, 60*time.Second); err != nil {
		fail("saving the fake provider: " + err.Error())
		return
	}

	// Run 0 is not counted: it warms the page, the backend and the JITs.
	base, err := runStreams(cfg, ui, upstream, clock, "plain", plainSpec, false)
	if err != nil {
		fail(err.Error())
		return
	}
	p95 := percentile(base.lags, 95)
	lf := Figure{Value: ptr(round(p95, 1)), Unit: "ms", Runs: len(base.lags), Target: lagTarget,
		How: fmt.Sprintf("p95 over %d runs (one uncounted warm-up first) of: the fake provider's write of the last token (its socket) → that token in the DOM "+
			"(MutationObserver, Date.now(), same clock); %d tokens of ~7 characters, one SSE chunk each, a paragraph every %d, at %.0f tokens/s "+
			"(llmtest's reply paced by the bench's pacer), through the dev binary into the real frontend in Chromium; the baseline of stream_rich_lag_ms",
			len(base.lags), streamTokens, streamEvery, streamRate),
		Samples: roundAll(base.lags, 1),
		Extra: map[string]any{"toNextFrameMs": roundAll(base.paints, 1), "longestTaskMs": roundAll(base.longest, 1), "longestTaskMaxMs": round(slicesMax(base.longest), 1),
			"tokensPerSecond": roundAll(base.rates, 0), "detectedBy": base.detected, "split": base.split(),
			"midStreamLagMs": map[string]any{"samples": len(base.steady), "p50": round(median(base.steady), 1), "p95": round(percentile(base.steady, 95), 1), "max": round(slicesMax(base.steady), 1),
				"what": fmt.Sprintf("the same lag for every %dth token, over all counted runs", streamCheck)}},
	}
	if p95 > *lagTarget {
		lf.Note = fmt.Sprintf("MISSED: p95 %.0f ms (median %.0f ms); mid-stream the lag is p50 %.0f / p95 %.0f ms; extra.split says whether it went "+
			"before the page's socket (the backend's %s delta throttle, the dev server) or after (the page); main-thread tasks of up to %.0f ms.",
			p95, median(base.lags), median(base.steady), percentile(base.steady, 95), chat.DefaultDeltaInterval, slicesMax(base.longest))
	}
	rep.add("stream_lag_ms", lf)
	rep.add("stream_longest_task_ms", Figure{Value: ptr(round(slicesMax(base.longest), 1)), Unit: "ms", Runs: len(base.longest),
		How:     "the longest main-thread task (PerformanceObserver longtask, ≥ 50 ms) from Send to the last token in the DOM, the most over the runs; no target",
		Samples: roundAll(base.longest, 1)})
	rep.add("stream_lost_chars", Figure{Value: ptr(base.lostDom), Unit: "chars", Runs: len(base.lags), Target: lostTarget,
		How:   "the most characters of the streamed reply missing from document.body.innerText after the reply ended, over the runs (each token looked for in order); extra.lostInStore is the same for the stored message",
		Extra: map[string]any{"lostInStore": base.lostStore}})

	// The rich reply at twice the rate, through the other pacer.
	if _, err := ui.do(map[string]any{"cmd": "provider", "baseUrl": fast.URL + "/v1"}, 60*time.Second); err != nil {
		failRich("saving the fake provider: " + err.Error())
		return
	}
	rich, err := runStreams(cfg, ui, upstream, clock, "rich", richSpec, true)
	if err != nil {
		failRich(err.Error())
		return
	}
	all := append(append([]float64(nil), rich.steady...), rich.lags...)
	allBase := append(append([]float64(nil), base.steady...), base.lags...)
	rp95, bp95 := percentile(all, 95), percentile(allBase, 95)
	sp := richSpec("m")
	rf := Figure{Value: ptr(round(rp95, 1)), Unit: "ms", Runs: len(rich.lags), Target: richLag,
		How: fmt.Sprintf("p95 of the lag from the fake provider's write of a token (its socket) to that token in the DOM (MutationObserver, same clock), "+
			"for every %dth token and the last, over %d runs (one uncounted warm-up first): %d samples. The reply: %d SSE chunks at %.0f chunks/s, "+
			"%d words in paragraphs of %d with, in turn, an inline formula, a displayed formula ($$) and a Go code block after them, each split over chunks "+
			"(KaTeX and the highlighter load on first use in each run: the page is reloaded before each). extra.baseline is the plain %.0f tokens/s stream of the same session",
			streamCheck, len(rich.lags), len(all), len(sp.pieces), richRate, len(sp.words), streamEvery, streamRate),
		Samples: roundAll(all, 1),
		Extra: map[string]any{"lastTokenLagMs": roundAll(rich.lags, 1), "toNextFrameMs": roundAll(rich.paints, 1), "tokensPerSecond": roundAll(rich.rates, 0),
			"p50": round(median(all), 1), "max": round(slicesMax(all), 1), "detectedBy": rich.detected, "split": rich.split(),
			"baseline":        map[string]any{"p95": round(bp95, 1), "p50": round(median(allBase), 1), "samples": len(allBase), "what": "the same lag of the plain stream at 5,000 tokens/s"},
			"ratioToBaseline": round(rp95/max(bp95, 0.1), 2)},
	}
	if rp95 > *richLag {
		rf.Note = fmt.Sprintf("MISSED by %.1f ms: p95 %.1f ms (p50 %.1f) against %.1f ms (p50 %.1f) for plain text at half the rate in the same run; longest task %.0f ms.",
			rp95-*richLag, rp95, median(all), bp95, median(allBase), slicesMax(rich.longest))
	}
	rep.add("stream_rich_lag_ms", rf)
	tf := Figure{Value: ptr(round(slicesMax(rich.longest), 1)), Unit: "ms", Runs: len(rich.longest), Target: richTask,
		How:     "the longest main-thread task (PerformanceObserver longtask: only tasks of 50 ms or more are reported, so 0 means none) from Send to the last token in the DOM of the rich stream, the most over the runs",
		Samples: roundAll(rich.longest, 1),
		Extra:   map[string]any{"baselineMs": round(slicesMax(base.longest), 1)}}
	if slicesMax(rich.longest) >= *richTask {
		tf.Note = fmt.Sprintf("MISSED: a task of %.0f ms (the target is under %.0f ms).", slicesMax(rich.longest), *richTask)
	}
	rep.add("stream_rich_longest_task_ms", tf)
	rep.add("stream_rich_lost_chars", Figure{Value: ptr(rich.lostDom), Unit: "chars", Runs: len(rich.lags), Target: lostTarget,
		How:   "the most characters of the rich reply's words (the t-tokens and the end marker) missing from document.body.innerText after the reply ended, over the runs (each looked for in order); extra.lostInStore: the stored message against the whole reply",
		Extra: map[string]any{"lostInStore": rich.lostStore}})
}

// split says where the lags went: to the page's IPC socket (the backend's
// delta throttle, its event, the dev server) and from there to the DOM (the
// page's scheduling, store and render).
func (r streamRuns) split() map[string]any {
	return map[string]any{
		"samples":  len(r.toSocket),
		"toSocket": map[string]any{"p50": round(median(r.toSocket), 1), "p95": round(percentile(r.toSocket, 95), 1), "max": round(slicesMax(r.toSocket), 1)},
		"toDom":    map[string]any{"p50": round(median(r.toDom), 1), "p95": round(percentile(r.toDom, 95), 1), "max": round(slicesMax(r.toDom), 1)},
		"what":     "each lag split where its delta event reached the page's IPC socket (a WebSocket listener ahead of the app's): provider → socket, socket → DOM",
	}
}

func slicesMax(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// benchOpen times opening the seeded 10,000-message conversation in the
// frontend: click on its title → its last message in the DOM, and the
// frame after. When the UI cannot be driven it reports the store-level
// page load instead, marked partial.
func benchOpen(cfg *config, rep *Report) {
	target := ptr(100.0)
	dir, convID, err := seeded(cfg)
	if err != nil {
		rep.add("open10k_ms", notMeasured("ms", target, "seeding the database: "+err.Error()))
		return
	}
	storeXs, storeErr := storeOpenPage(cfg, filepath.Join(dir, "data"), convID, 60)
	partial := func(why string) {
		if storeErr != nil {
			rep.add("open10k_ms", notMeasured("ms", target, why+"; the store-level figure failed too: "+storeErr.Error()))
			return
		}
		rep.add("open10k_ms", Figure{Value: ptr(round(median(storeXs), 2)), Unit: "ms", Runs: len(storeXs), Target: target,
			How:     "PARTIAL, store level only: median of store.Messages (the last 60, the frontend's page) + JSON encoding, as GetMessages serves a click",
			Note:    "PARTIAL: not click to first paint, because " + why + ". The figure leaves out the binding's round trip and the frontend's render.",
			Samples: roundAll(storeXs, 2)})
	}
	if m := uiNeeds(cfg); m != "" {
		partial(m)
		return
	}
	ui, err := startUI(cfg, dir)
	if err != nil {
		partial(err.Error())
		return
	}
	defer ui.close()
	// A provider, so that the UI leaves its first-start setup.
	if _, err := ui.do(map[string]any{"cmd": "provider", "baseUrl": "http://127.0.0.1:9/v1"}, 60*time.Second); err != nil {
		partial("saving a provider: " + err.Error())
		return
	}
	var firstPaint, dom []float64
	for i := range max(cfg.runs, 5) + 1 {
		res, err := ui.do(map[string]any{"cmd": "open", "title": openTitle, "other": "Bench conversation 1", "marker": openLastWords, "timeoutMs": 30_000}, 60*time.Second)
		if err != nil {
			partial("the UI could not be driven: " + err.Error())
			return
		}
		click := res["clickAt"].(float64)
		d, p := res["domAt"].(float64)-click, res["paintAt"].(float64)-click
		cfg.logf("run %d: click → last message in the DOM %.0f ms, next frame %.0f ms (%s)", i, d, p, res["detectedBy"])
		if i == 0 {
			continue // warm-up
		}
		dom, firstPaint = append(dom, d), append(firstPaint, p)
	}
	if len(firstPaint) == 0 {
		partial(errors.New("no run").Error())
		return
	}
	f := Figure{Value: ptr(round(median(firstPaint), 1)), Unit: "ms", Runs: len(firstPaint), Target: target,
		How:     "median over runs (one uncounted warm-up) of: click on the conversation's title in the sidebar (Date.now() before the click) → its last message in the DOM → the next frame, in Chromium against the dev binary on a seeded database (10,000 messages in that conversation, 100,000 in all)",
		Samples: roundAll(firstPaint, 1),
		Extra:   map[string]any{"toDomMs": roundAll(dom, 1), "storeLevelMs": round(median(storeXs), 2)}}
	if median(firstPaint) > *target {
		f.Note = fmt.Sprintf("MISSED: store level alone takes %.1f ms (extra.storeLevelMs); the rest is the binding's round trip and the frontend's render of the page of messages.", median(storeXs))
	}
	rep.add("open10k_ms", f)
}

// A pacer serves the fake provider's API at its own address: requests go
// to llmtest, and a streamed reply's SSE events are sent on to the client
// one by one, each written and flushed on its own, on a fixed schedule of
// rate events per second (bursts catch up after each sleep).
//
// llmtest's own pacing (Reply.TokensPerSecond) sleeps before every chunk,
// and Go's timers do not sleep less than about 1 ms on this machine, so
// it tops out near 1,000 tokens/s whatever rate is asked for; pacing by
// the due time of each event reaches 5,000.
type pacer struct {
	URL string
	srv *http.Server
}

func startPacer(upstream string, rate float64, clock *writeClock) (*pacer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(upstream, "/v1")
	interval := time.Duration(float64(time.Second) / rate)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.Path, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			io.Copy(w, resp.Body)
			return
		}
		flusher := w.(http.Flusher)
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		start, i := time.Now(), 0
		var event bytes.Buffer
		for {
			line, err := br.ReadBytes('\n')
			event.Write(line)
			if err != nil {
				if event.Len() > 0 {
					w.Write(event.Bytes())
					flusher.Flush()
				}
				return
			}
			if len(bytes.TrimSpace(line)) > 0 {
				continue // the event goes on
			}
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
			i++
			if _, err := w.Write(event.Bytes()); err != nil {
				return
			}
			flusher.Flush()
			event.Reset()
		}
	})
	p := &pacer{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}}
	go p.srv.Serve(clockListener{ln, clock})
	return p, nil
}

func (p *pacer) Close() { p.srv.Close() }

package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
)

const (
	// viewsCap is how many views the frontend keeps open at once
	// (MAX_OPEN_VIEWS in stores/appviews.svelte.ts).
	viewsCap = 10
	// viewsTool is the tool whose view each call opens: get-time of
	// @modelcontextprotocol/server-basic-vanillajs, under the server ID
	// "vanilla".
	viewsTool = "vanilla__get-time"
	// viewsReadings is how many readings are taken at each point, a GC
	// before each; the figure is their median.
	viewsReadings = 3
	// viewsPageHeight is the page's height in pixels. The message list
	// keeps only the rows within 800 px of what is shown (VirtualList),
	// and a card that leaves drops its view, so in a window of ordinary
	// height only a few views are alive. Tall enough for twenty calls,
	// every card stays, so that the cap on open views is what bounds
	// them: the worst case.
	viewsPageHeight = 16000
)

// A viewsPoint is what was read at one point of the views group.
type viewsPoint struct {
	// rendererKB is the PSS of Chromium's renderer processes (the
	// median of the readings); privateKB their private memory.
	rendererKB, privateKB float64
	renderers             int
	// backendKB is the dev binary's own (Go) process, without its WebKit
	// window and MCP servers.
	backendKB float64
	// jsHeap is the app page's used JS heap, nodes the DOM nodes alive in
	// its renderer process, domNodes the nodes of the app's document.
	jsHeap, nodes, domNodes float64
	frames                  int // frames in processes of their own
	viewsInPage             int
	// goLive is how many of the views the page was given Go still
	// serves, of goAsked.
	goLive, goAsked int
}

// benchViews measures the memory of one conversation with servers' views
// (MCP Apps), in one run of the dev binary and Chromium: a conversation
// with none (the baseline), with ten get-time views, after ten calls more
// (the frontend keeps at most ten open, closing the least recently used),
// and after switching to another conversation, which tears them all down.
// The baseline is taken after one view came and went in a conversation of
// its own, so that it holds what the page keeps for good once a view was
// shown (the views' code chunk, one Svelte template per kind of card) and
// the figures compare what views keep; the cold page is in extra.
//
// The memory is the PSS of all of Chromium's renderer processes, after a
// forced GC (HeapProfiler.collectGarbage in the page and in every frame
// that has a process of its own). Whole processes, because a view's cost
// is not only its JS heap: its document, layout, compositor and, when
// Chromium isolates the sandboxed frame, a renderer process of its own,
// none of which JSHeapUsedSize sees (and it sees only one process). PSS,
// not RSS, because renderers share Chromium's code and RSS would count it
// once per process, so that a view's process would seem to cost the whole
// browser. The page's JS heap and node counts are kept beside it.
func benchViews(cfg *config, rep *Report) {
	twentyTarget, closedTarget, nodesTarget := ptr(1.25), ptr(1.2), ptr(1.2)
	goTwentyTarget, goClosedTarget := ptr(float64(viewsCap)), ptr(0.0)
	fail := func(why string) {
		rep.add("views_ten_memory_ratio", notMeasured("ratio", nil, why))
		rep.add("views_twenty_memory_ratio", notMeasured("ratio", twentyTarget, why))
		rep.add("views_closed_memory_ratio", notMeasured("ratio", closedTarget, why))
		rep.add("views_closed_nodes_ratio", notMeasured("ratio", nodesTarget, why))
		rep.add("views_go_open_twenty", notMeasured("views", goTwentyTarget, why))
		rep.add("views_go_open_closed", notMeasured("views", goClosedTarget, why))
	}
	vanilla := filepath.Join(cfg.nodeDir, ".bin", "mcp-server-basic-vanillajs")
	if m := uiNeeds(cfg); m != "" {
		fail(m)
		return
	}
	if m := need(vanilla); m != "" {
		fail(m)
		return
	}
	provider := llmtest.NewServer(nil, &llmtest.Options{Models: []string{"m"}}) // echoes; "use tool NAME {}" calls NAME
	defer provider.Close()
	ui, err := startUI(cfg, filepath.Join(cfg.tmp, "views"))
	if err != nil {
		fail(err.Error())
		return
	}
	defer ui.close()
	if _, err := ui.do(map[string]any{"cmd": "provider", "baseUrl": provider.URL}, 60*time.Second); err != nil {
		fail("saving the fake provider: " + err.Error())
		return
	}
	server := map[string]any{"id": "vanilla", "name": "vanilla", "transport": "stdio", "enabled": true,
		"command": filepath.Join(cfg.nodeDir, ".bin", "node"), "args": []string{vanilla, "--stdio"}}
	if _, err := ui.do(map[string]any{"cmd": "server", "config": server, "tool": viewsTool, "timeoutMs": 60_000}, 90*time.Second); err != nil {
		fail("connecting server-basic-vanillajs: " + err.Error())
		return
	}
	const warm, title, other = "Bench views warm-up", "Bench views", "Bench views other"
	res, err := ui.do(map[string]any{"cmd": "conversations", "titles": []string{warm, title, other}, "height": viewsPageHeight}, 60*time.Second)
	if err != nil {
		fail("opening the conversation: " + err.Error())
		return
	}
	ids := res["ids"].([]any)
	warmID, convID := ids[0].(string), ids[1].(string)

	var viewIDs []string // every view the page was given, in order
	var callMs []float64
	calls := func(conv string, from, to int) error {
		for n := from; n <= to; n++ {
			r, err := ui.do(map[string]any{"cmd": "viewCall", "convId": conv, "tool": viewsTool, "n": n, "timeoutMs": 30_000}, 60*time.Second)
			if err != nil {
				return fmt.Errorf("%v\n%s", err, ui.out.tail(15))
			}
			viewIDs = append(viewIDs, r["viewId"].(string))
			if n > 0 { // call 0 loads the views' code
				callMs = append(callMs, r["tookMs"].(float64))
			}
			views, _ := r["views"].([]any)
			cfg.logf("call %d: view ready and showing the time after %.0f ms; %d views in the page (%s); the message list is %.0f px tall",
				n, r["tookMs"], len(views), viewStates(views), r["listHeight"])
		}
		return nil
	}
	var at []viewsPoint
	read := func(what string) error {
		p, err := readViews(ui, viewIDs)
		if err != nil {
			return fmt.Errorf("reading the memory %s: %v", what, err)
		}
		cfg.logf("%s: renderers %.1f MB PSS (%.1f MB private) in %d processes; JS heap %.1f MB; %.0f nodes in the page's process, %.0f in its document; "+
			"%d views in the page, %d frames in processes of their own; Go serves %d of the %d views it gave; backend %.1f MB",
			what, p.rendererKB/1024, p.privateKB/1024, p.renderers, p.jsHeap/(1<<20), p.nodes, p.domNodes, p.viewsInPage, p.frames, p.goLive, p.goAsked, p.backendKB/1024)
		at = append(at, p)
		return nil
	}
	switchTo := func(title string) error {
		_, err := ui.do(map[string]any{"cmd": "switch", "title": title, "timeoutMs": 15_000}, 30*time.Second)
		return err
	}
	// Call 0, in a conversation of its own, warms the page for the
	// baseline (see above).
	steps := []func() error{
		func() error { return read("cold, before any view") },
		func() error { return calls(warmID, 0, 0) },
		func() error { return switchTo(title) },
		func() error { return read("with no view") },
		func() error { return calls(convID, 1, viewsCap) },
		func() error { return read(fmt.Sprintf("after %d calls", viewsCap)) },
		func() error { return calls(convID, viewsCap+1, 2*viewsCap) },
		func() error { return read(fmt.Sprintf("after %d calls", 2*viewsCap)) },
		func() error { return switchTo(other) },
		func() error { return read("after switching conversations") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			fail(err.Error())
			return
		}
	}
	logs, err := ui.do(map[string]any{"cmd": "appLog", "contains": []string{"view opened", "view closed"}}, 30*time.Second)
	opened, endedByGo := -1.0, -1.0
	if err == nil {
		c := logs["counts"].([]any)
		opened, endedByGo = c[0].(float64), c[1].(float64)
	}

	cold, base, ten, twenty, closed := at[0], at[1], at[2], at[3], at[4]
	mb := func(kb float64) float64 { return round(kb/1024, 1) }
	pointExtra := func(p viewsPoint) map[string]any {
		return map[string]any{"rendererPssMB": mb(p.rendererKB), "rendererPrivateMB": mb(p.privateKB), "rendererProcesses": p.renderers,
			"jsHeapMB": round(p.jsHeap/(1<<20), 1), "nodesInPageProcess": p.nodes, "domNodes": p.domNodes, "viewsInPage": p.viewsInPage,
			"framesInOwnProcess": p.frames, "goServes": p.goLive, "backendPssMB": mb(p.backendKB)}
	}
	points := map[string]any{"cold": pointExtra(cold), "baseline": pointExtra(base), "ten": pointExtra(ten), "twenty": pointExtra(twenty),
		"afterSwitch": pointExtra(closed), "what": "cold is the page before any view; baseline after one view came and went in another conversation"}
	setup := fmt.Sprintf("the dev binary and the real frontend in Chromium, the fake provider, @modelcontextprotocol/server-basic-vanillajs over stdio; "+
		"each call is \"use tool %s {}\" sent in one conversation, allowed once, and done when its view is ready and shows the time; "+
		"the page is %d px tall, so that every card stays rendered and the frontend's cap of %d open views is what bounds them", viewsTool, viewsPageHeight, viewsCap)
	memHow := fmt.Sprintf("PSS of all Chromium renderer processes (/proc/PID/smaps_rollup; extra.privateRatio is the same for their private memory, "+
		"which other Chromiums on the machine do not move), the median of %d readings each after a forced GC "+
		"(HeapProfiler.collectGarbage in the page and each out-of-process frame); the baseline is the conversation open with no view, "+
		"after one view came and went in another (the views' code and the cards' templates loaded: extra.points.cold is before); ", viewsReadings)
	ratio := func(a, b float64) *float64 { return ptr(round(a/b, 3)) }

	tenF := Figure{Value: ratio(ten.rendererKB, base.rendererKB), Unit: "ratio", Runs: viewsReadings,
		Baseline: ptr(mb(base.rendererKB)), BaselineUnit: "MB", BaselineWhat: "renderer PSS with the conversation open and no view (warm)",
		How: memHow + fmt.Sprintf("with %d views open against none; no target: most of a view's cost is Chromium's (its frames run in a renderer process of "+
			"their own, extra.points.*.rendererProcesses), and what the issue asks is that it stays bounded (views_twenty_memory_ratio); %s", viewsCap, setup),
		Extra: map[string]any{"tenMB": mb(ten.rendererKB), "privateRatio": round(ten.privateKB/base.privateKB, 3), "perViewMB": round((ten.rendererKB-base.rendererKB)/1024/viewsCap, 1), "points": points,
			"callMs": map[string]any{"median": round(median(callMs), 0), "max": round(slicesMax(callMs), 0)}}}
	rep.add("views_ten_memory_ratio", tenF)

	twentyF := Figure{Value: ratio(twenty.rendererKB, ten.rendererKB), Unit: "ratio", Runs: viewsReadings, Target: twentyTarget,
		Baseline: ptr(mb(ten.rendererKB)), BaselineUnit: "MB", BaselineWhat: fmt.Sprintf("renderer PSS with %d views open", viewsCap),
		How: memHow + fmt.Sprintf("after %d calls (the frontend keeps %d views open) against after %d; extra.toBaseline is against no view",
			2*viewsCap, viewsCap, viewsCap),
		Extra: map[string]any{"twentyMB": mb(twenty.rendererKB), "toBaseline": round(twenty.rendererKB/base.rendererKB, 3), "viewsInPage": twenty.viewsInPage,
			"privateRatio": round(twenty.privateKB/ten.privateKB, 3)}}
	if twenty.viewsInPage > viewsCap {
		twentyF.Note = fmt.Sprintf("the page holds %d views after %d calls; the cap is %d", twenty.viewsInPage, 2*viewsCap, viewsCap)
	}
	if *twentyF.Value > *twentyTarget {
		twentyF.Note = strings.TrimPrefix(twentyF.Note+fmt.Sprintf("; MISSED: %.1f MB with %d views in the page after %d calls, %.1f MB after %d",
			mb(twenty.rendererKB), twenty.viewsInPage, 2*viewsCap, mb(ten.rendererKB), viewsCap), "; ")
	}
	rep.add("views_twenty_memory_ratio", twentyF)

	closedF := Figure{Value: ratio(closed.rendererKB, base.rendererKB), Unit: "ratio", Runs: viewsReadings, Target: closedTarget,
		Baseline: ptr(mb(base.rendererKB)), BaselineUnit: "MB", BaselineWhat: "renderer PSS with the conversation open and no view (warm)",
		How: memHow + fmt.Sprintf("after the %d calls and switching to another conversation (every view torn down), against the baseline; "+
			"extra.jsHeapRatio is the app page's JS heap, the same way", 2*viewsCap),
		Extra: map[string]any{"jsHeapRatio": round(closed.jsHeap/base.jsHeap, 3), "afterSwitchMB": mb(closed.rendererKB), "privateRatio": round(closed.privateKB/base.privateKB, 3),
			"renderersBefore": base.renderers, "renderersAfter": closed.renderers}}
	if *closedF.Value > *closedTarget {
		closedF.Note = fmt.Sprintf("MISSED: %.1f MB in %d renderer processes after the views closed, %.1f MB in %d at the baseline",
			mb(closed.rendererKB), closed.renderers, mb(base.rendererKB), base.renderers)
	}
	rep.add("views_closed_memory_ratio", closedF)

	nodesF := Figure{Value: ratio(closed.nodes, base.nodes), Unit: "ratio", Runs: viewsReadings, Target: nodesTarget,
		Baseline: ptr(base.nodes), BaselineUnit: "nodes", BaselineWhat: "DOM nodes alive in the page's renderer process with no view (warm)",
		How: "DOM nodes alive in the page's renderer process after a forced GC (Performance.getMetrics Nodes: detached nodes a view's card left behind count too), " +
			"after the views were torn down against the baseline (after one view came and went: Svelte keeps one detached template per kind of card, " +
			"which a cold page has not made yet); extra.domNodes are the nodes of the app's document",
		Extra: map[string]any{"nodesInPageProcess": map[string]float64{"cold": cold.nodes, "baseline": base.nodes, "ten": ten.nodes, "twenty": twenty.nodes, "afterSwitch": closed.nodes},
			"domNodes": map[string]float64{"cold": cold.domNodes, "baseline": base.domNodes, "ten": ten.domNodes, "twenty": twenty.domNodes, "afterSwitch": closed.domNodes}}}
	if *nodesF.Value > *nodesTarget {
		nodesF.Note = fmt.Sprintf("MISSED: %.0f nodes after the views closed, %.0f at the baseline", closed.nodes, base.nodes)
	}
	rep.add("views_closed_nodes_ratio", nodesF)

	goExtra := map[string]any{"afterTen": ten.goLive, "afterTwenty": twenty.goLive, "afterSwitch": closed.goLive, "viewsGiven": len(viewIDs),
		"logViewOpened": opened, "logViewEndedByGo": endedByGo,
		"what": "a view Go serves answers GET /mcp-view/<id> (through the dev gate); one it closed answers 404. " +
			"logViewOpened counts the app log's \"view opened\" lines (every OpenAppView, any window), logViewEndedByGo its \"view closed\" lines " +
			"(views Go ended itself: its cap of 32, expiry, the server); a view the window closes (CloseAppView) is not logged"}
	goHow := "of the views the page was given, how many Go still serves (GET /mcp-view/<id> answers 200, not 404)"
	rep.add("views_go_open_twenty", Figure{Value: ptr(float64(twenty.goLive)), Unit: "views", Runs: 1, Target: goTwentyTarget,
		How:   goHow + fmt.Sprintf(" after %d calls: the window tells Go of each view it closes (CloseAppView), so Go holds no more than the window shows", 2*viewsCap),
		Extra: goExtra})
	goClosed := Figure{Value: ptr(float64(closed.goLive)), Unit: "views", Runs: 1, Target: goClosedTarget,
		How: goHow + " after switching to another conversation: teardown tells Go of every one", Extra: goExtra}
	if closed.goLive > 0 {
		goClosed.Note = fmt.Sprintf("MISSED: Go still serves %d views the page no longer shows", closed.goLive)
	}
	rep.add("views_go_open_closed", goClosed)
}

// readViews takes viewsReadings readings, a GC before each, and returns
// their medians (the counts of the last).
func readViews(ui *uiSession, viewIDs []string) (viewsPoint, error) {
	p := viewsPoint{goAsked: len(viewIDs)}
	var rend, priv, back, heap, nodes []float64
	for range viewsReadings {
		m, err := ui.do(map[string]any{"cmd": "measure"}, 60*time.Second)
		if err != nil {
			return p, err
		}
		// Renderer processes that lost their last frame exit on their own
		// time; a moment for that, then /proc.
		time.Sleep(500 * time.Millisecond)
		r := rendererMemory(ui.browser.pid())
		if r.processes == 0 {
			return p, fmt.Errorf("no Chromium renderer process under PID %d", ui.browser.pid())
		}
		b, _, err := rollup(ui.backend.pid())
		if err != nil {
			return p, err
		}
		rend, priv, back = append(rend, float64(r.pssKB)), append(priv, float64(r.privateKB)), append(back, float64(b))
		heap, nodes = append(heap, m["jsHeapUsed"].(float64)), append(nodes, m["nodesInProcess"].(float64))
		p.renderers, p.domNodes = r.processes, m["domNodes"].(float64)
		p.frames = int(m["outOfProcessFrames"].(float64))
		views, _ := m["views"].([]any)
		p.viewsInPage = len(views)
	}
	p.rendererKB, p.privateKB, p.backendKB = median(rend), median(priv), median(back)
	p.jsHeap, p.nodes = median(heap), median(nodes)
	for _, id := range viewIDs {
		live, err := ui.viewServed(id)
		if err != nil {
			return p, err
		}
		if live {
			p.goLive++
		}
	}
	return p, nil
}

// rendererTotals is the memory of Chromium's renderer processes.
type rendererTotals struct {
	pssKB, privateKB int64
	processes        int
}

// rendererMemory sums the PSS and private memory of the renderer
// processes (--type=renderer) under root.
func rendererMemory(root int) rendererTotals {
	var t rendererTotals
	for _, pid := range mcptest.Descendants(root) {
		if !strings.Contains(mcptest.Cmdline(pid), "--type=renderer") {
			continue
		}
		pss, priv, err := rollup(pid)
		if err != nil {
			continue // exited meanwhile
		}
		t.pssKB += pss
		t.privateKB += priv
		t.processes++
	}
	return t
}

// viewServed reports whether the dev binary still serves view id: 200
// for a live view, 404 for one Go closed. The request marks the view used
// (Go's least-recently-used order), which does not matter here: Go's cap
// (32) is never reached.
func (s *uiSession) viewServed(id string) (bool, error) {
	req, err := http.NewRequest(http.MethodGet, s.base+"/mcp-view/"+id, nil)
	if err != nil {
		return false, err
	}
	req.AddCookie(s.cookie)
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("GET /mcp-view/%s: %s", id, resp.Status)
}

// viewStates counts the views of a browser.mjs answer by state: "9 ready, 1 closing".
func viewStates(views []any) string {
	counts := map[string]int{}
	var order []string
	for _, v := range views {
		st, _ := v.(map[string]any)["state"].(string)
		if counts[st] == 0 {
			order = append(order, st)
		}
		counts[st]++
	}
	parts := make([]string, len(order))
	for i, st := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[st], st)
	}
	return strings.Join(parts, ", ")
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/store"
)

// activityCalls is how many tool calls the activity group records.
const activityCalls = 100_000

// activityPage is the rows of a page the Activity view asks for
// (frontend/src/lib/stores/activity.svelte.ts, activityPageSize).
const activityPage = 50

// seedActivity writes activityCalls tool calls, a year of them, over 20
// conversations, 10 servers and 60 tools, in one transaction straight into
// tool_calls (the search index follows through the schema's triggers):
// arguments and results of Zipf-drawn words, a mix of decisions, statuses
// and errors as the approval flow records them.
func seedActivity(path string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(20, 5))
	words := vocabulary(rand.New(rand.NewPCG(8, 8)))
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	text := func(n int) string {
		var b strings.Builder
		for j := range n {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[zipf.Uint64()])
		}
		return b.String()
	}
	var convs []string
	for i := range 20 {
		c, err := st.CreateConversation(ctx, store.Conversation{Title: fmt.Sprintf("Activity bench %d", i+1)})
		if err != nil {
			return err
		}
		convs = append(convs, c.ID)
	}
	decisions := []struct{ decision, by, status string }{
		{"allow_once", "user", store.CallDone}, {"allow_once", "user", store.CallDone}, {"allow_always", "policy", store.CallDone},
		{"allow_always", "policy", store.CallDone}, {"allow_all", "policy", store.CallDone}, {"allow_read_only", "policy", store.CallDone},
		{"deny", "user", store.CallDenied}, {"cancelled", "system", store.CallCancelled}, {"allow_once", "user", store.CallFailed},
		{"deny", "guard", store.CallDenied},
	}
	tx, err := st.DB().Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare(`INSERT INTO tool_calls(id, call_id, conversation_id, server_id, server_name, tool, arguments, status,
		decision, decided_by, result, is_error, error, requested_at, started_at, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	base := time.Now().Add(-365 * 24 * time.Hour).UnixMilli()
	for i := range activityCalls {
		server := r.IntN(10)
		tool := fmt.Sprintf("tool_%d_%d", server, r.IntN(6))
		d := decisions[r.IntN(len(decisions))]
		args, _ := json.Marshal(map[string]any{"query": text(3 + r.IntN(8)), "limit": r.IntN(100)})
		var result any
		errText := ""
		switch d.status {
		case store.CallDone:
			res, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text(20 + r.IntN(200))}}})
			result = string(res)
		case store.CallFailed:
			errText = "connection reset: " + text(5)
		}
		at := base + int64(i)*315_000
		if _, err := stmt.Exec(fmt.Sprintf("bench-%06d", i), fmt.Sprintf("call_%d", i%4), convs[i%len(convs)], fmt.Sprintf("server%d", server),
			fmt.Sprintf("Server %d", server), tool, string(args), d.status, d.decision, d.by, result, d.status == store.CallFailed, errText,
			at, at, r.IntN(3000)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = st.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// openActivity does what the Tool activity view asks for when it opens:
// the facets and the first page, encoded as the bindings send them.
func openActivity(ctx context.Context, st *store.Store, f store.ActivityFilter) (int, error) {
	facets, err := st.ActivityFacets(ctx)
	if err != nil {
		return 0, err
	}
	page, err := listActivity(ctx, st, f)
	if _, err := json.Marshal(facets); err != nil {
		return 0, err
	}
	return page, err
}

// listActivity is a filter change: one page, encoded.
func listActivity(ctx context.Context, st *store.Store, f store.ActivityFilter) (int, error) {
	f.Limit = activityPage
	page, err := st.Activity(ctx, f, false)
	if err != nil {
		return 0, err
	}
	if _, err := json.Marshal(page); err != nil {
		return 0, err
	}
	return len(page.Rows), nil
}

// benchActivity seeds activityCalls tool calls into a data directory,
// times the Tool activity view's queries at store+core level
// (activity_open_ms, activity_filter_p95_ms), then the view itself in
// Chromium on the dev binary over that data directory (activityUI).
func benchActivity(cfg *config, rep *Report) {
	openTarget, filterTarget := ptr(100.0), ptr(50.0)
	failAll := func(why string) {
		rep.add("activity_open_ms", notMeasured("ms", openTarget, why))
		rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, why))
		failUI(rep, why)
	}
	// The data directory as the dev binary finds it (appEnv): dir/data.
	dir := filepath.Join(cfg.tmp, "activity")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		failAll(err.Error())
		return
	}
	path := filepath.Join(dir, "data", "switchboard.db")
	start := time.Now()
	seededAt := start
	if err := seedActivity(path); err != nil {
		failAll("seeding the tool calls: " + err.Error())
		return
	}
	seedSeconds := round(time.Since(start).Seconds(), 1)
	cfg.logf("seeded %d tool calls in %.1f s", activityCalls, seedSeconds)
	activityStore(cfg, rep, path, seedSeconds)
	activityUI(cfg, rep, dir, seededAt)
}

// activityStore times what the view asks for at store+core level.
func activityStore(cfg *config, rep *Report, path string, seedSeconds float64) {
	openTarget, filterTarget := ptr(100.0), ptr(50.0)
	ctx := context.Background()

	// Opening: each run opens the database anew (SQLite's cache cold, as
	// at the first visit of the view after a start) and times facets +
	// first page.
	var opens []float64
	for range max(cfg.runs, 5) * 2 {
		st, err := store.Open(ctx, path, &store.Options{NoBackup: true})
		if err != nil {
			rep.add("activity_open_ms", notMeasured("ms", openTarget, err.Error()))
			return
		}
		t := time.Now()
		n, err := openActivity(ctx, st, store.ActivityFilter{})
		d := ms(time.Since(t))
		st.Close()
		if err != nil || n != activityPage {
			rep.add("activity_open_ms", notMeasured("ms", openTarget, fmt.Sprintf("opening: %d rows, %v", n, err)))
			return
		}
		opens = append(opens, d)
	}
	rep.add("activity_open_ms", Figure{Value: ptr(round(percentile(opens, 95), 2)), Unit: "ms", Runs: len(opens), Target: openTarget,
		How:   fmt.Sprintf("store+core level, not in Chromium: p95 over runs of what the Activity view asks when it opens (ActivityFacets + the first page of %d of ListActivity, JSON-encoded as the bindings send them) over %d recorded tool calls, the database opened anew each run; the Svelte table's render is not counted", activityPage, activityCalls),
		Extra: map[string]any{"samples": roundAll(opens, 2), "median": round(median(opens), 2), "seedSeconds": seedSeconds}})

	st, err := store.Open(ctx, path, &store.Options{NoBackup: true})
	if err != nil {
		rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, err.Error()))
		return
	}
	defer st.Close()
	words := vocabulary(rand.New(rand.NewPCG(8, 8)))
	now := time.Now()
	second, err := st.Activity(ctx, store.ActivityFilter{Limit: activityPage}, false)
	if err != nil {
		rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, err.Error()))
		return
	}
	filters := map[string]store.ActivityFilter{
		"server":              {ServerID: "server3"},
		"tool":                {Tool: "tool_7_2"},
		"who yolo":            {Who: store.WhoYolo},
		"who guard":           {Who: store.WhoGuard},
		"status failed":       {Status: store.CallFailed},
		"last week":           {Since: now.AddDate(0, 0, -7)},
		"a month, a year ago": {Since: now.AddDate(-1, 0, 7), Until: now.AddDate(-1, 1, 7)},
		"query common":        {Query: "error"},
		"query rare":          {Query: words[12000]},
		"query prefix":        {Query: words[1200][:4]},
		"query two words":     {Query: words[150] + " " + words[900]},
		"server + query":      {ServerID: "server5", Query: "server config"},
		"tool + who + status": {Tool: "tool_2_1", Who: store.WhoUser, Status: store.CallDone},
		"next page":           {Cursor: second.Next},
	}
	for _, f := range filters { // one uncounted round
		if _, err := listActivity(ctx, st, f); err != nil {
			rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, err.Error()))
			return
		}
	}
	var all []float64
	per := map[string][]float64{}
	for range max(cfg.runs, 5) * 4 {
		for name, f := range filters {
			t := time.Now()
			if _, err := listActivity(ctx, st, f); err != nil {
				rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, err.Error()))
				return
			}
			d := ms(time.Since(t))
			all = append(all, d)
			per[name] = append(per[name], d)
		}
	}
	byFilter := map[string]any{}
	for name, xs := range per {
		byFilter[name] = map[string]any{"p50": round(median(xs), 2), "p95": round(percentile(xs, 95), 2)}
	}
	rep.add("activity_filter_p95_ms", Figure{Value: ptr(round(percentile(all, 95), 2)), Unit: "ms", Runs: len(all), Target: filterTarget,
		How:   fmt.Sprintf("store+core level, not in Chromium: p95 of a filter change as the Activity view makes it (ListActivity, a page of %d, JSON-encoded) over %d recorded tool calls; %d filters (server, tool, who decided, status, date ranges, full-text queries common to rare, combinations, the next page) in rounds, one uncounted round first", activityPage, activityCalls, len(filters)),
		Extra: map[string]any{"byFilter": byFilter, "p50": round(median(all), 2)}})
}

// activityRound is one round of filter changes, made one after another
// from no filter back to none, each changing the rows shown: the four
// filters set and unset in turn, searches typed and erased, a date range,
// "Clear filters". Words are typed into the search field (debounced by
// the view), the rest are single events.
func activityRound(words []string, seededAt time.Time) []map[string]any {
	sel := func(testid, value string) map[string]any {
		return map[string]any{"kind": "select", "testid": testid, "value": value}
	}
	date := func(testid string, t time.Time) map[string]any {
		return map[string]any{"kind": "date", "testid": testid, "value": t.Format("2006-01-02")}
	}
	typed := func(text string) map[string]any { return map[string]any{"kind": "type", "text": text} }
	erase, clear := map[string]any{"kind": "erase"}, map[string]any{"kind": "clear"}
	return []map[string]any{
		sel("activity-server", "server3"), sel("activity-tool", "tool_3_2"), sel("activity-who", store.WhoUser), sel("activity-status", store.CallFailed),
		sel("activity-status", ""), sel("activity-who", ""), sel("activity-tool", ""),
		typed(words[150]), date("activity-from", seededAt.AddDate(0, 0, -60)), date("activity-to", seededAt.AddDate(0, 0, -30)), erase, clear,
		sel("activity-who", store.WhoGuard), typed("error"), sel("activity-server", "server7"), erase, typed(words[1200][:4]), clear,
	}
}

// activityRounds is how many rounds of filter changes the UI session
// makes; the first is not counted.
const activityRounds = 3

func failUI(rep *Report, why string) {
	rep.add("activity_ui_open_ms", notMeasured("ms", ptr(100.0), why))
	rep.add("activity_ui_filter_p95_ms", notMeasured("ms", ptr(50.0), why))
}

// activityUI opens the Tool activity view in the real frontend in
// Chromium, on the dev binary over the seeded data directory, from its
// tab, with a page reloaded before each opening; then changes its filters
// in rounds (activityRound). Every time is the page's Date.now(): from the
// user's event (click, change, the last key typed) to the table showing
// the rows of the view's newest ListActivity reply, and the frame after.
func activityUI(cfg *config, rep *Report, dir string, seededAt time.Time) {
	openTarget, filterTarget := ptr(100.0), ptr(50.0)
	if m := uiNeeds(cfg); m != "" {
		failUI(rep, m)
		return
	}
	ui, err := startUI(cfg, dir)
	if err != nil {
		failUI(rep, err.Error())
		return
	}
	defer ui.close()
	// A provider, so that the UI leaves its first-start setup.
	if _, err := ui.do(map[string]any{"cmd": "provider", "baseUrl": "http://127.0.0.1:9/v1"}, 60*time.Second); err != nil {
		failUI(rep, "saving a provider: "+err.Error())
		return
	}
	// The times of one opening or step, in ms, from the user's event.
	type timing struct{ call, reply, dom, paint, longest float64 }
	timed := func(r map[string]any) timing {
		f := func(k string) float64 { v, _ := r[k].(float64); return v }
		ev := f("eventAt")
		return timing{f("callAt") - ev, f("replyAt") - ev, f("domAt") - ev, f("paintAt") - ev, f("longestTaskMs")}
	}

	var opens, openDom, openReply, openFacets, openLongest []float64
	var firstOpen float64
	for i := range max(cfg.runs, 5) + 1 {
		res, err := ui.do(map[string]any{"cmd": "activity", "timeoutMs": 30_000}, 90*time.Second)
		if err != nil {
			failUI(rep, "the UI could not be driven: "+err.Error())
			return
		}
		o, _ := res["open"].(map[string]any)
		t := timed(o)
		facets := o["facetsDomAt"].(float64) - o["eventAt"].(float64)
		cfg.logf("open %d: click → ListActivity sent %.0f ms, replied %.0f ms, %v rows in the DOM %.0f ms (%s), next frame %.0f ms; facets in the DOM %.0f ms; longest task %.0f ms; renderer %v; page errors %v",
			i, t.call, t.reply, o["rows"], t.dom, o["detectedBy"], t.paint, facets, t.longest, o["renderer"], res["pageErrors"])
		if n, _ := o["rows"].(float64); n != activityPage {
			failUI(rep, fmt.Sprintf("opening: the view showed %v rows, not a page of %d", o["rows"], activityPage))
			return
		}
		if i == 0 {
			firstOpen = t.paint
			continue // warm-up: the page's JIT, the backend's SQLite cache
		}
		opens, openDom, openReply = append(opens, t.paint), append(openDom, t.dom), append(openReply, t.reply)
		openFacets, openLongest = append(openFacets, facets), append(openLongest, t.longest)
	}
	p95 := percentile(opens, 95)
	of := Figure{Value: ptr(round(p95, 1)), Unit: "ms", Runs: len(opens), Target: openTarget,
		How: fmt.Sprintf("p95 over %d runs (one uncounted warm-up first) of: a click on the top bar's Activity tab (the click event's Date.now()) → the first page of rows "+
			"(%d) of the view's ListActivity reply in the DOM (MutationObserver on data-id of the first and last row) → the next frame; in Chromium against the dev binary "+
			"over %d recorded tool calls, the page reloaded before each run (the view's store empty, as at the first visit after a start)", len(opens), activityPage, activityCalls),
		Samples: roundAll(opens, 1),
		Extra: map[string]any{"median": round(median(opens), 1), "toDomMs": roundAll(openDom, 1), "listActivityReplyMs": roundAll(openReply, 1),
			"facetsInDomMs": roundAll(openFacets, 1), "longestTaskMs": roundAll(openLongest, 1), "warmUpMs": round(firstOpen, 1),
			"what": "listActivityReplyMs: click → the ListActivity binding's reply in the page (query + IPC); toDomMs: → the rows in the DOM; facetsInDomMs: → the calls-recorded count (ActivityFacets) shown"}}
	if p95 > *openTarget {
		of.Note = fmt.Sprintf("MISSED: p95 %.0f ms (median %.0f); the binding's reply alone takes a median %.0f ms (extra.listActivityReplyMs), the rest is the page's render.",
			p95, median(opens), median(openReply))
	}
	rep.add("activity_ui_open_ms", of)

	words := vocabulary(rand.New(rand.NewPCG(8, 8)))
	var steps []map[string]any
	for range activityRounds {
		steps = append(steps, activityRound(words, seededAt)...)
	}
	perRound := len(steps) / activityRounds
	res, err := ui.do(map[string]any{"cmd": "activity", "steps": steps, "timeoutMs": 30_000}, 5*time.Minute)
	if err != nil {
		failUI(rep, "the UI could not be driven: "+err.Error())
		return
	}
	got, _ := res["steps"].([]any)
	if len(got) != len(steps) {
		failUI(rep, fmt.Sprintf("the browser made %d filter changes of %d", len(got), len(steps)))
		return
	}
	var changes, changeDom, changeReply, longest []float64
	var typedPaint, typedAfter []float64 // typed searches: from the last key, and from the debounced call
	byKind := map[string][]float64{}
	unchanged := 0
	for i, g := range got {
		r := g.(map[string]any)
		t := timed(r)
		kind := fmt.Sprint(r["kind"])
		cfg.logf("step %d %s %v: %s → ListActivity sent %.0f ms, replied %.0f ms, %v rows in the DOM %.0f ms (%s), next frame %.0f ms; longest task %.0f ms; renderer %v; filter %v; unchanged %v",
			i, kind, steps[i]["value"], r["event"], t.call, t.reply, r["rows"], t.dom, r["detectedBy"], t.paint, t.longest, r["renderer"], r["filter"], r["unchanged"])
		if i < perRound {
			continue // the warm-up round
		}
		if u, _ := r["unchanged"].(bool); u {
			unchanged++
		}
		longest = append(longest, t.longest)
		if kind == "type" || kind == "erase" {
			typedPaint, typedAfter = append(typedPaint, t.paint), append(typedAfter, t.paint-t.call)
			continue
		}
		changes, changeDom, changeReply = append(changes, t.paint), append(changeDom, t.dom), append(changeReply, t.reply)
		byKind[kind] = append(byKind[kind], t.paint)
	}
	kinds := map[string]any{}
	for k, xs := range byKind {
		kinds[k] = map[string]any{"n": len(xs), "p50": round(median(xs), 1), "p95": round(percentile(xs, 95), 1)}
	}
	fp95 := percentile(changes, 95)
	ff := Figure{Value: ptr(round(fp95, 1)), Unit: "ms", Runs: len(changes), Target: filterTarget,
		How: fmt.Sprintf("p95 of a filter change in the view in Chromium against the dev binary over %d recorded tool calls: the change event of a Server, Tool, "+
			"Decided by or Status choice (Playwright's selectOption), of a From/To day typed in, or the click on Clear filters (Date.now() at the event) → the "+
			"rows of the view's ListActivity reply for it in the DOM (data-id of the first and last row) → the next frame; %d rounds of %d changes that each change "+
			"the rows, one uncounted round first; %d changes counted. Typed searches are not in this figure: the view waits for typing to pause (a 250 ms "+
			"debounce) before it asks; extra.typedSearch times them",
			activityCalls, activityRounds, perRound, len(changes)),
		Samples: roundAll(changes, 1),
		Extra: map[string]any{"p50": round(median(changes), 1), "toDomMs": roundAll(changeDom, 1), "listActivityReplyMs": roundAll(changeReply, 1), "byKind": kinds,
			"longestTaskMaxMs": round(slicesMax(longest), 1), "unchangedSteps": unchanged,
			"typedSearch": map[string]any{"n": len(typedPaint), "p50": round(median(typedPaint), 1), "p95": round(percentile(typedPaint, 95), 1), "samples": roundAll(typedPaint, 1),
				"afterDebounceP95": round(percentile(typedAfter, 95), 1),
				"what":             "a word typed into the search field (30 ms between keys) or the text erased (select all, Backspace): the last key's input event → the rows in the DOM → the next frame, the view's 250 ms debounce included; afterDebounceP95: from the ListActivity call the debounce made"}}}
	if fp95 > *filterTarget {
		ff.Note = fmt.Sprintf("MISSED: p95 %.0f ms (p50 %.0f); the binding's reply alone takes p95 %.0f ms (extra.listActivityReplyMs), the rest is the page's render.",
			fp95, median(changes), percentile(changeReply, 95))
	}
	rep.add("activity_ui_filter_p95_ms", ff)
}

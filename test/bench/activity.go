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

// listActivity is a filter change: one page of 100, encoded.
func listActivity(ctx context.Context, st *store.Store, f store.ActivityFilter) (int, error) {
	f.Limit = 100
	page, err := st.Activity(ctx, f, false)
	if err != nil {
		return 0, err
	}
	if _, err := json.Marshal(page); err != nil {
		return 0, err
	}
	return len(page.Rows), nil
}

func benchActivity(cfg *config, rep *Report) {
	openTarget, filterTarget := ptr(100.0), ptr(50.0)
	dir := filepath.Join(cfg.tmp, "activity")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		rep.add("activity_open_ms", notMeasured("ms", openTarget, err.Error()))
		return
	}
	path := filepath.Join(dir, "switchboard.db")
	start := time.Now()
	if err := seedActivity(path); err != nil {
		rep.add("activity_open_ms", notMeasured("ms", openTarget, "seeding the tool calls: "+err.Error()))
		rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, "seeding the tool calls: "+err.Error()))
		return
	}
	seedSeconds := round(time.Since(start).Seconds(), 1)
	cfg.logf("seeded %d tool calls in %.1f s", activityCalls, seedSeconds)
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
		if err != nil || n != 100 {
			rep.add("activity_open_ms", notMeasured("ms", openTarget, fmt.Sprintf("opening: %d rows, %v", n, err)))
			return
		}
		opens = append(opens, d)
	}
	rep.add("activity_open_ms", Figure{Value: ptr(round(percentile(opens, 95), 2)), Unit: "ms", Runs: len(opens), Target: openTarget,
		How:   fmt.Sprintf("store+core level, not in Chromium: p95 over runs of what the Activity view asks when it opens (ActivityFacets + the first page of 100 of ListActivity, JSON-encoded as the bindings send them) over %d recorded tool calls, the database opened anew each run; the Svelte table's render is not counted", activityCalls),
		Extra: map[string]any{"samples": roundAll(opens, 2), "median": round(median(opens), 2), "seedSeconds": seedSeconds}})

	st, err := store.Open(ctx, path, &store.Options{NoBackup: true})
	if err != nil {
		rep.add("activity_filter_p95_ms", notMeasured("ms", filterTarget, err.Error()))
		return
	}
	defer st.Close()
	words := vocabulary(rand.New(rand.NewPCG(8, 8)))
	now := time.Now()
	second, err := st.Activity(ctx, store.ActivityFilter{Limit: 100}, false)
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
		How:   fmt.Sprintf("store+core level, not in Chromium: p95 of a filter change as the Activity view makes it (ListActivity, a page of 100, JSON-encoded) over %d recorded tool calls; %d filters (server, tool, who decided, status, date ranges, full-text queries common to rare, combinations, the next page) in rounds, one uncounted round first", activityCalls, len(filters)),
		Extra: map[string]any{"byFilter": byFilter, "p50": round(median(all), 2)}})
}

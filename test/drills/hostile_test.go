package drills

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// TestDrillHostileServer runs a server that does all of issue 12's item 8
// at once next to a well-behaved one: ten thousand tools, one listed
// twice, megabyte descriptions, $ref bombs, a tools/list_changed storm and
// a call that reports huge progress forever. The app (this process: the
// drills run the core in-process, as the window does) stays under 300 MB
// of RSS, keeps answering what the UI asks for, uses the first 1000 tools
// with a note in the server's log, re-lists at most twice a second, and
// ends the call at its absolute deadline with a timeout error.
//
// mcpconn's TestListingIsBounded, TestListChangedStormIsDebounced,
// TestProgressIsThrottledAndClipped, TestCallHasAbsoluteDeadline and
// TestCleanSchemaRefBombIsBounded pin each point down alone.
func TestDrillHostileServer(t *testing.T) {
	mem := mcptest.WatchMemory(t)
	hostile := mcptest.FaultServer(t, "hostile", "hostile")
	hostile.CallTimeout = time.Second // idle timeout: progress keeps the call past it
	const deadline = 4 * time.Second  // the absolute one
	a := newApp(t, appOptions{
		servers: []serverconf.Config{hostile, mcptest.FaultServer(t, "calm", "ok")},
		manager: &mcpconn.Options{PingInterval: -1, BackoffBase: 200 * time.Millisecond, MaxCallDuration: deadline},
	})
	st := a.waitState("hostile", 60*time.Second, mcpconn.StateConnected)
	a.waitState("calm", 30*time.Second, mcpconn.StateConnected)

	// The never-ending call, with the storm raging.
	type outcome struct {
		err  error
		took time.Duration
	}
	var progMu sync.Mutex
	var progress []mcpconn.Progress
	done := make(chan outcome, 1)
	callStart := time.Now()
	go func() {
		_, err := a.svc.Manager.CallTool(context.Background(), "hostile__forever", nil, func(p mcpconn.Progress) {
			progMu.Lock()
			progress = append(progress, p)
			progMu.Unlock()
		})
		done <- outcome{err, time.Since(callStart)}
	}()

	// Meanwhile the app answers what the UI asks for.
	var slowest time.Duration
	for range 5 {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		views, err := a.svc.Servers.List(ctx)
		if err != nil || len(views) != 2 {
			t.Errorf("listing servers: %d, %v", len(views), err)
		}
		res, err := a.svc.Manager.CallTool(ctx, "calm__echo", []byte(`{"text":"still here"}`), nil)
		if err != nil || res.ForModel(0) != "still here" {
			t.Errorf("the calm server's echo: %v", err)
		}
		cancel()
		slowest = max(slowest, time.Since(start))
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("during the flood the slowest answer (servers listed, then a call to the calm server) took %s", slowest.Round(time.Millisecond))
	if slowest > 5*time.Second {
		t.Errorf("the app took %s to answer during the flood", slowest)
	}

	var o outcome
	select {
	case o = <-done:
	case <-time.After(deadline + 20*time.Second):
		t.Fatalf("the never-ending call still runs %s after its %s deadline", 20*time.Second, deadline)
	}
	t.Logf("the never-ending call ended after %s: %v", o.took.Round(time.Millisecond), o.err)
	if !errors.Is(o.err, mcpconn.ErrCallTimeout) || !strings.Contains(o.err.Error(), "absolute limit of 4s") {
		t.Errorf("err = %v, want ErrCallTimeout at the absolute limit of 4s", o.err)
	}
	if o.took < deadline || o.took > deadline+3*time.Second {
		t.Errorf("the call ended after %s; its deadline is %s", o.took, deadline)
	}
	progMu.Lock()
	n := len(progress)
	longest := 0
	for _, p := range progress {
		longest = max(longest, len(p.Message))
	}
	progMu.Unlock()
	t.Logf("onProgress ran %d times; the longest message was %d bytes", n, longest)
	if limit := int(o.took/(100*time.Millisecond)) + 3; n > limit || n == 0 {
		t.Errorf("onProgress ran %d times in %s, want 1 to %d (ten a second)", n, o.took, limit)
	}
	if longest > 512 {
		t.Errorf("a progress message of %d bytes was passed on", longest)
	}
	ring := a.svc.Manager.Stderr("hostile")
	timetest.WaitFor(t, 10*time.Second, "the server to see the call cancelled", func() bool {
		return slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return strings.HasPrefix(l.Text, "forever: cancelled") })
	})

	// The storm: at most one re-list every 500 ms.
	var stormLine string
	timetest.WaitFor(t, 30*time.Second, "the storm to end", func() bool {
		for _, l := range ring.Lines(0, 0) {
			if strings.HasPrefix(l.Text, "storm: done") {
				stormLine = l.Text
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second) // the last re-list
	lists := 0
	for _, l := range ring.Lines(0, 0) {
		if m := regexp.MustCompile(`^tools/list #(\d+)$`).FindStringSubmatch(l.Text); m != nil {
			lists, _ = strconv.Atoi(m[1])
		}
	}
	m := regexp.MustCompile(`^storm: done, (\d+) list_changed in (\S+)$`).FindStringSubmatch(stormLine)
	if m == nil {
		t.Fatalf("storm line %q", stormLine)
	}
	stormTook, _ := time.ParseDuration(m[2])
	toolEvents := 0
	for _, te := range eventtest.Payloads[mcpconn.ToolsEvent](&a.user.Recorder, mcpconn.EventServerTools) {
		if te.ServerID == "hostile" {
			toolEvents++
		}
	}
	t.Logf("%s: the app listed the tools %d times and sent %d server:tools events", stormLine, lists, toolEvents)
	if limit := int(stormTook/(500*time.Millisecond)) + 4; lists > limit || toolEvents > limit {
		t.Errorf("%d tools/list and %d server:tools events for a storm of %s, want at most %d", lists, toolEvents, stormTook, limit)
	}

	// The first 1000 tools, each bounded, each name once, and a note.
	tools := map[string][]mcpconn.Tool{}
	count := 0
	for _, tool := range a.svc.Manager.Tools() {
		if tool.ServerID == "hostile" {
			tools[tool.OriginalName] = append(tools[tool.OriginalName], tool)
			count++
		}
	}
	st, _ = a.svc.Manager.Status("hostile")
	if count != mcpconn.DefaultMaxTools || st.ToolCount != mcpconn.DefaultMaxTools {
		t.Errorf("%d tools registered, ToolCount %d; want %d", count, st.ToolCount, mcpconn.DefaultMaxTools)
	}
	if e := tools["echo"]; len(e) != 1 || e[0].Description != "Echoes text." {
		t.Errorf("echo: %+v; want the first one only", e)
	}
	for name, list := range tools {
		for _, tool := range list {
			if len(tool.Description) > 8<<10+100 || len(tool.InputSchema) > 256<<10 {
				t.Errorf("%s: %d-byte description, %d-byte schema", name, len(tool.Description), len(tool.InputSchema))
			}
		}
	}
	if b := tools["bomb-00"]; len(b) != 1 || string(b[0].InputSchema) != `{"type":"object","properties":{}}` {
		t.Errorf("bomb-00: %+v", b)
	}
	notes := []string{
		"server hostile lists 10001 tools; Switchboard uses the first 1000",
		`server hostile lists "echo" more than once`,
		`server hostile, tools "bomb-00", "bomb-01", "bomb-02" and 17 more: its input schema is larger than 256 KiB`,
		`server hostile, tools "verbose-0", "verbose-1", "verbose-2": description longer than 8 KiB, clipped`,
	}
	for _, note := range notes {
		if !slices.ContainsFunc(ring.Lines(0, 0), func(l logLine) bool { return strings.Contains(l.Text, note) }) {
			t.Errorf("the server's log lacks %q", note)
		}
	}

	// Still connected, still working.
	if st.State != mcpconn.StateConnected {
		t.Errorf("the hostile server is %s (%s)", st.State, st.Reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := a.svc.Manager.CallTool(ctx, "hostile__echo", []byte(`{"text":"hi"}`), nil); err != nil || res.ForModel(0) != "hi" {
		t.Errorf("hostile echo after all that: %v", err)
	}

	growth := mem.Stop()
	rss := mcptest.PeakRSS()
	t.Logf("memory: the Go heap grew by at most %.0f MB; peak RSS of the app (this process) %.0f MB", float64(growth)/(1<<20), float64(rss)/(1<<20))
	if rss > 300<<20 {
		t.Errorf("peak RSS %d MB, want under 300 MB", rss>>20)
	}
}

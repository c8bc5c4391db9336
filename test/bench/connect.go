package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// connectRecorder notes when each server reached connected or failed.
type connectRecorder struct {
	mu     sync.Mutex
	at     map[string]time.Time
	failed map[string]string
	wake   chan struct{}
}

func newConnectRecorder() *connectRecorder {
	return &connectRecorder{at: map[string]time.Time{}, failed: map[string]string{}, wake: make(chan struct{}, 1)}
}

func (r *connectRecorder) Emit(name string, payload any) {
	st, ok := payload.(mcpconn.Status)
	if name != mcpconn.EventServerStatus || !ok {
		return
	}
	now := time.Now()
	r.mu.Lock()
	switch st.State {
	case mcpconn.StateConnected:
		if _, seen := r.at[st.ServerID]; !seen {
			r.at[st.ServerID] = now
		}
	case mcpconn.StateFailed:
		r.failed[st.ServerID] = st.Reason
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wait returns when every id connected, and the time the last one did.
func (r *connectRecorder) wait(ids []string, timeout time.Duration) (time.Time, error) {
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		var last time.Time
		done := true
		for _, id := range ids {
			if why, bad := r.failed[id]; bad {
				r.mu.Unlock()
				return time.Time{}, fmt.Errorf("server %s failed: %s", id, why)
			}
			at, ok := r.at[id]
			if !ok {
				done = false
				break
			}
			if at.After(last) {
				last = at
			}
		}
		r.mu.Unlock()
		if done {
			return last, nil
		}
		select {
		case <-r.wake:
		case <-deadline:
			return time.Time{}, fmt.Errorf("servers not connected within %s", timeout)
		}
	}
}

// nodeServer is the config of a real Node MCP server: server-everything
// for even i, server-memory for odd i (the mix of TestCloseTenNodeServers).
func nodeServer(cfg *config, dir string, i int) serverconf.Config {
	node := filepath.Join(cfg.nodeDir, ".bin", "node")
	script := func(pkg string) string {
		return filepath.Join(cfg.nodeDir, "@modelcontextprotocol", pkg, "dist", "index.js")
	}
	id := fmt.Sprintf("s%d", i)
	if i%2 == 0 {
		return serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: node, Args: []string{script("server-everything"), "stdio"}, Enabled: true}
	}
	return serverconf.Config{ID: id, Transport: serverconf.TransportStdio, Command: node, Args: []string{script("server-memory")}, Enabled: true,
		Env: map[string]serverconf.Value{"MEMORY_FILE_PATH": {Plain: filepath.Join(dir, id+".jsonl")}}}
}

// connectRun starts a Manager with cfgs and returns how long until every
// server connected, the servers' CPU time by then, and how long Close took.
func connectRun(cfg *config, cfgs []serverconf.Config) (connect, cpu, closing time.Duration, err error) {
	rec := newConnectRecorder()
	path := filepath.Dir(filepath.Join(cfg.nodeDir, ".bin", "node")) + ":/usr/bin:/bin"
	m := mcpconn.NewManager(&mcpconn.Options{Emitter: rec, ShellPATH: func() string { return path }, PingInterval: -1})
	defer m.Close()
	ids := make([]string, len(cfgs))
	for i, c := range cfgs {
		ids[i] = c.ID
		if err := m.Add(c); err != nil {
			return 0, 0, 0, err
		}
	}
	start := time.Now()
	if err := m.Start(context.Background()); err != nil {
		return 0, 0, 0, err
	}
	last, err := rec.wait(ids, 120*time.Second)
	if err != nil {
		return 0, 0, 0, err
	}
	connect = last.Sub(start)
	servers := nodeChildren()
	cpu = cpuTime(servers)
	start = time.Now()
	m.Close()
	closing = time.Since(start)
	for _, pid := range servers {
		if _, _, err := procStat(pid); err == nil {
			return connect, cpu, closing, fmt.Errorf("server pid %d still running after Close", pid)
		}
	}
	return connect, cpu, closing, nil
}

// nodeChildren lists this process's Node children (the MCP servers).
func nodeChildren() []int {
	var out []int
	for _, pid := range mcptest.Descendants(os.Getpid()) {
		if _, comm, err := procStat(pid); err == nil && comm == "node" {
			out = append(out, pid)
		}
	}
	return out
}

// cpuTime sums user and system time of pids.
func cpuTime(pids []int) time.Duration {
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	var total time.Duration
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 12 {
			u, _ := strconv.Atoi(fields[11])
			k, _ := strconv.Atoi(fields[12])
			total += time.Duration(u+k) * tick
		}
	}
	return total
}

func benchConnect(cfg *config, rep *Report) {
	connTarget, shutTarget := ptr(1.2), ptr(1000.0)
	if m := need(filepath.Join(cfg.nodeDir, ".bin", "node"), filepath.Join(cfg.nodeDir, "@modelcontextprotocol", "server-memory")); m != "" {
		rep.add("connect10_ratio", notMeasured("ratio", connTarget, m))
		rep.add("shutdown10_ms", notMeasured("ms", shutTarget, m))
		return
	}
	dir := filepath.Join(cfg.tmp, "connect")
	os.MkdirAll(dir, 0o755)
	var ten []serverconf.Config
	for i := range 10 {
		ten = append(ten, nodeServer(cfg, dir, i))
	}
	// Uncounted warm-up: Node's code cache and the page cache.
	if _, _, _, err := connectRun(cfg, ten[:2]); err != nil {
		rep.add("connect10_ratio", notMeasured("ratio", connTarget, err.Error()))
		rep.add("shutdown10_ms", notMeasured("ms", shutTarget, err.Error()))
		return
	}
	runs := max(cfg.runs, 5)
	alone := map[string][]float64{} // by kind: everything (even), memory (odd)
	aloneCPU := map[string][]float64{}
	var par, parCPU, shut []float64
	for i := range runs {
		for k, kind := range []string{"everything", "memory"} {
			c, cpu, _, err := connectRun(cfg, ten[k:k+1])
			if err != nil {
				rep.add("connect10_ratio", notMeasured("ratio", connTarget, kind+" alone: "+err.Error()))
				rep.add("shutdown10_ms", notMeasured("ms", shutTarget, err.Error()))
				return
			}
			alone[kind] = append(alone[kind], ms(c))
			aloneCPU[kind] = append(aloneCPU[kind], ms(cpu))
		}
		c, cpu, closing, err := connectRun(cfg, ten)
		if err != nil {
			rep.add("connect10_ratio", notMeasured("ratio", connTarget, "ten in parallel: "+err.Error()))
			rep.add("shutdown10_ms", notMeasured("ms", shutTarget, err.Error()))
			return
		}
		par, parCPU, shut = append(par, ms(c)), append(parCPU, ms(cpu)), append(shut, ms(closing))
		cfg.logf("run %d: ten in parallel %s (servers' CPU %s), close %s; alone everything %.0f ms, memory %.0f ms",
			i+1, c.Round(time.Millisecond), cpu.Round(time.Millisecond), closing.Round(time.Millisecond), alone["everything"][i], alone["memory"][i])
	}
	slowest, slowKind := 0.0, ""
	for kind, xs := range alone {
		if m := median(xs); m > slowest {
			slowest, slowKind = m, kind
		}
	}
	ratio := median(par) / slowest
	cpus := float64(runtime.NumCPU())
	// The least time ten servers' start-up work can take on this machine:
	// their CPU time spread over every core.
	floor := median(parCPU) / cpus
	f := Figure{Value: ptr(round(ratio, 2)), Unit: "ratio", Runs: runs, Target: connTarget,
		Baseline: ptr(round(slowest, 1)), BaselineUnit: "ms", BaselineWhat: "the slowest kind of the ten (" + slowKind + ") connected alone, median",
		How:     fmt.Sprintf("median(ten Node stdio servers, 5 server-everything + 5 server-memory, started together by one mcpconn.Manager → the last connected, tools listed) ÷ median(the slowest kind alone); %d runs, interleaved", runs),
		Samples: roundAll(par, 1),
		Extra: map[string]any{"parallelMs": round(median(par), 1), "aloneMs": map[string]any{"everything": roundAll(alone["everything"], 1), "memory": roundAll(alone["memory"], 1)},
			"serversCPUMsParallel": round(median(parCPU), 0), "serversCPUMsAlone": map[string]float64{"everything": round(median(aloneCPU["everything"]), 0), "memory": round(median(aloneCPU["memory"]), 0)},
			"cpuFloorMs": round(floor, 0), "cpus": cpus, "parallelOverCPUFloor": round(median(par)/floor, 2)},
	}
	if ratio > *connTarget {
		f.Note = fmt.Sprintf("MISSED, and bound by the machine: the ten Node servers need %.0f ms of CPU between them to start (%.0f ms each alone), "+
			"which on %d cores cannot take less than %.0f ms; ten in parallel took %.0f ms, %.2f× that floor. "+
			"The manager starts them all at once (no serialising), so the ratio tracks servers ÷ cores, not the app.",
			median(parCPU), median(parCPU)/10, int(cpus), floor, median(par), median(par)/floor)
	}
	rep.add("connect10_ratio", f)
	rep.add("shutdown10_ms", Figure{Value: ptr(round(median(shut), 1)), Unit: "ms", Runs: runs, Target: shutTarget,
		How: "median time of mcpconn.Manager.Close with ten connected Node stdio servers (stdin closed, SIGTERM after the grace, then SIGKILL); every server process checked gone", Samples: roundAll(shut, 1)})
}

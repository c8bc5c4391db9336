package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// releaseTags are the Makefile's release tags on this platform.
func releaseTags() string {
	if runtime.GOOS == "linux" {
		return "desktop,production,webkit2_41"
	}
	return "desktop,production"
}

var (
	minimalOnce sync.Once
	minimalBin  string
	minimalErr  error
)

// buildMinimal builds test/bench/minimal with the release binary's tags and
// flags, once per run.
func buildMinimal(cfg *config) (string, error) {
	minimalOnce.Do(func() {
		out := filepath.Join(cfg.tmp, "minimal")
		cmd := exec.Command("go", "build", "-tags", releaseTags(), "-trimpath", "-ldflags", "-s -w", "-o", out, "./test/bench/minimal")
		cmd.Dir = cfg.root
		if b, err := cmd.CombinedOutput(); err != nil {
			minimalErr = fmt.Errorf("building the minimal Wails app: %v\n%s", err, strings.TrimSpace(string(b)))
			return
		}
		minimalBin = out
	})
	return minimalBin, minimalErr
}

func benchBinary(cfg *config, rep *Report) {
	info, err := os.Stat(cfg.bin)
	if err != nil {
		rep.add("binary_bytes", notMeasured("bytes", nil, need(cfg.bin)))
		return
	}
	f := Figure{Value: ptr(float64(info.Size())), Unit: "bytes", Runs: 1,
		How: "size of build/bin/switchboard (release tags, -s -w); no target. Baseline: the minimal Wails window built the same way"}
	if min, err := buildMinimal(cfg); err != nil {
		rep.warn("%v", err)
	} else if mi, err := os.Stat(min); err == nil {
		f.Baseline, f.BaselineUnit, f.BaselineWhat = ptr(float64(mi.Size())), "bytes", "minimal Wails v2 window, same tags and flags"
		f.Extra = map[string]any{"ratio": round(float64(info.Size())/float64(mi.Size()), 2)}
	}
	rep.add("binary_bytes", f)
}

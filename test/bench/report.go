package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// A Figure is one line of the report and one key of bench.json.
type Figure struct {
	// Value is nil when the figure could not be measured; Note says why.
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	// Baseline is what Value is a ratio against (or the difference from),
	// measured in the same run; nil when the figure has none.
	Baseline     *float64 `json:"baseline,omitempty"`
	BaselineUnit string   `json:"baselineUnit,omitempty"`
	BaselineWhat string   `json:"baselineWhat,omitempty"`
	// Runs is how many measurements Value summarises.
	Runs int `json:"runs"`
	// Target is the upper bound Value must not exceed; nil means none.
	Target *float64 `json:"target"`
	// OK is whether Value is within Target; nil when there is no target or
	// no value.
	OK *bool `json:"ok"`
	// How says how Value was taken (median, p95, ...).
	How string `json:"how"`
	// Note explains a miss, a partial figure or why nothing was measured.
	Note string `json:"note,omitempty"`
	// Samples are the single measurements, for a reader who doubts Value.
	Samples []float64 `json:"samples,omitempty"`
	// Extra holds figures that help read this one.
	Extra map[string]any `json:"extra,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// judge sets OK from Value and Target.
func (f *Figure) judge() {
	if f.Value == nil || f.Target == nil {
		f.OK = nil
		return
	}
	f.OK = ptr(*f.Value <= *f.Target)
}

// notMeasured is a figure with no value and the reason.
func notMeasured(unit string, target *float64, why string) Figure {
	return Figure{Unit: unit, Target: target, How: "not measured", Note: why}
}

// A Report collects figures in the order they were measured.
type Report struct {
	Started  time.Time          `json:"started"`
	Took     string             `json:"took"`
	Machine  map[string]any     `json:"machine"`
	Figures  map[string]*Figure `json:"figures"`
	order    []string
	warnings []string
}

func newReport() *Report {
	return &Report{Started: time.Now(), Figures: map[string]*Figure{}, Machine: machineInfo()}
}

func (r *Report) add(key string, f Figure) {
	f.judge()
	if _, ok := r.Figures[key]; !ok {
		r.order = append(r.order, key)
	}
	r.Figures[key] = &f
}

func (r *Report) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.warnings = append(r.warnings, msg)
	fmt.Fprintln(os.Stderr, "bench: "+msg)
}

// write saves the report as JSON: the figures at the top level, by key, as
// the Makefile's consumers expect, and the run's details under "_run".
func (r *Report) write(path string) error {
	r.Took = time.Since(r.Started).Round(time.Second).String()
	out := map[string]any{}
	for k, f := range r.Figures {
		out[k] = f
	}
	out["_run"] = map[string]any{"started": r.Started, "took": r.Took, "machine": r.Machine, "warnings": r.warnings,
		"targets": "every target is an upper bound: ok means value <= target"}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// print writes the table.
func (r *Report) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tVALUE\tBASELINE\tTARGET\tRUNS\tRESULT")
	for _, k := range r.order {
		f := r.Figures[k]
		val, base, target := "—", "", "—"
		if f.Value != nil {
			val = num(*f.Value) + " " + f.Unit
		}
		if f.Baseline != nil {
			base = num(*f.Baseline) + " " + f.BaselineUnit
		}
		if f.Target != nil {
			target = "≤ " + num(*f.Target)
		}
		result := "no target"
		switch {
		case f.Value == nil:
			result = "NOT MEASURED"
		case f.OK != nil && *f.OK:
			result = "ok"
		case f.OK != nil:
			result = "MISSED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", k, val, base, target, f.Runs, result)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, k := range r.order {
		f := r.Figures[k]
		fmt.Fprintf(w, "%s: %s", k, f.How)
		if f.Note != "" {
			fmt.Fprintf(w, "\n    %s", strings.ReplaceAll(f.Note, "\n", "\n    "))
		}
		fmt.Fprintln(w)
	}
}

func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) >= 1000:
		return commas(int64(v))
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && c != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 { return percentile(xs, 50) }

// percentile returns the p-th percentile of xs by the nearest-rank method.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank-1, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func roundAll(xs []float64, digits int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = round(x, digits)
	}
	return out
}

func machineInfo() map[string]any {
	m := map[string]any{}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		n := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "processor") {
				n++
			}
			if v, ok := strings.CutPrefix(l, "model name"); ok && m["cpu"] == nil {
				m["cpu"] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
			}
		}
		m["cpus"] = n
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		m["loadavgAtStart"] = strings.TrimSpace(string(data))
	}
	return m
}

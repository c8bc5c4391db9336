//go:build !linux || !(production || dev) || bindings

package app

import (
	"runtime"
	"testing"
)

// Views stay off where they were not tested (macOS, Windows), and in
// builds without the Linux frame guard.
func TestViewsOffUntested(t *testing.T) {
	for _, goos := range []string{"darwin", "windows", "linux", "freebsd"} {
		if viewsSafeOn(goos) {
			t.Errorf("views are on for %s, where they were not tested", goos)
		}
	}
	if appViewsSupported() {
		t.Errorf("this build (%s) shows views without the Linux frame guard", runtime.GOOS)
	}
}

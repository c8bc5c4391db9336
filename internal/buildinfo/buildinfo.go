// Package buildinfo reports the version of this build.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version is set at link time (-ldflags "-X .../buildinfo.Version=v1.2.3");
// "dev" means a build from a work tree.
var Version = "dev"

// String describes the build: version, VCS revision when known, Go version, platform.
func String() string {
	s := "switchboard " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				s += " (" + kv.Value[:12] + ")"
			}
		}
	}
	return s + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

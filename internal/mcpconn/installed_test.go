package mcpconn

import (
	"testing"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// Pinning an installed server changes nothing that runs, so it does not
// reconnect it; another version does.
func TestSameReachInstalled(t *testing.T) {
	base := serverconf.Config{ID: "s", Transport: serverconf.TransportStdio, Command: "node", Args: []string{"${install}/x.js"},
		Install: &serverconf.Install{Kind: serverconf.InstallNPM, Package: "p", Version: "1.0.0", Runtime: "node"}}
	pinned := base
	pin := *base.Install
	pin.Pinned = true
	pinned.Install = &pin
	if !sameReach(base, pinned) {
		t.Error("a pin counts as another way to reach the server")
	}
	newer := base
	v := *base.Install
	v.Version = "1.1.0"
	newer.Install = &v
	if sameReach(base, newer) {
		t.Error("another installed version counts as the same server")
	}
}

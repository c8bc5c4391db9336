// Package drills holds Switchboard's fault drills: end-to-end tests that
// break something on purpose (kill the app mid-reply, kill or hang an MCP
// server, flood it, break the provider's stream, feed a bad config file,
// take the keyring away) and check that the app keeps working, that the user
// is told what happened in words they can act on, and that nothing is lost.
//
// They go through the app's own wiring — core.Open and core.Services, as
// the window and the command line do — or through the built binaries, with
// real Node MCP servers from test/node and a misbehaving stdio server that is
// this test binary itself (the TestMain re-exec trick: mcptest.FaultServer,
// which mcpconn's tests share). Where a unit test
// already pins a point down in its own package, the drill says which.
//
//	make build && SWITCHBOARD_REQUIRE_E2E=1 SWITCHBOARD_REQUIRE_NODE_SERVERS=1 go test -count=1 ./test/drills/
//
// A drill that needs a missing binary or the Node servers skips and says
// why; SWITCHBOARD_REQUIRE_E2E=1 (the binary) and
// SWITCHBOARD_REQUIRE_NODE_SERVERS=1 (the servers) turn that into a
// failure. SWITCHBOARD_BIN names another release binary than
// build/bin/switchboard.
package drills

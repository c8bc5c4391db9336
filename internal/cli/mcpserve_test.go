package cli

import (
	"strings"
	"testing"
)

// `mcp serve` refuses, saying what to do, to start without a token, to
// serve HTTP beyond the loopback address, or with a stray argument.
func TestMCPServeRefusals(t *testing.T) {
	t.Setenv(TokenEnv, "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "serve"}, "set " + TokenEnv},
		{[]string{"mcp", "serve", "--http", "0.0.0.0:8080"}, "loopback address only"},
		{[]string{"mcp", "serve", "--http", "example.com:8080"}, "loopback address only"},
		{[]string{"mcp", "serve", "--http", "8080"}, "give 127.0.0.1:PORT"},
		{[]string{"mcp", "serve", "extra"}, `unexpected "extra"`},
		{[]string{"mcp"}, "usage: switchboard mcp serve"},
	} {
		code, _, stderr := run(t, t.TempDir(), "", tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if code, stdout, _ := run(t, t.TempDir(), "", "mcp", "--help"); code != 0 || !strings.Contains(stdout, "mcp serve --http 127.0.0.1:PORT") {
		t.Errorf("help: %d %q", code, stdout)
	}
}

package mcptest

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	RunIfChild()
	os.Exit(m.Run())
}

// connect starts the fault server of cfg as a plain go-sdk client would.
func connect(t *testing.T, mode string) *mcp.ClientSession {
	t.Helper()
	cfg := FaultServer(t, "f", mode)
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(os.Environ(), FaultEnv+"="+cfg.Env[FaultEnv].Plain)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestFaultServerServes(t *testing.T) {
	for _, mode := range []string{"ok", "hang-ping"} {
		t.Run(mode, func(t *testing.T) {
			cs := connect(t, mode)
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			want := []string{"add-tool", "crash", "echo", "fail", "garbage-out", "hang", "huge", "slow", "wait-cancel", "weird.name/with spaces"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
				t.Errorf("echo = %+v, %v", res, err)
			}
		})
	}
}

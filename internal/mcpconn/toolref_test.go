package mcpconn

import (
	"errors"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// An approved call runs only on the tool it was approved for: the same
// server, the same configuration and the same definition.
func TestCallToolRefPinsWhatWasApproved(t *testing.T) {
	m, _ := newTestManager(t, nil)
	cfg := mcptest.FaultServer(t, "r", "ok")
	if err := m.Add(cfg); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "r", 20*time.Second, StateConnected)
	tool, ok := m.Lookup("r__echo")
	if !ok {
		t.Fatal("no r__echo")
	}
	good := ToolRef{ServerID: "r", Tool: "echo", DefinitionHash: tool.DefinitionHash, Fingerprint: serverconf.Fingerprint(&cfg)}
	if tool.Fingerprint != good.Fingerprint {
		t.Fatalf("registry fingerprint %q, config's %q", tool.Fingerprint, good.Fingerprint)
	}
	res, err := m.CallToolRef(t.Context(), good, []byte(`{"text":"hi"}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("approved call: %+v, %v", res, err)
	}

	for name, ref := range map[string]ToolRef{
		"another definition":    {ServerID: "r", Tool: "echo", DefinitionHash: "sha256:other", Fingerprint: good.Fingerprint},
		"another configuration": {ServerID: "r", Tool: "echo", DefinitionHash: good.DefinitionHash, Fingerprint: "sha256:other"},
	} {
		if _, err := m.CallToolRef(t.Context(), ref, []byte(`{"text":"hi"}`), nil); !errors.Is(err, ErrToolChanged) {
			t.Errorf("%s: err = %v, want ErrToolChanged", name, err)
		}
	}
	if _, err := m.CallToolRef(t.Context(), ToolRef{ServerID: "other", Tool: "echo"}, nil, nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown server: err = %v, want ErrUnknownTool", err)
	}
}

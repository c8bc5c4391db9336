package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// TestAskRefusesWhatNeedsTheWindow: during `ask`, a server that asks for
// input or for a completion is refused at once (there is no window to
// ask in), and stderr says what it asked and where to answer such
// requests; the turn goes on.
func TestAskRefusesWhatNeedsTheWindow(t *testing.T) {
	dir := t.TempDir()
	importEverything(t, dir)
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "everything__trigger-elicitation-request", Arguments: []string{`{}`}}),
		llmtest.Calls(llmtest.ToolCall{ID: "c2", Name: "everything__trigger-sampling-request", Arguments: []string{`{"prompt":"a joke"}`}}),
		llmtest.Text("Done."),
	}})
	code, stdout, stderr := run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m1", "--yolo", "--wait-servers", "30s", "go")
	if code != 0 || !strings.Contains(stdout, "Done.") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{
		`[server everything asked for input "Please provide inputs for the following fields:"; declined: no Switchboard window is open and visible to show it in. Answer such requests in the Switchboard window]`,
		`[server everything asked for a completion of 1 message(s), up to 100 tokens, ending "Resource trigger-sampling-request context: a joke"; refused: no Switchboard window is open and visible to show it in. Approve such requests in the Switchboard window]`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks\n%s\n---\n%s", want, stderr)
		}
	}
	// The model heard how each call ended.
	reqs := srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	last := reqs[2].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "no Switchboard window") {
		t.Errorf("the sampling call's result for the model: %q", got)
	}
}

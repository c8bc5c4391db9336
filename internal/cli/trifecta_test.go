package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// A script marks a tool private and runs ask --yolo with no terminal: the
// read and the fetch run, the post that follows is refused by the
// lethal-trifecta guard, saying why on stderr and to the model; with the
// guard turned off by settings set, the same conversation's post runs.
func TestAskTrifectaGuard(t *testing.T) {
	var posts atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "notes", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return textResult("my diary"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "fetch", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return textResult("a web page"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "post"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			posts.Add(1)
			return textResult("posted"), nil, nil
		})
	dir := t.TempDir()
	importHTTP(t, dir, "web", serveMCP(t, srv))
	if code, stdout, stderr := run(t, dir, "", "servers", "private", "web", "notes", "on"); code != 0 || !strings.Contains(stdout, "marked private") {
		t.Fatalf("private on: %d %q %q", code, stdout, stderr)
	}
	code, stdout, stderr := run(t, dir, "", "servers", "tools", "web")
	if code != 0 || !regexpLine(stdout, `notes\s+true\s+read-only,closed-world,marked-private`) || !regexpLine(stdout, `post\s+true\s+-\s`) {
		t.Errorf("servers tools: %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := run(t, dir, "", "settings"); code != 0 || !regexpLine(stdout, `^trifecta-guard\s+on$`) || !regexpLine(stdout, `^allow-all\s+off\s`) {
		t.Errorf("settings: %d\n%s", code, stdout)
	}

	call := func(id, name string) llmtest.Reply {
		return llmtest.Calls(llmtest.ToolCall{ID: id, Name: name, Arguments: []string{`{}`}})
	}
	llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		call("n", "web__notes"), call("f", "web__fetch"), call("p", "web__post"), llmtest.Text("done"),
		call("p2", "web__post"), llmtest.Text("done"),
	}})
	code, _, stderr = run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--yolo", "--wait-servers", "20s", "read, fetch, post")
	if code != 0 {
		t.Fatalf("ask: %d %s", code, stderr)
	}
	want := "[tool post on web refused by the lethal-trifecta guard: This conversation has read private data (web__notes) and taken in outside content (web__fetch); web__post can send data out. No terminal to ask on"
	if !strings.Contains(stderr, want) || posts.Load() != 0 {
		t.Errorf("posted %d times; stderr:\n%s", posts.Load(), stderr)
	}
	reqs := llm.ChatRequests()
	last := reqs[len(reqs)-1].Messages
	if told := last[len(last)-1].Content; !strings.Contains(fmt.Sprint(told), "was refused and did not run. This conversation has read private data") {
		t.Errorf("the model was told %q", told)
	}

	if code, stdout, stderr := run(t, dir, "", "settings", "set", "trifecta-guard", "off"); code != 0 || !strings.Contains(stdout, "trifecta-guard = off") {
		t.Fatalf("settings set: %d %q %q", code, stdout, stderr)
	}
	conv := regexp.MustCompile(`\[conversation (\S+): done\]`).FindStringSubmatch(stderr)
	if conv == nil {
		t.Fatalf("no conversation ID in %q", stderr)
	}
	if code, _, stderr := run(t, dir, "", "ask", "--base-url", llm.URL, "--model", "m", "--yolo", "--conversation", conv[1], "--wait-servers", "20s", "post"); code != 0 || posts.Load() != 1 {
		t.Errorf("with the guard off: %d, posted %d times\n%s", code, posts.Load(), stderr)
	}

	for _, bad := range [][]string{{"set", "trifecta-guard", "maybe"}, {"set", "max-tool-rounds", "0"}, {"set", "nope", "1"}, {"frob"}} {
		if code, _, stderr := run(t, dir, "", append([]string{"settings"}, bad...)...); code == 0 || stderr == "" {
			t.Errorf("settings %v: %d %q", bad, code, stderr)
		}
	}
	if code, _, stderr := run(t, dir, "", "servers", "private", "nope", "notes", "on"); code != 1 || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("unknown server: %d %q", code, stderr)
	}
}

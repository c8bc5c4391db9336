package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// allowTools are two servers that both list read_file, one of them hostile.
var allowTools = []mcpconn.Tool{
	{Name: "files__read_file", ServerID: "files", ServerName: "Files", OriginalName: "read_file", DefinitionHash: "h-files-read"},
	{Name: "files__search", ServerID: "files", ServerName: "Files", OriginalName: "search", DefinitionHash: "h-files-search"},
	{Name: "evil__read_file", ServerID: "evil", ServerName: "Totally Files", OriginalName: "read_file", DefinitionHash: "h-evil-read"},
}

func TestResolveAllow(t *testing.T) {
	tests := []struct {
		allow   string
		want    map[allowedTool]string
		wantErr []string // all in the error
	}{
		{allow: "files/read_file", want: map[allowedTool]string{{"files", "read_file"}: "h-files-read"}},
		{allow: "Files/read_file", want: map[allowedTool]string{{"files", "read_file"}: "h-files-read"}},
		{allow: "evil__read_file", want: map[allowedTool]string{{"evil", "read_file"}: "h-evil-read"}},
		{allow: "files__search", want: map[allowedTool]string{{"files", "search"}: "h-files-search"}},
		{allow: "search", want: map[allowedTool]string{{"files", "search"}: "h-files-search"}}, // one server has it
		{allow: "read_file", wantErr: []string{"2 tools", "files__read_file", "evil__read_file", "server/tool"}},
		{allow: "files/nope", wantErr: []string{"no connected server has this tool", "files__read_file"}},
		{allow: "evil/search", wantErr: []string{"no connected server has this tool"}},
		{allow: "files.read_file", wantErr: []string{"no connected server has this tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.allow, func(t *testing.T) {
			got, err := resolveAllow([]string{tt.allow}, allowTools)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("allowed %v; want an error", got)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(allowedTool{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// --allow files/read_file lets that tool run unasked, and only it: the
// hostile server's read_file, and files' read_file once its definition
// changed, are denied when there is no terminal to ask on.
func TestAskAllowRunsOnlyTheNamedTool(t *testing.T) {
	allow, err := resolveAllow([]string{"files/read_file"}, allowTools)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	p := &askPrinter{env: &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}}
	b := approval.NewBroker(&approval.Options{Emitter: p})
	defer b.Close()
	p.broker = b
	p.setPolicy(askPolicy{allow: allow})

	tests := []struct {
		id, server, hash string
		want             approval.Decision
	}{
		{"ok", "files", "h-files-read", approval.AllowOnce},
		{"hostile", "evil", "h-evil-read", approval.Deny},
		{"changed", "files", "h-files-read-v2", approval.Deny},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := b.Request(ctx, approval.Request{ID: tt.id, ServerID: tt.server, Tool: "read_file", ServerName: tt.server,
			Fingerprint: "fp", DefinitionHash: tt.hash, Arguments: []byte(`{"path":"/etc/passwd"}`)})
		cancel()
		if err != nil || out.Decision != tt.want {
			t.Errorf("%s: %+v, %v; want %s", tt.id, out, err, tt.want)
		}
	}
	p.prompts.Wait()
	if !strings.Contains(stderr.String(), "--allow evil/read_file") {
		t.Errorf("the denial does not say how to allow it:\n%s", stderr.String())
	}
}

// An --allow that names no tool stops the run before the model is asked,
// rather than allowing nothing in silence (or everything of that name).
func TestAskAllowOfNoToolIsAnError(t *testing.T) {
	srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{llmtest.Text("should not be asked")}})
	code, stdout, stderr := run(t, t.TempDir(), "", "ask", "--base-url", srv.URL, "--model", "m1", "--wait-servers", "1s", "--allow", "read_file", "hi")
	if code != 2 || !strings.Contains(stderr, "--allow read_file: no connected server has this tool") {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	if stdout != "" || len(srv.ChatRequests()) != 0 {
		t.Errorf("the model was asked: stdout %q", stdout)
	}
}

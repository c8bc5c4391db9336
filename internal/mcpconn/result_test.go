package mcpconn

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResultKeepsEveryContentKind(t *testing.T) {
	size := int64(2048)
	r := newResult(&mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: "hello"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}},
			&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{4, 5}},
			&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &size, Description: "a file"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://note", MIMEType: "text/plain", Text: "note text"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://bin", MIMEType: "application/octet-stream", Blob: []byte{9, 9, 9, 9}}},
		},
		StructuredContent: map[string]any{"temp": 21},
	}, 0)

	want := []Content{
		{Type: ContentText, Text: "hello"},
		{Type: ContentImage, MIMEType: "image/png", Data: []byte{1, 2, 3}},
		{Type: ContentAudio, MIMEType: "audio/wav", Data: []byte{4, 5}},
		{Type: ContentResourceLink, URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &size, Description: "a file"},
		{Type: ContentResource, URI: "mem://note", MIMEType: "text/plain", Text: "note text"},
		{Type: ContentResource, URI: "mem://bin", MIMEType: "application/octet-stream", Blob: []byte{9, 9, 9, 9}},
	}
	if diff := cmp.Diff(want, r.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if string(r.StructuredContent) != `{"temp":21}` {
		t.Errorf("structured = %s", r.StructuredContent)
	}
	// JSON-friendly: binary data is base64.
	raw, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(raw), `"data":"AQID"`) {
		t.Errorf("json = %s, %v", raw, err)
	}

	wantText := strings.Join([]string{
		"hello",
		"[image: image/png, 3 bytes]",
		"[audio: audio/wav, 2 bytes]",
		"[resource link: a.txt <file:///a.txt> (text/plain)] a file",
		"[resource <mem://note>]\nnote text",
		"[resource <mem://bin>: application/octet-stream, 4 bytes]",
		"[structured content]", // not in the text: the model gets it too
		`{"temp":21}`,
	}, "\n")
	if got := r.ForModel(0); got != wantText {
		t.Errorf("ForModel:\n%s\nwant:\n%s", got, wantText)
	}
}

func TestForModel(t *testing.T) {
	tests := []struct {
		name  string
		r     *Result
		limit int
		want  string
	}{
		{"structured only", &Result{StructuredContent: json.RawMessage(`{"a":1}`)}, 0, `{"a":1}`},
		{"error marked", &Result{IsError: true, Content: []Content{{Type: ContentText, Text: "boom"}}}, 0, "[tool error]\nboom"},
		{"truncated", &Result{Content: []Content{{Type: ContentText, Text: strings.Repeat("é", 1_234_567)}}}, 10,
			strings.Repeat("é", 10) + "\n[result truncated: 1,234,567 characters, showing the first 10]"},
		{"at the limit", &Result{Content: []Content{{Type: ContentText, Text: "abc"}}}, 3, "abc"},
		{"manager limit", &Result{Content: []Content{{Type: ContentText, Text: "abcdef"}}, limit: 2}, 0,
			"ab\n[result truncated: 6 characters, showing the first 2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.ForModel(tt.limit); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNormalizeArgs(t *testing.T) {
	for in, want := range map[string]string{"": "{}", "null": "{}", " {\"a\":1} ": `{"a":1}`} {
		got, err := normalizeArgs(json.RawMessage(in))
		if err != nil || string(got) != want {
			t.Errorf("normalizeArgs(%q) = %s, %v", in, got, err)
		}
	}
	for _, in := range []string{"[1]", `"x"`, `{"a":`, "5"} {
		if _, err := normalizeArgs(json.RawMessage(in)); err == nil {
			t.Errorf("normalizeArgs(%q) accepted", in)
		}
	}
}

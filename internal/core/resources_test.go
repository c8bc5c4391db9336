package core

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// everythingServices starts the services with server-everything (stdio)
// connected as "everything".
func everythingServices(t *testing.T, providerURL string) (*Core, *Services) {
	t.Helper()
	path := mcptest.Node(t, "mcp-server-everything").PATH()
	c, svc := startServices(t, t.TempDir(), providerURL, &userAtUI{}, &mcpconn.Options{ShellPATH: func() string { return path }, PingInterval: -1})
	cfg := serverconf.Config{ID: "everything", Name: "Everything", Transport: serverconf.TransportStdio, Command: "mcp-server-everything", Args: []string{"stdio"}, Enabled: true}
	if _, err := svc.Servers.Save(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(t.Context(), c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "everything", mcpconn.StateConnected)
	return c, svc
}

// Resources of a real server attach to a message (text inlined, a
// binary-coded text decoded) and preview; a prompt of user messages goes
// to the composer with its embedded resource attached.
func TestAttachResourceAndUsePrompt(t *testing.T) {
	ctx := context.Background()
	_, svc := everythingServices(t, "http://127.0.0.1:9")
	ignore := cmpopts.IgnoreFields(store.Attachment{}, "ID", "Size")

	atts, err := svc.AttachResource(ctx, "everything", "demo://resource/static/document/features.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Attachment{{Name: "features.md", MIME: "text/markdown", Kind: store.AttachmentText, ServerID: "everything", URI: "demo://resource/static/document/features.md"}}
	if diff := cmp.Diff(want, atts, ignore); diff != "" {
		t.Errorf("attached (-want +got):\n%s", diff)
	}
	data, _, err := svc.store.Blob(ctx, atts[0].ID)
	if err != nil || !bytes.Contains(data, []byte("# ")) {
		t.Errorf("stored text %.100q, %v", data, err)
	}

	blob, err := svc.AttachResource(ctx, "everything", "demo://resource/dynamic/blob/4")
	if err != nil {
		t.Fatal(err)
	}
	if data, _, _ := svc.store.Blob(ctx, blob[0].ID); len(blob) != 1 || blob[0].Kind != store.AttachmentText || !bytes.HasPrefix(data, []byte("Resource 4: This is a base64 blob")) {
		t.Errorf("blob resource attached as %+v: %q", blob, data)
	}

	pv, err := svc.PreviewResource(ctx, "everything", "demo://resource/dynamic/text/5")
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Parts) != 1 || pv.Parts[0].Kind != PreviewText || !strings.HasPrefix(pv.Parts[0].Text, "Resource 5: This is a plaintext resource") {
		t.Errorf("preview = %+v", pv)
	}

	use, err := svc.UsePrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Paris"})
	if err != nil {
		t.Fatal(err)
	}
	if use.Mode != PromptComposer || use.Text != "What's weather in Paris?" || len(use.Attachments) != 0 {
		t.Errorf("args-prompt use = %+v", use)
	}
	use, err = svc.UsePrompt(ctx, "everything", "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if use.Mode != PromptComposer || !strings.HasPrefix(use.Text, "This prompt includes the Text resource with id: 3.") ||
		len(use.Attachments) != 1 || use.Attachments[0].URI != "demo://resource/dynamic/text/3" || use.Attachments[0].ServerID != "everything" {
		t.Errorf("resource-prompt use = %+v", use)
	}
	if _, err := svc.UsePrompt(ctx, "everything", "args-prompt", nil); !errors.Is(err, mcpconn.ErrServerRefused) {
		t.Errorf("a prompt without its required argument: %v", err)
	}
}

// A prompt that speaks for both sides is added to the conversation as
// it is; the next turn sends the model those messages, then the user's.
func TestAppendPromptToConversation(t *testing.T) {
	ctx := context.Background()
	provider := llmtest.NewServer(t, nil)
	c, svc := startServices(t, t.TempDir(), provider.URL, &userAtUI{}, &mcpconn.Options{PingInterval: -1})
	conv, err := c.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}
	p := &mcpconn.PromptResult{ServerID: "none", Name: "review", Messages: []mcpconn.PromptMessage{
		{Role: mcpconn.RoleUser, Content: mcpconn.Content{Type: mcpconn.ContentText, Text: "Review my code."}},
		{Role: mcpconn.RoleAssistant, Content: mcpconn.Content{Type: mcpconn.ContentText, Text: "Paste it, and say what worries you."}},
		{Role: mcpconn.RoleAssistant, Content: mcpconn.Content{Type: mcpconn.ContentImage, MIMEType: "image/png", Data: []byte("png")}},
	}}
	msgs, err := svc.AppendPrompt(ctx, conv.ID, p)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(msgs))
	for i, m := range msgs {
		got[i] = m.Role + ": " + m.Content
	}
	want := []string{"user: Review my code.", "assistant: Paste it, and say what worries you.\n\n[image: image/png, 3 bytes]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appended (-want +got):\n%s", diff)
	}
	if c, _ := c.Store.Conversation(ctx, conv.ID); c.Title == "" {
		t.Error("the conversation got no title")
	}
	res, err := svc.Chat.Run(ctx, conv.ID, "func f() {}")
	if err != nil || res.Status != store.StatusDone {
		t.Fatalf("run: %+v, %v", res, err)
	}
	reqs := provider.ChatRequests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role != "system" {
			sent = append(sent, m.Role+": "+m.Content)
		}
	}
	if diff := cmp.Diff(append(want, "user: func f() {}"), sent); diff != "" {
		t.Errorf("sent to the model (-want +got):\n%s", diff)
	}
}

// Resources too large are refused with what happened: past the manager's
// limit before they are kept, an image past the image limit when it is
// attached.
func TestOversizedResourceRefused(t *testing.T) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	blob := func(uri, mime string, data []byte) {
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Blob: data}}}, nil
		})
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, MaxImageBytes)...)
	blob("big://image.png", "image/png", png)
	blob("big://huge.log", "text/plain", bytes.Repeat([]byte("log line\n"), mcpconn.MaxResourceBytes/9+1))
	blob("big://long.txt", "text/plain", bytes.Repeat([]byte("words "), MaxTextBytes/6+100))
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	c, svc := startServices(t, t.TempDir(), "http://127.0.0.1:9", &userAtUI{}, &mcpconn.Options{PingInterval: -1})
	if _, err := svc.Servers.Save(ctx, serverconf.Config{ID: "big", Transport: serverconf.TransportHTTP, URL: hs.URL, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "big", mcpconn.StateConnected)

	_, err := svc.AttachResource(ctx, "big", "big://image.png")
	if !errors.Is(err, ErrAttachmentTooLarge) || !strings.Contains(err.Error(), "image.png") || !strings.Contains(err.Error(), FormatBytes(MaxImageBytes)) {
		t.Errorf("an image past the limit: %v", err)
	}
	_, err = svc.AttachResource(ctx, "big", "big://huge.log")
	if !errors.Is(err, mcpconn.ErrResourceTooLarge) || !strings.Contains(err.Error(), "Switchboard reads resources of up to 8.0 MB") {
		t.Errorf("a resource past the manager's limit: %v", err)
	}
	// Long text is cut, and says so.
	atts, err := svc.AttachResource(ctx, "big", "big://long.txt")
	if err != nil || len(atts) != 1 || !atts[0].Truncated || atts[0].Size > MaxTextBytes {
		t.Errorf("long text attached as %+v, %v", atts, err)
	}
	pv, err := svc.PreviewResource(ctx, "big", "big://image.png")
	if err != nil || pv.Parts[0].Kind != PreviewBinary || !strings.Contains(pv.Parts[0].Note, "larger than") {
		t.Errorf("preview of an image past the limit: %+v, %v", pv, err)
	}
}

func TestResourceName(t *testing.T) {
	for uri, want := range map[string]string{
		"demo://resource/static/document/features.md": "features.md",
		"demo://resource/dynamic/text/2":              "text-2",
		"file:///home/me/notes%20today.txt":           "notes today.txt",
		"file:///readme":                              "readme",
		"db://orders":                                 "orders",
		"urn:isbn:0451450523":                         "isbn:0451450523",
	} {
		if got := resourceName(uri); got != want {
			t.Errorf("resourceName(%q) = %q, want %q", uri, got, want)
		}
	}
}

// A preview shows an image as a data URL, text clipped, and says what a
// binary part is.
func TestPreviewPart(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	p := previewPart(mcpconn.ResourceContent{URI: "x://img", MIMEType: "image/png", Blob: png, Binary: true})
	if p.Kind != PreviewImage || !strings.HasPrefix(p.DataURL, "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("image: %+v", p)
	}
	long := strings.Repeat("é", PreviewTextBytes)
	p = previewPart(mcpconn.ResourceContent{URI: "x://t", Text: long})
	if p.Kind != PreviewText || !p.Truncated || len(p.Text) > PreviewTextBytes || p.Size != int64(len(long)) {
		t.Errorf("long text: kind %s, truncated %v, %d bytes of %d", p.Kind, p.Truncated, len(p.Text), p.Size)
	}
	p = previewPart(mcpconn.ResourceContent{URI: "x://z", MIMEType: "application/gzip", Blob: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}, Binary: true})
	if p.Kind != PreviewBinary || !strings.Contains(p.Note, "binary data (application/gzip)") {
		t.Errorf("binary: %+v", p)
	}
}

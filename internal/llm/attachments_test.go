package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// The bytes of a 1x1 PNG.
var tinyPNG = []byte("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82")

// wireMessages returns the "messages" of a recorded request body, as raw
// JSON, one per message.
func wireMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return req.Messages
}

// compact is JSON without insignificant space.
func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImagePartsOnTheWire: a user message with an image is sent as
// OpenAI's array content, the text part first (with the text attachment
// inlined as a block naming the file), then the image as a base64 data:
// URL; a message without images keeps a string content.
func TestImagePartsOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newTestClient(t, srv)
	req := Request{Model: "fake-model", Messages: []Message{
		{Role: RoleSystem, Content: "Be brief."},
		{Role: RoleUser, Content: "earlier", Attachments: []Attachment{
			{Name: "notes.md", MIME: "text/markdown", Data: []byte("# Notes\nline two"), Truncated: true},
		}},
		{Role: RoleAssistant, Content: "ok"},
		{Role: RoleUser, Content: "What is in the picture?", Attachments: []Attachment{
			{Name: "dot.png", MIME: "image/png", Data: tinyPNG, Image: true},
			{Name: `a "quoted"` + "\nname.txt", MIME: "text/plain", Data: []byte("plain text\n")},
		}},
	}}
	reply, err := c.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "You said: " + "<attachment name=\"a 'quoted' name.txt\" type=\"text/plain\">\nplain text\n</attachment>\n\nWhat is in the picture? [image image/png, 70 bytes]"; reply.Content != want {
		t.Errorf("echo:\n%q\nwant\n%q", reply.Content, want)
	}
	msgs := wireMessages(t, srv.Requests()[0].Body)
	if len(msgs) != 4 {
		t.Fatalf("%d messages on the wire, want 4", len(msgs))
	}
	wantEarlier := `{"role":"user","content":"<attachment name=\"notes.md\" type=\"text/markdown\">\n# Notes\nline two\n[truncated at 1 KiB]\n</attachment>\n\nearlier"}`
	if diff := cmp.Diff(compact(t, wantEarlier), compact(t, string(msgs[1]))); diff != "" {
		t.Errorf("text-only message (-want +got):\n%s", diff)
	}
	wantLast := `{"role":"user","content":[
		{"type":"text","text":"<attachment name=\"a 'quoted' name.txt\" type=\"text/plain\">\nplain text\n</attachment>\n\nWhat is in the picture?"},
		{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="}}
	]}`
	if diff := cmp.Diff(compact(t, wantLast), compact(t, string(msgs[3]))); diff != "" {
		t.Errorf("message with an image (-want +got):\n%s", diff)
	}
	// The fake decoded it too: the image part is there.
	got := srv.ChatRequests()[0].Messages[3]
	if imgs := got.Images(); len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/png;base64,") {
		t.Errorf("fake's image parts: %v", imgs)
	}
}

// TestImageOnlyMessage: an image without text sends only the image part.
func TestImageOnlyMessage(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newTestClient(t, srv)
	_, err := c.Stream(context.Background(), Request{Model: "fake-model", Messages: []Message{
		{Role: RoleUser, Attachments: []Attachment{{Name: "dot.png", MIME: "image/png", Data: tinyPNG, Image: true}}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := wireMessages(t, srv.Requests()[0].Body)
	var m struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(msgs[0], &m); err != nil || len(m.Content) != 1 || m.Content[0]["type"] != "image_url" {
		t.Errorf("content %s, want one image_url part (%v)", msgs[0], err)
	}
}

// TestMissingAttachmentIsNamed: an attachment whose bytes are gone is
// named to the model instead of sent.
func TestMissingAttachmentIsNamed(t *testing.T) {
	got := attachmentText(Message{Role: RoleUser, Content: "hi", Attachments: []Attachment{{Name: "gone.png", Image: true, Missing: true}}})
	if want := "[attachment \"gone.png\" is no longer available]\n\nhi"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if hasImages(Request{Messages: []Message{{Attachments: []Attachment{{Image: true, Missing: true}}}}}) {
		t.Error("a missing image counts as an image")
	}
}

// TestModelWithoutVision: a provider that refuses an image (each in its
// own words) gives an error that says the model may not take images and
// what to do; the same refusal of a request without images does not.
func TestModelWithoutVision(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"openai", llmtest.Reply{Status: 400, Error: &llmtest.APIError{
			Message: "Invalid content type. image_url is only supported by certain models.", Type: "invalid_request_error", Param: strp("messages.[0].content.[1].type")}}},
		{"groq", llmtest.Reply{Status: 400, Error: &llmtest.APIError{
			Message: "'messages.0' : for 'role:user' the following must be satisfied[('messages.0.content' : value must be a string)]", Type: "invalid_request_error"}}},
		{"lm studio", llmtest.Reply{Status: 400, RawBody: `{"error":"Model does not support images. Please use a model that does."}`}},
		{"server error about vision", llmtest.Reply{Status: 500, Error: &llmtest.APIError{Message: "this model is not multimodal", Type: "server_error"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{tt.reply, tt.reply}})
			c := newTestClient(t, srv)
			img := Request{Model: "fake-model", Messages: []Message{{Role: RoleUser, Content: "look",
				Attachments: []Attachment{{Name: "dot.png", MIME: "image/png", Data: tinyPNG, Image: true}}}}}
			_, err := c.Stream(context.Background(), img, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), "take images") || !strings.Contains(err.Error(), "remove the image") {
				t.Errorf("error does not say what to do about the image: %v", err)
			}
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrServer) {
				t.Errorf("error lost its kind: %v", err)
			}
			_, err = c.Stream(context.Background(), userRequest("look"), nil)
			if err == nil || strings.Contains(err.Error(), "image") && !strings.Contains(strings.ToLower(tt.reply.RawBody+errMessage(tt.reply)), "image") {
				t.Errorf("without images: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "take images") {
				t.Errorf("advice about images for a request without any: %v", err)
			}
		})
	}
}

func errMessage(r llmtest.Reply) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Message
}

func strp(s string) *string { return &s }

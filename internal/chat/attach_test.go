package chat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// put stores data as core.Services.Attach would and returns its attachment.
func (h *harness) put(name, mime, kind string, data []byte) store.Attachment {
	h.t.Helper()
	id, err := h.st.PutBlob(context.Background(), data, mime)
	if err != nil {
		h.t.Fatal(err)
	}
	return store.Attachment{ID: id, Name: name, MIME: mime, Size: int64(len(data)), Kind: kind}
}

// TestSendWithAttachments: the message is stored with its attachments,
// the model gets the image as an image part and the text inlined, on this
// round and on every later one (the history is rebuilt from the store).
func TestSendWithAttachments(t *testing.T) {
	h := newHarness(t, nil, nil) // echoes, describing image parts
	png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	img := h.put("cat.png", "image/png", store.AttachmentImage, png)
	txt := h.put("notes.md", "text/markdown", store.AttachmentText, []byte("- milk\n- eggs"))
	txt.Truncated = true
	if _, err := h.e.Send(context.Background(), h.conv.ID, "what is this?", img, txt); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(); res.Status != store.StatusDone {
		t.Fatalf("run %+v", res)
	}
	msgs := h.messages()
	if diff := cmp.Diff([]store.Attachment{img, txt}, msgs[0].Attachments); diff != "" {
		t.Errorf("stored attachments (-want +got):\n%s", diff)
	}
	if got := h.rec.all(EventMessage)[0].Payload.(store.Message); len(got.Attachments) != 2 {
		t.Errorf("the chat:message event carries %d attachments", len(got.Attachments))
	}
	reqs := h.srv.ChatRequests()
	user := reqs[0].Messages[len(reqs[0].Messages)-1]
	wantImg := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if diff := cmp.Diff([]string{wantImg}, user.Images()); diff != "" {
		t.Errorf("image parts (-want +got):\n%s", diff)
	}
	wantText := "<attachment name=\"notes.md\" type=\"text/markdown\">\n- milk\n- eggs\n[truncated at 1 KiB]\n</attachment>\n\nwhat is this?"
	if user.Content != wantText {
		t.Errorf("text part:\n%q\nwant\n%q", user.Content, wantText)
	}
	if got := msgs[1].Content; !strings.HasSuffix(got, "[image image/png, 24 bytes]") {
		t.Errorf("reply %q: the provider did not see the image", got)
	}

	// The next turn sends the earlier image again, from the store.
	h.send("and now?")
	reqs = h.srv.ChatRequests()
	first := reqs[1].Messages[0]
	if first.Role != "user" || len(first.Images()) != 1 || first.Images()[0] != wantImg {
		t.Errorf("second request's first message: %+v", first)
	}
}

// TestSendAttachmentOnly: a message of attachments only is sent, and
// names the conversation after the first one.
func TestSendAttachmentOnly(t *testing.T) {
	h := newHarness(t, nil, nil)
	img := h.put("holiday photo.png", "image/png", store.AttachmentImage, []byte("\x89PNGx"))
	if _, err := h.e.Send(context.Background(), h.conv.ID, "", img); err != nil {
		t.Fatal(err)
	}
	h.wait()
	conv, _ := h.st.Conversation(context.Background(), h.conv.ID)
	if conv.Title != "holiday photo.png" {
		t.Errorf("title %q", conv.Title)
	}
	if _, err := h.e.Send(context.Background(), h.conv.ID, "  "); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("empty message without attachments: %v", err)
	}
}

// TestSendRefusesBadAttachments: too many, one not stored, or one whose
// kind does not fit its bytes fail before anything is stored, with an
// error that says what to do.
func TestSendRefusesBadAttachments(t *testing.T) {
	h := newHarness(t, nil, nil)
	img := h.put("a.png", "image/png", store.AttachmentImage, []byte("\x89PNGa"))
	many := make([]store.Attachment, MaxAttachments+1)
	for i := range many {
		many[i] = img
	}
	gone := store.Attachment{ID: store.BlobID([]byte("never stored")), Name: "gone.txt", Kind: store.AttachmentText}
	posing := img
	posing.Kind = store.AttachmentText
	unknown := img
	unknown.Kind = "video"
	tests := []struct {
		name string
		atts []store.Attachment
		want string
	}{
		{"too many", many, "at most 10"},
		{"not stored", []store.Attachment{gone}, "attach the file again"},
		{"image as text", []store.Attachment{posing}, "cannot hold image/png"},
		{"unknown kind", []store.Attachment{unknown}, `kind "video"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.e.Send(context.Background(), h.conv.ID, "hi", tt.atts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if n := len(h.messages()); n != 0 {
				t.Errorf("%d messages stored", n)
			}
		})
	}
	// The store's size and type win over what the UI sent.
	lying := img
	lying.Size, lying.MIME = 1, "image/gif"
	h.e.Send(context.Background(), h.conv.ID, "hi", lying)
	h.wait()
	if got := h.messages()[0].Attachments[0]; got.Size != 5 || got.MIME != "image/png" {
		t.Errorf("stored %+v", got)
	}
}

// TestEditAndResendAttachments: editing keeps the attachments; editing
// with a new list replaces them (removing an image a model refused).
func TestEditAndResendAttachments(t *testing.T) {
	h := newHarness(t, nil, nil)
	img := h.put("a.png", "image/png", store.AttachmentImage, []byte("\x89PNGa"))
	h.e.Send(context.Background(), h.conv.ID, "look", img)
	h.wait()
	if _, err := h.e.EditAndResend(context.Background(), h.conv.ID, 1, "look closer"); err != nil {
		t.Fatal(err)
	}
	h.wait()
	if m := h.messages()[0]; m.Content != "look closer" || len(m.Attachments) != 1 {
		t.Errorf("after an edit: %q %+v", m.Content, m.Attachments)
	}
	if _, err := h.e.EditAndResendWith(context.Background(), h.conv.ID, 1, "no picture", nil); err != nil {
		t.Fatal(err)
	}
	h.wait()
	if m := h.messages()[0]; m.Attachments != nil {
		t.Errorf("attachments after removing them: %+v", m.Attachments)
	}
	reqs := h.srv.ChatRequests()
	if imgs := reqs[len(reqs)-1].Messages[0].Images(); len(imgs) != 0 {
		t.Errorf("the last request still sends %d images", len(imgs))
	}
	if _, err := h.e.EditAndResendWith(context.Background(), h.conv.ID, 1, " ", nil); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("an edit to nothing: %v", err)
	}
}

// TestModelRefusesImage: a provider that does not take images fails the
// reply with an error that says to pick a vision model or remove it.
func TestModelRefusesImage(t *testing.T) {
	h := newHarness(t, []llmtest.Reply{{Status: 400, Error: &llmtest.APIError{
		Message: "Invalid content type. image_url is only supported by certain models.", Type: "invalid_request_error"}}}, nil)
	img := h.put("a.png", "image/png", store.AttachmentImage, []byte("\x89PNGa"))
	h.e.Send(context.Background(), h.conv.ID, "look", img)
	res := h.wait()
	if res.Status != store.StatusError || !strings.Contains(res.Error, "does not take images") || !strings.Contains(res.Error, "remove the image") {
		t.Errorf("result %+v", res)
	}
}

// TestExportKeepsAttachments: the JSON export carries each attachment's
// bytes (base64) once; the Markdown names them.
func TestExportKeepsAttachments(t *testing.T) {
	h := newHarness(t, nil, nil)
	png := []byte("\x89PNG\r\n\x1a\nimage")
	img := h.put("cat.png", "image/png", store.AttachmentImage, png)
	txt := h.put("big.log", "text/plain", store.AttachmentText, []byte(strings.Repeat("x", 3000)))
	txt.Truncated = true
	h.e.Send(context.Background(), h.conv.ID, "see", img, txt)
	h.wait()
	h.e.Send(context.Background(), h.conv.ID, "again", img)
	h.wait()

	raw, err := ExportJSON(context.Background(), h.st, h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Messages []store.Message `json:"messages"`
		Blobs    []struct {
			ID   string `json:"id"`
			MIME string `json:"mime"`
			Data string `json:"data"`
		} `json:"blobs"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Attachment{img, txt}, x.Messages[0].Attachments); diff != "" {
		t.Errorf("exported attachments (-want +got):\n%s", diff)
	}
	if len(x.Blobs) != 2 || x.Blobs[0].ID != img.ID || x.Blobs[0].Data != base64.StdEncoding.EncodeToString(png) || x.Blobs[0].MIME != "image/png" {
		t.Errorf("blobs %+v", x.Blobs)
	}
	md, err := ExportMarkdown(context.Background(), h.st, h.conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- Attached: `cat.png` (image/png, 13 bytes)", "- Attached: `big.log` (text/plain, 2.9 KiB, truncated)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

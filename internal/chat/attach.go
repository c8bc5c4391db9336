package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// MaxAttachments is how many attachments one message may have.
const MaxAttachments = 10

// ErrAttachmentGone is the error of a message naming an attachment that
// is not stored (never, or pruned as unused).
var ErrAttachmentGone = errors.New("an attachment of this message is no longer stored; attach the file again")

// checkAttachments returns the message's attachments as stored: each must
// be stored (core.Services.Attach stored it), its size and type are taken
// from the store, and its kind must fit its type. At most MaxAttachments.
func (e *Engine) checkAttachments(ctx context.Context, list []store.Attachment) ([]store.Attachment, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if len(list) > MaxAttachments {
		return nil, fmt.Errorf("%d attachments; a message can have at most %d", len(list), MaxAttachments)
	}
	out := make([]store.Attachment, len(list))
	for i, a := range list {
		mime, size, err := e.opts.Store.BlobInfo(ctx, a.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("%s: %w", a.Name, ErrAttachmentGone)
		}
		if err != nil {
			return nil, err
		}
		image := strings.HasPrefix(mime, "image/")
		switch {
		case a.Kind == store.AttachmentImage && !image, a.Kind == store.AttachmentText && image,
			a.Kind != store.AttachmentImage && a.Kind != store.AttachmentText:
			return nil, fmt.Errorf("%s: an attachment of kind %q cannot hold %s; attach the file again", a.Name, a.Kind, mime)
		}
		a.MIME, a.Size = mime, size
		a.Name = clipName(a.Name)
		out[i] = a
	}
	return out, nil
}

// clipName bounds a name the UI sent: at most 200 bytes, "attachment" if
// empty.
func clipName(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if s == "" {
		return "attachment"
	}
	return s
}

// attachmentTitle is a title for a conversation whose first message has
// attachments and no text: the first attachment's name.
func attachmentTitle(list []store.Attachment) string {
	if len(list) == 0 {
		return ""
	}
	return Title(list[0].Name)
}

// blobs reads the attachments of the stored messages, each once, for the
// model: by blob ID; a blob that cannot be read is left out (and is named
// to the model as missing).
func (e *Engine) blobs(ctx context.Context, stored []store.Message) map[string][]byte {
	var out map[string][]byte
	for _, m := range stored {
		for _, a := range m.Attachments {
			if _, ok := out[a.ID]; ok {
				continue
			}
			data, _, err := e.opts.Store.Blob(ctx, a.ID)
			if err != nil {
				e.log.Warn("reading an attachment", "conversationId", m.ConversationID, "attachment", a.ID, "err", err)
				continue
			}
			if out == nil {
				out = map[string][]byte{}
			}
			out[a.ID] = data
		}
	}
	return out
}

// llmAttachments are a message's attachments as llm sends them.
func llmAttachments(list []store.Attachment, blobs map[string][]byte) []llm.Attachment {
	if len(list) == 0 {
		return nil
	}
	out := make([]llm.Attachment, len(list))
	for i, a := range list {
		data, ok := blobs[a.ID]
		out[i] = llm.Attachment{Name: a.Name, MIME: a.MIME, Data: data, Image: a.Kind == store.AttachmentImage,
			Truncated: a.Truncated, Missing: !ok}
	}
	return out
}

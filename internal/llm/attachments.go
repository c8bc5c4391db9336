package llm

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// An Attachment is a file or image sent with a user message. Text is
// inlined into the message's text, as a block that names the file; an
// image becomes an image part ({"type":"image_url"} with a data: URL),
// which only vision models take.
type Attachment struct {
	Name string `json:"name"`
	MIME string `json:"mime"`
	Data []byte `json:"-"`
	// Image sends Data as an image part; otherwise Data is UTF-8 text.
	Image bool `json:"image,omitempty"`
	// Truncated says the text was cut to Data's length; the model is told.
	Truncated bool `json:"truncated,omitempty"`
	// Missing says the bytes are gone (Data is empty); the model is told
	// so instead of getting the file.
	Missing bool `json:"missing,omitempty"`
}

// userMessage renders a user message with attachments: text attachments
// become blocks before the message's text, and images, if any, make the
// content an array of parts (text first). Without images the content
// stays a string, which every provider takes.
func userMessage(m Message) openai.ChatCompletionMessage {
	text := attachmentText(m)
	var images []openai.ChatMessagePart
	for _, a := range m.Attachments {
		if a.Image && !a.Missing {
			images = append(images, openai.ChatMessagePart{
				Type:     openai.ChatMessagePartTypeImageURL,
				ImageURL: &openai.ChatMessageImageURL{URL: DataURL(a.MIME, a.Data)},
			})
		}
	}
	msg := openai.ChatCompletionMessage{Role: string(RoleUser)}
	if len(images) == 0 {
		msg.Content = text
		return msg
	}
	if text != "" {
		msg.MultiContent = append(msg.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: text})
	}
	msg.MultiContent = append(msg.MultiContent, images...)
	return msg
}

// attachmentText is the message's text with its text attachments (and
// notes of missing ones) as blocks before it:
//
//	<attachment name="notes.md" type="text/markdown">
//	…
//	</attachment>
func attachmentText(m Message) string {
	var b strings.Builder
	for _, a := range m.Attachments {
		switch {
		case a.Missing:
			fmt.Fprintf(&b, "[attachment %s is no longer available]\n\n", quoteAttr(a.Name))
		case a.Image:
			continue
		default:
			fmt.Fprintf(&b, "<attachment name=%s type=%s>\n", quoteAttr(a.Name), quoteAttr(a.MIME))
			b.Write(a.Data)
			if len(a.Data) > 0 && a.Data[len(a.Data)-1] != '\n' {
				b.WriteByte('\n')
			}
			if a.Truncated {
				fmt.Fprintf(&b, "[truncated at %d KiB]\n", (len(a.Data)+1023)/1024)
			}
			b.WriteString("</attachment>\n\n")
		}
	}
	if b.Len() == 0 {
		return m.Content
	}
	return b.String() + m.Content
}

// quoteAttr quotes s as an attribute value: no quotes, no line breaks.
func quoteAttr(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '"':
			return '\''
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s)
	return `"` + s + `"`
}

// DataURL is data as a base64 data: URL of type mime.
func DataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// hasImages reports whether a request sends an image part.
func hasImages(r Request) bool {
	for _, m := range r.Messages {
		for _, a := range m.Attachments {
			if a.Image && !a.Missing {
				return true
			}
		}
	}
	return false
}

// imageAdvice is what to do when a model refuses images.
const imageAdvice = "pick a model that takes images (a vision model) in the model picker, or edit your message to remove the image"

// withImageAdvice adds imageAdvice to the error of a request that sent
// images, when the provider refused it or said something about images: a
// model without vision answers so, in each provider's own words.
func withImageAdvice(err error) error {
	if err == nil {
		return nil
	}
	var rej *rejectedError
	if errors.As(err, &rej) {
		rej.images = true
		return err
	}
	if errors.Is(err, ErrBadRequest) || errors.Is(err, ErrServer) {
		if mentionsImages(err.Error()) {
			return &imageError{err}
		}
	}
	return err
}

// An imageError is a provider's error about the images of a request, with
// what to do.
type imageError struct{ err error }

func (e *imageError) Error() string {
	return fmt.Sprintf("%v. This model may not take images: %s.", strings.TrimRight(e.err.Error(), ". "), imageAdvice)
}

func (e *imageError) Unwrap() error { return e.err }

// mentionsImages reports whether a provider's words are about images or
// the content parts they come in.
func mentionsImages(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"image", "vision", "multimodal", "multi-modal", "content must be a string", "expected string", "content part", "content type"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

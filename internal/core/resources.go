package core

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Limits of what a resource preview holds, for the window to show.
const (
	// PreviewTextBytes is how much of a text part a preview shows.
	PreviewTextBytes = 256 << 10
	// PreviewImageBytes is the largest image a preview shows.
	PreviewImageBytes = MaxImageBytes
	// MaxResourceParts is how many parts of one resource are attached.
	MaxResourceParts = 8
)

// Kinds of a preview part.
const (
	PreviewText   = "text"
	PreviewImage  = "image"
	PreviewBinary = "binary"
)

// A ResourcePreview is a resource as the window shows it before it is
// attached: each part's text (clipped), image (a data URL) or a note on
// binary data.
type ResourcePreview struct {
	ServerID string        `json:"serverId"`
	URI      string        `json:"uri"`
	Parts    []PreviewPart `json:"parts"`
}

// A PreviewPart is one part of a ResourcePreview.
type PreviewPart struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	// Kind is PreviewText, PreviewImage or PreviewBinary.
	Kind string `json:"kind"`
	// Text of a text part, at most PreviewTextBytes.
	Text string `json:"text,omitempty"`
	// Truncated is set when Text is the start of a longer text.
	Truncated bool `json:"truncated,omitempty"`
	// DataURL of an image part.
	DataURL string `json:"dataUrl,omitempty"`
	// Size is the part's size in bytes.
	Size int64 `json:"size"`
	// Note says why a part is not shown (binary, an image too large).
	Note string `json:"note,omitempty"`
}

// PreviewResource reads a server's resource for the window to show.
func (s *Services) PreviewResource(ctx context.Context, serverID, uri string) (ResourcePreview, error) {
	res, err := s.Manager.ReadResource(ctx, serverID, uri)
	if err != nil {
		return ResourcePreview{}, err
	}
	out := ResourcePreview{ServerID: serverID, URI: uri, Parts: make([]PreviewPart, 0, len(res.Contents))}
	for _, c := range res.Contents {
		out.Parts = append(out.Parts, previewPart(c))
	}
	return out, nil
}

// previewPart is one part of a resource as the window shows it.
func previewPart(c mcpconn.ResourceContent) PreviewPart {
	p := PreviewPart{URI: c.URI, MIMEType: c.MIMEType, Size: int64(c.Size())}
	data := c.Blob
	if !c.Binary {
		data = []byte(c.Text)
	}
	sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
	switch {
	case c.Binary && imageTypes[sniffed]:
		if len(data) > PreviewImageBytes {
			p.Kind, p.Note = PreviewBinary, fmt.Sprintf("an image of %s, larger than the %s shown", FormatBytes(p.Size), FormatBytes(PreviewImageBytes))
			return p
		}
		p.Kind, p.MIMEType = PreviewImage, sniffed
		p.DataURL = "data:" + sniffed + ";base64," + base64.StdEncoding.EncodeToString(data)
	default:
		text, ok := c.Text, !c.Binary
		if c.Binary {
			text, ok = decodeText(data)
		}
		if !ok {
			p.Kind, p.Note = PreviewBinary, fmt.Sprintf("%s of binary data (%s)", FormatBytes(p.Size), cmpOr(c.MIMEType, sniffed))
			return p
		}
		p.Kind = PreviewText
		cut, truncated := cutText(text, PreviewTextBytes)
		p.Text, p.Truncated = string(cut), truncated
	}
	return p
}

// AttachResource reads a server's resource and attaches it to the next
// message (Attach): each of its parts, at most MaxResourceParts. Text is
// inlined for the model (cut past MaxTextBytes, and the model is told),
// images go as image parts; a part that cannot be attached fails it all,
// with what to do.
func (s *Services) AttachResource(ctx context.Context, serverID, uri string) ([]store.Attachment, error) {
	res, err := s.Manager.ReadResource(ctx, serverID, uri)
	if err != nil {
		return nil, err
	}
	if len(res.Contents) == 0 {
		return nil, fmt.Errorf("%s is empty: the server sent nothing for it", uri)
	}
	if len(res.Contents) > MaxResourceParts {
		return nil, fmt.Errorf("%s has %d parts; at most %d of one resource can be attached", uri, len(res.Contents), MaxResourceParts)
	}
	out := make([]store.Attachment, 0, len(res.Contents))
	for _, c := range res.Contents {
		data := c.Blob
		if !c.Binary {
			data = []byte(c.Text)
		}
		partURI := c.URI
		if partURI == "" {
			partURI = uri
		}
		a, err := s.Attach(ctx, AttachInput{Name: resourceName(partURI), MIME: c.MIMEType, Data: data, ServerID: serverID, URI: partURI})
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// AttachContent attaches a block a server sent (an embedded resource or
// an image, in a tool result or a prompt) as AttachResource attaches a
// resource's part.
func (s *Services) AttachContent(ctx context.Context, serverID string, c mcpconn.Content) (store.Attachment, error) {
	var data []byte
	name := resourceName(c.URI)
	switch c.Type {
	case mcpconn.ContentResource:
		data = c.Blob
		if data == nil {
			data = []byte(c.Text)
		}
	case mcpconn.ContentImage:
		data = c.Data
		if c.URI == "" {
			name = "image"
		}
	default:
		return store.Attachment{}, fmt.Errorf("%w: a %s block cannot be attached; attach an embedded resource or an image", ErrAttachmentType, c.Type)
	}
	if len(data) > mcpconn.MaxResourceBytes {
		return store.Attachment{}, fmt.Errorf("%w: %s is %s; resources can be at most %s", ErrAttachmentTooLarge, name,
			FormatBytes(int64(len(data))), FormatBytes(mcpconn.MaxResourceBytes))
	}
	return s.Attach(ctx, AttachInput{Name: name, MIME: c.MIMEType, Data: data, ServerID: serverID, URI: c.URI})
}

// resourceName is the name an attached resource shows: the last segment
// of its URI's path (demo://docs/features.md: features.md), with the one
// before when it has no extension (demo://items/text/2: text-2), else its
// host, else the URI.
func resourceName(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return clipName(uri)
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		p = u.Opaque
	}
	if base := path.Base(p); base != "." && base != "/" && base != "" {
		if parent := path.Base(path.Dir(p)); path.Ext(base) == "" && parent != "." && parent != "/" && parent != "" {
			base = parent + "-" + base
		}
		return clipName(base)
	}
	if u.Host != "" {
		return clipName(u.Host)
	}
	return clipName(uri)
}

// clipName keeps the first 200 bytes of a name.
func clipName(s string) string {
	if len(s) <= 200 {
		return s
	}
	cut := 200
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// PreviewContent shapes a block a server sent (an embedded resource, an
// image) as PreviewResource shapes a resource's part.
func PreviewContent(serverID string, c mcpconn.Content) ResourcePreview {
	part := mcpconn.ResourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
	switch {
	case c.Type == mcpconn.ContentImage:
		part.Blob, part.Binary = c.Data, true
	case c.Blob != nil:
		part.Blob, part.Binary = c.Blob, true
	}
	return ResourcePreview{ServerID: serverID, URI: c.URI, Parts: []PreviewPart{previewPart(part)}}
}

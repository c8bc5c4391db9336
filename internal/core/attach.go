package core

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Limits of attachments. Images go to the provider as they are, and
// providers refuse larger ones (OpenAI takes up to 20 MB a request, Groq
// 4 MB per base64 image); text is inlined into the message, so a large
// file is cut, and the model is told.
const (
	// MaxAttachmentBytes is the most bytes of any file read to attach it;
	// a larger file is refused without being read.
	MaxAttachmentBytes = 32 << 20
	// MaxImageBytes is the largest image accepted.
	MaxImageBytes = 5 << 20
	// MaxTextBytes is how much text an attachment keeps; past it the
	// text is cut (Attachment.Truncated).
	MaxTextBytes = 200 << 10
)

// Errors of Attach, wrapped with what to do.
var (
	// ErrAttachmentTooLarge is a file or image over its limit.
	ErrAttachmentTooLarge = errors.New("too large to attach")
	// ErrAttachmentType is a file of a kind that cannot be attached.
	ErrAttachmentType = errors.New("this kind of file cannot be attached")
)

// accepted says what can be attached, for the errors.
const accepted = "attach images (PNG, JPEG, GIF, WebP), text files (code, Markdown, CSV, JSON, logs, …) or PDFs"

// imageTypes are the images providers take, by their sniffed type.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// An AttachInput is a file, image or resource to attach: its name and
// bytes, the MIME type its source gave (a hint; the bytes decide), and,
// for an MCP resource, the server and URI it came from.
type AttachInput struct {
	Name, MIME string
	Data       []byte
	ServerID   string
	URI        string
}

// Attach checks a file to attach to a message and stores it: images
// (PNG, JPEG, GIF, WebP, up to MaxImageBytes) as they are, text (UTF-8,
// UTF-16 with a BOM, or else Latin-1) as UTF-8 cut at MaxTextBytes, and
// PDFs as their extracted text. Anything else is refused with an error
// that says what is accepted. The type is found from the bytes, not the
// name. The returned Attachment goes with the message that is sent
// (chat.Engine.Send); a stored attachment no message names is pruned
// after a day.
func (s *Services) Attach(ctx context.Context, in AttachInput) (store.Attachment, error) {
	return attach(ctx, s.store, in)
}

func attach(ctx context.Context, st *store.Store, in AttachInput) (store.Attachment, error) {
	name := attachmentName(in.Name)
	a := store.Attachment{Name: name, ServerID: in.ServerID, URI: in.URI}
	data := in.Data
	if len(data) > MaxAttachmentBytes {
		return a, fmt.Errorf("%w: %s (%s) is over %s, the most a file can be", ErrAttachmentTooLarge, name, FormatBytes(int64(len(data))), FormatBytes(MaxAttachmentBytes))
	}
	if len(data) == 0 {
		return a, fmt.Errorf("%w: %s is empty", ErrAttachmentType, name)
	}
	sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
	switch {
	case imageTypes[sniffed]:
		if len(data) > MaxImageBytes {
			return a, fmt.Errorf("%w: the image %s (%s) is over %s, the most an image can be (providers refuse larger ones); shrink it and attach it again",
				ErrAttachmentTooLarge, name, FormatBytes(int64(len(data))), FormatBytes(MaxImageBytes))
		}
		a.Kind, a.MIME = store.AttachmentImage, sniffed
	case sniffed == "application/pdf":
		text, cut, err := pdfText(ctx, data)
		if err != nil {
			return a, fmt.Errorf("%s: %w", name, err)
		}
		a.Kind, a.MIME = store.AttachmentText, "text/plain"
		data, a.Truncated = cutText(text, MaxTextBytes)
		a.Truncated = a.Truncated || cut
	case strings.HasPrefix(sniffed, "image/"):
		return a, fmt.Errorf("%w: %s is a %s image; images can be PNG, JPEG, GIF or WebP — convert it and attach it again", ErrAttachmentType, name, strings.TrimPrefix(sniffed, "image/"))
	default:
		text, ok := "", false
		if strings.HasPrefix(sniffed, "text/") || sniffed == "application/octet-stream" {
			text, ok = decodeText(data)
		}
		if !ok {
			what := sniffed
			if what == "application/octet-stream" {
				what = "a binary file"
			}
			return a, fmt.Errorf("%w: %s is %s; %s", ErrAttachmentType, name, what, accepted)
		}
		a.Kind, a.MIME = store.AttachmentText, textMIME(name, in.MIME, sniffed)
		data, a.Truncated = cutText(text, MaxTextBytes)
	}
	if a.Kind == store.AttachmentText && len(bytes.TrimSpace(data)) == 0 {
		return a, fmt.Errorf("%w: %s has no text", ErrAttachmentType, name)
	}
	id, err := st.PutBlob(ctx, data, a.MIME)
	if err != nil {
		return a, err
	}
	a.ID, a.Size = id, int64(len(data))
	return a, nil
}

// ReadAttachment reads a file to attach, refusing one over
// MaxAttachmentBytes before reading it, and never reading more.
func ReadAttachment(path string) (AttachInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return AttachInput{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return AttachInput{}, err
	}
	if st.IsDir() {
		return AttachInput{}, fmt.Errorf("%w: %s is a folder; attach the files in it one by one", ErrAttachmentType, path)
	}
	if st.Size() > MaxAttachmentBytes {
		return AttachInput{}, fmt.Errorf("%w: %s (%s) is over %s, the most a file can be", ErrAttachmentTooLarge, path, FormatBytes(st.Size()), FormatBytes(MaxAttachmentBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxAttachmentBytes+1))
	if err != nil {
		return AttachInput{}, err
	}
	if len(data) > MaxAttachmentBytes { // it grew while being read
		return AttachInput{}, fmt.Errorf("%w: %s is over %s, the most a file can be", ErrAttachmentTooLarge, path, FormatBytes(MaxAttachmentBytes))
	}
	return AttachInput{Name: filepath.Base(path), Data: data}, nil
}

// FormatBytes is n as a person reads it: "512 bytes", "200 KiB", "5.2 MiB".
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	default:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// attachmentName is the file name part of name, without control
// characters, at most 200 bytes; "attachment" if nothing is left.
func attachmentName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name))
	if len(name) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	if name == "" || name == "." || name == ".." {
		return "attachment"
	}
	return name
}

// decodeText returns data as UTF-8 text: UTF-8 (a BOM dropped), UTF-16
// with a BOM, or, when it is not valid UTF-8, Latin-1. ok is false for
// binary data: a NUL byte, or control characters a text file does not
// have. Only the start that can make MaxTextBytes of text is decoded.
func decodeText(data []byte) (string, bool) {
	if limit := 4 * MaxTextBytes; len(data) > limit {
		data = data[:limit]
		// The cut may split a UTF-8 sequence: drop its start, so that
		// valid UTF-8 stays valid.
		for k := 1; k < 4 && !utf8.Valid(data); k++ {
			if utf8.Valid(data[:len(data)-k]) {
				data = data[:len(data)-k]
			}
		}
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		data = data[:len(data)&^1]
		be := data[0] == 0xFE
		u := make([]uint16, 0, len(data)/2-1)
		for i := 2; i+1 < len(data); i += 2 {
			if be {
				u = append(u, uint16(data[i])<<8|uint16(data[i+1]))
			} else {
				u = append(u, uint16(data[i+1])<<8|uint16(data[i]))
			}
		}
		s := string(utf16.Decode(u))
		return s, !binaryText(s)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var s string
	if utf8.Valid(data) {
		s = string(data)
	} else {
		r := make([]rune, len(data))
		for i, b := range data {
			r[i] = rune(b)
		}
		s = string(r)
	}
	return s, !binaryText(s)
}

// binaryText reports whether s has a NUL or, in its first 8 KiB, more
// than a few control characters other than tab, line feeds and form feed.
func binaryText(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return true
	}
	head := s[:min(len(s), 8<<10)]
	n := 0
	for _, r := range head {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != 0x1b {
			n++
		}
	}
	return n > 8
}

// cutText returns s as bytes, cut at a rune boundary to at most limit.
func cutText(s string, limit int) ([]byte, bool) {
	if len(s) <= limit {
		return []byte(s), false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return []byte(s[:cut]), true
}

// textTypes name text files by extension, for the model's block and the UI.
var textTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".json": "application/json", ".jsonl": "application/jsonl", ".yaml": "application/yaml", ".yml": "application/yaml",
	".toml": "application/toml", ".xml": "application/xml", ".html": "text/html", ".htm": "text/html", ".css": "text/css",
	".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript", ".go": "text/x-go", ".py": "text/x-python",
	".rs": "text/x-rust", ".java": "text/x-java", ".c": "text/x-c", ".h": "text/x-c", ".cpp": "text/x-c++", ".sh": "text/x-shellscript",
	".sql": "application/sql", ".svg": "image/svg+xml", ".txt": "text/plain", ".log": "text/plain",
}

// textMIME is the type a text attachment is given: by its extension,
// else the type its source declared when that is text, else the sniffed
// one.
func textMIME(name, declared, sniffed string) string {
	if t, ok := textTypes[strings.ToLower(filepath.Ext(name))]; ok {
		if t == "image/svg+xml" {
			return "text/xml" // sent as text, not as an image
		}
		return t
	}
	declared, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(declared)), ";")
	if strings.HasPrefix(declared, "text/") || strings.HasSuffix(declared, "json") || strings.HasSuffix(declared, "xml") || strings.HasSuffix(declared, "yaml") {
		return declared
	}
	if strings.HasPrefix(sniffed, "text/") {
		return sniffed
	}
	return "text/plain"
}

// attachmentGrace is how long an attachment no message names is kept: it
// may be in a message being written.
const attachmentGrace = 24 * time.Hour

// pruneAttachments deletes the attachments no message names, older than
// attachmentGrace (attached and never sent, or their messages deleted).
func (s *Services) pruneAttachments(ctx context.Context, log *slog.Logger) {
	n, err := s.store.PruneBlobs(ctx, attachmentGrace)
	if err != nil {
		log.Warn("pruning attachments", "err", err)
	} else if n > 0 {
		log.Info("pruned attachments no message uses", "count", n)
	}
}

// AttachBase64 is Attach for a file the window read: its bytes come as
// base64 (what the window's bridge carries well). Data over
// MaxAttachmentBytes is refused before it is decoded.
func (s *Services) AttachBase64(ctx context.Context, name, mime, data string) (store.Attachment, error) {
	if n := base64.StdEncoding.DecodedLen(len(data)); n > MaxAttachmentBytes+3 {
		return store.Attachment{Name: attachmentName(name)}, fmt.Errorf("%w: %s (%s) is over %s, the most a file can be",
			ErrAttachmentTooLarge, attachmentName(name), FormatBytes(int64(n)), FormatBytes(MaxAttachmentBytes))
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return store.Attachment{}, fmt.Errorf("reading %s: %w", attachmentName(name), err)
	}
	return s.Attach(ctx, AttachInput{Name: name, MIME: mime, Data: raw})
}

// AttachmentDataURL returns a stored attachment as a data: URL, for the
// window to show (an image's thumbnail, a text's preview). Only what
// Attach stores is served: images up to MaxImageBytes, text up to
// MaxTextBytes.
func (s *Services) AttachmentDataURL(ctx context.Context, id string) (string, error) {
	mime, size, err := s.store.BlobInfo(ctx, id)
	if err != nil {
		return "", err
	}
	limit := int64(MaxTextBytes)
	if strings.HasPrefix(mime, "image/") {
		limit = MaxImageBytes
	}
	if size > limit {
		return "", fmt.Errorf("%w: attachment %s is %s, more than %s", ErrAttachmentTooLarge, id, FormatBytes(size), FormatBytes(limit))
	}
	data, mime, err := s.store.Blob(ctx, id)
	if err != nil {
		return "", err
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

package core

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/secrets"
	"github.com/switchboard-app/switchboard/internal/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// The start of a PNG, a JPEG, a GIF, a WebP and a BMP: what the sniffer reads.
var (
	pngHead  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegHead = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	gifHead  = []byte("GIF89a\x01\x00\x01\x00")
	webpHead = []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")
	bmpHead  = []byte("BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00")
)

func TestAttachAcceptsImagesAndText(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	utf16le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune("Grüße ✓")) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	tests := []struct {
		name     string
		in       AttachInput
		kind     string
		mime     string
		stored   string // the stored bytes, when not the input's
		wantName string
	}{
		{"png", AttachInput{Name: "cat.png", Data: pngHead}, store.AttachmentImage, "image/png", "", "cat.png"},
		{"jpeg named wrong", AttachInput{Name: "photo.png", MIME: "image/png", Data: jpegHead}, store.AttachmentImage, "image/jpeg", "", "photo.png"},
		{"gif", AttachInput{Name: "a.gif", Data: gifHead}, store.AttachmentImage, "image/gif", "", "a.gif"},
		{"webp", AttachInput{Name: "a.webp", Data: webpHead}, store.AttachmentImage, "image/webp", "", "a.webp"},
		{"markdown", AttachInput{Name: "notes.md", Data: []byte("# Title\n\ntext")}, store.AttachmentText, "text/markdown", "", "notes.md"},
		{"go code", AttachInput{Name: "main.go", Data: []byte("package main\n")}, store.AttachmentText, "text/x-go", "", "main.go"},
		{"csv", AttachInput{Name: "t.csv", Data: []byte("a,b\n1,2\n")}, store.AttachmentText, "text/csv", "", "t.csv"},
		{"json", AttachInput{Name: "x.json", Data: []byte(`{"a": 1}`)}, store.AttachmentText, "application/json", "", "x.json"},
		{"declared type", AttachInput{Name: "Makefile", MIME: "text/x-makefile", Data: []byte("all:\n\ttrue\n")}, store.AttachmentText, "text/x-makefile", "", "Makefile"},
		{"utf-8 bom dropped", AttachInput{Name: "b.txt", Data: []byte("\xEF\xBB\xBFhello")}, store.AttachmentText, "text/plain", "hello", "b.txt"},
		{"utf-16", AttachInput{Name: "w.txt", Data: utf16le}, store.AttachmentText, "text/plain", "Grüße ✓", "w.txt"},
		{"latin-1", AttachInput{Name: "l.txt", Data: []byte("caf\xe9")}, store.AttachmentText, "text/plain", "café", "l.txt"},
		{"path and control characters", AttachInput{Name: "../../etc/pa\x00ss\nwd", Data: []byte("x")}, store.AttachmentText, "text/plain", "", "passwd"},
		{"no name", AttachInput{Data: []byte("x")}, store.AttachmentText, "text/plain", "", "attachment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := attach(ctx, st, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.stored
			if want == "" {
				want = string(tt.in.Data)
			}
			if a.Kind != tt.kind || a.MIME != tt.mime || a.Name != tt.wantName || a.Size != int64(len(want)) || a.Truncated {
				t.Errorf("got %+v; want kind %s, mime %s, name %q, size %d", a, tt.kind, tt.mime, tt.wantName, len(want))
			}
			data, mime, err := st.Blob(ctx, a.ID)
			if err != nil || string(data) != want || mime != a.MIME || a.ID != store.BlobID([]byte(want)) {
				t.Errorf("stored %q as %q (%v), want %q", data, mime, err, want)
			}
		})
	}
}

func TestAttachRefuses(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	big := append(append([]byte(nil), pngHead...), make([]byte, MaxImageBytes)...)
	tests := []struct {
		name  string
		in    AttachInput
		is    error
		words string
	}{
		{"image over the limit", AttachInput{Name: "huge.png", Data: big}, ErrAttachmentTooLarge, "is over 5 MiB, the most an image can be"},
		{"file over the cap", AttachInput{Name: "huge.txt", Data: make([]byte, MaxAttachmentBytes+1)}, ErrAttachmentTooLarge, "is over 32 MiB, the most a file can be"},
		{"bmp", AttachInput{Name: "a.bmp", Data: bmpHead}, ErrAttachmentType, "PNG, JPEG, GIF or WebP"},
		{"binary", AttachInput{Name: "a.out", Data: []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00")}, ErrAttachmentType, "text files (code, Markdown"},
		{"zip", AttachInput{Name: "a.zip", Data: []byte("PK\x03\x04\x14\x00\x00\x00")}, ErrAttachmentType, "application/zip"},
		{"empty", AttachInput{Name: "e.txt"}, ErrAttachmentType, "e.txt is empty"},
		{"blank", AttachInput{Name: "b.txt", Data: []byte(" \n\t ")}, ErrAttachmentType, "b.txt has no text"},
		{"not a pdf after all", AttachInput{Name: "x.pdf", Data: []byte("%PDF-1.4\nbroken")}, ErrAttachmentType, "could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := attach(ctx, st, tt.in)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.words) {
				t.Fatalf("err %v; want %v saying %q", err, tt.is, tt.words)
			}
		})
	}
	var n int
	st.DB().QueryRow(`SELECT count(*) FROM blobs`).Scan(&n)
	if n != 0 {
		t.Errorf("%d blobs stored by refused attachments", n)
	}
}

func TestAttachCutsLongText(t *testing.T) {
	st := openStore(t)
	// A multi-byte character across the limit is not split.
	text := strings.Repeat("a", MaxTextBytes-1) + "é and more"
	a, err := attach(context.Background(), st, AttachInput{Name: "long.log", Data: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Truncated || a.Size != MaxTextBytes-1 {
		t.Errorf("got %+v; want truncated to %d bytes", a, MaxTextBytes-1)
	}
}

// TestAttachDecodesOnlyTheStart: a large text is decoded only as far as
// the limit needs, and a UTF-8 sequence cut there does not turn it into
// Latin-1.
func TestAttachDecodesOnlyTheStart(t *testing.T) {
	st := openStore(t)
	text := strings.Repeat("€", 400_000) // 1.2 MB; 4*MaxTextBytes is not a multiple of 3
	a, err := attach(context.Background(), st, AttachInput{Name: "euros.txt", Data: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := st.Blob(context.Background(), a.ID)
	if !a.Truncated || strings.Trim(string(data), "€") != "" || len(data) != MaxTextBytes-MaxTextBytes%3 {
		t.Errorf("got %+v, %d bytes, starting %q", a, len(data), data[:12])
	}
}

func TestReadAttachmentIsBounded(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "notes.md")
	os.WriteFile(small, []byte("hi"), 0o600)
	in, err := ReadAttachment(small)
	if err != nil || in.Name != "notes.md" || string(in.Data) != "hi" {
		t.Errorf("ReadAttachment = %+v, %v", in, err)
	}
	huge := filepath.Join(dir, "huge.bin")
	f, _ := os.Create(huge)
	f.Truncate(MaxAttachmentBytes + 1) // sparse: nothing to read anyway
	f.Close()
	if _, err := ReadAttachment(huge); !errors.Is(err, ErrAttachmentTooLarge) || !strings.Contains(err.Error(), "is over 32 MiB") {
		t.Errorf("a file over the cap: %v", err)
	}
	if _, err := ReadAttachment(dir); !errors.Is(err, ErrAttachmentType) {
		t.Errorf("a folder: %v", err)
	}
	if _, err := ReadAttachment(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// makePDF writes a PDF whose pages show the given lines (one page per
// element, lines 14 points apart), in Helvetica with glyph widths given
// when widths is set, its content streams deflated when deflate is set.
func makePDF(pages [][]string, widths, deflate bool) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding"
	if widths {
		var w []string
		for c := 32; c <= 126; c++ {
			w = append(w, "556")
		}
		font += " /FirstChar 32 /LastChar 126 /Widths [" + strings.Join(w, " ") + "]"
	}
	fontID := add(font + " >>")
	pagesID := 0
	var kids []string
	var pageIDs []int
	for _, lines := range pages {
		var c strings.Builder
		c.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, l := range lines {
			fmt.Fprintf(&c, "(%s) Tj T*\n", strings.NewReplacer(`(`, `\(`, `)`, `\)`).Replace(l))
		}
		c.WriteString("ET")
		content := c.String()
		if deflate {
			var b bytes.Buffer
			z := zlib.NewWriter(&b)
			z.Write([]byte(content))
			z.Close()
			content = b.String()
			pageIDs = append(pageIDs, add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(content), content)))
		} else {
			pageIDs = append(pageIDs, add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)))
		}
	}
	pagesID = len(objs) + len(pages) + 1
	for _, cid := range pageIDs {
		id := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesID, fontID, cid))
		kids = append(kids, fmt.Sprintf("%d 0 R", id))
	}
	add(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	catalog := add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesID))
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return out.Bytes()
}

func TestAttachPDFExtractsText(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	pages := [][]string{
		{"Quarterly report (draft)", "Revenue grew by 12 percent."},
		{"Second page: the outlook."},
	}
	for _, tt := range []struct {
		name            string
		widths, deflate bool
	}{{"widths, deflated", true, true}, {"no widths, plain", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := attach(ctx, st, AttachInput{Name: "report.pdf", MIME: "application/pdf", Data: makePDF(pages, tt.widths, tt.deflate)})
			if err != nil {
				t.Fatal(err)
			}
			data, _, _ := st.Blob(ctx, a.ID)
			want := "Quarterly report (draft)\nRevenue grew by 12 percent.\n\nSecond page: the outlook."
			if string(data) != want || a.Kind != store.AttachmentText || a.MIME != "text/plain" || a.Name != "report.pdf" || a.Truncated {
				t.Errorf("got %+v\n%q\nwant\n%q", a, data, want)
			}
		})
	}
	// PDF 2.0 reads the same.
	v2 := makePDF(pages[:1], true, false)
	copy(v2, "%PDF-2.0")
	if _, err := attach(ctx, st, AttachInput{Name: "v2.pdf", Data: v2}); err != nil {
		t.Errorf("PDF 2.0: %v", err)
	}
}

func TestAttachPDFWithoutText(t *testing.T) {
	st := openStore(t)
	_, err := attach(context.Background(), st, AttachInput{Name: "scan.pdf", Data: makePDF([][]string{{}}, true, true)})
	if !errors.Is(err, ErrAttachmentType) || !strings.Contains(err.Error(), "attach its pages as images") {
		t.Errorf("a PDF with no text: %v", err)
	}
}

// TestPDFPageTreeCycle: a page tree whose node lists itself as a kid ends
// (the reader's own page lookup would loop forever).
func TestPDFPageTreeCycle(t *testing.T) {
	data := makePDF([][]string{{"only page"}}, true, false)
	// Make the Pages node list itself among its kids.
	data = bytes.Replace(data, []byte("/Kids [3 0 R]"), []byte("/Kids [4 0 R 3 0 R]"), 1)
	text, cut, err := pdfText(context.Background(), fixXref(data))
	if err != nil || !strings.Contains(text, "only page") || !cut {
		t.Errorf("pdfText = %q, cut %v, %v", text, cut, err)
	}
}

// fixXref rewrites the xref table of a PDF whose objects moved.
func fixXref(data []byte) []byte {
	body := data[:bytes.Index(data, []byte("xref\n"))]
	var offsets []int
	for i := 1; ; i++ {
		j := bytes.Index(body, []byte(fmt.Sprintf("\n%d 0 obj\n", i)))
		if j < 0 {
			break
		}
		offsets = append(offsets, j+1)
	}
	var out bytes.Buffer
	out.Write(body)
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, len(offsets), xref)
	return out.Bytes()
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 200 << 10: "200 KiB", 5<<20 + 200<<10: "5.2 MiB", 1536: "1.5 KiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAttachFromTheWindow: the window's base64 is decoded and stored, a
// thumbnail comes back as a data URL, a refusal says the limit before
// anything is decoded, and Start prunes what no message kept.
func TestAttachFromTheWindow(t *testing.T) {
	ctx := context.Background()
	p := paths.In(t.TempDir())
	c, err := Open(ctx, &Options{Paths: &p, Secrets: &secrets.Memory{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	svc, err := c.Services(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.AttachBase64(ctx, "dot.png", "image/png", base64.StdEncoding.EncodeToString(pngHead))
	if err != nil || a.Kind != store.AttachmentImage {
		t.Fatalf("AttachBase64 = %+v, %v", a, err)
	}
	url, err := svc.AttachmentDataURL(ctx, a.ID)
	if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngHead); err != nil || url != want {
		t.Errorf("AttachmentDataURL = %q, %v; want %q", url, err, want)
	}
	if _, err := svc.AttachmentDataURL(ctx, store.BlobID([]byte("none"))); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing attachment: %v", err)
	}
	huge := strings.Repeat("A", base64.StdEncoding.EncodedLen(MaxAttachmentBytes+10))
	if _, err := svc.AttachBase64(ctx, "huge.bin", "", huge); !errors.Is(err, ErrAttachmentTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := svc.AttachBase64(ctx, "bad.txt", "", "not base64!"); err == nil || !strings.Contains(err.Error(), "bad.txt") {
		t.Errorf("bad base64: %v", err)
	}
	// Attached a while ago and never sent: Start deletes it.
	c.Store.DB().Exec(`UPDATE blobs SET created_at = 0`)
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Store.Blob(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an old unsent attachment after Start: %v", err)
	}
}

package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ledongthuc/pdf"
)

// Bounds of PDF text extraction: a PDF is a program of sorts, and one from
// the internet may be built to make a reader loop, or to inflate a small
// stream into gigabytes.
const (
	// pdfTime is how long pages are read; the text of the pages read by
	// then is kept, marked as cut. The reader is slow on some files (it
	// inflates a shared object stream again for each glyph's width):
	// 36 pages of a TeX manual take 5 s.
	pdfTime = 15 * time.Second
	// pdfTimeout is the most a PDF is waited for: a page that does not end
	// (a loop in the reader) is abandoned.
	pdfTimeout = 30 * time.Second
	// pdfMaxPages is the most pages read; text past it is cut.
	pdfMaxPages = 1000
	// pdfMaxNodes bounds the walk of the page tree (a tree with a cycle
	// ends here).
	pdfMaxNodes = 4 * pdfMaxPages
	pdfMaxDepth = 32
	// pdfMaxContent is the most decompressed page content read, in all.
	pdfMaxContent = 64 << 20
)

// pdfSlot lets one PDF be read at a time: a reader abandoned on time-out
// keeps its goroutine until its page ends, so a run of hostile PDFs could
// otherwise pile up readers; while one runs on, the next PDF is refused.
var pdfSlot = make(chan struct{}, 1)

// errPDF is a PDF whose text cannot be had; it wraps ErrAttachmentType.
var errPDF = fmt.Errorf("%w (PDF)", ErrAttachmentType)

// pdfText extracts the text of a PDF with github.com/ledongthuc/pdf (pure
// Go), page by page, words and lines rebuilt from where the glyphs sit.
// It stops past MaxTextBytes, pdfMaxPages or pdfTime, and then says the
// text was cut. A PDF with no text (a scan), protected by a password, or
// that the reader cannot read gives an error that says so.
//
// The reader runs in a goroutine bounded by pdfTimeout: on time-out its
// result is dropped, and it stops at the next page.
func pdfText(ctx context.Context, data []byte) (text string, cut bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	select {
	case pdfSlot <- struct{}{}:
	case <-ctx.Done():
		return "", false, fmt.Errorf("%w: another PDF is still being read; try again in a minute", errPDF)
	}
	var stop atomic.Bool
	type result struct {
		text string
		cut  bool
		err  error
	}
	done := make(chan result, 1)
	until := time.Now().Add(pdfTime)
	go func() {
		defer func() { <-pdfSlot }()
		text, cut, err := extractPDF(data, until, &stop)
		done <- result{text, cut, err}
	}()
	select {
	case r := <-done:
		return r.text, r.cut, r.err
	case <-ctx.Done():
		stop.Store(true)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", false, fmt.Errorf("%w: reading its text took longer than %s; copy the text you need into the message instead", errPDF, pdfTimeout)
		}
		return "", false, ctx.Err()
	}
}

// extractPDF reads the pages' text until it has more than MaxTextBytes,
// the time is past until, or stop is set.
func extractPDF(data []byte, until time.Time, stop *atomic.Bool) (text string, cut bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, cut, err = "", false, fmt.Errorf("%w: the PDF could not be read (%v); copy the text you need into the message instead", errPDF, p)
		}
	}()
	// The reader takes PDF 1.x headers only; 2.0 files read the same.
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		data = append([]byte("%PDF-1.7"), data[len("%PDF-2.0"):]...)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt") {
			return "", false, fmt.Errorf("%w: the PDF is protected by a password; save a copy without the password and attach that", errPDF)
		}
		return "", false, fmt.Errorf("%w: the PDF could not be read (%v); copy the text you need into the message instead", errPDF, err)
	}
	var b strings.Builder
	budget := int64(pdfMaxContent)
	pages, all := pdfPages(r)
	cut = !all
	for _, page := range pages {
		if stop.Load() || b.Len() > MaxTextBytes || time.Now().After(until) {
			cut = true
			break
		}
		if budget -= contentSize(page, budget); budget < 0 {
			cut = true
			break
		}
		pageText(&b, page)
	}
	out := tidyText(b.String())
	if strings.TrimSpace(out) == "" {
		return "", false, fmt.Errorf("%w: the PDF has no text to read (a scanned document?); attach its pages as images instead", errPDF)
	}
	return out, cut, nil
}

// pdfPages lists the pages in order, walking the page tree with bounded
// depth and breadth (r.Page would loop forever on a tree with a cycle);
// all is false when the walk stopped at a bound.
func pdfPages(r *pdf.Reader) (pages []pdf.Page, all bool) {
	all = true
	nodes := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if depth > pdfMaxDepth || len(pages) >= pdfMaxPages || nodes >= pdfMaxNodes {
			all = false
			return
		}
		nodes++
		switch v.Key("Type").Name() {
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len() && nodes < pdfMaxNodes; i++ {
				walk(kids.Index(i), depth+1)
			}
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return pages, all
}

// contentSize is how many bytes the page's content streams inflate to,
// counted up to limit+1 (so that a bomb is stopped before it is parsed);
// a stream that cannot be read counts as nothing.
func contentSize(p pdf.Page, limit int64) (n int64) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	c := p.V.Key("Contents")
	streams := []pdf.Value{c}
	if c.Kind() == pdf.Array {
		streams = streams[:0]
		for i := 0; i < c.Len(); i++ {
			streams = append(streams, c.Index(i))
		}
	}
	for _, s := range streams {
		rd := s.Reader()
		m, _ := io.Copy(io.Discard, io.LimitReader(rd, limit+1-n))
		rd.Close()
		if n += m; n > limit {
			break
		}
	}
	return n
}

// pageText appends the page's text: glyphs in the order drawn, a space
// where there is a gap between two, a line break where the baseline
// moves, a blank line where it moves by more than two lines.
func pageText(b *strings.Builder, p pdf.Page) {
	var texts []pdf.Text
	func() {
		defer func() { recover() }() // a page that cannot be read is skipped
		texts = p.Content().Text
	}()
	// Fonts that give glyph widths draw line-end markers as glyphs of
	// width zero (TeX's "Ω", say): with widths known, those are dropped.
	widths := 0
	for _, t := range texts {
		if t.W > 0 {
			widths++
		}
	}
	known := widths*2 > len(texts)
	// Without widths, a gap is guessed from how far the next glyph
	// starts; a page that draws its spaces needs only the wide gaps
	// (table columns).
	spaces := false
	for _, t := range texts {
		spaces = spaces || t.S == " "
	}
	gap := func(prev, t *pdf.Text, fs float64) bool {
		switch {
		case t.X < prev.X-fs:
			return true
		case known:
			return t.X-(prev.X+prev.W) > fs*0.15
		case spaces:
			return t.X-prev.X > fs*1.2
		}
		return t.X-prev.X > fs*0.75
	}
	var prev *pdf.Text
	for i := range texts {
		t := &texts[i]
		if known && t.W <= 0 || t.S == "" {
			continue
		}
		if prev != nil {
			fs := math.Max(prev.FontSize, 1)
			switch dy := math.Abs(t.Y - prev.Y); {
			case dy > fs*2:
				b.WriteString("\n\n")
			case dy > fs*0.5:
				b.WriteByte('\n')
			case gap(prev, t, fs):
				if s := b.String(); s != "" && !strings.HasSuffix(s, " ") && !strings.HasPrefix(t.S, " ") {
					b.WriteByte(' ')
				}
			}
		}
		b.WriteString(t.S)
		prev = t
	}
	b.WriteString("\n\n")
}

// tidyText trims the ends of lines and keeps at most one blank line in a
// row.
func tidyText(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r", "\n"), "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
			l = ""
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

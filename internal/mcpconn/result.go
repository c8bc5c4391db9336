package mcpconn

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultResultLimit is the number of characters of a tool result a model
// sees when Options.ResultLimit is zero.
const DefaultResultLimit = 32_000

// Content kinds, the values of Content.Type (as in MCP).
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource" // embedded resource
)

// A Result is a tool call's whole answer, kept for the UI and the audit log.
// Models see ForModel.
type Result struct {
	Content []Content `json:"content"`
	// StructuredContent is the tool's structured output, if any.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty" ts_type:"unknown"`
	// StructuredWarning says how the result breaks the tool's output
	// schema (see checkStructured); empty when it keeps it, or the tool
	// declares none.
	StructuredWarning string `json:"structuredWarning,omitempty"`
	// IsError is set when the tool (or the server, answering with a JSON-RPC
	// error) reports failure; the model still gets the text, marked.
	IsError bool           `json:"isError,omitempty"`
	Meta    map[string]any `json:"meta,omitempty" ts_type:"Record<string, unknown>"`
	// Task is set when the server runs the call as a task (the Tasks
	// extension): the result comes later, from tasks/get, and Content is
	// empty.
	Task *Task `json:"task,omitempty"`

	limit int // the Manager's ResultLimit
}

// A Content is one block of a Result. Which fields are set depends on Type.
type Content struct {
	Type string `json:"type"`
	// Text of a text block or of an embedded text resource.
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// Data of an image or audio block, base64 in JSON.
	Data []byte `json:"data,omitempty" ts_type:"string"`
	// URI of a resource link or an embedded resource.
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	// Blob of an embedded binary resource, base64 in JSON.
	Blob        []byte          `json:"blob,omitempty" ts_type:"string"`
	Annotations json.RawMessage `json:"annotations,omitempty" ts_type:"unknown"`
}

// newResult copies an SDK result into a Result.
func newResult(r *mcp.CallToolResult, limit int) *Result {
	out := &Result{IsError: r.IsError, Meta: r.Meta, limit: limit, Content: make([]Content, 0, len(r.Content))}
	if r.StructuredContent != nil {
		if raw, err := json.Marshal(r.StructuredContent); err == nil {
			out.StructuredContent = raw
		}
	}
	for _, c := range r.Content {
		out.Content = append(out.Content, newContent(c))
	}
	return out
}

func newContent(c mcp.Content) Content {
	ann := func(a *mcp.Annotations) json.RawMessage {
		if a == nil {
			return nil
		}
		raw, _ := json.Marshal(a)
		return raw
	}
	switch c := c.(type) {
	case *mcp.TextContent:
		return Content{Type: ContentText, Text: c.Text, Annotations: ann(c.Annotations)}
	case *mcp.ImageContent:
		return Content{Type: ContentImage, MIMEType: c.MIMEType, Data: c.Data, Annotations: ann(c.Annotations)}
	case *mcp.AudioContent:
		return Content{Type: ContentAudio, MIMEType: c.MIMEType, Data: c.Data, Annotations: ann(c.Annotations)}
	case *mcp.ResourceLink:
		return Content{Type: ContentResourceLink, URI: c.URI, Name: c.Name, Title: c.Title,
			Description: c.Description, MIMEType: c.MIMEType, Size: c.Size, Annotations: ann(c.Annotations)}
	case *mcp.EmbeddedResource:
		out := Content{Type: ContentResource, Annotations: ann(c.Annotations)}
		if r := c.Resource; r != nil {
			out.URI, out.MIMEType, out.Text, out.Blob = r.URI, r.MIMEType, r.Text, r.Blob
		}
		return out
	default:
		// A kind this SDK version knows but a tool result should not carry
		// (tool_use, tool_result): keep it as text so nothing is lost.
		raw, _ := json.Marshal(c)
		return Content{Type: ContentText, Text: string(raw)}
	}
}

// errorResult is the Result for a JSON-RPC error answer to tools/call.
func errorResult(msg string, limit int) *Result {
	return &Result{IsError: true, Content: []Content{{Type: ContentText, Text: msg}}, limit: limit}
}

// ForModel renders the result as text for a model: text blocks as they are,
// other blocks as short descriptions, then the structured content as JSON
// (alone when there is no text; after "[structured content]" unless the
// text already holds it, see textHoldsStructured), and what is wrong with it
// against the tool's output schema. An error result starts with "[tool error]". Text longer
// than limit characters is cut and ends with a notice. limit <= 0 means
// the Manager's ResultLimit.
func (r *Result) ForModel(limit int) string {
	if limit <= 0 {
		limit = r.limit
	}
	if limit <= 0 {
		limit = DefaultResultLimit
	}
	var parts []string
	hasText := false
	for _, c := range r.Content {
		switch c.Type {
		case ContentText:
			hasText = true
			parts = append(parts, c.Text)
		case ContentImage, ContentAudio:
			parts = append(parts, fmt.Sprintf("[%s: %s, %s bytes]", c.Type, orUnknown(c.MIMEType), comma(int64(len(c.Data)))))
		case ContentResourceLink:
			s := "[resource link: " + firstNonEmpty(c.Title, c.Name, c.URI) + " <" + c.URI + ">"
			if c.MIMEType != "" {
				s += " (" + c.MIMEType + ")"
			}
			s += "]"
			if c.Description != "" {
				s += " " + c.Description
			}
			parts = append(parts, s)
		case ContentResource:
			if c.Blob != nil || c.Text == "" {
				parts = append(parts, fmt.Sprintf("[resource <%s>: %s, %s bytes]", c.URI, orUnknown(c.MIMEType), comma(int64(len(c.Blob)))))
			} else {
				hasText = true
				parts = append(parts, "[resource <"+c.URI+">]\n"+c.Text)
			}
		}
	}
	switch {
	case len(r.StructuredContent) == 0:
	case !hasText:
		parts = append(parts, string(r.StructuredContent))
	case !r.textHoldsStructured():
		parts = append(parts, "[structured content]\n"+string(r.StructuredContent))
	}
	if r.StructuredWarning != "" {
		parts = append(parts, "[warning: "+r.StructuredWarning+"]")
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		text = "[tool error]\n" + text
	}
	return truncateChars(text, limit)
}

// truncateChars cuts s to limit characters (runes) and says so.
func truncateChars(s string, limit int) string {
	if len(s) <= limit { // bytes >= runes
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	cut, i := 0, 0
	for cut = range s {
		if i == limit {
			break
		}
		i++
	}
	return s[:cut] + fmt.Sprintf("\n[result truncated: %s characters, showing the first %s]",
		comma(int64(n)), comma(int64(limit)))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// comma formats n with thousands separators: 1234567 -> "1,234,567".
func comma(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && s[i-1] != '-' && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// textHoldsStructured reports whether r's text already says what its
// structured content does, so the model need not get it twice: a text block
// is that content serialized (as the spec asks servers to send for older
// clients), or the content holds only strings, each found in the text (as
// server-filesystem's {"content": <the file>}). Numbers and booleans are
// not looked for in prose; content past maxHeldCheck is sent anyway.
func (r *Result) textHoldsStructured() bool {
	if len(r.StructuredContent) > maxHeldCheck {
		return false
	}
	var want any
	if json.Unmarshal(r.StructuredContent, &want) != nil {
		return false
	}
	var texts []string
	for _, c := range r.Content {
		if c.Type != ContentText {
			continue
		}
		texts = append(texts, c.Text)
		if len(c.Text) > 2*len(r.StructuredContent)+1024 {
			continue
		}
		var got any
		if json.Unmarshal([]byte(c.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	all := strings.Join(texts, "\n")
	found := true
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			found = found && strings.Contains(all, x)
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		default: // a number, a boolean or null
			found = false
		}
	}
	walk(want)
	return found && len(texts) > 0
}

// maxHeldCheck bounds the structured content textHoldsStructured reads.
const maxHeldCheck = 1 << 20

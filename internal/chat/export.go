package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// An Export is a whole conversation as ExportJSON writes it.
type Export struct {
	// Version is the export format's version, 1.
	Version      int                `json:"version"`
	Conversation store.Conversation `json:"conversation"`
	Messages     []store.Message    `json:"messages"`
	// ToolCalls is the audit of every tool call, with whole results.
	ToolCalls []store.ToolCall `json:"toolCalls"`
	// Blobs are the bytes of the messages' attachments, each once (a
	// message's Attachments name them by ID); absent when there are none.
	Blobs []ExportBlob `json:"blobs,omitempty"`
}

// An ExportBlob is an attachment's bytes in an Export.
type ExportBlob struct {
	ID   string `json:"id"`
	MIME string `json:"mime"`
	// Data is base64 in the JSON.
	Data []byte `json:"data"`
}

// ExportJSON returns the conversation, its messages and its tool-call
// records as indented JSON.
func ExportJSON(ctx context.Context, st *store.Store, convID string) ([]byte, error) {
	x, err := load(ctx, st, convID)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range x.Messages {
		for _, a := range m.Attachments {
			if seen[a.ID] {
				continue
			}
			seen[a.ID] = true
			data, mime, err := st.Blob(ctx, a.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue // the message still names it
			}
			if err != nil {
				return nil, err
			}
			x.Blobs = append(x.Blobs, ExportBlob{ID: a.ID, MIME: mime, Data: data})
		}
	}
	return json.MarshalIndent(x, "", "  ")
}

func load(ctx context.Context, st *store.Store, convID string) (Export, error) {
	conv, err := st.Conversation(ctx, convID)
	if err != nil {
		return Export{}, err
	}
	msgs, err := st.Messages(ctx, convID, store.MessagePage{})
	if err != nil {
		return Export{}, err
	}
	calls, err := st.ToolCalls(ctx, convID, 0)
	if err != nil {
		return Export{}, err
	}
	return Export{Version: 1, Conversation: conv, Messages: msgs, ToolCalls: calls}, nil
}

// ExportMarkdown returns the conversation as Markdown: a heading per
// message, tool calls with their arguments and results in fenced blocks.
func ExportMarkdown(ctx context.Context, st *store.Store, convID string) (string, error) {
	x, err := load(ctx, st, convID)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	title := x.Conversation.Title
	if title == "" {
		title = "Conversation"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	if m := x.Conversation.Model; m != "" {
		fmt.Fprintf(&b, "Model: %s  \n", m)
	}
	fmt.Fprintf(&b, "Started: %s\n", x.Conversation.CreatedAt.UTC().Format(time.RFC3339))

	names := map[string]string{} // call ID -> tool name, for result headings
	for _, m := range x.Messages {
		switch m.Role {
		case store.RoleUser:
			fmt.Fprintf(&b, "\n## User\n\n%s\n", m.Content)
			for i, a := range m.Attachments {
				if i == 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "- Attached: `%s` (%s, %s%s)\n", strings.ReplaceAll(oneLine(a.Name), "`", "'"), a.MIME, sizeText(a.Size), map[bool]string{true: ", truncated"}[a.Truncated])
			}
		case store.RoleAssistant:
			var meta ReplyMeta
			_ = json.Unmarshal(m.Meta, &meta)
			if meta.Note != "" || (m.Content == "" && m.ToolCalls == nil && m.Error != "") {
				fmt.Fprintf(&b, "\n> **Note:** %s\n", oneLine(m.Error))
				continue
			}
			b.WriteString("\n## Assistant")
			if meta.Model != "" {
				fmt.Fprintf(&b, " (%s)", meta.Model)
			}
			b.WriteString("\n\n")
			if m.Content != "" {
				b.WriteString(m.Content + "\n")
			}
			var calls []llm.ToolCall
			_ = json.Unmarshal(m.ToolCalls, &calls)
			for _, c := range calls {
				names[c.ID] = c.Name
				fmt.Fprintf(&b, "\n**Tool call:** `%s`\n\n%s", c.Name, fence("json", c.Arguments))
			}
			switch m.Status {
			case store.StatusStopped:
				b.WriteString("\n*(stopped)*\n")
			case store.StatusError:
				fmt.Fprintf(&b, "\n> **Error:** %s\n", oneLine(m.Error))
			}
		case store.RoleTool:
			fmt.Fprintf(&b, "\n**Result of `%s`:**\n\n%s", names[m.ToolCallID], fence("", m.Content))
		}
	}
	return b.String(), nil
}

// fence puts text in a fenced code block whose fence is longer than any
// run of backticks inside it.
func fence(lang, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sizeText is a size as a person reads it: "512 bytes", "12.5 KiB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}

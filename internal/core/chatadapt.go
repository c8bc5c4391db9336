package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// toolSource adapts the connection manager to chat.ToolSource.
type toolSource struct {
	m *mcpconn.Manager
	// calls learns which conversation each running call is for (nil:
	// nobody asks).
	calls *callOrigins
	// marks knows the tools the user marked private (nil: none are).
	marks privateMarks
}

// privateMarks is approval.Broker.IsPrivate.
type privateMarks interface {
	IsPrivate(fingerprint, tool string) bool
}

func (t toolSource) Tools() []chat.Tool {
	tools := t.m.Tools()
	out := make([]chat.Tool, len(tools))
	for i, x := range tools {
		hints := ToolHints(x.Annotations)
		private := t.marks != nil && t.marks.IsPrivate(x.Fingerprint, x.OriginalName)
		out[i] = chat.Tool{Name: x.Name, ServerID: x.ServerID, ServerName: x.ServerName, OriginalName: x.OriginalName,
			Description: x.Description, InputSchema: x.InputSchema, Enabled: x.Enabled, Fingerprint: x.Fingerprint,
			DefinitionHash: x.DefinitionHash, AppOnly: x.AppOnly, Title: x.Title, Hints: hints,
			Legs: approval.ToolLegs(hints, x.Local, private)}
	}
	return out
}

// CallTool runs the tool ref pins. The server's fingerprint is checked
// here, the definition by the manager as it calls.
func (t toolSource) CallTool(ctx context.Context, ref chat.ToolRef, args json.RawMessage, onProgress func(chat.Progress)) (chat.ToolResult, error) {
	mref := mcpconn.ToolRef{ServerID: ref.ServerID, Tool: ref.Tool, DefinitionHash: ref.DefinitionHash, Fingerprint: ref.Fingerprint}
	if o, ok := chat.OriginOf(ctx); ok && t.calls != nil {
		defer t.calls.add(ref.ServerID, o)()
	}
	res, err := t.m.CallToolRef(ctx, mref, args, func(p mcpconn.Progress) {
		if onProgress != nil {
			onProgress(chat.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
	})
	if errors.Is(err, mcpconn.ErrToolChanged) {
		return chat.ToolResult{}, fmt.Errorf("%w: %s of server %s (%v)", chat.ErrToolChanged, ref.Tool, ref.ServerID, err)
	}
	if err != nil {
		return chat.ToolResult{}, err
	}
	if t := res.Task; t != nil {
		return chat.ToolResult{Task: &chat.TaskHandle{ServerID: t.ServerID, TaskID: t.TaskID, Status: t.Status,
			StatusMessage: t.StatusMessage, State: t}}, nil
	}
	full, _ := json.Marshal(res)
	// The chat engine cuts the text to the user's limit, with one notice.
	return chat.ToolResult{Text: res.ForModel(1 << 30), IsError: res.IsError, Full: full}, nil
}

package core

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// declineElicitation answers a server's request for the user's input
// (elicitation/create, sent on its own or, in 2026-07-28, as an
// input_required of a call) until Switchboard has the dialogs to show it:
// the server is told the user declined, which it can act on, and the
// server's log says what it asked, so the user knows.
func declineElicitation(manager func() *mcpconn.Manager) func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(_ context.Context, serverID string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		what := clipText(p.Message, 300)
		if p.Mode == "url" {
			what = fmt.Sprintf("%s (to open %s)", what, clipText(p.URL, 300))
		}
		if m := manager(); m != nil {
			m.Note(serverID, fmt.Sprintf("declined the server's request for input %q: Switchboard cannot show such requests yet", what))
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

// clipText keeps the first n characters of s.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

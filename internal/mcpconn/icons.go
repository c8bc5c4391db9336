package mcpconn

import (
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An Icon is a picture a server gives for one of its tools (MCP
// 2025-11-25 icons). Only icons embedded as data: URLs of an image type
// are kept: the window never fetches a server's picture from the network
// (its Content-Security-Policy would refuse it anyway), which would tell
// the picture's host when the user looks at the tools.
type Icon struct {
	// Src is a data: URL, "data:image/png;base64,...".
	Src      string `json:"src"`
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are as the server gave them ("48x48", "any").
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark" (the background it is drawn for), or
	// empty for any.
	Theme string `json:"theme,omitempty"`
}

// Bounds on a tool's icons.
const (
	maxIcons     = 3
	maxIconBytes = 32 << 10 // one icon's data: URL
	maxIconSizes = 4
)

// iconURL matches the data: URLs of the image types a browser draws
// without running anything (an SVG shown by <img> runs no script).
var iconURL = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp|svg\+xml)(;[a-zA-Z0-9=._+-]+)*,`)

// keepIcons returns the icons of a listing that Switchboard shows: data:
// URLs of an image type, each at most maxIconBytes, at most maxIcons of
// them; nil when none.
func keepIcons(icons []mcp.Icon) []Icon {
	var out []Icon
	for _, ic := range icons {
		if len(out) == maxIcons {
			break
		}
		if len(ic.Source) > maxIconBytes || !iconURL.MatchString(ic.Source) {
			continue
		}
		mime, _ := clipBytes(ic.MIMEType, 64)
		var sizes []string
		for _, sz := range ic.Sizes[:min(len(ic.Sizes), maxIconSizes)] {
			if sz, _ = clipBytes(sz, 16); sz != "" {
				sizes = append(sizes, sz)
			}
		}
		theme := string(ic.Theme)
		if theme != "light" && theme != "dark" {
			theme = ""
		}
		out = append(out, Icon{Src: ic.Source, MIMEType: mime, Sizes: sizes, Theme: theme})
	}
	return out
}

// iconsSize is about what icons hold in memory.
func iconsSize(icons []Icon) int {
	n := 0
	for _, ic := range icons {
		n += len(ic.Src) + len(ic.MIMEType) + len(ic.Theme) + len(strings.Join(ic.Sizes, ""))
	}
	return n
}

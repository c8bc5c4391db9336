package serverconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func isNull(raw json.RawMessage) bool { return jsonKind(raw) == "null" }

// maxJSONDepth bounds how deeply objects and arrays may nest in an imported
// file. hujson parses recursively with no limit of its own, so a few
// million "[" would overflow the stack, which is fatal, not a panic.
const maxJSONDepth = 1000

// maxJSONErrorLen bounds the parser's message in an error: hujson quotes
// the whole of an invalid literal, which may be most of the file.
const maxJSONErrorLen = 200

// standardizeJSONC turns JSON with comments and trailing commas (VS Code's
// mcp.json is JSONC) into JSON. hujson replaces what it removes with
// spaces, so offsets still match the input.
func standardizeJSONC(data []byte) ([]byte, error) {
	if jsonDepth(data) > maxJSONDepth {
		return nil, fmt.Errorf("file nests objects and arrays more than %d deep; an MCP config needs a few levels", maxJSONDepth)
	}
	clean, err := hujson.Standardize(data)
	if err != nil {
		// "hujson: line 5, column 21: invalid character ..."; the column counts bytes.
		msg := strings.TrimPrefix(err.Error(), "hujson: ")
		if len(msg) > maxJSONErrorLen {
			msg = strings.ToValidUTF8(msg[:maxJSONErrorLen], "") + "..."
		}
		return nil, fmt.Errorf("file is not valid JSON: %s", msg)
	}
	return clean, nil
}

// jsonDepth returns how deeply objects and arrays nest in data, skipping
// strings and comments as hujson does. It only has to be right for input
// that hujson would parse up to the deepest point.
func jsonDepth(data []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			var end string
			switch {
			case bytes.HasPrefix(data[i:], []byte("//")):
				end = "\n"
			case bytes.HasPrefix(data[i:], []byte("/*")):
				end = "*/"
			default:
				continue
			}
			n := bytes.Index(data[i+2:], []byte(end))
			if n < 0 {
				return deepest
			}
			i += 2 + n + len(end) - 1
		}
	}
	return deepest
}

// describeJSONError turns an error decoding standard JSON into a map into
// a message a user can act on.
func describeJSONError(err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("file must contain a JSON object at the top level, not %s", typ.Value)
	}
	return fmt.Errorf("file is not valid JSON: %w", err)
}

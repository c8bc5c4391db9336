package mcpconn

import "encoding/json"

// CleanSchema turns a tool's input schema that no server listing carries
// (the tools of a sampling request) into one every provider accepts, as
// the schemas of listed tools are (see cleanSchema): the result is at most
// 256 KiB, and note, when not empty, says why it became any object.
func CleanSchema(schema any) (cleaned json.RawMessage, note string) { return cleanSchema(schema) }

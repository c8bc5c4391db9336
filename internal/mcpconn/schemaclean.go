package mcpconn

import "encoding/json"

// CleanSchema turns a tool's input schema that no server listing carries
// (the tools of a sampling request) into one every provider accepts, as
// the schemas of listed tools are (see cleanSchema): the result is at most
// 256 KiB, and note, when not empty, says why it became any object.
func CleanSchema(schema any) (cleaned json.RawMessage, note string) { return cleanSchema(schema) }

// SchemaFansOut reports whether a schema a server sent names more than
// 64 Ki parts once its local $refs are followed (see refsFanOut): a
// validator run on it could take time and memory that grow as 2ⁿ.
func SchemaFansOut(schema json.RawMessage) bool { return refsFanOut(schema) }

package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Bounds on one tool's input schema. A server's schema is outside input:
// a 140-byte schema with six "$ref": "#" expands to 157 MB when inlined, so
// the cleaner counts what it visits and what it would write, and gives up
// early (falling back to anySchema) rather than after building the tree.
const (
	// maxSchemaBytes bounds a cleaned schema, about its size in JSON, and
	// a schema as the server sent it (Tool.Schema), exactly.
	maxSchemaBytes = 256 << 10
	// maxSchemaWork bounds the nodes the cleaner visits and copies (an
	// inlined $ref counts each time it is inlined).
	maxSchemaWork = 256 << 10
)

// anySchema is what a tool whose schema is over the bounds takes: any object.
var anySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// cleanSchema turns a tool's input schema into one every provider accepts.
// A schema that already is one (see acceptable) is passed through as the
// server sent it (the same JSON value: the SDK hands it over decoded, so
// key order and number spelling are Go's); any other is cleaned:
//   - an object schema at the top: "type":"object" with "properties"
//     (OpenAI rejects anything else; MCP requires it anyway);
//   - no oneOf/anyOf/allOf/not/enum/const/if at the top (Anthropic and OpenAI
//     reject them): the properties of their object branches are merged in,
//     and "required" is kept only from allOf branches;
//   - no "$schema", "$id", "$comment", "$anchor" (Gemini rejects them);
//   - local "$ref"s ("#", "#/$defs/x", "#/definitions/x") inlined and the
//     definitions dropped (Gemini has no $ref); a recursive reference is cut
//     to {} at depth maxRefDepth. Any other "$ref" (a URL, a file) is never
//     fetched: it is dropped, keeping its sibling keywords;
//   - a "true" subschema becomes {} ("additionalProperties": false and the
//     like stay as they are).
//
// Keywords are only touched where a schema is expected, so a property that
// happens to be named "$schema" stays.
//
// A schema over maxSchemaBytes, or one that takes more than maxSchemaWork
// to clean (a "$ref" bomb), becomes anySchema, and note says why for the
// server's log; note is empty otherwise.
func cleanSchema(schema any) (out json.RawMessage, note string) {
	root, ok := schema.(map[string]any)
	if !ok && schema != nil {
		// Not what the SDK gives (it decodes a schema into a map); tests
		// and other callers may pass raw JSON or structs.
		if raw, err := json.Marshal(schema); err == nil && len(raw) <= 4*maxSchemaBytes {
			_ = json.Unmarshal(raw, &root)
		}
	}
	if root == nil {
		return anySchema, ""
	}
	tooBig := fmt.Sprintf("its input schema is larger than %d KiB once its $refs are inlined, so the tool takes any object", maxSchemaBytes>>10)
	c := schemaCleaner{root: root}
	if c.acceptable(root) {
		c.work = 0
		c.spend(0, c.jsonSize(root)) // before encoding it
		if c.over {
			return anySchema, tooBig
		}
		return encodeSchema(root, tooBig)
	}
	cleaned, _ := c.clean(root, 0).(map[string]any)
	if c.over {
		return anySchema, tooBig
	}
	if cleaned == nil {
		cleaned = map[string]any{}
	}
	flattenTop(cleaned)
	cleaned["type"] = "object"
	if _, ok := cleaned["properties"].(map[string]any); !ok {
		cleaned["properties"] = map[string]any{}
	}
	return encodeSchema(cleaned, tooBig)
}

// sentSchema encodes a tool's input schema as the server sent it (see
// Tool.Schema): nothing is resolved, dropped or fetched, and "<", ">" and
// "&" are not escaped (a pattern reads as written). It is nil when there
// is none, or when it is larger than maxSchemaBytes or cannot be encoded;
// such a schema is not kept, the cleaned one is.
func sentSchema(schema any) json.RawMessage {
	if schema == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(schema); err != nil {
		return nil
	}
	raw := bytes.Clone(bytes.TrimSuffix(b.Bytes(), []byte("\n"))) // not the buffer's spare capacity
	if len(raw) > maxSchemaBytes || string(raw) == "null" {
		return nil
	}
	return raw
}

// encodeSchema encodes s, or falls back to anySchema with a note when it
// cannot be encoded or is past maxSchemaBytes (tooBig).
func encodeSchema(s map[string]any, tooBig string) (json.RawMessage, string) {
	raw, err := json.Marshal(s)
	switch {
	case err != nil:
		return anySchema, "its input schema cannot be encoded as JSON, so the tool takes any object"
	case len(raw) > maxSchemaBytes:
		return anySchema, tooBig
	}
	return raw, ""
}

const maxRefDepth = 8

type schemaCleaner struct {
	root map[string]any
	// work counts nodes visited and copied, size the JSON bytes the
	// cleaned schema would take; over is set once either passes its bound,
	// and then every level returns at once.
	work, size int
	over       bool
}

// spend adds to the cleaner's counts and reports whether it is still
// within bounds.
func (c *schemaCleaner) spend(work, size int) bool {
	c.work += work
	c.size += size
	if c.work > maxSchemaWork || c.size > maxSchemaBytes {
		c.over = true
	}
	return !c.over
}

// dropped keywords, anywhere a schema is expected.
var droppedKeywords = []string{"$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
	"$dynamicRef", "$recursiveRef", "$vocabulary", "$defs", "definitions"}

// Keywords whose value is a schema, a list of schemas, or a map of schemas.
var (
	schemaValued = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
	schemaListValued = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaMapValued  = []string{"properties", "patternProperties", "dependentSchemas"}
	boolFriendly     = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
)

// clean returns a cleaned copy of the schema s; depth counts inlined refs.
// Past the bounds it returns nil and sets c.over.
func (c *schemaCleaner) clean(s any, depth int) any {
	if !c.spend(1, 2) {
		return nil
	}
	switch v := s.(type) {
	case bool:
		if v {
			return map[string]any{}
		}
		return false
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			target := c.resolve(ref)
			if target == nil || depth >= maxRefDepth {
				rest := withoutKeys(v, "$ref")
				if len(rest) == 0 {
					return map[string]any{}
				}
				return c.clean(rest, depth)
			}
			if !c.spend(len(target)+len(v), 0) {
				return nil
			}
			// Sibling keywords next to $ref (e.g. "description") win.
			merged := make(map[string]any, len(target)+len(v))
			for k, x := range target {
				merged[k] = x
			}
			for k, x := range v {
				if k != "$ref" {
					merged[k] = x
				}
			}
			return c.clean(merged, depth+1)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !c.spend(1, len(k)+4) {
				return nil
			}
			switch {
			case slices.Contains(droppedKeywords, k):
			case slices.Contains(schemaValued, k):
				if _, isBool := x.(bool); isBool && slices.Contains(boolFriendly, k) {
					out[k] = x // "additionalProperties": false is what providers want
					continue
				}
				if k == "items" {
					if list, ok := x.([]any); ok { // draft-04 tuple form
						out[k] = c.cleanList(list, depth)
						continue
					}
				}
				out[k] = c.clean(x, depth)
			case slices.Contains(schemaListValued, k):
				if list, ok := x.([]any); ok {
					out[k] = c.cleanList(list, depth)
				}
			case slices.Contains(schemaMapValued, k):
				if m, ok := x.(map[string]any); ok {
					cm := make(map[string]any, len(m))
					for name, sub := range m {
						if !c.spend(1, len(name)+4) {
							return nil
						}
						cm[name] = c.clean(sub, depth)
					}
					out[k] = cm
				}
			default:
				// Kept as is, and shared: count what it adds to the output
				// each time it appears there.
				c.spend(0, c.jsonSize(x))
				out[k] = x
			}
			if c.over {
				return nil
			}
		}
		return out
	default:
		return map[string]any{}
	}
}

func (c *schemaCleaner) cleanList(list []any, depth int) []any {
	if !c.spend(len(list), 2) {
		return nil
	}
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = c.clean(x, depth)
		if c.over {
			return nil
		}
	}
	return out
}

// jsonSize estimates the size of v in JSON, counting the nodes it visits
// as work; it stops counting once the cleaner is over its bounds.
func (c *schemaCleaner) jsonSize(v any) int {
	if !c.spend(1, 0) {
		return 0
	}
	switch v := v.(type) {
	case string:
		return len(v) + 2
	case map[string]any:
		n := 2
		for k, x := range v {
			n += len(k) + 4 + c.jsonSize(x)
			if c.over {
				break
			}
		}
		return n
	case []any:
		n := 2
		for _, x := range v {
			n += 1 + c.jsonSize(x)
			if c.over {
				break
			}
		}
		return n
	default: // numbers, booleans, null
		return 8
	}
}

// resolve follows a local JSON pointer ref such as "#/$defs/Item". Any other
// ref (a URL, a relative file, an anchor) resolves to nil: it is never
// fetched.
func (c *schemaCleaner) resolve(ref string) map[string]any {
	if ref == "#" {
		return c.root
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = c.root
	for part := range strings.SplitSeq(p, "/") {
		if !c.spend(1, 0) {
			return nil
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

// acceptable reports whether the top-level schema root is already in the
// form every provider accepts, so that cleaning would not change it: an
// object with properties, no combinators at the top, and nowhere a $ref,
// a dropped keyword, a "true" subschema or a malformed keyword value.
func (c *schemaCleaner) acceptable(root map[string]any) bool {
	if root["type"] != "object" {
		return false
	}
	if _, ok := root["properties"].(map[string]any); !ok {
		return false
	}
	for _, k := range topDropped {
		if _, ok := root[k]; ok {
			return false
		}
	}
	return c.plain(root) && !c.over
}

// topDropped are the keywords flattenTop removes from the top level.
var topDropped = []string{"allOf", "anyOf", "oneOf", "not", "enum", "const", "if", "then", "else"}

// plain reports whether cleaning would leave the subschema s unchanged.
func (c *schemaCleaner) plain(s any) bool {
	if !c.spend(1, 0) {
		return false
	}
	v, ok := s.(map[string]any)
	if !ok {
		return s == false // a "true" subschema, or a non-schema, is cleaned
	}
	if _, ok := v["$ref"]; ok {
		return false
	}
	for k, x := range v {
		switch {
		case slices.Contains(droppedKeywords, k):
			return false
		case slices.Contains(schemaValued, k):
			if _, isBool := x.(bool); isBool && slices.Contains(boolFriendly, k) {
				continue
			}
			if list, ok := x.([]any); ok && k == "items" {
				if !c.plainList(list) {
					return false
				}
				continue
			}
			if !c.plain(x) {
				return false
			}
		case slices.Contains(schemaListValued, k):
			list, ok := x.([]any)
			if !ok || !c.plainList(list) {
				return false
			}
		case slices.Contains(schemaMapValued, k):
			m, ok := x.(map[string]any)
			if !ok {
				return false
			}
			for _, sub := range m {
				if !c.plain(sub) {
					return false
				}
			}
		}
	}
	return true
}

func (c *schemaCleaner) plainList(list []any) bool {
	for _, x := range list {
		if !c.plain(x) {
			return false
		}
	}
	return true
}

func withoutKeys(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// flattenTop removes combinators from the top-level schema, merging the
// properties of object branches into the top level.
func flattenTop(s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	var required []any
	if r, ok := s["required"].([]any); ok {
		required = slices.Clone(r) // shared with the server's schema
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		branches, _ := s[k].([]any)
		for _, b := range branches {
			bm, ok := b.(map[string]any)
			if !ok {
				continue
			}
			flattenTop(bm) // nested combinators inside a branch
			if bp, ok := bm["properties"].(map[string]any); ok {
				for name, sub := range bp {
					if _, exists := props[name]; !exists {
						props[name] = sub
					}
				}
			}
			if k == "allOf" {
				if r, ok := bm["required"].([]any); ok {
					for _, name := range r {
						if !slices.Contains(required, name) {
							required = append(required, name)
						}
					}
				}
			}
		}
		delete(s, k)
	}
	for _, k := range topDropped {
		delete(s, k)
	}
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
}

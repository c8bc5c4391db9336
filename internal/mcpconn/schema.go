package mcpconn

import (
	"encoding/json"
	"slices"
	"strings"
)

// cleanSchema turns a tool's input schema into one every provider accepts:
//   - an object schema at the top: "type":"object" with "properties"
//     (OpenAI rejects anything else; MCP requires it anyway);
//   - no oneOf/anyOf/allOf/not/enum/const/if at the top (Anthropic and OpenAI
//     reject them): the properties of their object branches are merged in,
//     and "required" is kept only from allOf branches;
//   - no "$schema", "$id", "$comment", "$anchor" (Gemini rejects them);
//   - local "$ref"s ("#/$defs/x", "#/definitions/x") inlined and the
//     definitions dropped (Gemini has no $ref); a recursive reference is cut
//     to {} at depth maxRefDepth;
//   - a "true" subschema becomes {} ("additionalProperties": false and the
//     like stay as they are).
//
// Keywords are only touched where a schema is expected, so a property that
// happens to be named "$schema" stays.
func cleanSchema(schema any) json.RawMessage {
	var root map[string]any
	if raw, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(raw, &root)
	}
	if root == nil {
		root = map[string]any{}
	}
	c := schemaCleaner{root: root}
	out, _ := c.clean(root, 0).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	flattenTop(out)
	out["type"] = "object"
	if _, ok := out["properties"].(map[string]any); !ok {
		out["properties"] = map[string]any{}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return raw
}

const maxRefDepth = 8

type schemaCleaner struct {
	root map[string]any
}

// dropped keywords, anywhere a schema is expected.
var droppedKeywords = []string{"$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$defs", "definitions"}

// Keywords whose value is a schema, a list of schemas, or a map of schemas.
var (
	schemaValued = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
	schemaListValued = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaMapValued  = []string{"properties", "patternProperties", "dependentSchemas"}
	boolFriendly     = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
)

// clean returns a cleaned copy of the schema s; depth counts inlined refs.
func (c *schemaCleaner) clean(s any, depth int) any {
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
						cm[name] = c.clean(sub, depth)
					}
					out[k] = cm
				}
			default:
				out[k] = x
			}
		}
		return out
	default:
		return map[string]any{}
	}
}

func (c *schemaCleaner) cleanList(list []any, depth int) []any {
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = c.clean(x, depth)
	}
	return out
}

// resolve follows a local JSON pointer ref such as "#/$defs/Item".
func (c *schemaCleaner) resolve(ref string) map[string]any {
	if ref == "#" {
		return c.root
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = c.root
	for _, part := range strings.Split(p, "/") {
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
		required = r
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
	for _, k := range []string{"not", "enum", "const", "if", "then", "else"} {
		delete(s, k)
	}
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
}

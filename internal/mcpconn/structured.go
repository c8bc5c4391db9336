package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool that declares an output schema promises structured content that
// matches it. Switchboard checks: a result that breaks the promise keeps
// its content, with Result.StructuredWarning saying what is wrong, which
// the model is told too. The schema is resolved without a loader, so a
// remote $ref fails resolution (then the result is not checked, and the
// warning says why) rather than being fetched.

// maxStructuredWarning bounds Result.StructuredWarning, in bytes.
const maxStructuredWarning = 500

// maxOutputSchemaWork bounds the nodes of an output schema with its local
// $refs followed (refsFanOut): the validator follows every one, so a
// kilobyte of refs that each name two more makes its work, and its
// error, grow as 2ⁿ.
const maxOutputSchemaWork = 64 << 10

// refsFanOut reports whether the schema, its local $refs followed (a ref
// to one being followed, recursion, is not followed again: the data's
// depth bounds it), has more than maxOutputSchemaWork nodes. A schema
// that cannot be read is not over.
func refsFanOut(schema json.RawMessage) bool {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return false
	}
	m, _ := root.(map[string]any)
	c := schemaCleaner{root: m}
	var path []string
	var walk func(v any)
	walk = func(v any) {
		if c.work++; c.work > maxOutputSchemaWork {
			c.over = true
		}
		if c.over {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && !slices.Contains(path, ref) {
				if target := c.resolve(ref); target != nil {
					path = append(path, ref)
					walk(target)
					path = path[:len(path)-1]
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(root)
	return c.over
}

// outputSchemaOf returns the output schema server s's live session lists
// for tool, as sent (nil when none, or past maxSchemaBytes).
func (s *server) outputSchemaOf(tool string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.tools, func(t toolInfo) bool { return t.name == tool }); i >= 0 {
		return s.tools[i].output
	}
	return nil
}

// checkStructured compares r's structured content with the tool's output
// schema (nil: nothing to check) and says in r.StructuredWarning what does
// not match. An error result is not checked: the schema describes success.
func (r *Result) checkStructured(schema json.RawMessage) {
	if len(schema) == 0 || r.IsError || r.Task != nil {
		return
	}
	if len(r.StructuredContent) == 0 {
		r.StructuredWarning = "the tool declares an output schema but sent no structured content"
		return
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		r.StructuredWarning = clipWarning(fmt.Sprintf("the tool's output schema cannot be read (%v), so its structured content was not checked", err))
		return
	}
	if refsFanOut(schema) {
		r.StructuredWarning = fmt.Sprintf("the tool's output schema names more than %d parts once its $refs are followed, so its structured content was not checked", maxOutputSchemaWork)
		return
	}
	rs, err := s.Resolve(nil) // no Loader: a remote $ref is an error, never a fetch
	if err != nil {
		r.StructuredWarning = clipWarning(fmt.Sprintf("the tool's output schema cannot be used (%v), so its structured content was not checked", err))
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(r.StructuredContent))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		r.StructuredWarning = clipWarning(fmt.Sprintf("the structured content is not JSON: %v", err))
		return
	}
	if err := rs.Validate(jsonNumbers(v)); err != nil {
		r.StructuredWarning = clipWarning("the structured content does not match the tool's output schema: " + err.Error())
	}
}

// jsonNumbers turns the json.Numbers of a decoded value into float64s, or
// int64s where exact, as the validator expects Go's numbers.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	}
	return v
}

func clipWarning(s string) string {
	if c, cut := clipBytes(s, maxStructuredWarning); cut {
		return c + "…"
	}
	return s
}

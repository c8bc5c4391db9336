package mcpconn

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCleanSchema(t *testing.T) {
	tests := []struct {
		name string
		in   string // JSON, or "" for a nil schema
		want string
	}{
		{"nil", "", `{"type":"object","properties":{}}`},
		{"not an object", `"string"`, `{"type":"object","properties":{}}`},
		{"drops $schema and friends, keeps a property named $schema",
			`{"$schema":"http://json-schema.org/draft-07/schema#","$id":"x","$comment":"c","type":"object",
			  "properties":{"$schema":{"type":"string","$comment":"inner"}},"additionalProperties":false}`,
			`{"type":"object","properties":{"$schema":{"type":"string"}},"additionalProperties":false}`},
		{"adds type and properties",
			`{"required":[]}`,
			`{"type":"object","properties":{},"required":[]}`},
		{"inlines local refs and drops definitions",
			`{"type":"object","properties":{"item":{"$ref":"#/$defs/Item","description":"the item"},
			  "list":{"type":"array","items":{"$ref":"#/definitions/Tag"}}},
			  "$defs":{"Item":{"type":"object","properties":{"id":{"type":"integer"}}}},
			  "definitions":{"Tag":{"type":"string"}}}`,
			`{"type":"object","properties":{"item":{"type":"object","description":"the item","properties":{"id":{"type":"integer"}}},
			  "list":{"type":"array","items":{"type":"string"}}}}`},
		{"cuts a recursive ref",
			`{"type":"object","properties":{"node":{"$ref":"#/$defs/Node"}},
			  "$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}}}}}`,
			""}, // checked below: valid and finite
		{"flattens top-level combinators",
			`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
			           {"type":"object","properties":{"b":{"type":"number"}}}],
			  "allOf":[{"properties":{"c":{"type":"boolean"}},"required":["c"]}]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":"boolean"}},"required":["c"]}`},
		{"keeps nested combinators",
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`},
		{"boolean subschemas",
			`{"type":"object","properties":{"any":true}}`,
			`{"type":"object","properties":{"any":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in any
			if tt.in != "" {
				if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
					t.Fatal(err)
				}
			}
			got := cleanSchema(in)
			var gotV map[string]any
			if err := json.Unmarshal(got, &gotV); err != nil {
				t.Fatalf("invalid JSON %s: %v", got, err)
			}
			if gotV["type"] != "object" {
				t.Errorf("type = %v", gotV["type"])
			}
			if tt.want == "" {
				if len(got) > 10_000 {
					t.Errorf("recursive schema blew up to %d bytes", len(got))
				}
				return
			}
			var wantV map[string]any
			if err := json.Unmarshal([]byte(tt.want), &wantV); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantV, gotV); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

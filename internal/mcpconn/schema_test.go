package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
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
		{"drops a network or file $ref, keeping its siblings",
			`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"},"b":{"$ref":"other.json#/x","description":"b"},
			  "c":{"$ref":"#anchor"},"d":{"$recursiveRef":"#","type":"string"}}}`,
			`{"type":"object","properties":{"a":{},"b":{"description":"b"},"c":{},"d":{"type":"string"}}}`},
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
			got, note := cleanSchema(in)
			if note != "" {
				t.Errorf("note %q", note)
			}
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

// selfRefBomb is an object schema with n properties that are each the
// whole schema again: 140 bytes for six, which inlined to depth 8 used to
// expand to 157 MB (3.5 GB allocated); eight ran out of memory.
func selfRefBomb(n int) map[string]any {
	props := map[string]any{}
	for i := range n {
		props[string(rune('a'+i))] = map[string]any{"$ref": "#"}
	}
	return map[string]any{"type": "object", "properties": props}
}

// defsBomb is the same without recursion: each of depth definitions
// refers to the next one n times ("billion laughs").
func defsBomb(n, depth int) map[string]any {
	defs := map[string]any{}
	for d := range depth {
		props := map[string]any{}
		for i := range n {
			if d == depth-1 {
				props[fmt.Sprint("p", i)] = map[string]any{"type": "string"}
			} else {
				props[fmt.Sprint("p", i)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", d+1)}
			}
		}
		defs[fmt.Sprint("d", d)] = map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}, "$defs": defs}
}

func TestCleanSchemaRefBombIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema map[string]any
	}{
		{"six self-references", selfRefBomb(6)},
		{"eight self-references", selfRefBomb(8)},
		{"eight definitions deep, eight wide", defsBomb(8, 7)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.schema)
			t.Logf("schema: %d bytes", len(raw))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, note := cleanSchema(tt.schema)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("cleaned to %d bytes, %.1f MB allocated; note: %s", len(got), float64(allocated)/(1<<20), note)
			if allocated > 64<<20 {
				t.Errorf("cleaning allocated %d MB, want under 64 MB", allocated>>20)
			}
			if string(got) != string(anySchema) {
				t.Errorf("got a %d-byte schema, want the any-object fallback", len(got))
			}
			if !strings.Contains(note, "256 KiB") || !strings.Contains(note, "any object") {
				t.Errorf("note = %q, want it to say the schema is over 256 KiB and the tool takes any object", note)
			}
		})
	}
}

// A recursive schema that stays small once cut at maxRefDepth is still
// inlined, not replaced.
func TestCleanSchemaSmallRecursionIsInlined(t *testing.T) {
	got, note := cleanSchema(selfRefBomb(2))
	if note != "" || len(got) > maxSchemaBytes || string(got) == string(anySchema) {
		t.Fatalf("two self-references: %d bytes, note %q", len(got), note)
	}
	if strings.Contains(string(got), "$ref") {
		t.Errorf("a $ref is left in %s", got)
	}
}

func TestCleanSchemaNeverFetchesRefs(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object","properties":{"secret":{"type":"string"}}}`))
	}))
	defer srv.Close()
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"remote":   map[string]any{"$ref": srv.URL + "/schema.json"},
		"fragment": map[string]any{"$ref": srv.URL + "/schema.json#/properties/secret"},
		"file":     map[string]any{"$ref": "file:///etc/passwd"},
		"relative": map[string]any{"$ref": "defs.json#/x"},
	}}
	got, _ := cleanSchema(schema)
	want := `{"properties":{"file":{},"fragment":{},"relative":{},"remote":{}},"type":"object"}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the cleaner fetched a $ref %d times", n)
	}
}

// A schema every provider accepts is passed through as the server sent it.
func TestCleanSchemaPassesAcceptableSchemaThrough(t *testing.T) {
	for _, in := range []string{
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"path":{"type":"string","format":"uri","x-vendor":{"$ref":"not a schema here"}},
		  "mode":{"enum":["r","w"],"default":"r"},"opts":{"type":"object","additionalProperties":true,
		  "properties":{"n":{"type":"integer","minimum":1,"maximum":9007199254740000}}},
		  "v":{"anyOf":[{"type":"string"},{"type":"null"}]},"tuple":{"type":"array","items":[{"type":"string"},false]}},
		  "required":["path"],"additionalProperties":false,"description":"Reads a file."}`,
	} {
		var schema any
		if err := json.Unmarshal([]byte(in), &schema); err != nil {
			t.Fatal(err)
		}
		c := schemaCleaner{root: schema.(map[string]any)}
		if !c.acceptable(schema.(map[string]any)) {
			t.Errorf("not taken as acceptable: %s", in)
		}
		want, _ := json.Marshal(schema)
		got, note := cleanSchema(schema)
		if string(got) != string(want) || note != "" {
			t.Errorf("got %s (note %q)\nwant %s", got, note, want)
		}
	}
	// And anything cleaning would change is not taken as acceptable.
	for _, in := range []string{
		`{"type":"object"}`,
		`{"properties":{}}`,
		`{"type":"object","properties":{},"anyOf":[]}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{}}}`,
		`{"type":"object","properties":{"a":{"type":"string","$comment":"c"}}}`,
		`{"type":"object","properties":{"a":true}}`,
		`{"type":"object","properties":{"a":{"items":"string"}}}`,
		`{"type":"object","properties":{"a":{"anyOf":{"type":"string"}}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":[true]}}}`,
	} {
		var schema map[string]any
		if err := json.Unmarshal([]byte(in), &schema); err != nil {
			t.Fatal(err)
		}
		c := schemaCleaner{root: schema}
		if c.acceptable(schema) {
			t.Errorf("taken as acceptable: %s", in)
		}
	}
}

func TestCleanSchemaLargeSchemaFallsBack(t *testing.T) {
	props := map[string]any{}
	for i := range 5000 {
		props[fmt.Sprintf("property_%05d", i)] = map[string]any{"type": "string", "description": strings.Repeat("d", 60)}
	}
	for _, schema := range []map[string]any{
		{"type": "object", "properties": props},                                                  // acceptable, too large
		{"type": "object", "properties": props, "$schema": "draft-07"},                           // cleaned, too large
		{"type": "object", "properties": map[string]any{"e": map[string]any{"enum": bigEnum()}}}, // a big kept value
	} {
		got, note := cleanSchema(schema)
		if string(got) != string(anySchema) || note == "" {
			t.Errorf("a schema over 256 KiB gave %d bytes, note %q", len(got), note)
		}
	}
}

func bigEnum() []any {
	out := make([]any, 40_000)
	for i := range out {
		out[i] = fmt.Sprint("value-", i)
	}
	return out
}

// FuzzCleanSchema checks that any schema cleans to a bounded object schema
// without a $ref, whatever its references.
func FuzzCleanSchema(f *testing.F) {
	bomb, _ := json.Marshal(selfRefBomb(8))
	f.Add(string(bomb))
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`)
	f.Add(`{"anyOf":[{"$ref":"#"},{"properties":{"x":{"$ref":"#/anyOf/0"}}}]}`)
	f.Add(`{"$defs":{"a":{"items":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var schema any
		if json.Unmarshal([]byte(in), &schema) != nil {
			return
		}
		got, _ := cleanSchema(schema)
		if len(got) > maxSchemaBytes {
			t.Fatalf("%d bytes", len(got))
		}
		var out map[string]any
		if err := json.Unmarshal(got, &out); err != nil || out["type"] != "object" {
			t.Fatalf("not an object schema: %s", got)
		}
		if _, ok := out["properties"].(map[string]any); !ok {
			t.Fatalf("no properties: %s", got)
		}
	})
}

// orderSchema is a JSON Schema 2020-12 input schema using what providers
// reject: $schema, $id, $defs with local $refs (a JSON pointer and an
// $anchor), a network $ref to remote, allOf/anyOf/oneOf/not, if/then/else
// and additionalProperties false.
func orderSchema(t *testing.T, remote string) map[string]any {
	t.Helper()
	text := `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "$id": "https://example.com/schemas/order.json",
	  "$comment": "kept as sent",
	  "type": "object",
	  "properties": {
	    "item": {"$ref": "#/$defs/item", "description": "what to order"},
	    "shipTo": {"$ref": "#address"},
	    "customer": {"$ref": "` + remote + `/customer.json"},
	    "pay": {"oneOf": [{"$ref": "#/$defs/card"}, {"$ref": "#/$defs/iban"}]},
	    "express": {"type": "boolean"},
	    "note": {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]}
	  },
	  "required": ["item"],
	  "allOf": [{"required": ["shipTo"]}],
	  "if": {"properties": {"express": {"const": true}}, "required": ["express"]},
	  "then": {"required": ["note"]},
	  "else": {"not": {"required": ["note"]}},
	  "additionalProperties": false,
	  "$defs": {
	    "item": {"type": "object", "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d+$"},
	      "qty": {"type": "integer", "minimum": 1}}, "required": ["sku"], "additionalProperties": false},
	    "address": {"$anchor": "address", "type": "object", "properties": {"line": {"type": "string"}}},
	    "card": {"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]},
	    "iban": {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]}
	  }
	}`
	var s map[string]any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A tool's schema reaches Tool.Schema as the server sent it, through a
// real listing and in the server:tools event, with its $refs neither
// resolved nor fetched; models still get the cleaned schema in InputSchema.
func TestToolKeepsSchemaAsSent(t *testing.T) {
	var hits atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object","properties":{"secret":{"type":"string"}}}`))
	}))
	defer remote.Close()
	sent := orderSchema(t, remote.URL)
	f := newMemServer()
	f.tools = []*mcp.Tool{{Name: "order", InputSchema: sent}}
	m, rec := f.start(t, Options{Logger: testLogger(t)}, serverconf.Config{Name: "Shop"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ev, err := rec.Wait(ctx, 0, eventtest.Is(EventServerTools, func(te ToolsEvent) bool { return te.ServerID == "x" && len(te.Tools) == 1 }))
	if err != nil {
		t.Fatalf("no server:tools event with the tool: %v", err)
	}
	tool, ok := m.Lookup("x__order")
	if !ok {
		t.Fatal("x__order is not registered")
	}
	for _, got := range []Tool{tool, ev.Payload.(ToolsEvent).Tools[0]} {
		var schema map[string]any
		if err := json.Unmarshal(got.Schema, &schema); err != nil {
			t.Fatalf("Schema %q: %v", got.Schema, err)
		}
		if diff := cmp.Diff(sent, schema); diff != "" {
			t.Errorf("Schema is not the schema as sent (-want +got):\n%s", diff)
		}
		want, _ := cleanSchema(sent)
		if string(got.InputSchema) != string(want) {
			t.Errorf("InputSchema is not the cleaned schema:\n got %s\nwant %s", got.InputSchema, want)
		}
	}
	var cleaned map[string]any
	if err := json.Unmarshal(tool.InputSchema, &cleaned); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$schema", "$id", "$defs", "allOf", "anyOf", "oneOf", "if", "then", "else"} {
		if _, ok := cleaned[k]; ok {
			t.Errorf("the cleaned schema keeps %q at the top: %s", k, tool.InputSchema)
		}
	}
	for _, k := range []string{`"$ref"`, `"$anchor"`, `"$comment"`} {
		if strings.Contains(string(tool.InputSchema), k) {
			t.Errorf("the cleaned schema keeps %s: %s", k, tool.InputSchema)
		}
	}
	// The tool is encoded for the UI with both.
	data, _ := json.Marshal(tool)
	var wire struct{ InputSchema, Schema map[string]any }
	if err := json.Unmarshal(data, &wire); err != nil || wire.Schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || wire.InputSchema["type"] != "object" {
		t.Errorf("encoded tool %s (%v)", data, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the network $ref was fetched %d times", n)
	}
}

// A schema over maxSchemaBytes as sent is not kept (Schema nil), whatever
// becomes of the cleaned one; a kept schema counts in the listing's budget,
// once when cleaning changed nothing.
func TestToolSchemaAsSentIsBounded(t *testing.T) {
	big := map[string]any{}
	for i := range 5000 {
		big[fmt.Sprintf("property_%05d", i)] = map[string]any{"type": "string", "description": strings.Repeat("d", 60)}
	}
	plain := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}
	withDefs := map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/p"}},
		"$defs": map[string]any{"p": map[string]any{"type": "string"}}}
	for _, tt := range []struct {
		name       string
		schema     any
		wantSchema bool   // Schema kept
		wantInput  string // InputSchema, or "" for any but anySchema
		wantShared bool   // Schema and InputSchema are one slice, counted once
	}{
		{name: "none sent", schema: nil, wantInput: string(anySchema)},
		{name: "acceptable, kept once", schema: plain, wantSchema: true, wantShared: true},
		{name: "cleaned, both kept", schema: withDefs, wantSchema: true},
		{name: "too large as sent and cleaned", schema: map[string]any{"type": "object", "properties": big}, wantInput: string(anySchema)},
		// Its cleaned form drops the unused $defs and is small.
		{name: "too large as sent only", schema: map[string]any{"type": "object", "properties": map[string]any{}, "$defs": big}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newToolListing(DefaultMaxTools)
			l.add(&mcp.Tool{Name: "t", InputSchema: tt.schema})
			ti := l.tools[0]
			if tt.wantSchema {
				var got any
				if err := json.Unmarshal(ti.sent, &got); err != nil {
					t.Fatalf("Schema %q: %v", ti.sent, err)
				}
				if diff := cmp.Diff(tt.schema, got); diff != "" {
					t.Errorf("Schema (-want +got):\n%s", diff)
				}
			} else if ti.sent != nil {
				t.Errorf("Schema is %d bytes, want nil", len(ti.sent))
			}
			if tt.wantInput != "" && string(ti.schema) != tt.wantInput {
				t.Errorf("InputSchema = %.100s, want %s", ti.schema, tt.wantInput)
			}
			if tt.wantInput == "" && string(ti.schema) == string(anySchema) {
				t.Errorf("InputSchema is the any-object fallback")
			}
			if ti.sentIsSchema != tt.wantShared {
				t.Errorf("sentIsSchema = %v, want %v", ti.sentIsSchema, tt.wantShared)
			}
			want := len(ti.name) + len(ti.schema)
			if !tt.wantShared {
				want += len(ti.sent)
			}
			if l.bytes != want {
				t.Errorf("listing counts %d bytes, want %d", l.bytes, want)
			}
		})
	}
}

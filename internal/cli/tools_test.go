package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServersToolsSchema: servers tools lists a server's tools, and with
// -schema prints each one's input schema as the server sent it (JSON
// Schema 2020-12 with $defs, $ref and $anchor), never fetching a $ref.
func TestServersToolsSchema(t *testing.T) {
	var hits atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer remote.Close()
	var sent map[string]any
	if err := json.Unmarshal([]byte(`{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "properties": {
	    "item": {"$ref": "#/$defs/item"},
	    "shipTo": {"$ref": "#address"},
	    "customer": {"$ref": "`+remote.URL+`/customer.json"},
	    "note": {"anyOf": [{"type": "string", "pattern": "^[^<>&]*$"}, {"type": "null"}]}
	  },
	  "required": ["item"],
	  "if": {"required": ["note"]}, "then": {"required": ["shipTo"]},
	  "additionalProperties": false,
	  "$defs": {
	    "item": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]},
	    "address": {"$anchor": "address", "type": "string"}
	  }
	}`), &sent); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "order", Description: "Places an order.\nSecond line.", InputSchema: sent},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	dir := t.TempDir()
	mustImport(t, dir, `{"mcpServers": {"shop": {"url": "`+serveMCP(t, srv)+`"}}}`)

	code, out, errOut := run(t, dir, "", "servers", "tools")
	if code != 0 || !strings.Contains(out, "SERVER") || !strings.Contains(out, "shop    order  true     -      Places an order.\n") {
		t.Fatalf("tools: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	code, out, errOut = run(t, dir, "", "servers", "tools", "-schema", "shop")
	head, schema, _ := strings.Cut(out, "\n")
	if code != 0 || head != "shop/order (models see shop__order)" {
		t.Fatalf("tools -schema: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(schema), &got); err != nil {
		t.Fatalf("the schema printed is not JSON: %v\n%s", err, schema)
	}
	if diff := cmp.Diff(sent, got); diff != "" {
		t.Errorf("the schema printed is not the one sent (-want +got):\n%s", diff)
	}
	if !strings.Contains(schema, `"pattern": "^[^<>&]*$"`) {
		t.Errorf("the schema is printed with escapes:\n%s", schema)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a $ref was fetched %d times", n)
	}

	if code, _, errOut := run(t, dir, "", "servers", "tools", "nosuch"); code != 1 || !strings.Contains(errOut, `no server "nosuch"`) {
		t.Errorf("tools of an unknown server: exit %d: %s", code, errOut)
	}
}

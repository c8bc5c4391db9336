package toolsearch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
)

// pairHash is the SHA-256 of the pair as requests carry it. Changing the
// pair's text empties every user's prompt cache once: do it knowingly,
// then update the hash.
const pairHash = "a3ad572dd07e2c6f106a7e49de3bf98b93a6751074198c5a90fe7f812080b513"

// The pair is the same bytes on every call, valid, and what pairHash says.
func TestPairStable(t *testing.T) {
	encode := func() []byte {
		var b bytes.Buffer
		for _, d := range Pair() {
			b.WriteString(d.Name + "\x00" + d.Description + "\x00")
			b.Write(d.Parameters)
			b.WriteByte(0)
		}
		return b.Bytes()
	}
	first := encode()
	p := Pair()
	p[0].Parameters[0] = 'X' // a caller's change to its copy
	p[1].Description = "changed"
	if again := encode(); !bytes.Equal(first, again) {
		t.Fatalf("Pair changed between calls:\n%s\n%s", first, again)
	}
	sum := sha256.Sum256(first)
	if got := hex.EncodeToString(sum[:]); got != pairHash {
		t.Errorf("the pair's hash is %s, want %s: the pair changed (see pairHash)", got, pairHash)
	}
	for _, d := range Pair() {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema.Type != "object" || len(schema.Properties) != 2 {
			t.Errorf("%s: parameters %s (%v)", d.Name, d.Parameters, err)
		}
		if !IsMeta(d.Name) || strings.Contains(d.Name, "__") {
			t.Errorf("%s: not a meta name, or one a server's tool could have", d.Name)
		}
	}
}

// The fake provider spells the pair's names itself (it shares no code with
// the app); they must be these.
func TestFakeProviderKnowsThePair(t *testing.T) {
	if llmtest.SearchToolName != SearchName || llmtest.CallToolName != CallName {
		t.Errorf("llmtest has %s and %s", llmtest.SearchToolName, llmtest.CallToolName)
	}
}

func TestSettingsUse(t *testing.T) {
	tests := []struct {
		s            Settings
		count, bytes int
		want         bool
	}{
		{Settings{}, 64, 24 * 1024, false},
		{Settings{}, 65, 100, true},
		{Settings{}, 10, 24*1024 + 1, true},
		{Settings{Mode: ModeAuto, MaxTools: 5}, 6, 10, true},
		{Settings{Mode: ModeAuto, MaxBytes: 1000}, 2, 1001, true},
		{Settings{Mode: ModeAlways}, 1, 10, true},
		{Settings{Mode: ModeAlways}, 0, 0, false},
		{Settings{Mode: ModeOff}, 1000, 1 << 20, false},
	}
	for _, tt := range tests {
		if got := tt.s.Use(tt.count, tt.bytes); got != tt.want {
			t.Errorf("%+v.Use(%d, %d) = %v, want %v", tt.s, tt.count, tt.bytes, got, tt.want)
		}
	}
	for _, bad := range []Settings{{Mode: "sometimes"}, {MaxTools: -1}, {MaxTools: 10_001}, {MaxBytes: 17 << 20}} {
		if bad.Check() == nil {
			t.Errorf("%+v passed Check", bad)
		}
	}
	if err := (Settings{Mode: ModeOff, MaxTools: 10, MaxBytes: 1000}).Check(); err != nil {
		t.Error(err)
	}
}

func TestParseSearch(t *testing.T) {
	tests := []struct {
		raw  string
		want SearchArgs
		err  string
	}{
		{`{"query":"read a file"}`, SearchArgs{Query: "read a file"}, ""},
		{`{"query":"x","limit":3}`, SearchArgs{Query: "x", Limit: 3}, ""},
		{`{"query":"x","limit":"7"}`, SearchArgs{Query: "x", Limit: 7}, ""},
		{`{"query":"x","limit":99}`, SearchArgs{Query: "x", Limit: MaxResults}, ""},
		{`{"query":"x","limit":0}`, SearchArgs{Query: "x", Limit: 1}, ""},
		{`{"query":"x","limit":null}`, SearchArgs{Query: "x"}, ""},
		{`{"query":"x","limit":"many"}`, SearchArgs{}, `"limit"`},
		{`{"query":"  "}`, SearchArgs{}, `needs a "query"`},
		{`{"query":5}`, SearchArgs{}, `needs a "query"`},
		{``, SearchArgs{}, `needs a "query"`},
		{`["read"]`, SearchArgs{}, "must be a JSON object"},
		{`{"query":`, SearchArgs{}, "must be a JSON object"},
	}
	for _, tt := range tests {
		got, err := ParseSearch(tt.raw)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSearch(%s): err %v, want one with %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSearch(%s) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
		}
	}
	long, _ := ParseSearch(`{"query":"` + strings.Repeat("é", MaxQueryBytes) + `"}`)
	if len(long.Query) > MaxQueryBytes || !strings.HasPrefix(long.Query, "éé") || strings.ContainsRune(long.Query, '\uFFFD') {
		t.Errorf("a long query is kept as %d bytes", len(long.Query))
	}
}

func TestParseCall(t *testing.T) {
	tests := []struct {
		raw        string
		name, args string
		err        string
	}{
		{`{"name":"fs__read","arguments":{"path":"/a"}}`, "fs__read", `{"path":"/a"}`, ""},
		{`{"name":" fs__read ","arguments":"{\"path\":\"/a\"}"}`, "fs__read", `{"path":"/a"}`, ""},
		{`{"name":"fs__read"}`, "fs__read", `{}`, ""},
		{`{"name":"fs__read","arguments":null}`, "fs__read", `{}`, ""},
		{`{"name":"fs__read","arguments":[1]}`, "", "", `"arguments" of call_tool must be a JSON object`},
		{`{"name":"fs__read","arguments":"not json"}`, "", "", `"arguments" of call_tool must be a JSON object`},
		{`{"arguments":{}}`, "", "", `needs the "name"`},
		{`{"name":""}`, "", "", `needs the "name"`},
		{`"fs__read"`, "", "", "must be a JSON object"},
	}
	for _, tt := range tests {
		got, err := ParseCall(tt.raw)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseCall(%s): err %v, want one with %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || got.Name != tt.name || string(got.Arguments) != tt.args {
			t.Errorf("ParseCall(%s) = %q %s, %v; want %q %s", tt.raw, got.Name, got.Arguments, err, tt.name, tt.args)
		}
	}
}

// Format gives full definitions within the byte budget, the best match
// always, the rest by name; with nothing found it names the servers.
func TestFormat(t *testing.T) {
	ix := NewIndex(catalog())
	matches := ix.Search("list issues", 5)
	var r struct {
		Query string `json:"query"`
		Tools []struct {
			Name        string          `json:"name"`
			Server      string          `json:"server"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
		More      []struct{ Name, Description string } `json:"more"`
		Available int                                  `json:"available"`
		Hint      string                               `json:"hint"`
	}
	text := Format("list issues", matches, 300, nil, 0)
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("Format is not JSON: %v\n%s", err, text)
	}
	if len(r.Tools) != 5 || len(r.More) != 0 || r.Available != 300 || !strings.Contains(r.Hint, "call_tool") {
		t.Fatalf("Format = %s", text)
	}
	if r.Tools[0].Name != matches[0].Tool.Name || r.Tools[0].Server == "" || !json.Valid(r.Tools[0].Parameters) ||
		bytes.Contains(r.Tools[0].Parameters, []byte(" ")) && !bytes.Contains(matches[0].Tool.InputSchema, []byte(" ")) {
		t.Errorf("first tool: %+v", r.Tools[0])
	}

	// A budget of one definition: the best match whole, the others named.
	small := Format("list issues", matches, 300, nil, 10)
	r.Tools, r.More = nil, nil
	if err := json.Unmarshal([]byte(small), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 1 || len(r.More) != 4 || r.More[0].Name != matches[1].Tool.Name || !strings.Contains(r.Hint, `"more"`) {
		t.Errorf("Format with 10 bytes = %s", small)
	}
	if len(text) > DefaultResultBytes+1024 {
		t.Errorf("a result of five takes %d bytes", len(text))
	}

	none := Format("zebra", nil, 300, []string{"GitHub", "Jira"}, 0)
	if !strings.Contains(none, `"tools":[]`) || !strings.Contains(none, "servers: GitHub, Jira") {
		t.Errorf("Format with no match = %s", none)
	}
	many := make([]string, 30)
	for i := range many {
		many[i] = "s"
	}
	if got := Format("zebra", nil, 300, many, 0); !strings.Contains(got, "and 10 more") {
		t.Errorf("30 servers: %s", got)
	}
}

func TestCatalogDefinitionsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, tl := range catalog() {
		if seen[tl.Name] {
			t.Errorf("duplicate %s", tl.Name)
		}
		seen[tl.Name] = true
		var s map[string]any
		if err := json.Unmarshal(tl.InputSchema, &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: schema %s", tl.Name, tl.InputSchema)
		}
	}
	if diff := cmp.Diff(300, len(seen)); diff != "" {
		t.Error(diff)
	}
}

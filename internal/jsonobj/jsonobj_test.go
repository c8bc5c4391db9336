package jsonobj

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMembersRoundTrip(t *testing.T) {
	in := `{"b":1,"a":{"x":[1,2]},"b":"<&>"}`
	m, ok := Members(json.RawMessage(in))
	if !ok {
		t.Fatal("not an object")
	}
	want := Object{{"b", json.RawMessage(`1`)}, {"a", json.RawMessage(`{"x":[1,2]}`)}, {"b", json.RawMessage(`"<&>"`)}}
	if d := cmp.Diff(want, m); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
	out, err := Marshal(m) // json.Marshal would escape < & > again
	if err != nil || string(out) != in {
		t.Errorf("marshalled %s, %v; want %s", out, err, in)
	}
	for _, bad := range []string{`[1]`, `"s"`, `{"a":`, ``} {
		if _, ok := Members(json.RawMessage(bad)); ok {
			t.Errorf("Members(%q) ok", bad)
		}
	}
}

func TestAdd(t *testing.T) {
	var o Object
	o.Add("k<", []string{"a&b"})
	out, err := Marshal(o)
	if err != nil || string(out) != `{"k<":["a\u0026b"]}` {
		t.Errorf("got %s, %v", out, err)
	}
}

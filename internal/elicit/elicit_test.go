package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// everythingSchema is the form server-everything's
// trigger-elicitation-request tool asks for (2026.8.31).
const everythingSchema = `{
  "type": "object",
  "properties": {
    "name": {"title": "String", "type": "string", "description": "Your full, legal name"},
    "check": {"title": "Boolean", "type": "boolean", "description": "Agree to the terms and conditions"},
    "firstLine": {"title": "String with default", "type": "string", "default": "It was a dark and stormy night."},
    "email": {"title": "String with email format", "type": "string", "format": "email"},
    "homepage": {"type": "string", "format": "uri", "title": "String with uri format"},
    "birthdate": {"title": "String with date format", "type": "string", "format": "date"},
    "integer": {"title": "Integer", "type": "integer", "minimum": 1, "maximum": 100, "default": 42},
    "number": {"title": "Number in range 1-1000", "type": "number", "minimum": 0, "maximum": 1000, "default": 3.14},
    "untitledSingleSelectEnum": {"type": "string", "title": "Untitled Single Select Enum", "enum": ["Monica", "Rachel"], "default": "Monica"},
    "untitledMultipleSelectEnum": {"type": "array", "title": "Untitled Multiple Select Enum", "minItems": 1, "maxItems": 3,
      "items": {"type": "string", "enum": ["Guitar", "Piano", "Violin", "Drums"]}, "default": ["Guitar"]},
    "titledSingleSelectEnum": {"type": "string", "title": "Titled Single Select Enum",
      "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Green Lantern"}], "default": "hero-1"},
    "titledMultipleSelectEnum": {"type": "array", "title": "Titled Multiple Select Enum", "minItems": 1, "maxItems": 3,
      "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": "Salmon"}]}, "default": ["fish-1"]},
    "legacyTitledEnum": {"type": "string", "title": "Legacy Titled Single Select Enum", "enum": ["pet-1", "pet-2"],
      "enumNames": ["Cats", "Dogs"], "default": "pet-1"}
  },
  "required": ["name"]
}`

func ptr[T any](v T) *T { return &v }

func TestParseFormOfServerEverything(t *testing.T) {
	form, err := ParseForm(json.RawMessage(everythingSchema))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Name: "name", Title: "String", Description: "Your full, legal name", Type: TypeString, Required: true},
		{Name: "check", Title: "Boolean", Description: "Agree to the terms and conditions", Type: TypeBoolean},
		{Name: "firstLine", Title: "String with default", Type: TypeString, Default: "It was a dark and stormy night."},
		{Name: "email", Title: "String with email format", Type: TypeString, Format: "email"},
		{Name: "homepage", Title: "String with uri format", Type: TypeString, Format: "uri"},
		{Name: "birthdate", Title: "String with date format", Type: TypeString, Format: "date"},
		{Name: "integer", Title: "Integer", Type: TypeInteger, Minimum: ptr(1.0), Maximum: ptr(100.0), Default: 42.0},
		{Name: "number", Title: "Number in range 1-1000", Type: TypeNumber, Minimum: ptr(0.0), Maximum: ptr(1000.0), Default: 3.14},
		{Name: "untitledSingleSelectEnum", Title: "Untitled Single Select Enum", Type: TypeSelect,
			Options: []Option{{"Monica", "Monica"}, {"Rachel", "Rachel"}}, Default: "Monica"},
		{Name: "untitledMultipleSelectEnum", Title: "Untitled Multiple Select Enum", Type: TypeMultiSelect, MinItems: ptr(1), MaxItems: ptr(3),
			Options: []Option{{"Guitar", "Guitar"}, {"Piano", "Piano"}, {"Violin", "Violin"}, {"Drums", "Drums"}}, Default: []any{"Guitar"}},
		{Name: "titledSingleSelectEnum", Title: "Titled Single Select Enum", Type: TypeSelect,
			Options: []Option{{"hero-1", "Superman"}, {"hero-2", "Green Lantern"}}, Default: "hero-1"},
		{Name: "titledMultipleSelectEnum", Title: "Titled Multiple Select Enum", Type: TypeMultiSelect, MinItems: ptr(1), MaxItems: ptr(3),
			Options: []Option{{"fish-1", "Tuna"}, {"fish-2", "Salmon"}}, Default: []any{"fish-1"}},
		{Name: "legacyTitledEnum", Title: "Legacy Titled Single Select Enum", Type: TypeSelect,
			Options: []Option{{"pet-1", "Cats"}, {"pet-2", "Dogs"}}, Default: "pet-1"},
	}
	if diff := cmp.Diff(want, form.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}

	form.RequiredFirst()
	var names []string
	for _, f := range form.Fields[:3] {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "name,birthdate,check" {
		t.Errorf("required first, then by name: %s", got)
	}
}

func TestSchemasThatAreNotForms(t *testing.T) {
	for _, tt := range []struct {
		name, schema, why string
	}{
		{"nested object", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`, `uses "properties"`},
		{"pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`, `uses "pattern"`},
		{"array of numbers", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}}}`, "other than choices"},
		{"unknown format", `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`, `format "ipv4"`},
		{"no type", `{"type":"object","properties":{"a":{"title":"A"}}}`, "has no type"},
		{"not an object", `{"type":"string"}`, "not object"},
		{"a list", `[1,2]`, "not a JSON object"},
		{"required unknown", `{"type":"object","properties":{},"required":["x"]}`, `requires "x"`},
		{"oneOf at the top", `{"oneOf":[{"type":"object"}]}`, `uses "oneOf"`},
		{"bad bounds", `{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":1}}}`, "maximum below minimum"},
		{"numeric enum", `{"type":"object","properties":{"a":{"type":"string","enum":[1,2]}}}`, "not a string"},
		{"enumNames mismatch", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"enumNames":["X"]}}}`, "enumNames"},
		{"items keyword", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","enum":["x"],"pattern":"y"}}}}`, `items that use "pattern"`},
		{"too many fields", tooMany(), "more than 64"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseForm(json.RawMessage(tt.schema))
			if !errors.Is(err, ErrNotAForm) || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("ParseForm = %v; want ErrNotAForm saying %q", err, tt.why)
			}
		})
	}
}

func tooMany() string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range MaxFields + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + strings.Repeat("x", i) + `":{"type":"boolean"}`)
	}
	b.WriteString("}}")
	return b.String()
}

func TestDefaultOfTheWrongTypeIsLeftOut(t *testing.T) {
	form, err := ParseForm(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":"seven","maximum":3},"m":{"type":"integer","maximum":3,"default":9}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range form.Fields {
		if f.Default != nil {
			t.Errorf("%s keeps default %v", f.Name, f.Default)
		}
	}
}

func TestCheckAnswers(t *testing.T) {
	form, err := ParseForm(json.RawMessage(everythingSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		content string
		want    []FieldError // nil: accepted
	}{
		{"only the required", `{"name":"Ada"}`, nil},
		{"everything", `{"name":"Ada","check":true,"email":"ada@example.com","homepage":"https://ada.example","birthdate":"1815-12-10",
			"integer":7,"number":2.5,"untitledSingleSelectEnum":"Rachel","untitledMultipleSelectEnum":["Piano","Drums"],
			"titledSingleSelectEnum":"hero-2","titledMultipleSelectEnum":["fish-2"],"legacyTitledEnum":"pet-2"}`, nil},
		{"missing required", `{}`, []FieldError{{"name", "required"}}},
		{"empty required", `{"name":""}`, []FieldError{{"name", "required"}}},
		{"bad email", `{"name":"a","email":"Ada <ada@example.com>"}`, []FieldError{{"email", "must be an email address, like name@example.com"}}},
		{"bad uri", `{"name":"a","homepage":"ada.example"}`, []FieldError{{"homepage", "must be a full address, like https://example.com"}}},
		{"bad date", `{"name":"a","birthdate":"10/12/1815"}`, []FieldError{{"birthdate", "must be a date, like 2025-12-31"}}},
		{"not whole", `{"name":"a","integer":1.5}`, []FieldError{{"integer", "must be a whole number"}}},
		{"over maximum", `{"name":"a","integer":101}`, []FieldError{{"integer", "at most 100"}}},
		{"under minimum", `{"name":"a","number":-1}`, []FieldError{{"number", "at least 0"}}},
		{"number as text", `{"name":"a","number":"3"}`, []FieldError{{"number", "must be a number"}}},
		{"not a choice", `{"name":"a","titledSingleSelectEnum":"Superman"}`, []FieldError{{"titledSingleSelectEnum", "must be one of the choices"}}},
		{"too many picked", `{"name":"a","untitledMultipleSelectEnum":["Guitar","Piano","Violin","Drums"]}`, []FieldError{{"untitledMultipleSelectEnum", "pick at most 3"}}},
		{"none picked", `{"name":"a","titledMultipleSelectEnum":[]}`, []FieldError{{"titledMultipleSelectEnum", "pick at least 1"}}},
		{"picked twice", `{"name":"a","titledMultipleSelectEnum":["fish-1","fish-1"]}`, []FieldError{{"titledMultipleSelectEnum", "has a choice twice"}}},
		{"unknown field", `{"name":"a","color":"red"}`, []FieldError{{"color", "the form has no such field"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var content map[string]any
			if err := json.Unmarshal([]byte(tt.content), &content); err != nil {
				t.Fatal(err)
			}
			err := form.Check(content)
			var ce *CheckError
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v; want a CheckError", err)
			}
			if diff := cmp.Diff(tt.want, ce.Fields); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSONEditorAnswerIsCheckedAgainstTheSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","pattern":"^[0-9]{4}$"}},"required":["code"]}`)
	r, err := NewRequest("form", "Your PIN?", schema, "", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Form != nil || !strings.Contains(r.FormProblem, `uses "pattern"`) || !strings.Contains(r.Schema, "\n  \"properties\"") {
		t.Fatalf("request = %+v", r)
	}
	for _, tt := range []struct {
		content string
		ok      bool
	}{
		{`{"code":"1234"}`, true},
		{`{"code":"12a4"}`, false},
		{`{}`, false},
		{`{"code":{"nested":true}}`, false},
	} {
		var c map[string]any
		json.Unmarshal([]byte(tt.content), &c)
		err := r.Check(Answer{Action: Accept, Content: c})
		if (err == nil) != tt.ok {
			t.Errorf("%s: Check = %v; want ok %v", tt.content, err, tt.ok)
		}
	}
}

func TestURLRequests(t *testing.T) {
	r, err := NewRequest("url", "Sign in", nil, "https://login.example.com/auth?x=1", "e1", true)
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != "https://login.example.com/auth?x=1" || r.Host != "login.example.com" || r.ElicitationID != "e1" {
		t.Errorf("request = %+v", r)
	}
	if err := r.Check(Answer{Action: Accept}); err != nil {
		t.Errorf("accept: %v", err)
	}
	if err := r.Check(Answer{Action: Accept, Content: map[string]any{"x": "y"}}); err == nil {
		t.Error("an accept of a URL with content was taken")
	}
	if err := r.Check(Answer{Action: "maybe"}); !errors.Is(err, ErrBadAction) {
		t.Errorf("unknown action: %v", err)
	}
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "https://user:pw@evil.example/", "/relative", "https://" + strings.Repeat("a", MaxURLLength)} {
		if _, err := NewRequest("url", "x", nil, bad, "", true); err == nil {
			t.Errorf("%.40s was taken", bad)
		}
	}
	if _, err := NewRequest("telepathy", "x", nil, "", "", true); err == nil {
		t.Error("an unknown mode was taken")
	}
}

// TestURLSummaryLeavesOutTheQuery: the summary goes into the server's log
// (kept on disk) and the CLI's output; a page's query and fragment often
// carry a one-time token (a sign-in code, a payment session), so they are
// left out, as they are of what the model is told.
func TestURLSummaryLeavesOutTheQuery(t *testing.T) {
	r, err := NewRequest("url", "Sign in", nil, "https://auth.example.com/connect/start?code=S3CRET-TOKEN&state=x#frag-S3CRET", "e1", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{r.Summary(), r.WaitFor().Summary()} {
		if strings.Contains(s, "S3CRET") || !strings.Contains(s, "auth.example.com") {
			t.Errorf("summary %q", s)
		}
	}
	if want := `"Sign in" (to open https://auth.example.com/connect/start?…)`; r.Summary() != want {
		t.Errorf("summary %q, want %q", r.Summary(), want)
	}
	if r.URL != "https://auth.example.com/connect/start?code=S3CRET-TOKEN&state=x#frag-S3CRET" {
		t.Errorf("the dialog's URL is %q; it shows the whole URL", r.URL)
	}
}

// TestJSONEditorRefBombIsNotRun: a requested schema whose $refs each name
// two more would make checking an answer take time and memory that grow
// as 2ⁿ; it is refused, and the user can only decline.
func TestJSONEditorRefBombIsNotRun(t *testing.T) {
	var defs []string
	n := 16
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
	schema := `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/d0"}`
	err := CheckSchema(json.RawMessage(schema), map[string]any{"a": "x"})
	var ce *CheckError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "decline") {
		t.Errorf("CheckSchema: %v", err)
	}
}

// TestURLHostAsTheBrowserReadsIt: a look-alike host is shown and opened in
// punycode, one with a right-to-left override is refused, and IP hosts and
// ports stay as they are.
func TestURLHostAsTheBrowserReadsIt(t *testing.T) {
	for _, tt := range []struct{ link, host, err string }{
		{"https://\u0430pple.com/login?x=1", "xn--pple-43d.com", ""},
		{"https://EXAMPLE.com:8443/a", "example.com:8443", ""},
		{"http://[::1]:8080/cb", "[::1]:8080", ""},
		{"http://127.0.0.1/cb", "127.0.0.1", ""},
		{"https://evil\u202ecom.example/", "", "not a valid name"},
	} {
		u, err := checkURL(tt.link)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("checkURL(%q) = %v, want an error with %q", tt.link, err, tt.err)
			}
			continue
		}
		if err != nil || u.Host != tt.host {
			t.Errorf("checkURL(%q) host = %v, %v; want %q", tt.link, u, err, tt.host)
		}
	}
}

// Package elicit reads what a server asks the user for with
// elicitation/create: a form, from the flat JSON schema the request carries,
// or a URL to open. It turns the schema into fields the window can render
// (ParseForm) and checks the user's answer against it before it goes back
// (Form.Check), so that a server gets only content that matches what it
// asked for.
//
// MCP restricts the schema to an object of primitive properties: strings
// (formats email, uri, date, date-time; min/maxLength), numbers and
// integers (minimum/maximum), booleans, single-select enums (enum, with
// legacy enumNames, or titled oneOf) and multi-select arrays (items with
// enum or titled anyOf). A schema outside that, or past the bounds below,
// is not a form: the window offers a JSON editor instead, and the answer
// is checked against the schema itself (CheckSchema).
package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds on what a server may ask for.
const (
	// MaxSchemaBytes bounds the requested schema.
	MaxSchemaBytes = 256 << 10
	// MaxFields bounds a form's fields.
	MaxFields = 64
	// MaxOptions bounds one field's choices.
	MaxOptions = 500
	// MaxTextLength bounds what one string field may hold, in characters,
	// whatever the schema's maxLength.
	MaxTextLength = 64 << 10
	// MaxLabelLength bounds a title, a description or an option's label
	// as shown; longer ones are clipped.
	MaxLabelLength = 2000
)

// A FieldType is how a field is entered.
type FieldType string

// The field types of a form.
const (
	TypeString      FieldType = "string"
	TypeNumber      FieldType = "number"
	TypeInteger     FieldType = "integer"
	TypeBoolean     FieldType = "boolean"
	TypeSelect      FieldType = "select"      // one of Options
	TypeMultiSelect FieldType = "multiselect" // some of Options (an array)
)

// FieldTypes lists every FieldType, for the generated contract.
var FieldTypes = []FieldType{TypeString, TypeNumber, TypeInteger, TypeBoolean, TypeSelect, TypeMultiSelect}

// Formats of string fields.
var formats = []string{"email", "uri", "date", "date-time"}

// A Form is a requested schema the window can render.
type Form struct {
	Fields []Field `json:"fields"`
}

// A Field is one property of the requested schema.
type Field struct {
	// Name is the property's name, the key of the answer.
	Name        string    `json:"name"`
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description,omitempty"`
	Type        FieldType `json:"type" ts_type:"elicit.FieldType"`
	Required    bool      `json:"required"`
	// Format is email, uri, date or date-time for a string; empty for
	// free text.
	Format string `json:"format,omitempty"`
	// MinLength and MaxLength bound a string, in characters.
	MinLength *int `json:"minLength,omitempty"`
	MaxLength *int `json:"maxLength,omitempty"`
	// Minimum and Maximum bound a number or an integer.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// MinItems and MaxItems bound a multi-select's choices.
	MinItems *int `json:"minItems,omitempty"`
	MaxItems *int `json:"maxItems,omitempty"`
	// Options are a select's choices.
	Options []Option `json:"options,omitempty"`
	// Default is the value to start with (its type matches the field's),
	// nil when none.
	Default any `json:"default,omitempty" ts_type:"string | number | boolean | string[] | undefined"`
}

// An Option is one choice of a select: the value sent and its label.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// ErrNotAForm is wrapped by ParseForm's errors: the schema cannot be shown
// as a form (the error says why).
var ErrNotAForm = errors.New("the requested schema cannot be shown as a form")

// property is one property schema as sent.
type property struct {
	Type        json.RawMessage `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Enum        []any           `json:"enum"`
	EnumNames   []any           `json:"enumNames"`
	OneOf       []titled        `json:"oneOf"`
	AnyOf       []titled        `json:"anyOf"`
	Items       *property       `json:"items"`
	Default     json.RawMessage `json:"default"`
}

type titled struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// known are the keywords a form understands; annotation keywords no one
// enforces are let through. Any other keyword might constrain the answer
// in a way the form would not check, so it makes the schema a non-form.
var known = map[string]bool{
	"type": true, "title": true, "description": true, "format": true, "minLength": true, "maxLength": true,
	"minimum": true, "maximum": true, "minItems": true, "maxItems": true, "enum": true, "enumNames": true,
	"oneOf": true, "anyOf": true, "items": true, "default": true,
	"$comment": true, "examples": true, "deprecated": true,
}

// ParseForm reads a requested schema. It returns an error wrapping
// ErrNotAForm when the window cannot render it as a form. Fields keep the
// order of the schema's properties.
func ParseForm(schema json.RawMessage) (*Form, error) {
	if len(schema) > MaxSchemaBytes {
		return nil, fmt.Errorf("%w: it is larger than %d KiB", ErrNotAForm, MaxSchemaBytes>>10)
	}
	schema = bytes.TrimSpace(schema)
	if len(schema) == 0 || string(schema) == "null" {
		return &Form{Fields: []Field{}}, nil // nothing to fill in: accept or decline
	}
	top, err := objectKeys(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: it is not a JSON object", ErrNotAForm)
	}
	var root struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotAForm, err)
	}
	if root.Type != "" && root.Type != "object" {
		return nil, fmt.Errorf("%w: its type is %q, not object", ErrNotAForm, root.Type)
	}
	for _, k := range top {
		switch k.name {
		case "type", "properties", "required", "title", "description", "$schema", "$comment", "additionalProperties":
		default:
			return nil, fmt.Errorf("%w: it uses %q", ErrNotAForm, k.name)
		}
	}
	props := []keyed{}
	if len(root.Properties) > 0 && string(root.Properties) != "null" {
		if props, err = objectKeys(root.Properties); err != nil {
			return nil, fmt.Errorf("%w: its properties are not an object", ErrNotAForm)
		}
	}
	if len(props) > MaxFields {
		return nil, fmt.Errorf("%w: it has %d fields, more than %d", ErrNotAForm, len(props), MaxFields)
	}
	form := &Form{Fields: make([]Field, 0, len(props))}
	seen := map[string]bool{}
	for _, p := range props {
		if seen[p.name] {
			return nil, fmt.Errorf("%w: property %q appears twice", ErrNotAForm, p.name)
		}
		seen[p.name] = true
		f, err := parseField(p.name, p.raw)
		if err != nil {
			return nil, fmt.Errorf("%w: property %q %v", ErrNotAForm, clip(p.name, 100), err)
		}
		f.Required = slices.Contains(root.Required, p.name)
		form.Fields = append(form.Fields, f)
	}
	for _, r := range root.Required {
		if !seen[r] {
			return nil, fmt.Errorf("%w: it requires %q, which it does not describe", ErrNotAForm, clip(r, 100))
		}
	}
	return form, nil
}

// RequiredFirst orders the fields required first, each group by name: the
// order for a schema whose property order was lost (go-sdk decodes the
// requested schema into a map).
func (f *Form) RequiredFirst() {
	slices.SortStableFunc(f.Fields, func(a, b Field) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func parseField(name string, raw json.RawMessage) (Field, error) {
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return Field{}, errors.New("has no name, or a name over 200 characters")
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return Field{}, errors.New("is not an object")
	}
	for _, k := range keys {
		if !known[k.name] {
			return Field{}, fmt.Errorf("uses %q", clip(k.name, 100))
		}
		if k.name != "items" {
			continue
		}
		items, err := objectKeys(k.raw)
		if err != nil {
			return Field{}, errors.New("has items that are not an object")
		}
		for _, ik := range items {
			if !known[ik.name] {
				return Field{}, fmt.Errorf("has items that use %q", clip(ik.name, 100))
			}
		}
	}
	var p property
	if err := json.Unmarshal(raw, &p); err != nil {
		return Field{}, fmt.Errorf("is malformed: %v", err)
	}
	var typ string
	if len(p.Type) > 0 && json.Unmarshal(p.Type, &typ) != nil {
		return Field{}, errors.New("has a type that is not one string")
	}
	f := Field{Name: name, Title: clip(p.Title, MaxLabelLength), Description: clip(p.Description, MaxLabelLength)}
	if err := checkBounds(p); err != nil {
		return Field{}, err
	}
	switch {
	case typ == "string" && (len(p.Enum) > 0 || len(p.OneOf) > 0):
		if p.Format != "" || p.MinLength != nil || p.MaxLength != nil {
			return Field{}, errors.New("mixes choices with text constraints")
		}
		f.Type = TypeSelect
		if f.Options, err = options(p); err != nil {
			return Field{}, err
		}
	case typ == "string":
		if p.Format != "" && !slices.Contains(formats, p.Format) {
			return Field{}, fmt.Errorf("has format %q (a form knows email, uri, date and date-time)", clip(p.Format, 50))
		}
		f.Type, f.Format, f.MinLength, f.MaxLength = TypeString, p.Format, p.MinLength, p.MaxLength
	case typ == "number" || typ == "integer":
		f.Type, f.Minimum, f.Maximum = FieldType(typ), p.Minimum, p.Maximum
	case typ == "boolean":
		f.Type = TypeBoolean
	case typ == "array":
		if p.Items == nil {
			return Field{}, errors.New("is an array without items")
		}
		it := *p.Items
		var itemType string
		if len(it.Type) > 0 && json.Unmarshal(it.Type, &itemType) != nil {
			return Field{}, errors.New("has items whose type is not one string")
		}
		switch {
		case itemType == "string" && len(it.Enum) > 0, itemType == "" && len(it.AnyOf) > 0, itemType == "" && len(it.OneOf) > 0:
		default:
			return Field{}, errors.New("is an array of something other than choices")
		}
		if it.Items != nil || it.Format != "" || it.MinLength != nil || it.MaxLength != nil || len(it.Default) > 0 {
			return Field{}, errors.New("has items with constraints a form does not check")
		}
		if it.OneOf == nil {
			it.OneOf = it.AnyOf
		} else if it.AnyOf != nil {
			return Field{}, errors.New("has items with both oneOf and anyOf")
		}
		f.Type, f.MinItems, f.MaxItems = TypeMultiSelect, p.MinItems, p.MaxItems
		if f.Options, err = options(it); err != nil {
			return Field{}, err
		}
	case typ == "":
		return Field{}, errors.New("has no type")
	default:
		return Field{}, fmt.Errorf("has type %q (a form knows string, number, integer, boolean and arrays of choices)", clip(typ, 50))
	}
	if f.Type != TypeMultiSelect && (p.MinItems != nil || p.MaxItems != nil || p.Items != nil) {
		return Field{}, errors.New("has array constraints but is not an array")
	}
	if f.Type != TypeSelect && f.Type != TypeMultiSelect && (len(p.Enum) > 0 || len(p.OneOf) > 0 || len(p.AnyOf) > 0) {
		return Field{}, errors.New("has choices but is not a string or an array")
	}
	if f.Type != TypeString && (p.Format != "" || p.MinLength != nil || p.MaxLength != nil) {
		return Field{}, errors.New("has text constraints but is not a string")
	}
	if f.Type != TypeNumber && f.Type != TypeInteger && (p.Minimum != nil || p.Maximum != nil) {
		return Field{}, errors.New("has minimum or maximum but is not a number")
	}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		var d any
		if json.Unmarshal(p.Default, &d) == nil && f.check(d) == "" {
			f.Default = d
		} // a default the field would refuse is left out: the user fills it in
	}
	return f, nil
}

func checkBounds(p property) error {
	for _, n := range []*int{p.MinLength, p.MaxLength, p.MinItems, p.MaxItems} {
		if n != nil && *n < 0 {
			return errors.New("has a negative length bound")
		}
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MaxLength < *p.MinLength {
		return errors.New("has maxLength below minLength")
	}
	if p.MinItems != nil && p.MaxItems != nil && *p.MaxItems < *p.MinItems {
		return errors.New("has maxItems below minItems")
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Maximum < *p.Minimum {
		return errors.New("has maximum below minimum")
	}
	return nil
}

// options reads a select's choices: enum (labelled by enumNames when they
// match) or titled oneOf entries.
func options(p property) ([]Option, error) {
	if len(p.Enum) > 0 && len(p.OneOf) > 0 {
		return nil, errors.New("has both enum and oneOf")
	}
	n := max(len(p.Enum), len(p.OneOf))
	if n > MaxOptions {
		return nil, fmt.Errorf("has %d choices, more than %d", n, MaxOptions)
	}
	if len(p.EnumNames) > 0 && len(p.EnumNames) != len(p.Enum) {
		return nil, errors.New("has enumNames that do not match its enum")
	}
	out := make([]Option, 0, n)
	seen := map[string]bool{}
	add := func(v any, label any) error {
		s, ok := v.(string)
		if !ok {
			return errors.New("has a choice that is not a string")
		}
		if seen[s] {
			return fmt.Errorf("has the choice %q twice", clip(s, 100))
		}
		seen[s] = true
		l, _ := label.(string)
		if l == "" {
			l = s
		}
		out = append(out, Option{Value: s, Label: clip(l, MaxLabelLength)})
		return nil
	}
	for i, v := range p.Enum {
		var label any
		if len(p.EnumNames) > 0 {
			label = p.EnumNames[i]
		}
		if err := add(v, label); err != nil {
			return nil, err
		}
	}
	for _, t := range p.OneOf {
		if t.Const == nil {
			return nil, errors.New("has a choice without const")
		}
		if err := add(t.Const, t.Title); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// A keyed is one member of a JSON object, in order.
type keyed struct {
	name string
	raw  json.RawMessage
}

// objectKeys returns the members of a JSON object in their order.
func objectKeys(raw json.RawMessage) ([]keyed, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []keyed
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, keyed{name, v})
	}
	return out, nil
}

// clip keeps the first n characters of s.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// isWhole reports whether x is an integer value.
func isWhole(x float64) bool { return x == math.Trunc(x) && !math.IsInf(x, 0) }

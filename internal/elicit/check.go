package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-app/switchboard/internal/mcpconn"
)

// MaxAnswerBytes bounds an answer's content, as JSON.
const MaxAnswerBytes = 1 << 20

// A FieldError is what is wrong with one field of an answer.
type FieldError struct {
	// Field is the property's name; empty for the answer as a whole.
	Field   string `json:"field"`
	Message string `json:"message"`
}

// A CheckError lists what is wrong with an answer; the window shows each
// message by its field.
type CheckError struct {
	Fields []FieldError `json:"fields"`
}

func (e *CheckError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		if f.Field == "" {
			parts[i] = f.Message
		} else {
			parts[i] = f.Field + ": " + f.Message
		}
	}
	return "the answer does not match what the server asked for: " + strings.Join(parts, "; ")
}

// Check returns a *CheckError unless content answers the form: every
// required field, no field the form lacks, each value of its field's type
// and within its bounds.
func (f *Form) Check(content map[string]any) error {
	var errs []FieldError
	if err := checkSize(content); err != nil {
		return err
	}
	names := map[string]bool{}
	for _, fl := range f.Fields {
		names[fl.Name] = true
		v, ok := content[fl.Name]
		if !ok || v == nil {
			if fl.Required {
				errs = append(errs, FieldError{fl.Name, "required"})
			}
			continue
		}
		if msg := fl.check(v); msg != "" {
			errs = append(errs, FieldError{fl.Name, msg})
		}
	}
	for k := range content {
		if !names[k] {
			errs = append(errs, FieldError{k, "the form has no such field"})
		}
	}
	if len(errs) > 0 {
		return &CheckError{Fields: errs}
	}
	return nil
}

// check returns what is wrong with v as a value of fl, or "".
func (fl Field) check(v any) string {
	switch fl.Type {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return "must be text"
		}
		n := utf8.RuneCountInString(s)
		if fl.Required && n == 0 {
			return "required"
		}
		switch {
		case n > MaxTextLength:
			return fmt.Sprintf("at most %d characters", MaxTextLength)
		case fl.MinLength != nil && n < *fl.MinLength:
			return fmt.Sprintf("at least %d characters", *fl.MinLength)
		case fl.MaxLength != nil && n > *fl.MaxLength:
			return fmt.Sprintf("at most %d characters", *fl.MaxLength)
		}
		if n == 0 {
			return ""
		}
		return checkFormat(fl.Format, s)
	case TypeNumber, TypeInteger:
		x, ok := v.(float64)
		if !ok {
			return "must be a number"
		}
		if fl.Type == TypeInteger && !isWhole(x) {
			return "must be a whole number"
		}
		switch {
		case fl.Minimum != nil && x < *fl.Minimum:
			return fmt.Sprintf("at least %g", *fl.Minimum)
		case fl.Maximum != nil && x > *fl.Maximum:
			return fmt.Sprintf("at most %g", *fl.Maximum)
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case TypeSelect:
		s, ok := v.(string)
		if !ok || !fl.hasOption(s) {
			return "must be one of the choices"
		}
	case TypeMultiSelect:
		list, ok := v.([]any)
		if !ok {
			return "must be a list of choices"
		}
		seen := map[string]bool{}
		for _, x := range list {
			s, ok := x.(string)
			if !ok || !fl.hasOption(s) {
				return "must hold only the choices offered"
			}
			if seen[s] {
				return "has a choice twice"
			}
			seen[s] = true
		}
		switch {
		case fl.Required && len(list) == 0:
			return "required"
		case fl.MinItems != nil && len(list) < *fl.MinItems:
			return fmt.Sprintf("pick at least %d", *fl.MinItems)
		case fl.MaxItems != nil && len(list) > *fl.MaxItems:
			return fmt.Sprintf("pick at most %d", *fl.MaxItems)
		}
	default:
		return "cannot be answered"
	}
	return ""
}

func (fl Field) hasOption(s string) bool {
	for _, o := range fl.Options {
		if o.Value == s {
			return true
		}
	}
	return false
}

func checkFormat(format, s string) string {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return "must be an email address, like name@example.com"
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "") {
			return "must be a full address, like https://example.com"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "must be a date, like 2025-12-31"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "must be a date and time, like 2025-12-31T23:59:00Z"
		}
	}
	return ""
}

// CheckSchema returns an error unless content, entered in the JSON editor
// for a schema that is not a form, is a flat object (strings, numbers,
// booleans, lists of strings) that schema accepts.
func CheckSchema(schema json.RawMessage, content map[string]any) error {
	if err := checkSize(content); err != nil {
		return err
	}
	for k, v := range content {
		switch x := v.(type) {
		case string, float64, bool:
		case []any:
			for _, e := range x {
				if _, ok := e.(string); !ok {
					return &CheckError{Fields: []FieldError{{k, "a list may hold only text"}}}
				}
			}
		default:
			return &CheckError{Fields: []FieldError{{k, "must be text, a number, true or false, or a list of text"}}}
		}
	}
	if len(schema) == 0 || string(schema) == "null" {
		return nil
	}
	if len(schema) > MaxSchemaBytes {
		return fmt.Errorf("the requested schema is larger than %d KiB, so no answer can be checked against it", MaxSchemaBytes>>10)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("the server's schema cannot be read (%v), so no answer can be checked against it; decline instead", err)
	}
	if mcpconn.SchemaFansOut(schema) {
		return errors.New("the server's schema names too many parts once its $refs are followed, so no answer can be checked against it; decline instead")
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("the server's schema cannot be used (%v), so no answer can be checked against it; decline instead", err)
	}
	if err := rs.Validate(content); err != nil {
		return &CheckError{Fields: []FieldError{{"", err.Error()}}}
	}
	return nil
}

func checkSize(content map[string]any) error {
	raw, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("the answer cannot be sent: %v", err)
	}
	if len(raw) > MaxAnswerBytes {
		return &CheckError{Fields: []FieldError{{"", fmt.Sprintf("the answer is larger than %d KiB", MaxAnswerBytes>>10)}}}
	}
	return nil
}

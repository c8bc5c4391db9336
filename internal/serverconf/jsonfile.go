package serverconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// A member is one key and value of a JSON object, in file order.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers returns the members of the JSON object raw in file order,
// keeping duplicate keys (encoding/json would keep only the last). ok is
// false when raw is not an object.
func objectMembers(raw json.RawMessage) (members []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		members = append(members, member{key, v})
	}
	return members, true
}

// orderedObject marshals as a JSON object with its members in order.
type orderedObject []member

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o *orderedObject) add(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings, slices, maps and orderedObjects are added
	}
	*o = append(*o, member{key, data})
}

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func isNull(raw json.RawMessage) bool { return jsonKind(raw) == "null" }

// stripJSONC turns JSON with comments and trailing commas (VS Code's
// mcp.json is JSONC) into JSON, replacing what it removes with spaces so
// that offsets, and so line and column numbers, still match the input.
func stripJSONC(data []byte) []byte {
	out := bytes.Clone(data)
	const (
		code = iota
		str
		lineComment
		blockComment
	)
	state := code
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch state {
		case code:
			switch {
			case c == '"':
				state = str
			case c == '/' && i+1 < len(out) && out[i+1] == '/':
				state = lineComment
				out[i] = ' '
			case c == '/' && i+1 < len(out) && out[i+1] == '*':
				state = blockComment
				out[i], out[i+1] = ' ', ' '
				i++
			}
		case str:
			switch c {
			case '\\':
				i++
			case '"':
				state = code
			}
		case lineComment:
			if c == '\n' {
				state = code
			} else {
				out[i] = ' '
			}
		case blockComment:
			if c == '*' && i+1 < len(out) && out[i+1] == '/' {
				out[i], out[i+1] = ' ', ' '
				i++
				state = code
			} else if c != '\n' && c != '\r' {
				out[i] = ' '
			}
		}
	}
	// Trailing commas: a comma whose next non-space byte closes an object
	// or array. Comments are spaces by now.
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c != ',' {
			continue
		}
		j := i + 1
		for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
			j++
		}
		if j < len(out) && (out[j] == '}' || out[j] == ']') {
			out[i] = ' '
		}
	}
	return out
}

// describeJSONError turns a decoding error into a message that says where
// the file is broken.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, int(syn.Offset))
		return fmt.Errorf("file is not valid JSON: line %d, column %d: %s", line, col, syn.Error())
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("file must contain a JSON object at the top level, not %s", typ.Value)
	}
	return fmt.Errorf("file is not valid JSON: %w", err)
}

// lineCol converts the byte offset reported by encoding/json (just past
// the offending byte) into a 1-based line and column (in characters).
func lineCol(data []byte, offset int) (line, col int) {
	pos := min(max(offset-1, 0), len(data))
	line = 1 + bytes.Count(data[:pos], []byte{'\n'})
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	return line, utf8.RuneCount(data[start:pos]) + 1
}

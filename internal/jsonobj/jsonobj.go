// Package jsonobj reads and writes JSON objects member by member, in file
// order and keeping duplicate keys (encoding/json keeps only the last), so
// a config file can be checked for duplicates and written back with its
// members where the user put them.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// A Member is one key and value of a JSON object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// An Object is a JSON object's members in order; it marshals as the object.
type Object []Member

// Members returns the members of the JSON object raw in file order,
// duplicates kept. ok is false when raw is not an object.
func Members(raw json.RawMessage) (members Object, ok bool) {
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
		members = append(members, Member{key, v})
	}
	return members, true
}

// MarshalJSON writes the members in order; keys are written without
// escaping <, > and &, as the user wrote them.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Add appends key with v marshalled; v must marshal (strings, slices, maps,
// Objects), or Add panics.
func (o *Object) Add(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	*o = append(*o, Member{key, data})
}

// Marshal is json.Marshal without escaping <, > and &: the user's own
// strings are written back as they were.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

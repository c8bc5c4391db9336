package toolsearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// SearchArgs are search_tools' arguments.
type SearchArgs struct {
	Query string `json:"query"`
	// Limit is how many tools to return; zero means DefaultResults.
	Limit int `json:"limit,omitempty"`
}

// CallArgs are call_tool's arguments.
type CallArgs struct {
	Name string `json:"name"`
	// Arguments is the tool's arguments, a JSON object ("{}" when the
	// model gave none).
	Arguments json.RawMessage `json:"arguments"`
}

// ParseSearch reads search_tools' arguments. The error is written for the
// model: it says what to send instead.
func ParseSearch(raw string) (SearchArgs, error) {
	var a struct {
		Query json.RawMessage `json:"query"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := json.Unmarshal([]byte(orEmpty(raw)), &a); err != nil {
		return SearchArgs{}, fmt.Errorf(`the arguments of %s must be a JSON object such as {"query": "read a file"}`, SearchName)
	}
	var out SearchArgs
	if json.Unmarshal(a.Query, &out.Query) != nil || strings.TrimSpace(out.Query) == "" {
		return SearchArgs{}, fmt.Errorf(`%s needs a "query": words for what the tool should do, such as {"query": "read a file"}`, SearchName)
	}
	out.Query = clipBytes(out.Query, MaxQueryBytes)
	if len(a.Limit) > 0 && string(a.Limit) != "null" {
		var f float64 // 5, 5.0 and "5" all do
		if json.Unmarshal(a.Limit, &f) != nil {
			var s string
			if json.Unmarshal(a.Limit, &s) != nil || json.Unmarshal([]byte(s), &f) != nil {
				return SearchArgs{}, fmt.Errorf(`the "limit" of %s must be a number from 1 to %d`, SearchName, MaxResults)
			}
		}
		out.Limit = min(max(int(f), 1), MaxResults)
	}
	return out, nil
}

// ParseCall reads call_tool's arguments. The tool's own arguments may come
// as an object or, as some models send them, as a string holding one; none
// means {}. The error is written for the model.
func ParseCall(raw string) (CallArgs, error) {
	var a struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(orEmpty(raw)), &a); err != nil {
		return CallArgs{}, fmt.Errorf(`the arguments of %s must be a JSON object: {"name": "<a name %s returned>", "arguments": {…}}`, CallName, SearchName)
	}
	var out CallArgs
	if json.Unmarshal(a.Name, &out.Name) != nil || strings.TrimSpace(out.Name) == "" {
		return CallArgs{}, fmt.Errorf(`%s needs the "name" of a tool that %s returned`, CallName, SearchName)
	}
	out.Name = strings.TrimSpace(out.Name)
	args := bytes.TrimSpace(a.Arguments)
	var s string
	if len(args) > 0 && args[0] == '"' && json.Unmarshal(args, &s) == nil {
		args = bytes.TrimSpace([]byte(s))
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return CallArgs{}, fmt.Errorf(`the "arguments" of %s must be a JSON object that matches the schema of %s`, CallName, clipBytes(out.Name, 80))
	}
	out.Arguments = json.RawMessage(args)
	return out, nil
}

func orEmpty(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "{}"
	}
	return raw
}

// A found tool in a result.
type found struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Server      string          `json:"server,omitempty"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// A named tool in a result: one that matched but did not fit.
type named struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type result struct {
	Query string  `json:"query"`
	Tools []found `json:"tools"`
	// More are matches past the byte budget, by name only.
	More []named `json:"more,omitempty"`
	// Available is how many tools the conversation has behind search.
	Available int    `json:"available"`
	Hint      string `json:"hint"`
}

// Format renders a search's result for the model: JSON with the matches'
// full definitions, best first, as long as they fit in maxBytes (zero
// means DefaultResultBytes); the best match is always given whole, and
// those past the budget only by name and the start of their description,
// so that the model can search for one by name. available is how many
// tools the search ran over; servers, the servers' names, help the model
// word another search when nothing matched (at most 20 are named).
func Format(query string, matches []Match, available int, servers []string, maxBytes int) string {
	if maxBytes <= 0 {
		maxBytes = DefaultResultBytes
	}
	r := result{Query: clipBytes(query, 200), Tools: []found{}, Available: available}
	used := 0
	for i, m := range matches {
		f := found{Name: m.Tool.Name, Title: m.Tool.Title, Server: m.Tool.Server, Description: m.Tool.Description, Parameters: compact(m.Tool.InputSchema)}
		b, _ := json.Marshal(f)
		if i > 0 && used+len(b) > maxBytes {
			r.More = append(r.More, named{Name: m.Tool.Name, Description: clipRunes(m.Tool.Description, 100)})
			continue
		}
		used += len(b)
		r.Tools = append(r.Tools, f)
	}
	switch {
	case len(r.Tools) == 0:
		if len(servers) > 20 {
			servers = append(servers[:20:20], fmt.Sprintf("and %d more", len(servers)-20))
		}
		r.Hint = fmt.Sprintf("No tool matched. Search again with other words for what the tool does, or its server's name (servers: %s).", strings.Join(servers, ", "))
	case len(r.More) > 0:
		r.Hint = fmt.Sprintf(`Call a tool with %s: {"name": "<name>", "arguments": {…}}. The tools under "more" matched too; search for one by its name to get its definition.`, CallName)
	default:
		r.Hint = fmt.Sprintf(`Call a tool with %s: {"name": "<name>", "arguments": {…}}. If none fits, search again with other words.`, CallName)
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// compact returns schema without insignificant space; nil when there is
// none.
func compact(schema json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, schema) != nil {
		return nil
	}
	return b.Bytes()
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// Package toolsearch lets a model find the tools it needs instead of
// being sent all of them: when a conversation offers more tools than a
// threshold (a count, or bytes of definitions), the chat engine sends the
// model a pair of meta-tools instead, search_tools and call_tool. The
// first ranks the conversation's tools locally and returns the full
// definitions of the best matches; the second calls one by name. This
// package holds the pair's definitions, the settings, the ranking and the
// result text; it knows nothing of MCP, providers or the window.
//
// Design notes:
//   - The pair's definitions are constants: byte for byte the same in every
//     request of every conversation, whatever the tools behind them, so a
//     provider's prompt cache (keyed on the request's prefix, tools
//     included) stays warm from turn to turn. Nothing about the current
//     tools (their count, their servers) goes into them.
//   - Ranking is BM25 over tokenized fields, weighted: the tool's name
//     counts most, then its title and argument names, then its description
//     and server. Names are split at "_", "-", "." and camelCase, words
//     lightly stemmed (plurals, -ing, -ed), so "listing issues" finds
//     list_issues. A query that names a tool exactly puts it first.
//   - Everything a model sends is bounded: the query's length and words,
//     the number of results and their bytes.
package toolsearch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Names of the meta-tools. Exposed tool names always hold "__" (server,
// then tool), so neither can be a server's tool.
const (
	SearchName = "search_tools"
	CallName   = "call_tool"
)

// A Mode says when a conversation's tools go behind the search pair.
type Mode string

// The modes.
const (
	// ModeAuto: when the tools offered are more than Settings.MaxTools or
	// their definitions larger than Settings.MaxBytes.
	ModeAuto Mode = "auto"
	// ModeAlways: whenever at least one tool is offered.
	ModeAlways Mode = "always"
	// ModeOff: never; every tool is sent as itself.
	ModeOff Mode = "off"
)

// Modes lists the modes, for the settings' checks and the frontend's
// contract.
var Modes = []Mode{ModeAuto, ModeAlways, ModeOff}

// Defaults of Settings and of a search.
const (
	// DefaultMaxTools is the tool count past which ModeAuto searches:
	// half of OpenAI's 128, and past what models pick well from.
	DefaultMaxTools = 64
	// DefaultMaxBytes is the size of definitions past which ModeAuto
	// searches: about 6,000 tokens.
	DefaultMaxBytes = 24 * 1024
	// DefaultResults is how many tools a search returns unless the model
	// asks for another number, at most MaxResults.
	DefaultResults = 5
	MaxResults     = 10
	// DefaultResultBytes bounds the definitions a search returns in full;
	// matches past it are only named (see Format).
	DefaultResultBytes = 8 * 1024
	// MaxQueryBytes and MaxQueryWords bound what of a query is read.
	MaxQueryBytes = 1000
	MaxQueryWords = 32
)

// Settings say when tool search is used. The zero value is ModeAuto with
// the default thresholds.
type Settings struct {
	// Mode is ModeAuto when empty.
	Mode Mode
	// MaxTools is the tool count past which ModeAuto searches; zero means
	// DefaultMaxTools.
	MaxTools int
	// MaxBytes is the size of the tools' definitions (names, descriptions,
	// schemas) past which ModeAuto searches; zero means DefaultMaxBytes.
	MaxBytes int
}

// Use reports whether a request offering count tools whose definitions
// take bytes goes through the search pair instead.
func (s Settings) Use(count, bytes int) bool {
	if count == 0 {
		return false
	}
	switch cmp.Or(s.Mode, ModeAuto) {
	case ModeAlways:
		return true
	case ModeOff:
		return false
	}
	return count > cmp.Or(s.MaxTools, DefaultMaxTools) || bytes > cmp.Or(s.MaxBytes, DefaultMaxBytes)
}

// Check returns an error saying what to change when s is not valid.
func (s Settings) Check() error {
	if s.Mode != "" && !slices.Contains(Modes, s.Mode) {
		return fmt.Errorf("tool search %q: choose auto, always or off", s.Mode)
	}
	if s.MaxTools < 0 || s.MaxTools > 10_000 {
		return fmt.Errorf("tool search after %d tools: choose between 1 and 10,000", s.MaxTools)
	}
	if s.MaxBytes < 0 || s.MaxBytes > 16<<20 {
		return fmt.Errorf("tool search after %d bytes of definitions: choose at most 16 MB", s.MaxBytes)
	}
	return nil
}

// A Definition is a meta-tool as a request carries it: what llm.Tool
// holds.
type Definition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// The pair, as constants (see the package doc).
const (
	searchDescription = "Search the tools available in this conversation (from the user's MCP servers) by what they do. " +
		"Returns the best matches with their full definitions: name, description and the JSON schema of their arguments. " +
		"Search before you call a tool with " + CallName + "; if nothing fits, search again with other words."
	searchParameters = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Words for the task or the tool: what it does, its name, its server."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many tools to return; 5 if not given."}},` +
		`"required":["query"]}`
	callDescription = "Call a tool that " + SearchName + " returned, by its exact name, with arguments that match its schema. " +
		"The user may be asked to approve the call. The result is the tool's."
	callParameters = `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"The tool's name as ` + SearchName + ` returned it."},` +
		`"arguments":{"type":"object","description":"The tool's arguments: a JSON object that matches its schema."}},` +
		`"required":["name","arguments"]}`
)

// Pair returns the two meta-tools, search first. Every call returns the
// same bytes (fresh copies, so a caller may keep them).
func Pair() []Definition {
	return []Definition{
		{Name: SearchName, Description: searchDescription, Parameters: json.RawMessage(searchParameters)},
		{Name: CallName, Description: callDescription, Parameters: json.RawMessage(callParameters)},
	}
}

// IsMeta reports whether name is one of the pair's.
func IsMeta(name string) bool { return name == SearchName || name == CallName }

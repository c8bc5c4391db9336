package mcpconn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A Tool is a server's tool as exposed to models.
type Tool struct {
	// Name is what models call it: unique across servers, stable across
	// restarts, matching ^[a-zA-Z0-9_-]{1,64}$.
	Name         string `json:"name"`
	ServerID     string `json:"serverId"`
	ServerName   string `json:"serverName"`
	OriginalName string `json:"originalName"`
	Title        string `json:"title,omitempty"`
	Description  string `json:"description"`
	// InputSchema is the tool's input schema cleaned for providers (see
	// cleanSchema): always an object schema. It is what models get.
	InputSchema json.RawMessage `json:"inputSchema" ts_type:"unknown"`
	// Schema is the tool's input schema as the server sent it, for the
	// user to read: JSON Schema 2020-12 kept whole ($schema, $defs, $ref,
	// $anchor, allOf/anyOf/oneOf, if/then/else, ...), its $refs never
	// dereferenced nor fetched. The SDK hands it over decoded, so it is
	// encoded again: the same JSON value, in Go's key order. Nil when the
	// server sent none, or one larger than maxSchemaBytes (256 KiB): then
	// only the cleaned InputSchema exists.
	Schema json.RawMessage `json:"schema,omitempty" ts_type:"unknown"`
	// Annotations are the server's hints (readOnlyHint, destructiveHint, ...).
	Annotations json.RawMessage `json:"annotations,omitempty" ts_type:"Record<string, unknown>"`
	// Icons are the tool's pictures, data: URLs only (see Icon); nil when
	// it has none.
	Icons []Icon `json:"icons,omitempty"`
	// OutputSchema is the schema the tool's structured content follows, as
	// the server sent it; nil when it declares none (or one past 256 KiB).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty" ts_type:"unknown"`
	// Enabled is false when the user switched the tool off
	// (serverconf.Config.DisabledTools); such a tool cannot be called.
	Enabled bool `json:"enabled"`
	// AppOnly is set when the server marks the tool for its own view only
	// (MCP Apps: _meta.ui.visibility without "model"): it is never offered
	// to a model, but stays callable for the server's view. False (the
	// field absent) means visible to both.
	AppOnly bool `json:"appOnly,omitempty"`
	// UI is the view the tool declares (MCP Apps: _meta.ui.resourceUri, a
	// ui:// resource); nil when it declares none (see appui.go).
	UI *ToolUI `json:"ui,omitempty"`
	// Visibility is the tool's _meta.ui.visibility, its known entries
	// (VisibleToModel, VisibleToApp): nil when the tool sets none, which
	// means both; empty (omitted in JSON, AppOnly then set) when it lists
	// neither. ForApp reads it.
	Visibility []string `json:"visibility,omitempty"`
	// Fingerprint is serverconf.Fingerprint of the server's config: what
	// approval grants are tied to.
	Fingerprint string `json:"fingerprint,omitempty"`
	// DefinitionHash is a hash of the tool's definition as the server sent
	// it (name, title, description, input and output schema, annotations):
	// an "always" grant is tied to it, so a server cannot swap what a tool
	// does after the user allowed it.
	DefinitionHash string `json:"definitionHash,omitempty"`
	// Local is set when the server runs on this machine (stdio), where a
	// tool may do anything a program of the user's can: the lethal-
	// trifecta guard counts such a tool as reading private data unless it
	// claims to be read-only.
	Local bool `json:"local,omitempty"`
}

// A ToolRef names a tool by what it is rather than by its exposed name,
// which can change when names collide.
type ToolRef struct {
	ServerID string
	// Tool is the server's own name for the tool.
	Tool string
	// DefinitionHash, when not empty, must equal the tool's current
	// DefinitionHash, or the call fails with ErrToolChanged.
	DefinitionHash string
	// Fingerprint, when not empty, must equal serverconf.Fingerprint of
	// the server's current configuration, or the call fails with
	// ErrToolChanged.
	Fingerprint string
}

// toolInfo is a listed tool, prepared once per listing.
type toolInfo struct {
	name, title, description string
	// schema is the cleaned input schema and sent the one the server sent
	// (sentSchema); when cleaning changed nothing they are one slice, and
	// sentIsSchema is set.
	schema, sent, annotations json.RawMessage
	sentIsSchema              bool
	definitionHash            string
	appOnly                   bool
	ui                        *ToolUI  // its view; nil when none
	visibility                []string // parseVisibility's
	icons                     []Icon
	// output is the output schema as sent (nil when none, or past
	// maxSchemaBytes), which structured content is checked against.
	output json.RawMessage
}

// size is about what ti holds in memory, for maxListingBytes.
func (ti *toolInfo) size() int {
	n := len(ti.name) + len(ti.title) + len(ti.description) + len(ti.schema) + len(ti.annotations) + iconsSize(ti.icons) + len(ti.output)
	if ti.ui != nil {
		n += len(ti.ui.ResourceURI)
	}
	if !ti.sentIsSchema {
		n += len(ti.sent)
	}
	return n
}

// Bounds on what one server lists; Options.MaxTools bounds how many tools.
const (
	// DefaultMaxTools is how many of a server's tools Switchboard uses when
	// Options.MaxTools is zero.
	DefaultMaxTools = 1000
	// maxDescriptionBytes bounds a tool's description, maxTitleBytes its
	// title; longer ones are clipped, saying so.
	maxDescriptionBytes = 8 << 10
	maxTitleBytes       = 256
	// maxToolNameBytes: a tool whose name is longer (or empty) is left out.
	maxToolNameBytes = 256
	// maxListingBytes bounds one server's prepared tools together (names,
	// descriptions, schemas cleaned and as sent); the tools past it are
	// left out.
	maxListingBytes = 8 << 20
	// maxListingPages bounds the pages of one tools/list; a listing is also
	// read no further than countedTools times the tool limit.
	maxListingPages = 1000
	countedTools    = 10
)

// A toolListing is one tools/list, bounded and prepared as it is read: the
// first limit tools with a valid name and unseen before, each clipped
// (prepareTool), until they take maxListingBytes. It counts what it left
// out, for the notes in the server's log.
type toolListing struct {
	limit int
	tools []toolInfo
	kept  []*mcp.Tool // as listed, for doctor
	seen  map[string]bool
	bytes int  // the size of tools
	full  bool // a tool did not fit in maxListingBytes: no more are kept

	listed     int  // tools the server listed, as far as they were read
	more       bool // the listing was not read to its end
	overLimit  int  // left out past limit
	overBudget int  // left out past maxListingBytes
	badNames   int
	duplicates examples
	clipped    examples
	schemas    map[string]*examples // by why the schema was replaced
	schemaWhy  []string             // the keys of schemas, in order
	// ttl is how long the server said the listing may be kept (its
	// ttlMs, the least of its pages'); zero when it did not say.
	ttl time.Duration
}

func newToolListing(limit int) *toolListing {
	return &toolListing{limit: limit, seen: make(map[string]bool), schemas: make(map[string]*examples)}
}

// add takes the next listed tool.
func (l *toolListing) add(t *mcp.Tool) {
	if t == nil {
		return
	}
	l.listed++
	switch {
	case t.Name == "" || len(t.Name) > maxToolNameBytes:
		l.badNames++
		return
	case l.seen[t.Name]:
		// A second tool of the same name would get another exposed name,
		// and a selection or grant could follow the wrong one.
		l.duplicates.add(t.Name)
		return
	case len(l.tools) >= l.limit:
		l.overLimit++
		return
	case l.full:
		l.overBudget++
		return
	}
	ti, clipped, schemaNote := prepareTool(t)
	size := ti.size()
	if l.bytes+size > maxListingBytes {
		l.full = true
		l.overBudget++
		return
	}
	l.bytes += size
	l.seen[t.Name] = true
	l.tools = append(l.tools, ti)
	l.kept = append(l.kept, t)
	if clipped {
		l.clipped.add(t.Name)
	}
	if schemaNote != "" {
		e := l.schemas[schemaNote]
		if e == nil {
			e = &examples{}
			l.schemas[schemaNote] = e
			l.schemaWhy = append(l.schemaWhy, schemaNote)
		}
		e.add(t.Name)
	}
}

// notes says, one line each, what of the listing Switchboard left out or
// changed, naming the server as server.
func (l *toolListing) notes(server string) []string {
	var out []string
	if l.overLimit > 0 || l.more {
		n := strconv.Itoa(l.listed)
		if l.more {
			n = "more than " + n
		}
		out = append(out, fmt.Sprintf("server %s lists %s tools; Switchboard uses the first %d", server, n, len(l.tools)))
	}
	if l.overBudget > 0 {
		out = append(out, fmt.Sprintf("server %s's tools take more than %d MiB; Switchboard leaves out the last %d",
			server, maxListingBytes>>20, l.overBudget))
	}
	if l.badNames > 0 {
		out = append(out, fmt.Sprintf("server %s lists %d tools with an empty name or one longer than %d bytes; Switchboard leaves them out",
			server, l.badNames, maxToolNameBytes))
	}
	if l.duplicates.n > 0 {
		out = append(out, fmt.Sprintf("server %s lists %s more than once; Switchboard uses the first of each name", server, l.duplicates))
	}
	if l.clipped.n > 0 {
		out = append(out, fmt.Sprintf("server %s, %s: description longer than %d KiB, clipped", server, l.clipped.tools(), maxDescriptionBytes>>10))
	}
	for _, why := range l.schemaWhy {
		out = append(out, fmt.Sprintf("server %s, %s: %s", server, l.schemas[why].tools(), why))
	}
	return out
}

// examples counts names and keeps the first few, for a note.
type examples struct {
	n     int
	names []string
}

func (e *examples) add(name string) {
	e.n++
	if len(e.names) < 3 {
		name, _ = clipBytes(name, 64)
		e.names = append(e.names, strconv.Quote(name))
	}
}

// String is `"a", "b", "c" and 4 more`.
func (e examples) String() string {
	s := strings.Join(e.names, ", ")
	if e.n > len(e.names) {
		s += fmt.Sprintf(" and %d more", e.n-len(e.names))
	}
	return s
}

// tools is `tool "a"` or `tools "a", "b" and 3 more`.
func (e examples) tools() string {
	if e.n == 1 {
		return "tool " + e.String()
	}
	return "tools " + e.String()
}

// prepareTool bounds and cleans one listed tool. clipped reports a clipped
// description, schemaNote why the schema was replaced (empty if it was not).
func prepareTool(t *mcp.Tool) (ti toolInfo, clipped bool, schemaNote string) {
	ui, vis := parseToolUI(t.Meta)
	ti = toolInfo{name: t.Name, definitionHash: definitionHash(t), appOnly: appOnlyVisibility(vis), ui: ui, visibility: vis,
		icons: keepIcons(t.Icons), output: sentSchema(t.OutputSchema)}
	ti.title, _ = clipBytes(t.Title, maxTitleBytes)
	if d, cut := clipBytes(t.Description, maxDescriptionBytes); cut {
		ti.description = d + fmt.Sprintf("\n[description clipped: %s bytes, showing the first %s]",
			comma(int64(len(t.Description))), comma(int64(len(d))))
		clipped = true
	} else {
		ti.description = d
	}
	ti.schema, schemaNote = cleanSchema(t.InputSchema)
	if ti.sent = sentSchema(t.InputSchema); bytes.Equal(ti.sent, ti.schema) {
		ti.sent, ti.sentIsSchema = ti.schema, true // passed through as sent: keep one copy
	}
	if t.Annotations != nil {
		a := *t.Annotations
		a.Title, _ = clipBytes(a.Title, maxTitleBytes)
		ti.annotations, _ = json.Marshal(&a)
		if ti.title == "" {
			ti.title = a.Title
		}
	}
	return ti, clipped, schemaNote
}

// clipBytes cuts s to at most max bytes on a character boundary, and
// reports whether it did.
func clipBytes(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// definitionHash hashes what a tool is, as the server sent it. Its view
// and visibility (MCP Apps) count: a tool allowed "always" from its view
// while app-only must not then reach models unasked. A tool without them
// hashes as before they counted.
func definitionHash(t *mcp.Tool) string {
	type view struct {
		ResourceURI string   `json:"resourceUri,omitempty"`
		Visibility  []string `json:"visibility"`
	}
	def := struct {
		Name         string               `json:"name"`
		Title        string               `json:"title,omitempty"`
		Description  string               `json:"description,omitempty"`
		InputSchema  any                  `json:"inputSchema,omitempty"`
		OutputSchema any                  `json:"outputSchema,omitempty"`
		Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
		UI           *view                `json:"ui,omitempty"`
	}{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
	if ui, vis := parseToolUI(t.Meta); ui != nil || vis != nil {
		def.UI = &view{Visibility: vis}
		if ui != nil {
			def.UI.ResourceURI = ui.ResourceURI
		}
	}
	data, err := json.Marshal(def)
	if err != nil {
		data = []byte(t.Name)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// rebuildRegistry recomputes the exposed tools of all live sessions. Names
// depend on the whole set (collisions), so it is rebuilt as a whole.
func (m *Manager) rebuildRegistry() {
	m.regMu.Lock()
	defer m.regMu.Unlock()
	m.mu.Lock()
	servers := m.serversLocked()
	m.mu.Unlock()

	type part struct {
		id, name    string
		fingerprint string
		local       bool
		disabled    []string
		tools       []toolInfo
	}
	var parts []part
	var keys []toolKey
	for _, s := range servers {
		s.mu.Lock()
		p := part{id: s.id, name: s.cfg.DisplayName(), fingerprint: serverconf.Fingerprint(&s.cfg), disabled: s.cfg.DisabledTools, tools: s.tools,
			local: s.cfg.Transport.Local()}
		s.mu.Unlock()
		parts = append(parts, p)
		for _, t := range p.tools {
			keys = append(keys, toolKey{s.id, t.name})
		}
	}
	names := exposedNames(keys)
	registry := make([]Tool, 0, len(keys))
	byName := make(map[string]toolKey, len(keys))
	perServer := make(map[string][]Tool, len(parts))
	for _, p := range parts {
		list := make([]Tool, 0, len(p.tools))
		for _, t := range p.tools {
			k := toolKey{p.id, t.name}
			tool := Tool{
				Name: names[k], ServerID: p.id, ServerName: p.name, OriginalName: t.name,
				Title: t.title, Description: t.description, InputSchema: t.schema, Schema: t.sent, Annotations: t.annotations,
				Enabled: !slices.Contains(p.disabled, t.name), Fingerprint: p.fingerprint,
				DefinitionHash: t.definitionHash, AppOnly: t.appOnly, Icons: t.icons, OutputSchema: t.output, Local: p.local,
				UI: t.ui, Visibility: t.visibility,
			}
			list = append(list, tool)
			byName[tool.Name] = k
		}
		registry = append(registry, list...)
		perServer[p.id] = list
	}
	m.mu.Lock()
	m.registry, m.byName, m.regTools = registry, byName, perServer
	m.mu.Unlock()
}

// emitTools sends the server's current tools as EventServerTools.
func (s *server) emitTools() {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.m.mu.Lock()
	tools := slices.Clone(s.m.regTools[s.id])
	s.m.mu.Unlock()
	if tools == nil {
		tools = []Tool{}
	}
	s.m.emit(EventServerTools, ToolsEvent{ServerID: s.id, Tools: tools})
}

// Tools returns the tools of every connected server, disabled ones
// included (Enabled false), in configuration order.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.registry)
}

// Lookup finds a tool by its exposed name.
func (m *Manager) Lookup(name string) (Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.byName[name]
	if !ok {
		return Tool{}, false
	}
	for _, t := range m.regTools[k.server] {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

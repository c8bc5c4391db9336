package serverconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-app/switchboard/internal/jsonobj"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A Format is a config file format Switchboard reads and writes.
type Format string

const (
	// FormatClaude is claude_desktop_config.json (and Claude Code's
	// .mcp.json): {"mcpServers": {name: {command, args, env} or {type, url, headers}}}.
	FormatClaude Format = "claude"
	// FormatVSCode is VS Code's mcp.json: {"servers": {...}, "inputs": [...]},
	// or "mcp": {"servers": ...} in settings.json.
	FormatVSCode Format = "vscode"
	// FormatCursor is ~/.cursor/mcp.json: like Claude, but a remote server
	// may use "serverUrl" and a static OAuth client ("auth").
	FormatCursor Format = "cursor"
)

// MaxImportSize bounds the file Import accepts.
const MaxImportSize = 4 << 20

// An ImportNote says what happened to one server entry of an imported
// file, or to the file as a whole when Server is empty.
type ImportNote struct {
	// Server is the entry's name in the file.
	Server string `json:"server,omitempty"`
	// ID is the ID the entry would have had; empty for file-level notes.
	ID      string `json:"id,omitempty"`
	Message string `json:"message"`
}

func (n ImportNote) String() string {
	if n.Server == "" {
		return n.Message
	}
	return fmt.Sprintf("server %q: %s", n.Server, n.Message)
}

// An InputPrompt is a VS Code input ("${input:id}") that the user must
// answer.
type InputPrompt struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	Password    bool   `json:"password,omitempty"`
}

// A SecretInput is a value an imported config refers to but the file does
// not contain: the config holds SecretRef Ref, and the keyring has nothing
// under it yet. The UI asks for Inputs, substitutes them into Template and
// stores the result under Ref.
type SecretInput struct {
	ServerID string `json:"serverId"`
	// Field is the config field, as in FieldError ("env.API_KEY").
	Field string `json:"field"`
	Ref   string `json:"ref"`
	// Template is the value as written, e.g. "Bearer ${input:token}";
	// empty means the whole value is asked for.
	Template string        `json:"template,omitempty"`
	Inputs   []InputPrompt `json:"inputs,omitempty"`
}

// An ImportReport is what Import found in a file. Import never writes: the
// caller saves all of Added (after ExtractSecrets) or nothing.
type ImportReport struct {
	Format Format `json:"format"`
	// Added are valid configs, ready to save, in file order.
	Added []Config `json:"added,omitempty"`
	// Skipped are duplicates of an existing server or of an earlier entry.
	Skipped []ImportNote `json:"skipped,omitempty"`
	// Failed are entries that could not be read or are not valid.
	Failed []ImportNote `json:"failed,omitempty"`
	// Warnings are about parts of Added configs (and of the file) that were
	// ignored or need the user's attention.
	Warnings []ImportNote `json:"warnings,omitempty"`
	// NeedsInput lists secrets of Added configs the user must fill in.
	NeedsInput []SecretInput `json:"needsInput,omitempty"`
}

// Err returns an error naming every entry in Failed (server and field),
// or nil when there is none. An import is all or nothing: a caller saves
// Added only when Err is nil.
func (r *ImportReport) Err() error {
	if len(r.Failed) == 0 {
		return nil
	}
	parts := make([]string, len(r.Failed))
	for i, n := range r.Failed {
		parts[i] = n.String()
	}
	return fmt.Errorf("%d of the file's servers are not valid, so nothing was imported; fix them in the file (or remove them) and import again: %s",
		len(r.Failed), strings.Join(parts, "; "))
}

// Import reads a Claude Desktop, VS Code or Cursor MCP config file, detecting
// the format. existing are the configs already saved: an entry with the
// same ID or Fingerprint as one of them, or as an earlier entry of the file,
// is skipped. Import returns an error only when the file as a whole cannot
// be read (not JSON, no servers object); a bad entry goes to Failed and the
// others are still read, so that the report names every bad entry.
//
// Import has no directory to resolve relative paths against (pasted text):
// a relative command or script path is left as written, with a warning.
func Import(data []byte, existing []Config) (*ImportReport, error) {
	return ImportFile(data, existing, "")
}

// ImportFile is Import of a file in directory dir: a relative command
// ("./server.js") and arguments naming files that exist relative to dir
// ("build/index.js") are made absolute, as the other apps run them from
// there, and the report's warnings say so. A server with a cwd is left
// alone (its paths are relative to the cwd), except that a relative cwd is
// resolved against dir.
func ImportFile(data []byte, existing []Config, dir string) (*ImportReport, error) {
	if len(data) > MaxImportSize {
		return nil, fmt.Errorf("file is too large (%d bytes; at most %d)", len(data), MaxImportSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("file is empty")
	}
	clean, err := standardizeJSONC(data)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, describeJSONError(err)
	}
	if top == nil {
		return nil, errors.New("file must contain a JSON object at the top level, not null")
	}

	r := &ImportReport{}
	servers, inputsRaw, err := r.detect(top)
	if err != nil {
		return nil, err
	}
	members, ok := jsonobj.Members(servers)
	if !ok {
		return nil, fmt.Errorf("%q must be an object mapping server names to their settings, not %s",
			r.serversKey(), jsonKind(servers))
	}
	if len(members) == 0 {
		r.Warnings = append(r.Warnings, ImportNote{Message: "the file lists no servers"})
	}
	if r.Format == FormatClaude && slices.ContainsFunc(members, isCursorEntry) {
		r.Format = FormatCursor
	}

	imp := &importer{report: r, inputs: r.parseInputs(inputsRaw), dir: dir}
	for _, c := range existing {
		imp.seen = append(imp.seen, seenServer{id: c.ID, fingerprint: Fingerprint(&c), name: c.DisplayName(), existing: true})
	}
	for _, m := range members {
		imp.entry(m.Key, m.Value)
	}
	return r, nil
}

// detect finds the servers object and sets the format.
func (r *ImportReport) detect(top map[string]json.RawMessage) (servers, inputs json.RawMessage, err error) {
	mcpServers, hasMCPServers := top["mcpServers"]
	vsServers, hasServers := top["servers"]
	switch {
	case hasMCPServers && hasServers:
		return nil, nil, errors.New(`file has both "mcpServers" (Claude Desktop, Cursor) and "servers" (VS Code); keep one`)
	case hasMCPServers:
		r.Format = FormatClaude
		r.warnTopLevel(top, "mcpServers")
		return mcpServers, nil, nil
	case hasServers:
		r.Format = FormatVSCode
		r.warnTopLevel(top, "servers", "inputs")
		return vsServers, top["inputs"], nil
	}
	// VS Code settings.json: "mcp": {"servers": ..., "inputs": ...}. The
	// rest of settings.json is none of our business, so no warnings for it.
	if raw, ok := top["mcp"]; ok {
		var mcp map[string]json.RawMessage
		if json.Unmarshal(raw, &mcp) == nil {
			if s, ok := mcp["servers"]; ok {
				r.Format = FormatVSCode
				r.warnTopLevel(mcp, "servers", "inputs")
				return s, mcp["inputs"], nil
			}
		}
	}
	return nil, nil, errors.New(`no MCP servers found: expected a "mcpServers" object (claude_desktop_config.json, ` +
		`~/.cursor/mcp.json) or a "servers" object (VS Code mcp.json)`)
}

func (r *ImportReport) serversKey() string {
	if r.Format == FormatVSCode {
		return "servers"
	}
	return "mcpServers"
}

func (r *ImportReport) warnTopLevel(top map[string]json.RawMessage, known ...string) {
	for _, k := range sortedKeys(top) {
		if !slices.Contains(known, k) {
			r.Warnings = append(r.Warnings, ImportNote{Message: fmt.Sprintf("top-level field %q ignored", k)})
		}
	}
}

// parseInputs reads VS Code's "inputs" array. Malformed inputs are warned
// about; a reference to them is then treated as an undefined input.
func (r *ImportReport) parseInputs(raw json.RawMessage) map[string]InputPrompt {
	if raw == nil || isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		r.Warnings = append(r.Warnings, ImportNote{Message: fmt.Sprintf(`"inputs" must be an array, not %s; inputs ignored`, jsonKind(raw))})
		return nil
	}
	inputs := make(map[string]InputPrompt)
	for i, item := range items {
		var in struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			Description string `json:"description"`
			Password    bool   `json:"password"`
		}
		if err := json.Unmarshal(item, &in); err != nil || in.ID == "" {
			r.Warnings = append(r.Warnings, ImportNote{Message: fmt.Sprintf("inputs[%d] has no string id; ignored", i)})
			continue
		}
		if in.Type != "promptString" {
			r.Warnings = append(r.Warnings, ImportNote{Message: fmt.Sprintf("input %q has type %q; it will be asked for as text", in.ID, in.Type)})
		}
		inputs[in.ID] = InputPrompt{ID: in.ID, Description: in.Description, Password: in.Password}
	}
	return inputs
}

// isCursorEntry reports whether an mcpServers entry uses a field only
// Cursor-style files have.
func isCursorEntry(m jsonobj.Member) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(m.Value, &fields) != nil {
		return false
	}
	_, serverURL := fields["serverUrl"]
	_, auth := fields["auth"]
	return serverURL || auth
}

type seenServer struct {
	id, fingerprint, name string
	existing              bool
}

type importer struct {
	report *ImportReport
	inputs map[string]InputPrompt
	seen   []seenServer // existing configs, then entries of the file
	dir    string       // the file's directory; empty when unknown
}

func (imp *importer) entry(name string, raw json.RawMessage) {
	r := imp.report
	id := NewID(name, nil)
	if i := slices.IndexFunc(imp.seen, func(s seenServer) bool { return s.id == id }); i >= 0 {
		s := imp.seen[i]
		msg := fmt.Sprintf("a server with ID %q already exists", id)
		if !s.existing {
			msg = fmt.Sprintf("same ID %q as entry %q earlier in this file", id, s.name)
		}
		r.Skipped = append(r.Skipped, ImportNote{Server: name, ID: id, Message: msg})
		return
	}
	imp.seen = append(imp.seen, seenServer{id: id, name: name})

	e := &entryParser{format: r.Format, name: name, id: id, inputs: imp.inputs, dir: imp.dir}
	cfg, err := e.parse(raw)
	if err != nil {
		r.Failed = append(r.Failed, ImportNote{Server: name, ID: id, Message: err.Error()})
		return
	}
	fp := Fingerprint(cfg)
	if i := slices.IndexFunc(imp.seen, func(s seenServer) bool { return s.fingerprint == fp }); i >= 0 {
		s := imp.seen[i]
		what := "command"
		if cfg.Transport != TransportStdio {
			what = "URL"
		}
		msg := fmt.Sprintf("same %s as existing server %q", what, s.name)
		if !s.existing {
			msg = fmt.Sprintf("same %s as entry %q earlier in this file", what, s.name)
		}
		r.Skipped = append(r.Skipped, ImportNote{Server: name, ID: id, Message: msg})
		return
	}
	if err := Validate(cfg); err != nil {
		var ve *ValidationError
		msg := err.Error()
		if errors.As(err, &ve) {
			parts := make([]string, len(ve.Errors))
			for i, fe := range ve.Errors {
				parts[i] = fe.String()
			}
			msg = strings.Join(parts, "; ")
		}
		r.Failed = append(r.Failed, ImportNote{Server: name, ID: id, Message: msg})
		return
	}
	imp.seen[len(imp.seen)-1].fingerprint = fp
	r.Added = append(r.Added, *cfg)
	for _, w := range e.warnings {
		r.Warnings = append(r.Warnings, ImportNote{Server: name, ID: id, Message: w})
	}
	r.NeedsInput = append(r.NeedsInput, e.needs...)
}

// entryParser reads one server entry.
type entryParser struct {
	format   Format
	name, id string
	inputs   map[string]InputPrompt
	dir      string // relative paths resolve against it; empty when unknown

	warnings []string
	needs    []SecretInput
}

func (e *entryParser) warnf(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// Fields read by some format but not imported, with the reason.
var ignoredFields = map[string]string{
	"envFile":     "envFile is not supported; add its variables to env",
	"autoApprove": "auto-approval lists are not imported; approve tools in Switchboard",
	"alwaysAllow": "auto-approval lists are not imported; approve tools in Switchboard",
	"dev":         "dev (watch and debug) settings are not supported",
	"gallery":     "",
	"version":     "",
	"description": "",
}

func (e *entryParser) parse(raw json.RawMessage) (*Config, error) {
	members, ok := jsonobj.Members(raw)
	if !ok {
		return nil, fmt.Errorf("must be an object with a command or a url, not %s", jsonKind(raw))
	}
	f := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		if isNull(m.Value) {
			continue // "args": null is the same as no args
		}
		f[m.Key] = m.Value
	}
	known := []string{"type", "transportType", "command", "args", "env", "cwd", "url", "serverUrl", "headers", "disabled", "timeout"}
	if e.format == FormatCursor {
		known = append(known, "auth")
	}
	for _, m := range members {
		switch reason, ignored := ignoredFields[m.Key]; {
		case slices.Contains(known, m.Key):
		case ignored && reason != "":
			e.warnf("%s", reason)
		case ignored:
		default:
			e.warnf("unknown field %q ignored", m.Key)
		}
	}

	cfg := &Config{ID: e.id, Name: e.name, Enabled: true}
	command, err := stringField(f, "command")
	if err != nil {
		return nil, err
	}
	rawURL, err := stringField(f, "url")
	if err != nil {
		return nil, err
	}
	if rawURL == "" {
		if rawURL, err = stringField(f, "serverUrl"); err != nil {
			return nil, err
		}
	}
	transport, err := e.transport(f, command, rawURL)
	if err != nil {
		return nil, err
	}
	cfg.Transport = transport

	if transport == TransportStdio {
		if _, ok := f["url"]; ok {
			e.warnf("url ignored: the server runs a command")
		}
		if _, ok := f["headers"]; ok {
			e.warnf("headers ignored: they are only sent to remote servers")
		}
		cfg.Command = command
		e.checkExpansion("command", command)
		if cfg.Args, err = stringsField(f, "args"); err != nil {
			return nil, err
		}
		for i, a := range cfg.Args {
			cfg.Args[i] = e.stripArgSecrets(i, a)
			e.checkExpansion(fmt.Sprintf("args[%d]", i), cfg.Args[i])
		}
		if cfg.Cwd, err = stringField(f, "cwd"); err != nil {
			return nil, err
		}
		e.checkExpansion("cwd", cfg.Cwd)
		if cfg.Env, err = e.values(f, "env", EnvSecretRef); err != nil {
			return nil, err
		}
		e.resolvePaths(cfg)
	} else {
		for _, k := range []string{"command", "args", "env", "cwd"} {
			if _, ok := f[k]; ok {
				e.warnf("%s ignored: the server is remote (%s)", k, transport)
			}
		}
		cfg.URL = rawURL
		e.checkExpansion("url", rawURL)
		if cfg.Headers, err = e.values(f, "headers", HeaderSecretRef); err != nil {
			return nil, err
		}
		if transport == TransportHTTP && e.typeOf(f) == "" && strings.HasSuffix(urlPath(rawURL), "/sse") {
			e.warnf("url ends in /sse but no type is given, so it was imported as streamable HTTP; " +
				"switch the transport to SSE if the server only speaks SSE")
		}
		if e.format == FormatCursor {
			if cfg.Auth, err = e.auth(f); err != nil {
				return nil, err
			}
		}
	}

	if raw, ok := f["disabled"]; ok {
		var disabled bool
		if json.Unmarshal(raw, &disabled) != nil {
			e.warnf("disabled must be true or false, not %s; ignored", jsonKind(raw))
		}
		cfg.Enabled = !disabled
	}
	if raw, ok := f["timeout"]; ok {
		var secs float64
		if json.Unmarshal(raw, &secs) != nil || secs <= 0 {
			e.warnf("timeout must be a positive number of seconds; ignored")
		} else {
			cfg.CallTimeout = time.Duration(secs * float64(time.Second))
		}
	}
	return cfg, nil
}

func (e *entryParser) typeOf(f map[string]json.RawMessage) string {
	for _, k := range []string{"type", "transportType"} {
		if raw, ok := f[k]; ok {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s
			}
		}
	}
	return ""
}

func (e *entryParser) transport(f map[string]json.RawMessage, command, rawURL string) (Transport, error) {
	for _, k := range []string{"type", "transportType"} {
		if raw, ok := f[k]; ok && jsonKind(raw) != "string" {
			return "", fmt.Errorf("%s must be a string, not %s", k, jsonKind(raw))
		}
	}
	switch typ := e.typeOf(f); strings.ToLower(typ) {
	case "stdio":
		if command == "" {
			return "", errors.New(`type is "stdio" but there is no command`)
		}
		return TransportStdio, nil
	case "sse":
		if rawURL == "" {
			return "", errors.New(`type is "sse" but there is no url`)
		}
		return TransportSSE, nil
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		if rawURL == "" {
			return "", fmt.Errorf("type is %q but there is no url", typ)
		}
		return TransportHTTP, nil
	case "":
		switch {
		case command != "" && rawURL != "":
			return "", errors.New("has both a command and a url; keep one, or set type")
		case command != "":
			return TransportStdio, nil
		case rawURL != "":
			// Claude and Cursor: a remote server without a type speaks
			// streamable HTTP.
			return TransportHTTP, nil
		}
		return "", errors.New("needs a command (local server) or a url (remote server)")
	default:
		return "", fmt.Errorf("type %q is not supported: use stdio, sse or http", typ)
	}
}

// values reads env or headers. A VS Code "${input:...}" value becomes a
// SecretRef the user must fill in.
func (e *entryParser) values(f map[string]json.RawMessage, field string, refFor func(id, name string) string) (map[string]Value, error) {
	raw, ok := f[field]
	if !ok {
		return nil, nil
	}
	members, ok := jsonobj.Members(raw)
	if !ok {
		return nil, fmt.Errorf("%s must be an object of names to string values, not %s", field, jsonKind(raw))
	}
	if len(members) == 0 {
		return nil, nil
	}
	out := make(map[string]Value, len(members))
	for _, m := range members {
		path := field + "." + m.Key
		if _, dup := out[m.Key]; dup {
			e.warnf("%s appears twice; the last value is kept", path)
		}
		var s string
		switch jsonKind(m.Value) {
		case "string":
			_ = json.Unmarshal(m.Value, &s)
		case "number", "boolean":
			s = string(bytes.TrimSpace(m.Value))
			e.warnf("%s is a %s; imported as the string %q", path, jsonKind(m.Value), s)
		case "object":
			var ref struct {
				SecretRef string `json:"secretRef"`
			}
			if json.Unmarshal(m.Value, &ref) == nil && ref.SecretRef != "" {
				return nil, fmt.Errorf("%s names keyring entry %q; an imported file may not refer to keyring entries "+
					"(it could read another server's secret), so this server was not imported: write the value itself instead",
					path, ref.SecretRef)
			}
			return nil, fmt.Errorf("%s must be a string, not %s", path, jsonKind(m.Value))
		default:
			return nil, fmt.Errorf("%s must be a string, not %s", path, jsonKind(m.Value))
		}
		if e.format == FormatVSCode && inputRef.MatchString(s) {
			ref := refFor(e.id, m.Key)
			e.needs = append(e.needs, SecretInput{ServerID: e.id, Field: path, Ref: ref, Template: s, Inputs: e.prompts(s)})
			out[m.Key] = Value{SecretRef: ref}
			continue
		}
		e.checkExpansion(path, s)
		out[m.Key] = Value{Plain: s}
	}
	return out, nil
}

var (
	inputRef  = regexp.MustCompile(`\$\{input:([^}]*)\}`)
	expansion = regexp.MustCompile(`\$\{[^}]*\}`)
)

func (e *entryParser) prompts(s string) []InputPrompt {
	var out []InputPrompt
	for _, m := range inputRef.FindAllStringSubmatch(s, -1) {
		id := m[1]
		if slices.ContainsFunc(out, func(p InputPrompt) bool { return p.ID == id }) {
			continue
		}
		p, ok := e.inputs[id]
		if !ok {
			e.warnf("refers to input %q, which the file does not define", id)
			p = InputPrompt{ID: id, Password: true}
		}
		out = append(out, p)
	}
	return out
}

// stripArgSecrets removes ${secret:NAME} placeholders from an imported
// argument: they name keyring entries, which a file from elsewhere must not
// choose (an entry left over from a deleted server of the same ID would be
// handed to this one). The user types the password in again.
func (e *entryParser) stripArgSecrets(i int, a string) string {
	if !argSecret.MatchString(a) {
		return a
	}
	e.warnf("args[%d] refers to a keyring entry (%s), which an imported file may not do; it was removed: "+
		"type the password into the argument in the server's settings", i, argSecret.FindString(a))
	return argSecret.ReplaceAllString(a, "")
}

// checkExpansion warns about ${...} variables, which the other apps expand
// and Switchboard passes on as written.
func (e *entryParser) checkExpansion(field, s string) {
	if v := expansion.FindString(s); v != "" {
		e.warnf("%s uses %s, which Switchboard does not expand; edit the value", field, v)
	}
}

// auth reads Cursor's static OAuth client: {"CLIENT_ID", "CLIENT_SECRET", "scopes"}.
func (e *entryParser) auth(f map[string]json.RawMessage) (*Auth, error) {
	raw, ok := f["auth"]
	if !ok {
		return nil, nil
	}
	members, ok := jsonobj.Members(raw)
	if !ok {
		return nil, fmt.Errorf("auth must be an object, not %s", jsonKind(raw))
	}
	af := make(map[string]json.RawMessage)
	for _, m := range members {
		switch m.Key {
		case "CLIENT_ID", "CLIENT_SECRET", "scopes":
			af[m.Key] = m.Value
		default:
			e.warnf("unknown field auth.%s ignored", m.Key)
		}
	}
	a := &Auth{}
	var err error
	if a.ClientID, err = stringField(af, "CLIENT_ID"); err != nil {
		return nil, fmt.Errorf("auth.%w", err)
	}
	if a.Scopes, err = stringsField(af, "scopes"); err != nil {
		return nil, fmt.Errorf("auth.%w", err)
	}
	secret, err := stringField(af, "CLIENT_SECRET")
	if err != nil {
		return nil, fmt.Errorf("auth.%w", err)
	}
	if secret != "" {
		// Import never writes, and a Config holds no plain client secret:
		// the user enters it again.
		a.ClientSecretRef = ClientSecretRef(e.id)
		e.needs = append(e.needs, SecretInput{ServerID: e.id, Field: "auth.clientSecretRef", Ref: a.ClientSecretRef,
			Inputs: []InputPrompt{{ID: "client-secret", Description: "OAuth client secret", Password: true}}})
		e.warnf("the OAuth client secret was not imported; enter it in the server's settings")
	}
	if a.ClientID == "" && a.ClientSecretRef == "" && len(a.Scopes) == 0 {
		return nil, nil
	}
	return a, nil
}

func stringField(f map[string]json.RawMessage, name string) (string, error) {
	raw, ok := f[name]
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s must be a string, not %s", name, jsonKind(raw))
	}
	return s, nil
}

func stringsField(f map[string]json.RawMessage, name string) ([]string, error) {
	raw, ok := f[name]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s must be an array of strings, not %s", name, jsonKind(raw))
	}
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]string, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item, &out[i]); err != nil || jsonKind(item) != "string" {
			return nil, fmt.Errorf("%s[%d] must be a string, not %s", name, i, jsonKind(item))
		}
	}
	return out, nil
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// resolvePaths makes a stdio config's relative command, script arguments
// and cwd absolute against the file's directory, or warns that they are
// relative when the directory is unknown.
func (e *entryParser) resolvePaths(cfg *Config) {
	if cfg.Cwd != "" {
		if !filepath.IsAbs(cfg.Cwd) && !expansion.MatchString(cfg.Cwd) {
			cfg.Cwd = e.resolve("cwd", cfg.Cwd)
		}
		return // command and args are relative to the cwd
	}
	if isRelativePath(cfg.Command) {
		cfg.Command = e.resolve("command", cfg.Command)
	}
	for i, a := range cfg.Args {
		if !looksLikeRelativeFile(a) && (e.dir == "" || !isRelativePath(a) || strings.HasPrefix(a, "@") || strings.ContainsAny(a, ":=")) {
			continue
		}
		if e.dir == "" {
			e.warnf("args[%d] %q looks like a relative path; with no file to resolve it against, it is relative to the directory "+
				"Switchboard runs in: make it absolute", i, a)
			continue
		}
		if st, err := os.Stat(filepath.Join(e.dir, a)); err == nil && st.Mode().IsRegular() {
			cfg.Args[i] = e.resolve(fmt.Sprintf("args[%d]", i), a)
		}
	}
}

// resolve returns path made absolute against e.dir, with a note in the
// report, or path unchanged with a warning when there is no directory.
func (e *entryParser) resolve(field, path string) string {
	if e.dir == "" {
		e.warnf("%s %q is a relative path; with no file to resolve it against, it is relative to the directory "+
			"Switchboard runs in: make it absolute", field, path)
		return path
	}
	abs := filepath.Join(e.dir, path)
	e.warnf("%s %q was resolved against the config file's directory: %s", field, path, abs)
	return abs
}

// isRelativePath reports whether a command is a relative path ("./x",
// "bin/x") rather than a name looked up on PATH or an absolute path.
func isRelativePath(s string) bool {
	return s != "" && !filepath.IsAbs(s) && strings.ContainsAny(s, `/\`) && !expansion.MatchString(s)
}

// scriptExts are the extensions of scripts a runtime (node, python, deno,
// bun) is given as an argument.
var scriptExts = []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".py", ".jar"}

// looksLikeRelativeFile reports whether an argument may be a relative path
// to a file: not a flag, URL, npm package (@scope/name), absolute path or
// ${...} expression, and either starting with ./ or ../, or containing a
// separator or ending in a script extension.
func looksLikeRelativeFile(a string) bool {
	if a == "" || filepath.IsAbs(a) || strings.HasPrefix(a, "/") || strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") ||
		strings.Contains(a, "://") || strings.Contains(a, "=") || expansion.MatchString(a) {
		return false
	}
	if strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, `.\`) || strings.HasPrefix(a, `..\`) {
		return true
	}
	return slices.Contains(scriptExts, strings.ToLower(filepath.Ext(a)))
}

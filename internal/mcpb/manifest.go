package mcpb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Server types (server.type).
const (
	TypeNode   = "node"
	TypePython = "python"
	TypeBinary = "binary"
	// TypeUV is a Python server whose dependencies uv installs from the
	// bundle's pyproject.toml (manifest 0.4, experimental in the spec).
	TypeUV = "uv"
)

// User configuration field types (user_config.*.type).
const (
	FieldString    = "string"
	FieldNumber    = "number"
	FieldBoolean   = "boolean"
	FieldDirectory = "directory"
	FieldFile      = "file"
)

// A Manifest is a bundle's manifest.json: the fields Switchboard uses or
// shows. Fields the spec marks optional are empty when absent.
type Manifest struct {
	// ManifestVersion is the spec version ("0.1" to "0.4"), from
	// manifest_version or, in bundles made as .dxt, dxt_version.
	ManifestVersion string
	// Name is the machine-readable name; DisplayName, if set, is for people.
	Name, DisplayName string
	// Version is the bundle's own version (semver).
	Version         string
	Description     string
	LongDescription string
	Author          Author
	Homepage        string
	Documentation   string
	Support         string
	License         string
	// Icon is a path inside the bundle or an https URL.
	Icon     string
	Keywords []string
	Server   Server
	// Tools and Prompts are what the author declares; the server may offer
	// more at run time when ToolsGenerated or PromptsGenerated is set.
	Tools            []Tool
	ToolsGenerated   bool
	Prompts          []Prompt
	PromptsGenerated bool
	Compatibility    Compatibility
	// UserConfig is user_config in manifest order. Default is as the
	// manifest writes it (variables not substituted; see
	// Bundle.UserConfig).
	UserConfig []UserConfigField
}

// Title is the name to show: DisplayName, or Name when that is empty.
func (m Manifest) Title() string {
	if m.DisplayName != "" {
		return m.DisplayName
	}
	return m.Name
}

// Author is manifest.author.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	URL   string `json:"url"`
}

// Server is manifest.server.
type Server struct {
	// Type is one of TypeNode, TypePython, TypeBinary, TypeUV.
	Type string
	// EntryPoint is the main file, a clean slash path inside the bundle.
	EntryPoint string
	// MCPConfig says how to run the server; nil only for TypeUV, where the
	// host runs the entry point with uv.
	MCPConfig *MCPConfig
}

// MCPConfig is server.mcp_config. Its strings may hold ${...} variables.
type MCPConfig struct {
	Command string
	Args    []string
	Env     map[string]string
	// PlatformOverrides by platform name ("darwin", "win32", "linux").
	PlatformOverrides map[string]PlatformOverride
}

// A PlatformOverride replaces parts of MCPConfig on one platform: Command
// when not empty, Args and Env (each as a whole, as the reference
// implementation does) when not nil.
type PlatformOverride struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Compatibility is manifest.compatibility.
type Compatibility struct {
	// ClaudeDesktop is a semver range for Claude Desktop; Switchboard
	// ignores it.
	ClaudeDesktop string
	// Platforms the bundle runs on; empty means all. Open refuses a
	// bundle that leaves out this platform.
	Platforms []string
	// Runtimes are semver ranges, such as Node ">=18.0.0"; not checked here.
	Runtimes Runtimes
}

// Runtimes is compatibility.runtimes.
type Runtimes struct {
	Node   string `json:"node"`
	Python string `json:"python"`
}

// Tool is one entry of manifest.tools.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Prompt is one entry of manifest.prompts.
type Prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Arguments   []string `json:"arguments"`
	Text        string   `json:"text"`
}

// A UserConfigField is one setting the bundle asks the user for.
type UserConfigField struct {
	// Key is the name in ${user_config.KEY} and in Launch's values.
	Key string
	// Type is one of FieldString, FieldNumber, FieldBoolean,
	// FieldDirectory, FieldFile.
	Type string
	// Title is the label; the Key when the manifest has none.
	Title       string
	Description string
	Required    bool
	// Sensitive values (API keys) belong in the keyring; Launch lists the
	// env keys that carry them in LaunchSpec.SecretEnv.
	Sensitive bool
	// Multiple lets a directory or file setting hold several paths: in
	// Launch's values (and in Default) one per line.
	Multiple bool
	// Default is the value used when the user gives none, in the same form
	// as Launch's values ("" = no default).
	Default string
	// Min and Max bound a number; nil means unbounded.
	Min, Max *float64
}

// MultipleSeparator separates the paths of a Multiple setting in Launch's
// values and in UserConfigField.Default.
const MultipleSeparator = "\n"

// A manifestError is a problem with the manifest, before the bundle file
// name is prefixed.
type manifestError struct {
	msg  string
	kind error
}

func (e *manifestError) Error() string { return e.msg }
func (e *manifestError) Unwrap() error { return e.kind }

const fixHint = "ask the bundle's author for a fixed bundle"

func invalidf(format string, args ...any) error {
	return &manifestError{msg: ManifestName + ": " + fmt.Sprintf(format, args...) + "; " + fixHint, kind: ErrInvalid}
}

// Bounds on what a manifest may hold.
const (
	maxShortText   = 256      // names, titles, versions, env keys...
	maxText        = 16 << 10 // descriptions
	maxLongText    = 256 << 10
	maxArgs        = 1000
	maxEnv         = 500
	maxArgBytes    = 32 << 10
	maxUserConfig  = 200
	maxListEntries = 1000
	maxValueBytes  = 64 << 10 // one user value, and one default
)

// rawManifest is manifest.json as decoded; parseManifest checks it.
type rawManifest struct {
	ManifestVersion  *string         `json:"manifest_version"`
	DXTVersion       *string         `json:"dxt_version"`
	Name             string          `json:"name"`
	DisplayName      string          `json:"display_name"`
	Version          string          `json:"version"`
	Description      string          `json:"description"`
	LongDescription  string          `json:"long_description"`
	Author           *Author         `json:"author"`
	Homepage         string          `json:"homepage"`
	Documentation    string          `json:"documentation"`
	Support          string          `json:"support"`
	License          string          `json:"license"`
	Icon             string          `json:"icon"`
	Keywords         []string        `json:"keywords"`
	Server           *rawServer      `json:"server"`
	Tools            []Tool          `json:"tools"`
	ToolsGenerated   bool            `json:"tools_generated"`
	Prompts          []Prompt        `json:"prompts"`
	PromptsGenerated bool            `json:"prompts_generated"`
	Compatibility    *rawCompat      `json:"compatibility"`
	UserConfig       json.RawMessage `json:"user_config"`
}

type rawServer struct {
	Type       string        `json:"type"`
	EntryPoint string        `json:"entry_point"`
	MCPConfig  *rawMCPConfig `json:"mcp_config"`
}

type rawMCPConfig struct {
	Command           *string                `json:"command"`
	Args              []string               `json:"args"`
	Env               map[string]string      `json:"env"`
	PlatformOverrides map[string]rawOverride `json:"platform_overrides"`
}

type rawOverride struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type rawCompat struct {
	ClaudeDesktop string   `json:"claude_desktop"`
	Platforms     []string `json:"platforms"`
	Runtimes      Runtimes `json:"runtimes"`
}

type rawField struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Default     json.RawMessage `json:"default"`
	Multiple    bool            `json:"multiple"`
	Sensitive   bool            `json:"sensitive"`
	Min         *float64        `json:"min"`
	Max         *float64        `json:"max"`
}

var (
	envKeyRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	fieldKeyRE   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	platformList = []string{"darwin", "linux", "win32"}
)

// parseManifest decodes and validates manifest.json.
func parseManifest(raw []byte) (Manifest, error) {
	if !utf8.Valid(raw) {
		return Manifest{}, invalidf("not UTF-8 text")
	}
	if err := checkKeys(raw); err != nil {
		return Manifest{}, err
	}
	var r rawManifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Manifest{}, invalidf("%s is a JSON %s where the spec has %s (%s)", te.Field, te.Value, jsonKind(te.Type), strings.TrimSuffix(jsonPosition(raw, err), ": "))
		}
		return Manifest{}, invalidf("not valid JSON (%s%v)", jsonPosition(raw, err), err)
	}
	if dec.More() {
		return Manifest{}, invalidf("has text after the JSON object")
	}
	var m Manifest
	// Version first: a newer spec may have changed anything else.
	switch {
	case r.ManifestVersion != nil:
		m.ManifestVersion = *r.ManifestVersion
	case r.DXTVersion != nil:
		m.ManifestVersion = *r.DXTVersion
	default:
		return Manifest{}, invalidf("manifest_version is missing")
	}
	if !slices.Contains(SupportedVersions, m.ManifestVersion) {
		return Manifest{}, &manifestError{
			msg: fmt.Sprintf("%s: manifest_version %q is not one Switchboard reads (%s to %s); update Switchboard, or ask the bundle's author for a bundle with manifest_version %s or older",
				ManifestName, clip(m.ManifestVersion), SupportedVersions[0], SupportedVersions[len(SupportedVersions)-1], SupportedVersions[len(SupportedVersions)-1]),
			kind: ErrUnsupported,
		}
	}
	m.Name, m.DisplayName, m.Version = r.Name, r.DisplayName, r.Version
	m.Description, m.LongDescription = r.Description, r.LongDescription
	m.Homepage, m.Documentation, m.Support, m.License, m.Icon = r.Homepage, r.Documentation, r.Support, r.License, r.Icon
	m.Keywords, m.Tools, m.Prompts = r.Keywords, r.Tools, r.Prompts
	m.ToolsGenerated, m.PromptsGenerated = r.ToolsGenerated, r.PromptsGenerated
	if r.Author != nil {
		m.Author = *r.Author
	}
	if r.Compatibility != nil {
		m.Compatibility = Compatibility{ClaudeDesktop: r.Compatibility.ClaudeDesktop, Platforms: r.Compatibility.Platforms, Runtimes: r.Compatibility.Runtimes}
	}
	if err := checkText(&m); err != nil {
		return Manifest{}, err
	}
	for _, p := range m.Compatibility.Platforms {
		if !slices.Contains(platformList, p) {
			return Manifest{}, invalidf("compatibility.platforms has %q; the spec allows darwin, linux and win32", clip(p))
		}
	}
	if r.Server == nil {
		return Manifest{}, invalidf("server is missing")
	}
	srv, err := parseServer(r.Server)
	if err != nil {
		return Manifest{}, err
	}
	m.Server = srv
	if m.UserConfig, err = parseUserConfig(r.UserConfig); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// checkKeys refuses an object with two keys that are equal but for case.
// encoding/json matches field names without case and JavaScript does not,
// so {"server": A, "Server": B} would run A in Claude Desktop and B here.
func checkKeys(raw []byte) error {
	type frame struct {
		keys    map[string]string // lower case -> as written; nil for arrays
		wantKey bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF, or a syntax error that decoding reports
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{keys: map[string]string{}, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if top != nil && top.keys != nil && top.wantKey {
				l := strings.ToLower(v)
				if prev, ok := top.keys[l]; ok {
					return invalidf("has the keys %q and %q in one object; keys must differ by more than case", clip(prev), clip(v))
				}
				top.keys[l] = v
				top.wantKey = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// checkText bounds the manifest's text fields and refuses control
// characters in the ones shown on one line (names, versions), which a
// terminal would otherwise interpret.
func checkText(m *Manifest) error {
	if m.Name == "" {
		return invalidf("name is missing")
	}
	if m.Version == "" {
		return invalidf("version is missing")
	}
	short := []struct{ field, v string }{{"name", m.Name}, {"display_name", m.DisplayName}, {"version", m.Version},
		{"author.name", m.Author.Name}, {"author.email", m.Author.Email}, {"author.url", m.Author.URL},
		{"homepage", m.Homepage}, {"documentation", m.Documentation}, {"support", m.Support}, {"license", m.License},
		{"icon", m.Icon}, {"compatibility.claude_desktop", m.Compatibility.ClaudeDesktop},
		{"compatibility.runtimes.node", m.Compatibility.Runtimes.Node}, {"compatibility.runtimes.python", m.Compatibility.Runtimes.Python}}
	for _, s := range short {
		if err := checkLine(s.field, s.v, maxShortText); err != nil {
			return err
		}
	}
	if err := checkBlock("description", m.Description, maxText); err != nil {
		return err
	}
	if err := checkBlock("long_description", m.LongDescription, maxLongText); err != nil {
		return err
	}
	if len(m.Keywords) > maxListEntries || len(m.Tools) > maxListEntries || len(m.Prompts) > maxListEntries || len(m.Compatibility.Platforms) > maxListEntries {
		return invalidf("lists more than %d keywords, tools or prompts", maxListEntries)
	}
	for _, k := range m.Keywords {
		if err := checkLine("keywords", k, maxShortText); err != nil {
			return err
		}
	}
	for _, t := range m.Tools {
		if err := checkLine("tools[].name", t.Name, maxShortText); err != nil {
			return err
		}
		if err := checkBlock("tools[].description", t.Description, maxText); err != nil {
			return err
		}
	}
	for _, p := range m.Prompts {
		if err := checkLine("prompts[].name", p.Name, maxShortText); err != nil {
			return err
		}
		if err := checkBlock("prompts[].description", p.Description, maxText); err != nil {
			return err
		}
		if err := checkBlock("prompts[].text", p.Text, maxText); err != nil {
			return err
		}
		if len(p.Arguments) > maxListEntries {
			return invalidf("prompt %q has more than %d arguments", clip(p.Name), maxListEntries)
		}
		for _, a := range p.Arguments {
			if err := checkLine("prompts[].arguments", a, maxShortText); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkLine refuses a one-line field that is too long or holds a control
// character.
func checkLine(field, v string, max int) error {
	if len(v) > max {
		return invalidf("%s is longer than %d bytes", field, max)
	}
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return invalidf("%s has a control character (%q)", field, clip(v))
		}
	}
	return nil
}

// checkBlock refuses a multi-line field that is too long or holds a
// control character other than tab and newline.
func checkBlock(field, v string, max int) error {
	if len(v) > max {
		return invalidf("%s is longer than %d bytes", field, max)
	}
	for _, r := range v {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			return invalidf("%s has a control character (%U)", field, r)
		}
	}
	return nil
}

func parseServer(r *rawServer) (Server, error) {
	s := Server{Type: r.Type}
	switch r.Type {
	case TypeNode, TypePython, TypeBinary, TypeUV:
	case "":
		return Server{}, invalidf("server.type is missing (node, python, binary or uv)")
	default:
		return Server{}, &manifestError{
			msg:  fmt.Sprintf("%s: server.type %q is not one Switchboard runs (node, python, binary, uv); update Switchboard or ask the bundle's author", ManifestName, clip(r.Type)),
			kind: ErrUnsupported,
		}
	}
	if r.EntryPoint == "" {
		return Server{}, invalidf("server.entry_point is missing")
	}
	ep, ok := bundleRelative(r.EntryPoint)
	if !ok || len(r.EntryPoint) > maxNameBytes {
		return Server{}, invalidf("server.entry_point %q is not a path inside the bundle", clip(r.EntryPoint))
	}
	s.EntryPoint = ep
	if r.MCPConfig == nil {
		if r.Type == TypeUV {
			return s, nil
		}
		return Server{}, invalidf("server.mcp_config is missing, so Switchboard cannot tell how to start the server")
	}
	c := r.MCPConfig
	if c.Command == nil || *c.Command == "" {
		return Server{}, invalidf("server.mcp_config.command is missing")
	}
	mc := &MCPConfig{Command: *c.Command, Args: c.Args, Env: c.Env}
	if err := checkCommandLine("server.mcp_config", mc.Command, mc.Args, mc.Env); err != nil {
		return Server{}, err
	}
	if len(c.PlatformOverrides) > 0 {
		mc.PlatformOverrides = make(map[string]PlatformOverride, len(c.PlatformOverrides))
	}
	for p, o := range c.PlatformOverrides {
		if !slices.Contains(platformList, p) {
			continue // another client's platform name; never ours
		}
		if err := checkCommandLine("server.mcp_config.platform_overrides."+p, o.Command, o.Args, o.Env); err != nil {
			return Server{}, err
		}
		mc.PlatformOverrides[p] = PlatformOverride(o)
	}
	s.MCPConfig = mc
	return s, nil
}

// checkCommandLine bounds a command, its args and env, and checks env keys.
func checkCommandLine(where, command string, args []string, env map[string]string) error {
	if len(command) > maxArgBytes || strings.ContainsRune(command, 0) {
		return invalidf("%s.command is longer than %d bytes or has a NUL", where, maxArgBytes)
	}
	if len(args) > maxArgs {
		return invalidf("%s.args has more than %d entries", where, maxArgs)
	}
	for _, a := range args {
		if len(a) > maxArgBytes || strings.ContainsRune(a, 0) {
			return invalidf("%s.args has an entry longer than %d bytes or with a NUL", where, maxArgBytes)
		}
	}
	if len(env) > maxEnv {
		return invalidf("%s.env has more than %d variables", where, maxEnv)
	}
	for k, v := range env {
		if len(k) > maxShortText || !envKeyRE.MatchString(k) {
			return invalidf("%s.env has the key %q; a variable name is letters, digits and _", where, clip(k))
		}
		if len(v) > maxArgBytes || strings.ContainsRune(v, 0) {
			return invalidf("%s.env.%s is longer than %d bytes or has a NUL", where, k, maxArgBytes)
		}
	}
	return nil
}

// parseUserConfig decodes user_config keeping the manifest's key order.
func parseUserConfig(raw json.RawMessage) ([]UserConfigField, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, invalidf("user_config is not an object")
	}
	var out []UserConfigField
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalidf("user_config: %v", err)
		}
		key, _ := tok.(string)
		var rf rawField
		if err := dec.Decode(&rf); err != nil {
			return nil, invalidf("user_config.%s: %v", clip(key), err)
		}
		if len(out) == maxUserConfig {
			return nil, invalidf("user_config has more than %d settings", maxUserConfig)
		}
		if len(key) > 64 || !fieldKeyRE.MatchString(key) {
			return nil, invalidf("user_config has the key %q; a key is letters, digits, _, - and .", clip(key))
		}
		if seen[key] {
			return nil, invalidf("user_config has %q twice", key)
		}
		seen[key] = true
		f, err := parseField(key, rf)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func parseField(key string, rf rawField) (UserConfigField, error) {
	f := UserConfigField{Key: key, Type: rf.Type, Title: rf.Title, Description: rf.Description,
		Required: rf.Required, Sensitive: rf.Sensitive, Multiple: rf.Multiple, Min: rf.Min, Max: rf.Max}
	switch f.Type {
	case FieldString, FieldNumber, FieldBoolean, FieldDirectory, FieldFile:
	default:
		return f, invalidf("user_config.%s.type is %q; it must be string, number, boolean, directory or file", key, clip(f.Type))
	}
	if f.Title == "" {
		f.Title = key
	}
	if err := checkLine("user_config."+key+".title", f.Title, maxShortText); err != nil {
		return f, err
	}
	if err := checkBlock("user_config."+key+".description", f.Description, maxText); err != nil {
		return f, err
	}
	if f.Multiple && f.Type != FieldDirectory && f.Type != FieldFile {
		// The spec allows multiple only for paths; elsewhere it means nothing.
		f.Multiple = false
	}
	for _, p := range []*float64{f.Min, f.Max} {
		if p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) {
			return f, invalidf("user_config.%s has a min or max that is not a number", key)
		}
	}
	if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
		return f, invalidf("user_config.%s has min %v above max %v", key, *f.Min, *f.Max)
	}
	d, err := parseDefault(key, f, rf.Default)
	if err != nil {
		return f, err
	}
	f.Default = d
	return f, nil
}

// parseDefault turns a default (string, number, boolean or list of
// strings) into the form of Launch's values.
func parseDefault(key string, f UserConfigField, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if len(raw) > maxValueBytes {
		return "", invalidf("user_config.%s.default is longer than %d bytes", key, maxValueBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", invalidf("user_config.%s.default: %v", key, err)
	}
	bad := func() (string, error) {
		var c bytes.Buffer
		json.Compact(&c, raw)
		return "", invalidf("user_config.%s.default (%s) does not fit its type %s", key, clip(c.String()), f.Type)
	}
	switch v := v.(type) {
	case string:
		if strings.ContainsRune(v, 0) || (f.Multiple && strings.Contains(v, MultipleSeparator)) {
			return bad()
		}
		return v, nil
	case json.Number:
		if f.Type != FieldNumber && f.Type != FieldString {
			return bad()
		}
		if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
			return bad()
		}
		return v.String(), nil
	case bool:
		if f.Type != FieldBoolean && f.Type != FieldString {
			return bad()
		}
		return strconv.FormatBool(v), nil
	case []any:
		if !f.Multiple {
			return bad()
		}
		parts := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok || s == "" || strings.ContainsAny(s, "\x00"+MultipleSeparator) {
				return bad()
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, MultipleSeparator), nil
	}
	return bad()
}

// jsonKind names a Go type as the JSON a manifest should have there.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64, reflect.Int:
		return "a number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another type"
}

// clip shortens a string from a manifest for an error message.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

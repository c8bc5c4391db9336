package serverconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A CommandTool is a plain command offered to models as a tool, one of the
// tools of a server of TransportCommand, which Switchboard serves itself.
//
// Command is the program and its arguments as a list (argv), never a shell
// line: an element may hold placeholders, {{name}}, each replaced by the
// value of the tool's argument name (see Argv). A value always stays
// inside its one element, whatever it holds (spaces, quotes, ";", "$(...)",
// backticks, newlines), and no shell ever reads it, so a model cannot add
// commands. It can still pass a value that starts with "-", which the
// program may take for an option ("--output=/etc/x"): put "--" before the
// placeholders, where the program supports it (["rg", "--json", "--",
// "{{pattern}}", "{{path}}"]), or write the value into an option of its own
// ("--regexp={{pattern}}"), or constrain it in the schema
// ("pattern": "^[^-]"). The program itself, Command[0], may hold no
// placeholder: the user chooses what runs, not the model. Nor may an
// element that the program reads as code (the script after sh -c, the
// code after python -c or node -e, all after cmd /c): a value there would
// be a shell string built from the model's input. A script takes it as a
// positional argument instead: ["sh", "-c", "grep -- \"$1\" notes.txt",
// "sh", "{{pattern}}"]. (Validate knows the common shells and
// interpreters; a program it does not know, or one started through
// another, such as env, is the user's to get right.)
type CommandTool struct {
	// Name is the tool's name on its server: 1 to 64 of A-Z, a-z, 0-9, _
	// and -. Models see it as "<server>__<name>".
	Name string `json:"name"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the tool's arguments, an object
	// schema whose properties are the names placeholders use; empty means
	// the tool takes no arguments. It is checked before every run.
	InputSchema json.RawMessage `json:"inputSchema,omitempty" ts_type:"unknown"`
	// Command is the argv: the program (a name found on PATH, or a full
	// path) and its arguments, with placeholders.
	Command []string `json:"command"`
	// Cwd is the folder the command runs in; empty means the server's
	// Config.Cwd, and when that is empty too, the user's home folder.
	Cwd string `json:"cwd,omitempty"`
	// Timeout bounds one run, after which the command and everything it
	// started are killed; zero means DefaultToolTimeout.
	Timeout time.Duration `json:"timeout,omitempty"`
	// OutputLimit is how many bytes of the command's output the model gets;
	// the rest is cut and the result says so. Zero means
	// DefaultOutputLimit.
	OutputLimit int `json:"outputLimit,omitempty"`
	// ReadOnly declares that the command changes nothing (the MCP
	// readOnlyHint): the user's own claim, which the read-only approval
	// policy and the lethal-trifecta guard then believe.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// Bounds of a command tool, checked by Validate.
const (
	DefaultToolTimeout = 30 * time.Second
	MinToolTimeout     = time.Second
	MaxToolTimeout     = time.Hour

	DefaultOutputLimit = 64 << 10
	MinOutputLimit     = 1 << 10
	MaxOutputLimit     = 1 << 20

	// MaxCommandTools is how many tools one command server may have.
	MaxCommandTools = 64
	// MaxArgv is how many elements a tool's command may have, and
	// MaxArgTemplate how long one may be as written.
	MaxArgv        = 256
	MaxArgTemplate = 4096
	// MaxToolSchema bounds a tool's input schema, in bytes.
	MaxToolSchema = 64 << 10
	// MaxToolDescription bounds a tool's description, in bytes.
	MaxToolDescription = 8 << 10

	// MaxArgBytes is the longest one argv element may be once expanded
	// (Linux refuses one of 128 KiB or more), and MaxArgvBytes all of them.
	MaxArgBytes  = 128<<10 - 1
	MaxArgvBytes = 1 << 20
)

// RunTimeout is Timeout, or DefaultToolTimeout when zero.
func (t *CommandTool) RunTimeout() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return DefaultToolTimeout
}

// Limit is OutputLimit, or DefaultOutputLimit when zero.
func (t *CommandTool) Limit() int {
	if t.OutputLimit > 0 {
		return t.OutputLimit
	}
	return DefaultOutputLimit
}

// Schema is InputSchema, or the schema of no arguments when empty.
func (t *CommandTool) Schema() json.RawMessage {
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t.InputSchema
}

// Local reports whether a server of this transport runs programs on this
// machine (stdio, command), rather than being reached over the network.
func (t Transport) Local() bool { return t == TransportStdio || t == TransportCommand }

// CloneTools copies tools deeply enough that neither copy's changes reach
// the other.
func CloneTools(tools []CommandTool) []CommandTool {
	if tools == nil {
		return nil
	}
	out := slices.Clone(tools)
	for i := range out {
		out[i].Command = slices.Clone(out[i].Command)
		out[i].InputSchema = slices.Clone(out[i].InputSchema)
	}
	return out
}

// UnmarshalJSON also takes the timeout as a Go duration string ("30s",
// "2m"), which is what a person writes in a file; the config stores it in
// nanoseconds, as CallTimeout.
func (t *CommandTool) UnmarshalJSON(data []byte) error {
	type plain CommandTool
	var aux struct {
		plain
		Timeout json.RawMessage `json:"timeout,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*t = CommandTool(aux.plain)
	t.Timeout = 0
	raw := bytes.TrimSpace(aux.Timeout)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("timeout %q: write it as 30s, 2m or 1h30m", s)
		}
		t.Timeout = d
	default:
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return fmt.Errorf("timeout %s: write it as a duration (\"30s\") or in nanoseconds", raw)
		}
		t.Timeout = time.Duration(n)
	}
	return nil
}

// A placeholder is {{name}}, spaces allowed inside the braces. Anything
// else in double braces ("{{.State}}" of docker --format, "{{json .}}") is
// text: only a word that could name an argument is taken as one.
var (
	argPlaceholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)
	// unfinished is a word in double braces whose closing braces are
	// missing ("{{pattern", "{{pattern}"), surely a placeholder mistyped.
	unfinished    = regexp.MustCompile(`\{\{\s*[A-Za-z_][A-Za-z0-9_-]*\s*(\}([^}]|$)|$)`)
	toolNameRegex = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// Placeholders returns the argument names element uses, in order, each
// once.
func Placeholders(element string) []string {
	var out []string
	for _, m := range argPlaceholder.FindAllStringSubmatch(element, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// ErrArgument is the class of Argv's errors: an argument's value cannot be
// passed to the program.
var ErrArgument = errors.New("invalid argument")

// Argv returns the command line of a run with args (decoded JSON, numbers
// as json.Number or float64): each placeholder replaced by its argument's
// value inside its own element. A string is passed as it is; a number as
// written (json.Number) or in its shortest form; a boolean as true or
// false; an array or object as compact JSON. An element with a
// placeholder whose argument is absent or null is left out whole, so an
// optional flag is written as one element: "--max-count={{max}}".
func (t *CommandTool) Argv(args map[string]any) ([]string, error) {
	out := make([]string, 0, len(t.Command))
	total := 0
	for i, el := range t.Command {
		missing := false
		var bad error
		expanded := argPlaceholder.ReplaceAllStringFunc(el, func(ph string) string {
			name := argPlaceholder.FindStringSubmatch(ph)[1]
			v, ok := args[name]
			if !ok || v == nil {
				missing = true
				return ""
			}
			s, err := argText(v)
			if err != nil && bad == nil {
				bad = fmt.Errorf("%w: %s: %v", ErrArgument, name, err)
			}
			if strings.IndexByte(s, 0) >= 0 && bad == nil {
				bad = fmt.Errorf("%w: %s contains a NUL character, which no program can receive", ErrArgument, name)
			}
			return s
		})
		if bad != nil {
			return nil, bad
		}
		if missing && i > 0 {
			continue
		}
		if len(expanded) > MaxArgBytes {
			return nil, fmt.Errorf("%w: element %d of the command would be %d bytes, more than the %d a program can receive", ErrArgument, i, len(expanded), MaxArgBytes)
		}
		total += len(expanded) + 1
		if total > MaxArgvBytes {
			return nil, fmt.Errorf("%w: the command line would be longer than %d bytes", ErrArgument, MaxArgvBytes)
		}
		out = append(out, expanded)
	}
	return out, nil
}

// argText is an argument's value as one argv element.
func argText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	default:
		b, err := json.Marshal(v)
		return string(b), err
	}
}

// validateCommand checks a command server: its tools, their schemas and
// placeholders, and the settings the tools share (env, cwd).
func validateCommand(v *validator, cfg *Config) {
	if len(cfg.Tools) == 0 {
		v.add("tools", "add at least one tool: a name, a description, the command and the JSON schema of its arguments")
	}
	if len(cfg.Tools) > MaxCommandTools {
		v.add("tools", "at most %d tools on one server (got %d); split them over several servers", MaxCommandTools, len(cfg.Tools))
	}
	validateLocalDir(v, "cwd", cfg.Cwd)
	for _, name := range sortedKeys(cfg.Env) {
		field := "env." + name
		if !envNamePattern.MatchString(name) {
			v.add(field, "name must be letters, digits and _, not starting with a digit")
		}
		validateValue(v, cfg, field, cfg.Env[name])
	}
	if len(cfg.Roots) > 0 {
		v.add("roots", "command tools are not told of roots; give the folder in a tool's command or cwd instead")
	}
	for i := range cfg.Tools {
		if i == MaxCommandTools {
			break
		}
		t := &cfg.Tools[i]
		f := func(field string) string { return fmt.Sprintf("tools[%d].%s", i, field) }
		switch {
		case t.Name == "":
			v.add(f("name"), "is required")
		case !toolNameRegex.MatchString(t.Name):
			v.add(f("name"), "must be 1 to 64 of A-Z, a-z, 0-9, _ and - (got %q)", t.Name)
		case slices.ContainsFunc(cfg.Tools[:i], func(o CommandTool) bool { return o.Name == t.Name }):
			v.add(f("name"), "%s is the name of another tool of this server", t.Name)
		}
		switch {
		case len(t.Description) > MaxToolDescription:
			v.add(f("description"), "must be at most %d KiB", MaxToolDescription>>10)
		case strings.IndexFunc(t.Description, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }) >= 0:
			v.add(f("description"), "must not contain control characters")
		case !utf8.ValidString(t.Description):
			v.add(f("description"), "must be UTF-8 text")
		}
		props, ok := validateToolSchema(v, f("inputSchema"), t.InputSchema)
		validateArgv(v, f("command"), t.Command, props, ok)
		validateLocalDir(v, f("cwd"), t.Cwd)
		if t.Timeout != 0 && (t.Timeout < MinToolTimeout || t.Timeout > MaxToolTimeout) {
			v.add(f("timeout"), "must be between %v and %v, or 0 for the default (%v); got %v", MinToolTimeout, MaxToolTimeout, DefaultToolTimeout, t.Timeout)
		} else if cfg.CallTimeout != 0 && t.RunTimeout() > cfg.CallTimeout {
			v.add(f("timeout"), "%v is longer than the server's call timeout (%v), which would stop the call first; raise callTimeout or leave it empty", t.RunTimeout(), cfg.CallTimeout)
		}
		if t.OutputLimit != 0 && (t.OutputLimit < MinOutputLimit || t.OutputLimit > MaxOutputLimit) {
			v.add(f("outputLimit"), "must be between %d and %d bytes (1 KiB to 1 MiB), or 0 for the default (%d KiB); got %d",
				MinOutputLimit, MaxOutputLimit, DefaultOutputLimit>>10, t.OutputLimit)
		}
	}
}

// validateLocalDir checks a folder a command runs in: absolute, or under
// the home folder ("~/...").
func validateLocalDir(v *validator, field, dir string) {
	switch {
	case dir == "":
	case strings.ContainsRune(dir, 0):
		v.add(field, "must not contain a NUL character")
	case len(dir) > 4096:
		v.add(field, "is longer than 4096 bytes")
	case !filepath.IsAbs(dir) && dir != "~" && !strings.HasPrefix(dir, "~/") && !strings.HasPrefix(dir, `~\`):
		v.add(field, "must be an absolute folder path or start with ~/ (got %q): the app has no working folder of its own to be relative to", dir)
	}
}

// validateToolSchema checks a tool's input schema and returns its
// properties' names; ok is false when the schema itself is wrong (so that
// placeholders are not also reported as missing from it).
func validateToolSchema(v *validator, field string, raw json.RawMessage) (props []string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, true
	}
	if len(raw) > MaxToolSchema {
		v.add(field, "must be at most %d KiB", MaxToolSchema>>10)
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		v.add(field, "must be a JSON object, such as {\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}: %v", describeJSONError(err))
		return nil, false
	}
	var typ any
	_ = json.Unmarshal(obj["type"], &typ)
	if typ != "object" {
		v.add(field, "must have \"type\": \"object\" (the arguments of a tool are an object)")
		return nil, false
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		v.add(field, "is not a valid JSON Schema: %v", err)
		return nil, false
	}
	var tree any
	_ = json.Unmarshal(raw, &tree)
	if bad := badSchemaType(tree, 0); bad != "" {
		v.add(field, "is not a valid JSON Schema: %q is not a type; use string, number, integer, boolean, array, object or null", bad)
		return nil, false
	}
	if _, err := s.Resolve(nil); err != nil {
		v.add(field, "is not a valid JSON Schema: %v", err)
		return nil, false
	}
	for name := range s.Properties {
		props = append(props, name)
	}
	slices.Sort(props)
	return props, true
}

// validateArgv checks a tool's command and its placeholders against the
// names props of the schema's properties (checked only when schemaOK).
func validateArgv(v *validator, field string, argv []string, props []string, schemaOK bool) {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		v.add(field, "is required: the program, then its arguments, one per element (for example [\"rg\", \"--json\", \"--\", \"{{pattern}}\"])")
		return
	}
	if len(argv) > MaxArgv {
		v.add(field, "at most %d elements (got %d)", MaxArgv, len(argv))
		return
	}
	if argv[0] != strings.TrimSpace(argv[0]) {
		v.add(field+"[0]", "must not start or end with spaces")
	}
	if len(Placeholders(argv[0])) > 0 {
		v.add(field+"[0]", "is the program and may not hold a placeholder: the model would choose what runs")
	}
	code := codeElements(argv)
	for i, el := range argv {
		ef := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case len(el) > MaxArgTemplate:
			v.add(ef, "is longer than %d bytes", MaxArgTemplate)
			continue
		case strings.ContainsRune(el, 0):
			v.add(ef, "must not contain a NUL character")
			continue
		}
		if unfinished.MatchString(el) {
			v.add(ef, "has an unfinished placeholder in %q: write {{name}}", el)
		}
		if i == 0 {
			continue
		}
		if code[i] && len(Placeholders(el)) > 0 {
			v.add(ef, "is code that %s reads, so a value put in it would be read as code too (a shell string built from the model's input); pass the value as an argument of its own instead, as in [\"sh\", \"-c\", \"grep -- \\\"$1\\\" notes.txt\", \"sh\", \"{{pattern}}\"]", programName(argv[0]))
			continue
		}
		if !schemaOK {
			continue
		}
		for _, name := range Placeholders(el) {
			if !slices.Contains(props, name) {
				if len(props) == 0 {
					v.add(ef, "uses {{%s}}, but the tool's input schema has no properties: add %q to it", name, name)
				} else {
					v.add(ef, "uses {{%s}}, which is not a property of the tool's input schema (%s): add it there or fix the name", name, strings.Join(props, ", "))
				}
			}
		}
	}
}

// commandFingerprint is what identifies a command server's tools for
// Fingerprint: what each runs and where, not how it is described.
func commandFingerprint(cfg *Config) any {
	type tool struct {
		Name    string   `json:"n"`
		Command []string `json:"c"`
		Cwd     string   `json:"d,omitempty"`
	}
	out := make([]tool, len(cfg.Tools))
	for i, t := range cfg.Tools {
		out[i] = tool{t.Name, t.Command, t.Cwd}
	}
	return out
}

// withoutCommandTools leaves out the command servers of cfgs, with a
// warning each: other apps have no such kind of server.
func (ex *exporter) withoutCommandTools(cfgs []Config) []Config {
	if !slices.ContainsFunc(cfgs, func(c Config) bool { return c.Transport == TransportCommand }) {
		return cfgs
	}
	out := make([]Config, 0, len(cfgs))
	for i := range cfgs {
		if cfgs[i].Transport == TransportCommand {
			ex.warnf(&cfgs[i], "holds command tools, which Switchboard serves itself and the %s format cannot hold; it is left out (switchboard servers add-command reads them from a file)", ex.format)
			continue
		}
		out = append(out, cfgs[i])
	}
	return out
}

// Interpreters and the options after which they read code: a shell's
// script (sh -c SCRIPT), cmd's and PowerShell's command line (all that
// follows), python -c, node -e and the like.
var codeOptions = map[string][]string{
	"sh": {"-c"}, "bash": {"-c"}, "zsh": {"-c"}, "dash": {"-c"}, "ksh": {"-c"}, "ash": {"-c"}, "fish": {"-c", "--command"},
	"python": {"-c"}, "python3": {"-c"}, "node": {"-e", "--eval", "-p", "--print"}, "deno": {"eval"}, "bun": {"-e", "--eval"},
	"perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r"}, "osascript": {"-e"},
}

// codeElements marks the elements of argv that its program reads as code
// rather than as data: the element after a shell's -c (also in combined
// flags such as -lc or -ec), after an interpreter's -e, and everything
// after cmd's /c or PowerShell's -Command.
func codeElements(argv []string) map[int]bool {
	out := map[int]bool{}
	name := programName(argv[0])
	switch name {
	case "cmd", "powershell", "pwsh":
		for i := 1; i < len(argv); i++ {
			switch strings.ToLower(argv[i]) {
			case "/c", "/k", "-c", "-command", "/command", "-encodedcommand", "-e", "-ec":
				for j := i + 1; j < len(argv); j++ {
					out[j] = true
				}
				return out
			}
		}
		return out
	}
	opts, ok := codeOptions[name]
	if !ok {
		return out
	}
	shell := slices.Contains(opts, "-c") && name != "python" && name != "python3"
	for i := 1; i+1 < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		combined := shell && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c')
		if slices.Contains(opts, a) || combined || strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--command=") {
			if strings.Contains(a, "=") {
				out[i] = true
			} else {
				out[i+1] = true
			}
		}
	}
	return out
}

// programName is the program's file name, lowercased, without a Windows
// extension: "/usr/bin/Bash" and "bash.exe" are "bash".
func programName(program string) string {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(program, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// badSchemaType finds a "type" in schema (decoded JSON) that names no
// JSON Schema type, which the resolver lets through; "" if none. Values
// (default, const, enum, examples) are not looked into.
func badSchemaType(schema any, depth int) string {
	m, ok := schema.(map[string]any)
	if !ok || depth > 64 {
		if a, ok := schema.([]any); ok && depth <= 64 {
			for _, e := range a {
				if bad := badSchemaType(e, depth+1); bad != "" {
					return bad
				}
			}
		}
		return ""
	}
	valid := func(t any) bool {
		s, ok := t.(string)
		return ok && slices.Contains([]string{"string", "number", "integer", "boolean", "array", "object", "null"}, s)
	}
	switch t := m["type"].(type) {
	case string:
		if !valid(t) {
			return t
		}
	case []any:
		for _, e := range t {
			if !valid(e) {
				return fmt.Sprint(e)
			}
		}
	}
	for k, sub := range m {
		switch k {
		case "type", "default", "const", "enum", "examples":
			continue
		}
		if bad := badSchemaType(sub, depth+1); bad != "" {
			return bad
		}
	}
	return ""
}

package mcpregistry

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A Kind is what adding a registry entry means to Switchboard.
type Kind string

const (
	// KindNPM installs an npm package into the data directory and runs
	// its bin with Switchboard's Node.
	KindNPM Kind = "npm"
	// KindMCPB downloads an .mcpb bundle, checks its SHA-256, and
	// installs it.
	KindMCPB Kind = "mcpb"
	// KindRemote adds a server that already runs at a URL (streamable
	// HTTP or SSE).
	KindRemote Kind = "remote"
	// KindStdio adds a plain stdio server whose command is a package
	// runner Switchboard does not install: uvx for PyPI, docker for OCI
	// images, dnx for NuGet. It needs that runner on the PATH, and the
	// network the first time it starts.
	KindStdio Kind = "stdio"
)

// An Option is one way to add an entry: one of its packages, then one of
// its remotes, in the entry's order. Its index in Options is the choice
// PlanInstall takes.
type Option struct {
	// Kind is what choosing it adds; empty when Switchboard cannot use it.
	Kind Kind `json:"kind,omitempty"`
	// Label says what it is: "npm @scope/pkg 1.2.3 (stdio)",
	// "remote streamable-http https://example.com/mcp".
	Label string `json:"label"`
	// Unsupported says why Switchboard cannot use it; empty when it can.
	Unsupported string `json:"unsupported,omitempty"`
}

// A Plan says what adding one option of an entry does and what the user
// must fill in. Fields says what to ask; Check and Apply take the answers.
type Plan struct {
	Kind Kind `json:"kind"`
	// ID is a suggested server ID (SuggestID), Name the display name.
	ID   string `json:"id"`
	Name string `json:"name"`

	// npm: the package, its exact version, and the npm registry to
	// install from ("" means the user's setting, which defaults to
	// registry.npmjs.org).
	Package  string `json:"package,omitempty"`
	Version  string `json:"version,omitempty"`
	Registry string `json:"registry,omitempty"`

	// mcpb: the bundle's https URL and its lowercase hex SHA-256, which
	// the download must match. Version is the entry's.
	URL    string `json:"url,omitempty"`
	SHA256 string `json:"sha256,omitempty"`

	// Config, for remote and stdio, is the server to add, without what
	// Apply fills in (for a remote its URL may still hold {NAME}
	// templates). For npm and mcpb the installer makes the config, and
	// Config is zero but for ID and Name.
	Config serverconf.Config `json:"config"`

	// Args are appended to the server's arguments, Env and Headers set,
	// by Apply. URLVars maps each {NAME} of a remote's Config.URL to the
	// key of the Field it stands for.
	Args    []Arg             `json:"args,omitempty"`
	Env     []NamedValue      `json:"env,omitempty"`
	Headers []NamedValue      `json:"headers,omitempty"`
	URLVars map[string]string `json:"urlVars,omitempty"`

	// Fields are what the user fills in, in the order to ask them.
	Fields []Field `json:"fields,omitempty"`
	// Notes are what the user should know before adding it: the runner
	// a stdio server needs, arguments left out, a registry other than
	// npmjs.org.
	Notes []string `json:"notes,omitempty"`
}

// A Field is one value the user gives when adding a server: an
// environment variable, a header, an argument, a variable of a URL or
// of another value.
type Field struct {
	// Key names the field in the values given to Check and Apply:
	// "env.API_KEY", "header.Authorization", "arg.allowed_directory",
	// "url.tenant", "header.Authorization.token" (a variable of a value).
	Key string `json:"key"`
	// Label is the name to show: the variable, header, flag or hint.
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Secret values go to the OS keyring, never into the config.
	Secret bool `json:"secret,omitempty"`
	// Default is used when the user gives nothing.
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	// Format is string, number, boolean or filepath.
	Format string `json:"format,omitempty"`
	// Repeated fields take several values, one a line.
	Repeated bool `json:"repeated,omitempty"`
}

// A Template is a value with {NAME}s, each standing for the value of the
// Field whose key is Vars[NAME]; braces around other names are text.
type Template struct {
	Text string            `json:"text"`
	Vars map[string]string `json:"vars,omitempty"`
	// Required templates must get a value for every variable; an
	// optional one missing a value is left out whole.
	Required bool `json:"required,omitempty"`
	// Secret templates go to the OS keyring once filled in.
	Secret bool `json:"secret,omitempty"`
}

// An Arg is one command-line argument, or a flag and its value.
type Arg struct {
	// Flag is a named argument's flag ("--port"), given before the value
	// as its own argument; empty for a positional argument.
	Flag string `json:"flag,omitempty"`
	Template
	// Repeated arguments (with their flag) are given once for each value
	// of their one Field.
	Repeated bool `json:"repeated,omitempty"`
}

// A NamedValue is an environment variable or a header.
type NamedValue struct {
	Name string `json:"name"`
	Template
}

// Options lists the ways to add e, one per package then one per remote.
func Options(e Entry) []Option {
	var opts []Option
	for i := range e.Server.Packages {
		opts = append(opts, option(e, i, packageLabel(&e.Server.Packages[i])))
	}
	for i := range e.Server.Remotes {
		r := &e.Server.Remotes[i]
		opts = append(opts, option(e, len(e.Server.Packages)+i, "remote "+clean(r.Type, 20)+" "+clean(r.URL, 120)))
	}
	return opts
}

func option(e Entry, choice int, label string) Option {
	p, err := PlanInstall(e, choice)
	if err != nil {
		return Option{Label: label, Unsupported: err.Error()}
	}
	return Option{Kind: p.Kind, Label: label}
}

func packageLabel(p *ServerPackage) string {
	s := clean(p.RegistryType, 20) + " " + clean(p.Identifier, 120)
	if p.Version != "" {
		s += " " + clean(p.Version, 40)
	}
	t := p.Transport.Type
	if t == "" {
		t = TransportStdio
	}
	s += " (" + clean(t, 20)
	if r := runner(p.RegistryType); r != "" {
		s += ", runs with " + r
	}
	return s + ")"
}

// kindRank orders kinds from the most to the least preferred: an
// installed package works offline; a remote needs nothing installed; a
// runner Switchboard does not install comes last.
var kindRank = []Kind{KindNPM, KindMCPB, KindRemote, KindStdio}

// Preferred is the index of the option to offer first: the first of the
// most preferred kind that Switchboard can use, or -1 when it can use
// none.
func Preferred(e Entry) int {
	best, bestRank := -1, len(kindRank)
	for i, o := range Options(e) {
		if o.Unsupported != "" {
			continue
		}
		if r := slices.Index(kindRank, o.Kind); r < bestRank {
			best, bestRank = i, r
		}
	}
	return best
}

// PlanInstall says what adding option choice of e (an index into
// Options(e)) does. It refuses what Switchboard cannot run, saying why.
func PlanInstall(e Entry, choice int) (Plan, error) {
	s := &e.Server
	n := len(s.Packages) + len(s.Remotes)
	if choice < 0 || choice >= n {
		if n == 0 {
			return Plan{}, fmt.Errorf("%s lists no package and no remote, so there is nothing to add; see its website or repository", s.Name)
		}
		return Plan{}, fmt.Errorf("%s has %d ways to add it; choose one from 0 to %d", s.Name, n, n-1)
	}
	b := &planner{plan: Plan{ID: SuggestID(e, nil), Name: cutBytes(clean(s.DisplayName(), 100), 100)}, keys: map[string]bool{}}
	b.plan.Config = serverconf.Config{ID: b.plan.ID, Name: b.plan.Name, Enabled: true}
	var err error
	if choice < len(s.Packages) {
		err = b.pkg(s, &s.Packages[choice])
	} else {
		err = b.remote(&s.Remotes[choice-len(s.Packages)])
	}
	if err != nil {
		return Plan{}, err
	}
	return b.plan, nil
}

type planner struct {
	plan Plan
	keys map[string]bool
}

var (
	npmName     = regexp.MustCompile(`^(@[a-z0-9-~][a-z0-9-._~]*/)?[a-z0-9-~][a-z0-9-._~]*$`)
	exactSemver = regexp.MustCompile(`^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$`)
	pypiName    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	pypiVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.!+_-]*$`)
	nugetName   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	ociRef      = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:@-]*$`)
	sha256Hex   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	envName     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerName  = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
	templateVar = regexp.MustCompile(`\{([^{}]+)\}`)
)

// runner is the command that runs packages of a registry type Switchboard
// does not install, or "".
func runner(registryType string) string {
	switch registryType {
	case RegistryPyPI:
		return "uvx"
	case RegistryOCI:
		return "docker"
	case RegistryNuGet:
		return "dnx"
	}
	return ""
}

func (b *planner) pkg(s *Server, p *ServerPackage) error {
	what := clean(p.RegistryType, 20) + " package " + clean(p.Identifier, 120)
	switch p.Transport.Type {
	case "", TransportStdio:
	case TransportStreamableHTTP, TransportSSE:
		return fmt.Errorf("the %s runs its own %s server on this machine, which Switchboard does not start; choose a stdio package or a remote", what, p.Transport.Type)
	default:
		return fmt.Errorf("the %s uses transport %q, which Switchboard does not know", what, clean(p.Transport.Type, 40))
	}
	if p.Identifier == "" || strings.HasPrefix(p.Identifier, "-") {
		return fmt.Errorf("the %s has no valid identifier", what)
	}
	for _, kv := range p.EnvironmentVariables {
		if !envName.MatchString(kv.Name) {
			return fmt.Errorf("the %s asks for environment variable %q, which is not a valid name", what, clean(kv.Name, 60))
		}
	}
	pl := &b.plan
	switch p.RegistryType {
	case RegistryNPM:
		if len(p.Identifier) > 214 || !npmName.MatchString(p.Identifier) {
			return fmt.Errorf("%q is not an npm package name", clean(p.Identifier, 120))
		}
		if !exactSemver.MatchString(p.Version) {
			return fmt.Errorf("the %s gives version %q, not an exact version; Switchboard installs exact versions", what, clean(p.Version, 40))
		}
		pl.Kind, pl.Package, pl.Version = KindNPM, p.Identifier, p.Version
		if base := strings.TrimRight(p.RegistryBaseURL, "/"); base != "" && base != "https://registry.npmjs.org" {
			if cleanURL(base) == "" {
				return fmt.Errorf("the %s names npm registry %q, which is not an http(s) URL", what, clean(base, 120))
			}
			pl.Registry = base
			pl.Notes = append(pl.Notes, "Installs from the npm registry at "+base+", not registry.npmjs.org.")
		}
		pl.Config = serverconf.Config{ID: pl.ID, Name: pl.Name}
		if len(p.RuntimeArguments) > 0 {
			pl.Notes = append(pl.Notes, "Leaves out the arguments the entry gives npx ("+b.preview(p.RuntimeArguments)+"): Switchboard installs the package and runs it with Node directly.")
		}
		b.args(p.PackageArguments)
		b.env(p.EnvironmentVariables)
	case RegistryMCPB:
		u, err := url.Parse(p.Identifier)
		if err != nil || u.Scheme != "https" || u.Host == "" || cleanURL(p.Identifier) == "" {
			return fmt.Errorf("the mcpb bundle's address %q is not an https URL", clean(p.Identifier, 120))
		}
		sum := strings.ToLower(p.FileSHA256)
		if !sha256Hex.MatchString(sum) {
			return fmt.Errorf("the registry entry gives no SHA-256 for the bundle %s, so Switchboard could not check what it downloads; ask its publisher to add fileSha256", clean(p.Identifier, 120))
		}
		pl.Kind, pl.URL, pl.SHA256, pl.Version = KindMCPB, p.Identifier, sum, s.Version
		if p.Version != "" {
			pl.Version = p.Version
		}
		pl.Config = serverconf.Config{ID: pl.ID, Name: pl.Name}
		b.args(p.PackageArguments)
		b.env(p.EnvironmentVariables)
	case RegistryPyPI, RegistryOCI, RegistryNuGet:
		return b.command(p, what)
	default:
		return fmt.Errorf("the %s is from registry type %q, which Switchboard does not know how to run; choose another package or a remote", what, clean(p.RegistryType, 40))
	}
	return nil
}

// command plans a stdio server run by a package runner Switchboard does
// not install: uvx pkg==ver, docker run -i --rm image, dnx pkg@ver --yes.
// It is offered rather than refused because it is exactly what the
// publisher documents and what other clients run; the notes say that it
// needs the runner and the network.
func (b *planner) command(p *ServerPackage, what string) error {
	pl := &b.plan
	run := runner(p.RegistryType)
	pl.Kind = KindStdio
	pl.Config.Transport = serverconf.TransportStdio
	pl.Config.Command = run
	hintOK := p.RuntimeHint == "" || p.RuntimeHint == run
	var lead []Arg
	var target string
	var err error
	switch p.RegistryType {
	case RegistryPyPI:
		if target, err = pinnedPackage(p, what, "PyPI", pypiName, "=="); err != nil {
			return err
		}
	case RegistryOCI:
		if target, err = ociImage(p); err != nil {
			return fmt.Errorf("the %s: %w", what, err)
		}
		lead = literalArgs("run", "-i", "--rm")
	case RegistryNuGet:
		if target, err = pinnedPackage(p, what, "NuGet", nugetName, "@"); err != nil {
			return err
		}
	}
	pl.Args = append(pl.Args, lead...)
	if hintOK {
		b.args(p.RuntimeArguments)
	} else if len(p.RuntimeArguments) > 0 {
		pl.Notes = append(pl.Notes, fmt.Sprintf("Leaves out the arguments the entry gives %s (%s), since Switchboard runs %s.", clean(p.RuntimeHint, 20), b.preview(p.RuntimeArguments), run))
	}
	if p.RegistryType == RegistryOCI {
		// A container sees only the variables docker is told to pass
		// (from its own environment, where Apply puts them).
		for _, kv := range p.EnvironmentVariables {
			pl.Args = append(pl.Args, literalArgs("-e", kv.Name)...)
		}
	}
	pl.Args = append(pl.Args, literalArgs(target)...)
	if p.RegistryType == RegistryNuGet {
		pl.Args = append(pl.Args, literalArgs("--yes")...)
		if len(p.PackageArguments) > 0 {
			pl.Args = append(pl.Args, literalArgs("--")...)
		}
	}
	b.args(p.PackageArguments)
	b.env(p.EnvironmentVariables)
	pl.Notes = append(pl.Notes, fmt.Sprintf("Runs with %s, which Switchboard does not install: it must be on your PATH, and it fetches the package from the network the first time the server starts.", run))
	return nil
}

// pinnedPackage is the package a PyPI or NuGet runner is given: the
// identifier, which name checks (kind names the registry), then sep and
// the version when the entry gives one, which must be exact.
func pinnedPackage(p *ServerPackage, what, kind string, name *regexp.Regexp, sep string) (string, error) {
	if len(p.Identifier) > 200 || !name.MatchString(p.Identifier) {
		return "", fmt.Errorf("%q is not a %s package name", clean(p.Identifier, 120), kind)
	}
	if p.Version == "" {
		return p.Identifier, nil
	}
	if !pypiVersion.MatchString(p.Version) {
		return "", fmt.Errorf("the %s gives version %q, not an exact version", what, clean(p.Version, 40))
	}
	return p.Identifier + sep + p.Version, nil
}

// ociImage is the image reference of an OCI package: the identifier,
// with the registry's host in front when the identifier has none, and
// :version when it has no tag or digest.
func ociImage(p *ServerPackage) (string, error) {
	ref := p.Identifier
	if len(ref) > 255 || !ociRef.MatchString(ref) {
		return "", fmt.Errorf("%q is not an image reference", clean(ref, 120))
	}
	first, _, hasSlash := strings.Cut(ref, "/")
	if base := p.RegistryBaseURL; base != "" && !(hasSlash && strings.ContainsAny(first, ".:")) {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return "", fmt.Errorf("the image registry %q is not a URL", clean(base, 120))
		}
		switch h := strings.ToLower(u.Host); h {
		case "docker.io", "registry-1.docker.io", "index.docker.io", "registry.hub.docker.com":
		default:
			ref = h + "/" + ref
		}
	}
	last := ref[strings.LastIndexByte(ref, '/')+1:]
	if p.Version != "" && !strings.Contains(last, ":") && !strings.Contains(ref, "@") {
		if strings.ContainsAny(p.Version, "/@: ") {
			return "", fmt.Errorf("%q is not an image tag", clean(p.Version, 40))
		}
		ref += ":" + p.Version
	}
	if !ociRef.MatchString(ref) {
		return "", fmt.Errorf("%q is not an image reference", clean(ref, 120))
	}
	return ref, nil
}

func (b *planner) remote(r *Transport) error {
	pl := &b.plan
	switch r.Type {
	case TransportStreamableHTTP:
		pl.Config.Transport = serverconf.TransportHTTP
	case TransportSSE:
		pl.Config.Transport = serverconf.TransportSSE
	default:
		return fmt.Errorf("the remote uses transport %q, which Switchboard does not know; choose another", clean(r.Type, 40))
	}
	if !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "{") {
		return fmt.Errorf("the remote's URL %q is not an http(s) URL", clean(r.URL, 120))
	}
	for _, kv := range r.Headers {
		if !headerName.MatchString(kv.Name) {
			return fmt.Errorf("the remote asks for header %q, which is not a valid header name", clean(kv.Name, 60))
		}
	}
	pl.Kind = KindRemote
	pl.Config.URL = r.URL
	for _, name := range varNames(r.URL, r.Variables) {
		v := r.Variables[name]
		if v.IsSecret {
			return fmt.Errorf("the remote's URL holds the secret {%s}, and Switchboard keeps a URL in its config, not in the keyring; choose another way to add it", clean(name, 40))
		}
		if pl.URLVars == nil {
			pl.URLVars = map[string]string{}
		}
		pl.URLVars[name] = b.field("url."+name, name, v, v.IsSecret, v.IsRequired || v.Default == "")
	}
	for _, kv := range r.Headers {
		pl.Headers = append(pl.Headers, NamedValue{Name: kv.Name, Template: b.value("header."+kv.Name, kv.Name, kv.Input)})
	}
	return nil
}

func (b *planner) env(kvs []KeyValueInput) {
	for _, kv := range kvs {
		b.plan.Env = append(b.plan.Env, NamedValue{Name: kv.Name, Template: b.value("env."+kv.Name, kv.Name, kv.Input)})
	}
}

func (b *planner) args(args []Argument) {
	for i, a := range args {
		label, key := a.ValueHint, a.ValueHint
		flag := ""
		if a.Type == ArgNamed {
			flag = a.Name
			label, key = a.Name, strings.TrimLeft(a.Name, "-")
		}
		if key == "" {
			key = fmt.Sprint(i + 1)
			label = "argument " + key
		}
		t := b.value("arg."+key, label, a.Input)
		repeated := a.IsRepeated && a.Value == ""
		if repeated {
			b.plan.Fields[len(b.plan.Fields)-1].Repeated = true
		}
		b.plan.Args = append(b.plan.Args, Arg{Flag: flag, Template: t, Repeated: repeated})
	}
}

// value turns an input into a template and adds the fields it asks for:
// one for the input itself when it has no fixed value, else one for each
// of the fixed value's variables.
func (b *planner) value(key, label string, in Input) Template {
	if in.Value == "" {
		k := b.field(key, label, in, in.IsSecret, in.IsRequired)
		return Template{Text: "{value}", Vars: map[string]string{"value": k}, Required: in.IsRequired, Secret: in.IsSecret}
	}
	t := Template{Text: in.Value, Required: in.IsRequired, Secret: in.IsSecret}
	for _, name := range varNames(in.Value, in.Variables) {
		v := in.Variables[name]
		if t.Vars == nil {
			t.Vars = map[string]string{}
		}
		t.Vars[name] = b.field(key+"."+name, name, v, v.IsSecret || in.IsSecret, v.IsRequired)
		t.Secret = t.Secret || v.IsSecret
	}
	return t
}

// field adds a field with a key not taken yet and returns the key.
func (b *planner) field(key, label string, in Input, secret, required bool) string {
	key = fieldKey(key)
	if b.keys[key] {
		for n := 2; ; n++ {
			if k := fmt.Sprintf("%s-%d", key, n); !b.keys[k] {
				key = k
				break
			}
		}
	}
	b.keys[key] = true
	format := in.Format
	if format == "file_path" {
		format = "filepath"
	}
	switch format {
	case "", "string", "number", "boolean", "filepath":
	default:
		format = "string"
	}
	var choices []string
	if len(in.Choices) > 0 {
		choices = slices.Clone(in.Choices)
	}
	b.plan.Fields = append(b.plan.Fields, Field{
		Key: key, Label: clean(label, 80), Description: in.Description, Required: required, Secret: secret,
		Default: in.Default, Placeholder: in.Placeholder, Choices: choices, Format: format,
	})
	return key
}

// fieldKey keeps a key to letters, digits, '.', '_' and '-' (so that
// "KEY=VALUE" on a command line splits right), at most 100 bytes.
func fieldKey(key string) string {
	b := []byte(key)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	return string(b)
}

// varNames lists, once each and in order, the {NAME}s of text that name
// one of vars.
func varNames(text string, vars map[string]Input) []string {
	var names []string
	for _, m := range templateVar.FindAllStringSubmatch(text, -1) {
		if _, ok := vars[m[1]]; ok && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

func literalArgs(ss ...string) []Arg {
	out := make([]Arg, len(ss))
	for i, s := range ss {
		out[i] = Arg{Template: Template{Text: s, Required: true}}
	}
	return out
}

// preview shows registry arguments as text, for notes.
func (b *planner) preview(args []Argument) string {
	var parts []string
	for _, a := range args {
		v := a.Value
		if v == "" {
			v = "<" + a.ValueHint + ">"
		}
		if a.Type == ArgNamed {
			v = a.Name + " " + v
		}
		parts = append(parts, v)
	}
	return clean(strings.Join(parts, " "), 200)
}

// cutBytes cuts s to at most n bytes, on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SuggestID is a server ID for e, made from the part of its name after
// the slash without the usual "server-", "mcp-server-" and "-mcp" noise
// ("io.github.modelcontextprotocol/server-memory" -> "memory",
// "io.github.github/github-mcp-server" -> "github"), valid as
// serverconf's IDs are, and for which taken (nil: none taken) is false.
func SuggestID(e Entry, taken func(string) bool) string {
	base := strings.ToLower(shortName(e.Server.Name))
	trimmed := base
	for _, p := range []string{"mcp-server-", "server-", "mcp-"} {
		trimmed = strings.TrimPrefix(trimmed, p)
	}
	for _, s := range []string{"-mcp-server", "-server-mcp", "-mcp", "-server", "_mcp"} {
		trimmed = strings.TrimSuffix(trimmed, s)
	}
	if strings.Trim(trimmed, "-_.") == "" {
		trimmed = base
	}
	return serverconf.NewID(trimmed, taken)
}

// CommandLine shows what a stdio, npm or mcpb plan runs, for the user to
// look at before adding it: the command (for npm and mcpb, what the
// installer will run, in angle brackets) and the arguments, each field a
// <label>, an optional one in [brackets], quoted for a POSIX shell where
// needed. It is "" for a remote.
func (p *Plan) CommandLine() string {
	var parts []string
	switch p.Kind {
	case KindRemote:
		return ""
	case KindStdio:
		parts = append(parts, shellQuote(p.Config.Command))
	case KindNPM:
		parts = append(parts, "<"+p.Package+"@"+p.Version+">")
	case KindMCPB:
		parts = append(parts, "<bundle>")
	}
	labels := map[string]string{}
	for _, f := range p.Fields {
		labels[f.Key] = f.Label
	}
	for _, a := range p.Args {
		text := templateVar.ReplaceAllStringFunc(a.Text, func(m string) string {
			if key, ok := a.Vars[m[1:len(m)-1]]; ok {
				if labels[key] == a.Flag {
					return "<value>" // "--port <value>", not "--port <--port>"
				}
				return "<" + labels[key] + ">"
			}
			return m
		})
		part := shellQuote(text)
		if len(a.Vars) > 0 && strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) || isBidi(r) }) < 0 {
			part = text // the <label>s are not text to quote
		}
		if a.Flag != "" {
			part = shellQuote(a.Flag) + " " + part
		}
		if a.Repeated {
			part += "..."
		}
		if !a.Required && len(a.Vars) > 0 {
			part = "[" + part + "]"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it has anything but
// letters, digits and -_./:=@+,%.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || isBidi(r) }) >= 0 {
		return strconv.Quote(s) // shows what a terminal would not
	}
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

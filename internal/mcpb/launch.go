package mcpb

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A LaunchSpec is how to start an unpacked bundle's server.
type LaunchSpec struct {
	// Runtime is the server type: TypeNode, TypePython, TypeBinary, TypeUV.
	Runtime string
	// Command is "node" for a node server (the caller substitutes the Node
	// it picked), the manifest's "python"/"python3" (or a Python inside the
	// bundle) for python, "uv" for uv, and an absolute path inside the
	// bundle for binary.
	Command string
	Args    []string
	// Env is only what the bundle sets; the caller adds it to the server's
	// usual environment. Nil when the bundle sets nothing.
	Env map[string]string
	// Dir is the working directory: the unpacked bundle. Relative paths in
	// the manifest's args are relative to it.
	Dir string
	// SecretEnv are the keys of Env whose values carry a sensitive
	// setting, sorted; the caller keeps them in the keyring and out of logs.
	SecretEnv []string
	// SecretArgs are the indexes of Args that carry a sensitive setting
	// (visible to other local users in a process list; the caller may warn).
	SecretArgs []int
	// Dropped are the variables of the bundle's env that Switchboard does
	// not pass, each with the reason, sorted by key.
	Dropped []DroppedEnv
}

// A DroppedEnv is an environment variable a bundle set and Launch left out.
type DroppedEnv struct {
	Key    string
	Reason string
}

// A FieldError is a problem with the value of one user_config setting.
type FieldError struct {
	// Key and Title name the setting.
	Key, Title string
	// Problem says what is wrong and what to do ("is required; ...").
	Problem string
}

func (e *FieldError) Error() string {
	if e.Title == e.Key {
		return fmt.Sprintf("setting %q %s", e.Key, e.Problem)
	}
	return fmt.Sprintf("setting %q (%s) %s", e.Title, e.Key, e.Problem)
}

// Launch is the command line for the bundle unpacked (by Extract) in dir,
// with values holding the user's settings by user_config key (a Multiple
// setting's paths one per line; settings the manifest does not declare
// are ignored). A setting that is missing or empty takes its default; a
// required one with neither is a *FieldError, as is a value of the wrong
// type (a number out of min..max, a path that is not absolute).
//
// In command, args and env it substitutes ${__dirname} (dir),
// ${user_config.KEY}, ${HOME}, ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS} and
// ${pathSeparator} (or ${/}); other ${...} stay as written. Substitution is
// one pass: a value the user typed is never expanded again. An argument
// that is exactly ${user_config.KEY} becomes one argument per path of a
// Multiple setting, and disappears when an optional setting is unset;
// elsewhere a Multiple setting's paths are joined with the OS path-list
// separator. An env variable that is exactly an unset optional setting is
// left out. The platform_overrides entry for this platform applies first.
func (b *Bundle) Launch(dir string, values map[string]string) (LaunchSpec, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return LaunchSpec{}, fmt.Errorf("starting bundle: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return LaunchSpec{}, fmt.Errorf("bundle %s is not unpacked in %s; install it again", b.Manifest.Name, dir)
	}
	s := b.Manifest.Server
	fixed := systemVars(dir)
	user, err := resolveValues(b.Manifest.UserConfig, values, fixed)
	if err != nil {
		return LaunchSpec{}, err
	}
	x := expander{fixed: fixed, user: user, sensitive: map[string]bool{}}
	for _, f := range b.Manifest.UserConfig {
		x.sensitive[f.Key] = f.Sensitive
	}

	spec := LaunchSpec{Runtime: s.Type, Dir: dir}
	if entry := filepath.Join(dir, filepath.FromSlash(s.EntryPoint)); !isRegularFile(entry) && !(runtime.GOOS == "windows" && isRegularFile(entry+".exe")) {
		return LaunchSpec{}, fmt.Errorf("bundle %s: its entry point %s is missing from %s; install it again", b.Manifest.Name, s.EntryPoint, dir)
	}
	if s.MCPConfig == nil { // uv, with the host choosing how to run it
		spec.Command = "uv"
		spec.Args = []string{"run", "--directory", dir, filepath.Join(dir, filepath.FromSlash(s.EntryPoint))}
		return spec, nil
	}
	c := effectiveConfig(s.MCPConfig, Platform())

	cmd, secret, err := x.expand(c.Command)
	if err != nil {
		return LaunchSpec{}, fmt.Errorf("bundle %s: command: %w", b.Manifest.Name, err)
	}
	if secret {
		return LaunchSpec{}, fmt.Errorf("bundle %s puts a sensitive setting in its command; Switchboard will not run that: %w", b.Manifest.Name, ErrUnsupported)
	}
	if spec.Command, err = b.command(s.Type, cmd, dir); err != nil {
		return LaunchSpec{}, err
	}

	for _, a := range c.Args {
		if key, ok := wholeUserVar(a); ok {
			for _, v := range user[key] {
				if x.sensitive[key] {
					spec.SecretArgs = append(spec.SecretArgs, len(spec.Args))
				}
				spec.Args = append(spec.Args, v)
			}
			continue
		}
		v, secret, err := x.expand(a)
		if err != nil {
			return LaunchSpec{}, fmt.Errorf("bundle %s: args: %w", b.Manifest.Name, err)
		}
		if secret {
			spec.SecretArgs = append(spec.SecretArgs, len(spec.Args))
		}
		spec.Args = append(spec.Args, v)
	}
	if len(spec.Args) > maxArgs {
		return LaunchSpec{}, fmt.Errorf("bundle %s: more than %d arguments once settings are filled in", b.Manifest.Name, maxArgs)
	}

	for k, tmpl := range c.Env {
		if key, ok := wholeUserVar(tmpl); ok && len(user[key]) == 0 {
			continue // an unset optional setting: leave the variable unset
		}
		v, secret, err := x.expand(tmpl)
		if err != nil {
			return LaunchSpec{}, fmt.Errorf("bundle %s: env %s: %w", b.Manifest.Name, k, err)
		}
		if reason := envPolicy(k, v, dir); reason != "" {
			spec.Dropped = append(spec.Dropped, DroppedEnv{Key: k, Reason: reason})
			continue
		}
		if spec.Env == nil {
			spec.Env = map[string]string{}
		}
		spec.Env[k] = v
		if secret {
			spec.SecretEnv = append(spec.SecretEnv, k)
		}
	}
	slices.Sort(spec.SecretEnv)
	slices.SortFunc(spec.Dropped, func(a, b DroppedEnv) int { return strings.Compare(a.Key, b.Key) })
	return spec, nil
}

// effectiveConfig applies the override for platform to c.
func effectiveConfig(c *MCPConfig, platform string) PlatformOverride {
	out := PlatformOverride{Command: c.Command, Args: c.Args, Env: c.Env}
	if o, ok := c.PlatformOverrides[platform]; ok {
		if o.Command != "" {
			out.Command = o.Command
		}
		if o.Args != nil {
			out.Args = o.Args
		}
		if o.Env != nil {
			out.Env = o.Env
		}
	}
	return out
}

var pythonRE = regexp.MustCompile(`^python(3(\.[0-9]+)?)?(\.exe)?$`)

// command decides the program to run: a runtime's bare name, or for binary
// (and a Python inside the bundle) a regular file inside dir.
func (b *Bundle) command(typ, cmd, dir string) (string, error) {
	bare := !strings.ContainsAny(cmd, `/\`)
	name := strings.ToLower(cmd)
	switch {
	case typ == TypeNode && bare && (name == "node" || name == "node.exe"):
		return "node", nil
	case typ == TypePython && bare && pythonRE.MatchString(name):
		return cmd, nil
	case typ == TypeUV && bare && (name == "uv" || name == "uv.exe"):
		return "uv", nil
	case typ == TypeBinary || (typ == TypePython && !bare):
		p := cmd
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		p = filepath.Clean(p)
		if !within(dir, p) {
			return "", fmt.Errorf("bundle %s: its command %q is outside the bundle; Switchboard runs a %s bundle only from its own files: %w", b.Manifest.Name, cmd, typ, ErrUnsupported)
		}
		if runtime.GOOS == "windows" && filepath.Ext(p) == "" && isRegularFile(p+".exe") {
			p += ".exe"
		}
		if !isRegularFile(p) {
			return "", fmt.Errorf("bundle %s: its command %s is missing from %s; install it again", b.Manifest.Name, cmd, dir)
		}
		return p, nil
	}
	want := map[string]string{TypeNode: `"node"`, TypePython: `"python" or "python3"`, TypeUV: `"uv"`}[typ]
	return "", fmt.Errorf("bundle %s: a %s server must run with %s, not %q; Switchboard will not run other programs for it: %w", b.Manifest.Name, typ, want, cmd, ErrUnsupported)
}

func isRegularFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// within reports whether p is dir or inside it (lexically; Extract makes
// no links).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Env policy. A bundle's server runs the bundle's own code, so this is not
// a sandbox: it keeps a manifest from changing which program or code the
// runtime Switchboard picked loads, and from pointing search paths outside
// the bundle.
var (
	deniedEnv = map[string]string{
		"PATH":          "Switchboard sets PATH for every server",
		"PATHEXT":       "it changes which programs Windows runs",
		"COMSPEC":       "it changes which shell Windows runs",
		"NODE_OPTIONS":  "it can make node load code from outside the bundle",
		"PYTHONHOME":    "it changes which Python standard library runs",
		"PYTHONSTARTUP": "it makes Python run another file",
		"BASH_ENV":      "it makes shells run another file",
		"ENV":           "it makes shells run another file",
		"PERL5OPT":      "it changes how Perl runs",
		"RUBYOPT":       "it changes how Ruby runs",
		"GCONV_PATH":    "it makes the C library load other code",
	}
	// searchPathEnv are kept when every entry is inside the bundle.
	searchPathEnv = []string{"NODE_PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH"}
)

// envPolicy returns why the bundle may not set key to v, or "".
func envPolicy(key, v, dir string) string {
	k := strings.ToUpper(key) // Windows matches variable names without case
	if r, ok := deniedEnv[k]; ok {
		return r
	}
	if slices.Contains(searchPathEnv, k) {
		for _, e := range filepath.SplitList(v) {
			if e == "" {
				continue
			}
			p := e
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if !within(dir, filepath.Clean(p)) {
				return fmt.Sprintf("it points outside the bundle (%s)", clip(e))
			}
		}
		return ""
	}
	if strings.HasPrefix(k, "LD_") || strings.HasPrefix(k, "DYLD_") {
		return "it changes which code the dynamic loader loads"
	}
	return ""
}

// resolveValues checks the user's values against the fields and returns
// each set field's values (one, or several for Multiple) by key; an unset
// optional field is absent.
func resolveValues(fields []UserConfigField, values map[string]string, fixed map[string]string) (map[string][]string, error) {
	out := make(map[string][]string, len(fields))
	for _, f := range fields {
		v, fromDefault := values[f.Key], false
		if v == "" && f.Default != "" {
			v, fromDefault = f.Default, true
			v, _ = expandString(v, fixed, nil, 0)
		}
		vals, err := checkValue(f, v)
		if err == nil && len(vals) == 0 && f.Required {
			err = &FieldError{Problem: "is required; give it a value in the server's settings"}
		}
		if err != nil {
			fe := err.(*FieldError)
			fe.Key, fe.Title = f.Key, f.Title
			if fromDefault {
				fe.Problem += " (this is the bundle's default; set your own value)"
			}
			return nil, fe
		}
		if len(vals) > 0 {
			out[f.Key] = vals
		}
	}
	return out, nil
}

// checkValue validates one value by the field's type and returns it in
// normal form (one entry per path for Multiple; none when empty).
func checkValue(f UserConfigField, v string) ([]string, error) {
	if len(v) > maxValueBytes {
		return nil, &FieldError{Problem: fmt.Sprintf("is longer than %d bytes", maxValueBytes)}
	}
	if strings.ContainsRune(v, 0) {
		return nil, &FieldError{Problem: "has a NUL character"}
	}
	var parts []string
	if f.Multiple {
		for _, p := range strings.Split(v, MultipleSeparator) {
			if p = strings.TrimRight(p, "\r"); strings.TrimSpace(p) != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) > maxArgs {
			return nil, &FieldError{Problem: fmt.Sprintf("has more than %d entries", maxArgs)}
		}
	} else if v != "" {
		parts = []string{v}
	}
	for i, p := range parts {
		switch f.Type {
		case FieldNumber:
			n, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
				return nil, &FieldError{Problem: fmt.Sprintf("must be a number (got %q)", clip(p))}
			}
			if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
				return nil, &FieldError{Problem: fmt.Sprintf("must be %s (got %s)", rangeText(f.Min, f.Max), clip(p))}
			}
			parts[i] = strconv.FormatFloat(n, 'f', -1, 64)
		case FieldBoolean:
			t, err := strconv.ParseBool(strings.TrimSpace(p))
			if err != nil {
				return nil, &FieldError{Problem: fmt.Sprintf("must be true or false (got %q)", clip(p))}
			}
			parts[i] = strconv.FormatBool(t)
		case FieldDirectory, FieldFile:
			if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return nil, &FieldError{Problem: fmt.Sprintf("has a control character in the path %q", clip(p))}
			}
			if !filepath.IsAbs(p) {
				return nil, &FieldError{Problem: fmt.Sprintf("must be an absolute path, such as %s (got %q)", exampleAbs(), clip(p))}
			}
			parts[i] = filepath.Clean(p)
		}
	}
	return parts, nil
}

func rangeText(min, max *float64) string {
	f := func(p *float64) string { return strconv.FormatFloat(*p, 'f', -1, 64) }
	switch {
	case min != nil && max != nil:
		return "between " + f(min) + " and " + f(max)
	case min != nil:
		return "at least " + f(min)
	}
	return "at most " + f(max)
}

func exampleAbs() string {
	if runtime.GOOS == "windows" {
		return `C:\Users\you\Documents`
	}
	return "/home/you/Documents"
}

// wholeUserVar reports whether s is exactly one ${user_config.KEY}.
func wholeUserVar(s string) (string, bool) {
	const pre = "${user_config."
	if !strings.HasPrefix(s, pre) || !strings.HasSuffix(s, "}") {
		return "", false
	}
	key := s[len(pre) : len(s)-1]
	if key == "" || strings.ContainsAny(key, "${}") {
		return "", false
	}
	return key, true
}

// An expander substitutes variables in one pass.
type expander struct {
	fixed     map[string]string
	user      map[string][]string
	sensitive map[string]bool
}

// expand substitutes s and reports whether a sensitive value went in.
func (x expander) expand(s string) (string, bool, error) {
	secret := false
	userVar := func(key string) string {
		vals := x.user[key]
		if x.sensitive[key] && len(vals) > 0 {
			secret = true
		}
		return strings.Join(vals, string(os.PathListSeparator))
	}
	out, err := expandString(s, x.fixed, userVar, maxArgBytes)
	return out, secret, err
}

// expandString replaces ${NAME} in s in one pass: NAME from fixed, or
// user_config.KEY through user (nil: left as written). Unknown names stay
// as written. A result longer than max (0: no bound) is an error.
func expandString(s string, fixed map[string]string, user func(key string) string, max int) (string, error) {
	var sb strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			sb.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			sb.WriteString(s)
			break
		}
		name := s[i+2 : i+2+j]
		sb.WriteString(s[:i])
		if v, ok := fixed[name]; ok {
			sb.WriteString(v)
		} else if key, ok := strings.CutPrefix(name, "user_config."); ok && user != nil {
			sb.WriteString(user(key)) // an undeclared key is an unset one
		} else {
			sb.WriteString(s[i : i+3+j])
		}
		s = s[i+3+j:]
		if max > 0 && sb.Len() > max {
			return "", fmt.Errorf("longer than %d bytes once settings are filled in", max)
		}
	}
	return sb.String(), nil
}

// systemVars are the fixed variables: ${__dirname} (when dir is not ""),
// the user's folders (when the home directory is known) and the path
// separator.
func systemVars(dir string) map[string]string {
	sep := string(os.PathSeparator)
	v := map[string]string{"pathSeparator": sep, "/": sep}
	if dir != "" {
		v["__dirname"] = dir
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return v
	}
	v["HOME"] = home
	folders := map[string]string{"DESKTOP": "Desktop", "DOCUMENTS": "Documents", "DOWNLOADS": "Downloads"}
	xdg := map[string]string{}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		xdg = xdgUserDirs(home)
	}
	for k, name := range folders {
		if p, ok := xdg[k]; ok {
			v[k] = p
		} else {
			v[k] = filepath.Join(home, name)
		}
	}
	return v
}

// xdgUserDirs reads the user's Desktop, Documents and Download folders
// from user-dirs.dirs (XDG_DESKTOP_DIR="$HOME/Desktop"), as desktop Linux
// names them in the user's language.
func xdgUserDirs(home string) map[string]string {
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" || !filepath.IsAbs(cfg) {
		cfg = filepath.Join(home, ".config")
	}
	f, err := os.Open(filepath.Join(cfg, "user-dirs.dirs"))
	if err != nil {
		return nil
	}
	defer f.Close()
	keys := map[string]string{"XDG_DESKTOP_DIR": "DESKTOP", "XDG_DOCUMENTS_DIR": "DOCUMENTS", "XDG_DOWNLOAD_DIR": "DOWNLOADS"}
	out := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		name, known := keys[k]
		if !ok || !known {
			continue
		}
		v, err := strconv.Unquote(v)
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(v, "$HOME"); ok {
			v = home + rest
		}
		if filepath.IsAbs(v) {
			out[name] = filepath.Clean(v)
		}
	}
	return out
}

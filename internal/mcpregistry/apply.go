package mcpregistry

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// maxValue bounds one value the user gives.
const maxValue = 64 << 10

// Check reports what is wrong with values (a Field's key -> what the user
// gave; a repeated field's values one a line) as a
// *serverconf.ValidationError whose fields are the keys: a required field
// left empty, a value not among its choices, not a number, a key that is
// not one of p.Fields. Empty values take the field's default. nil means
// Apply will take them.
func (p *Plan) Check(values map[string]string) error {
	_, err := p.resolve(values)
	return err
}

// Apply fills cfg in with the user's values: it appends p.Args to
// cfg.Args and sets p.Env in cfg.Env and p.Headers in cfg.Headers, and for
// a remote sets cfg.URL from p.Config.URL. Secret values (and any value
// with a secret in it) go to the keyring through put, under cfg.ID's
// entries, and cfg keeps only references to them ("${secret:NAME}" in an
// argument). cfg.ID must be set. For a remote or stdio plan cfg is
// usually a copy of p.Config; for npm and mcpb, what the installer made.
// On error cfg is unchanged (values already stored stay in the keyring,
// where the next save overwrites them).
func (p *Plan) Apply(cfg *serverconf.Config, values map[string]string, put func(ref, value string) error) error {
	vals, err := p.resolve(values)
	if err != nil {
		return err
	}
	if cfg.ID == "" {
		return errors.New("the server has no ID yet; set one before filling in its values")
	}
	type secret struct{ ref, value string }
	var secrets []secret

	used := map[string]bool{}
	for _, a := range cfg.Args {
		for _, m := range argPlaceholder.FindAllStringSubmatch(a, -1) {
			used[m[1]] = true
		}
	}
	hide := func(t Template, text string) string {
		name := argSecretName(t, used)
		secrets = append(secrets, secret{serverconf.ArgSecretRef(cfg.ID, name), text})
		return serverconf.ArgSecretPlaceholder(name)
	}
	var args []string
	for _, a := range p.Args {
		var texts []string
		if a.Repeated {
			texts = vals[a.Vars["value"]]
		} else if text, ok := fill(a.Template, vals); ok {
			texts = []string{text}
		}
		for _, text := range texts {
			if a.Flag != "" {
				args = append(args, a.Flag)
			}
			if a.Secret {
				text = hide(a.Template, text)
			}
			args = append(args, text)
		}
	}

	named := func(list []NamedValue, refFor func(id, name string) string) map[string]serverconf.Value {
		var out map[string]serverconf.Value
		for _, nv := range list {
			text, ok := fill(nv.Template, vals)
			if !ok {
				continue
			}
			if out == nil {
				out = map[string]serverconf.Value{}
			}
			if nv.Secret {
				ref := refFor(cfg.ID, nv.Name)
				secrets = append(secrets, secret{ref, text})
				out[nv.Name] = serverconf.Value{SecretRef: ref}
			} else {
				out[nv.Name] = serverconf.Value{Plain: text}
			}
		}
		return out
	}
	env := named(p.Env, serverconf.EnvSecretRef)
	headers := named(p.Headers, serverconf.HeaderSecretRef)

	rawURL := cfg.URL
	if p.Kind == KindRemote {
		var ok bool
		rawURL, ok = fill(Template{Text: p.Config.URL, Vars: p.URLVars}, vals)
		u, err := url.Parse(rawURL)
		if !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("the server's URL %q is not an http(s) URL with these values; check them", rawURL)
		}
	}

	if len(secrets) > 0 && put == nil {
		return errors.New("the server needs secret values, and there is no keyring to keep them in")
	}
	for _, s := range secrets {
		if err := put(s.ref, s.value); err != nil {
			return fmt.Errorf("storing %s in the keyring: %w", s.ref, err)
		}
	}
	cfg.Args = append(slices.Clip(cfg.Args), args...)
	if env != nil {
		cfg.Env = merge(cfg.Env, env)
	}
	if headers != nil {
		cfg.Headers = merge(cfg.Headers, headers)
	}
	cfg.URL = rawURL
	return nil
}

func merge(dst, src map[string]serverconf.Value) map[string]serverconf.Value {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]serverconf.Value{}
	}
	maps.Copy(out, src)
	return out
}

// argPlaceholder matches serverconf's ${secret:NAME} in an argument.
var argPlaceholder = regexp.MustCompile(`\$\{secret:([A-Za-z0-9_-]{1,64})\}`)

// argSecretName is a name for an argument's secret not in used (which it
// then holds): the last part of its first field's key.
func argSecretName(t Template, used map[string]bool) string {
	base := "arg"
	for _, name := range slices.Sorted(maps.Keys(t.Vars)) {
		key := t.Vars[name]
		base = key[strings.LastIndexByte(key, '.')+1:]
		break
	}
	base = strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, base)
	if base == "" || len(base) > 56 {
		base = "arg"
	}
	name := base
	for n := 2; used[name]; n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	used[name] = true
	return name
}

// fill returns t's text with its variables' values; ok is false when a
// variable has none.
func fill(t Template, vals map[string][]string) (text string, ok bool) {
	ok = true
	text = templateVar.ReplaceAllStringFunc(t.Text, func(m string) string {
		key, isVar := t.Vars[m[1:len(m)-1]]
		if !isVar {
			return m
		}
		v := vals[key]
		if len(v) == 0 {
			ok = false
			return m
		}
		return v[0]
	})
	return text, ok
}

// resolve checks values and returns each field's values (its default
// when the user gave none; none at all for an empty optional field).
func (p *Plan) resolve(values map[string]string) (map[string][]string, error) {
	var errs []serverconf.FieldError
	add := func(key, format string, args ...any) {
		errs = append(errs, serverconf.FieldError{Field: key, Message: fmt.Sprintf(format, args...)})
	}
	known := map[string]bool{}
	for _, f := range p.Fields {
		known[f.Key] = true
	}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		if !known[key] {
			keys := make([]string, len(p.Fields))
			for i, f := range p.Fields {
				keys[i] = f.Key
			}
			if len(keys) == 0 {
				add(key, "is not a value this server takes; it takes none")
			} else {
				add(key, "is not a value this server takes; it takes %s", strings.Join(keys, ", "))
			}
		}
	}
	out := map[string][]string{}
	for _, f := range p.Fields {
		raw := values[f.Key]
		var vals []string
		if f.Repeated {
			for line := range strings.SplitSeq(raw, "\n") {
				if line = strings.TrimSuffix(line, "\r"); strings.TrimSpace(line) != "" {
					vals = append(vals, line)
				}
			}
		} else if raw != "" {
			vals = []string{raw}
		}
		if len(vals) == 0 && f.Default != "" {
			vals = []string{f.Default}
		}
		if len(vals) == 0 {
			if f.Required {
				add(f.Key, "is required")
			}
			continue
		}
		if msg := checkValues(&f, vals); msg != "" {
			add(f.Key, "%s", msg)
			continue
		}
		out[f.Key] = vals
	}
	// A required value needs all its variables, even those not required
	// on their own.
	need := func(t Template) {
		if !t.Required {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(t.Vars)) {
			key := t.Vars[name]
			if len(out[key]) == 0 && !slices.ContainsFunc(errs, func(e serverconf.FieldError) bool { return e.Field == key }) {
				add(key, "is required")
			}
		}
	}
	for _, a := range p.Args {
		need(a.Template)
	}
	for _, nv := range slices.Concat(p.Env, p.Headers) {
		need(nv.Template)
	}
	if len(errs) > 0 {
		return nil, &serverconf.ValidationError{Errors: errs}
	}
	return out, nil
}

// checkValues says what is wrong with a field's values, or "".
func checkValues(f *Field, vals []string) string {
	for _, v := range vals {
		got := strconv.Quote(v)
		if f.Secret || len(v) > 80 {
			got = "another value" // a secret is not repeated back
		}
		switch {
		case len(v) > maxValue:
			return fmt.Sprintf("is longer than %d KB", maxValue>>10)
		case strings.ContainsRune(v, 0):
			return "must not contain a NUL character"
		case (strings.HasPrefix(f.Key, "header.") || strings.HasPrefix(f.Key, "url.")) && strings.ContainsAny(v, "\r\n"):
			return "must not contain line breaks"
		case strings.HasPrefix(f.Key, "url.") && strings.ContainsAny(v, " \t"):
			return "must not contain spaces (it goes into the server's URL)"
		case len(f.Choices) > 0 && !slices.Contains(f.Choices, v):
			return fmt.Sprintf("must be one of %s (got %s)", strings.Join(f.Choices, ", "), got)
		}
		switch f.Format {
		case "number":
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return fmt.Sprintf("must be a number (got %s)", got)
			}
		case "boolean":
			if v != "true" && v != "false" {
				return fmt.Sprintf("must be true or false (got %s)", got)
			}
		}
	}
	return ""
}

package serverconf

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// secretNamePattern matches names that hold secrets: anything containing
// KEY, TOKEN, SECRET, PASSWORD, PASSWD, AUTH, CREDENTIAL or
// CONNECTION_STRING, and the words PAT, DSN and PASS at the end of a name
// ("GITHUB_PAT", "SENTRY_DSN", "DSN", "SMTP_PASS"; not "PATH").
var secretNamePattern = regexp.MustCompile(`(?i)KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|CONNECTION_?STRING|(^|[_-])(PAT|DSN|PASS)$`)

// IsSecretName reports whether an env variable or header with this name
// holds a secret: its name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// AUTH, CREDENTIAL or CONNECTION_STRING in any case (which covers
// Authorization), it ends in the word PAT, DSN or PASS, or it is the Cookie
// header.
func IsSecretName(name string) bool {
	return secretNamePattern.MatchString(name) || http.CanonicalHeaderKey(name) == "Cookie"
}

// IsSecretValue reports whether a value holds a secret whatever its name:
// a URL with a password ("postgresql://u:pass@host/db").
func IsSecretValue(s string) bool {
	_, _, ok := nextURLPassword(s, 0)
	return ok
}

// nextURLPassword finds, from byte off of s, the first URL whose user info
// has a password written out ("postgresql://u:pass@host/db", also inside
// "--db=postgresql://..."), and returns the password's byte range. A
// password that is a ${...} placeholder (an arg secret, a VS Code input) is
// not written out and is skipped.
func nextURLPassword(s string, off int) (start, end int, ok bool) {
	for off < len(s) {
		i := strings.Index(s[off:], "://")
		if i < 0 {
			return 0, 0, false
		}
		auth := off + i + 3
		rest := s[auth:]
		if j := strings.IndexAny(rest, "/?# \t\r\n"); j >= 0 {
			rest = rest[:j]
		}
		off = auth
		at := strings.LastIndexByte(rest, '@')
		if at < 0 {
			continue
		}
		c := strings.IndexByte(rest[:at], ':')
		if c < 0 || c+1 == at || placeholder.MatchString(rest[c+1:at]) {
			continue
		}
		return auth + c + 1, auth + at, true
	}
	return 0, 0, false
}

// RedactURLPasswords replaces each password written in a URL in s with
// "***", for logs: "postgresql://u:***@host/db".
func RedactURLPasswords(s string) string {
	for off := 0; ; {
		start, end, ok := nextURLPassword(s, off)
		if !ok {
			return s
		}
		s = s[:start] + "***" + s[end:]
		off = start + 3
	}
}

// placeholder is a whole ${...} expression.
var placeholder = regexp.MustCompile(`^\$\{[^}]*\}$`)

// An arg secret is a password from a URL in a stdio server's arguments.
// The stored config keeps the argument as typed, with the password replaced
// by ${secret:NAME} ("postgresql://u:${secret:arg1}@host/db"); the password
// is the keyring entry ArgSecretRef(id, NAME), and ResolveArgs puts it back
// when the server starts. NAME is local to the server, so an argument can
// only ever reach its own server's entries.
var argSecret = regexp.MustCompile(`\$\{secret:([A-Za-z0-9_-]{1,64})\}`)

// ArgSecretRef is the keyring entry for arg secret name of server id.
func ArgSecretRef(id, name string) string { return "server/" + id + "/arg/" + name }

// ArgSecretPlaceholder is what an argument holds in place of the secret
// kept under ArgSecretRef(id, name).
func ArgSecretPlaceholder(name string) string { return "${secret:" + name + "}" }

// ResolveArgs returns args with each ${secret:NAME} replaced by the
// keyring entry ArgSecretRef(id, NAME), read through get.
func ResolveArgs(id string, args []string, get func(ref string) (string, error)) ([]string, error) {
	out := slices.Clone(args)
	for i, a := range args {
		var err error
		out[i] = argSecret.ReplaceAllStringFunc(a, func(m string) string {
			if err != nil {
				return m
			}
			name := argSecret.FindStringSubmatch(m)[1]
			var v string
			if v, err = get(ArgSecretRef(id, name)); err != nil {
				err = fmt.Errorf("reading the password in args[%d] (%s) from the keyring: %w", i, m, err)
			}
			return v
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ErrForeignSecret means a secret reference names a keyring entry of
// another server than the config's own.
var ErrForeignSecret = errors.New("secret reference names another server's keyring entry")

// CheckSecretRef returns an error wrapping ErrForeignSecret unless ref is
// one of server id's own keyring entries ("server/<id>/..."). Every secret
// reference Switchboard makes has that form; one that does not came from
// somewhere else (a crafted config, a hostile caller) and must not be read:
// it would hand another server's token to this one.
func CheckSecretRef(id, ref string) error {
	rest, ok := strings.CutPrefix(ref, "server/"+id+"/")
	if id == "" || !ok || rest == "" || slices.Contains(strings.Split(rest, "/"), "..") {
		return fmt.Errorf("%w: %q is not one of server %q's entries (server/%s/...); set the value again in the server's settings",
			ErrForeignSecret, ref, id, id)
	}
	return nil
}

// SecretRefs lists every keyring entry cfg refers to: env, headers, OAuth
// client secret and key, and arg secrets. Deleting a server deletes these.
func SecretRefs(cfg *Config) []string {
	var refs []string
	for _, vals := range []map[string]Value{cfg.Env, cfg.Headers} {
		for _, name := range sortedKeys(vals) {
			if r := vals[name].SecretRef; r != "" {
				refs = append(refs, r)
			}
		}
	}
	if a := cfg.Auth; a != nil {
		for _, r := range []string{a.ClientSecretRef, a.PrivateKeyRef} {
			if r != "" {
				refs = append(refs, r)
			}
		}
	}
	for _, a := range cfg.Args {
		for _, m := range argSecret.FindAllStringSubmatch(a, -1) {
			refs = append(refs, ArgSecretRef(cfg.ID, m[1]))
		}
	}
	slices.Sort(refs)
	return slices.Compact(refs)
}

// EnvSecretRef is the keyring entry for env variable name of server id.
func EnvSecretRef(id, name string) string { return "server/" + id + "/env/" + name }

// HeaderSecretRef is the keyring entry for header name of server id. The
// name is canonicalised, since header names are case-insensitive.
func HeaderSecretRef(id, name string) string {
	return "server/" + id + "/header/" + http.CanonicalHeaderKey(name)
}

// ClientSecretRef is the keyring entry for the OAuth client secret of server id.
func ClientSecretRef(id string) string { return "server/" + id + "/oauth/client-secret" }

// PrivateKeyRef names the keyring entry of a server's private_key_jwt key.
func PrivateKeyRef(id string) string { return "server/" + id + "/oauth/private-key" }

// ExtractSecrets moves every plain env and header value whose name looks
// secret (IsSecretName) or that is a URL with a password (IsSecretValue)
// into the keyring through put, and replaces it with a SecretRef; it moves
// each password written in a URL in the args the same way, leaving an
// ${secret:NAME} placeholder in the argument (see ArgSecretRef). Empty
// values are left alone. Values are stored in name order; if put fails,
// cfg is left unchanged (values already stored stay in the keyring, where
// the next save overwrites them).
func ExtractSecrets(cfg *Config, put func(ref, value string) error) error {
	env, err := extract(cfg.Env, put, func(name string) string { return EnvSecretRef(cfg.ID, name) })
	if err != nil {
		return fmt.Errorf("storing env %w", err)
	}
	args, err := extractArgs(cfg.ID, cfg.Args, put)
	if err != nil {
		return err
	}
	headers, err := extract(cfg.Headers, put, func(name string) string { return HeaderSecretRef(cfg.ID, name) })
	if err != nil {
		return fmt.Errorf("storing header %w", err)
	}
	var auth *Auth
	if a := cfg.Auth; a != nil && (a.ClientSecret != "" || a.PrivateKey != "") {
		c := *a
		if c.ClientSecret != "" {
			if err := put(ClientSecretRef(cfg.ID), c.ClientSecret); err != nil {
				return fmt.Errorf("storing the client secret in the keyring: %w", err)
			}
			c.ClientSecretRef, c.ClientSecret = ClientSecretRef(cfg.ID), ""
		}
		if c.PrivateKey != "" {
			if err := put(PrivateKeyRef(cfg.ID), c.PrivateKey); err != nil {
				return fmt.Errorf("storing the private key in the keyring: %w", err)
			}
			c.PrivateKeyRef, c.PrivateKey = PrivateKeyRef(cfg.ID), ""
		}
		auth = &c
	}
	cfg.Env, cfg.Headers, cfg.Args = env, headers, args
	if auth != nil {
		cfg.Auth = auth
	}
	return nil
}

func extract(values map[string]Value, put func(ref, value string) error, refFor func(string) string) (map[string]Value, error) {
	var out map[string]Value
	for _, name := range sortedKeys(values) {
		v := values[name]
		if v.Plain == "" || v.SecretRef != "" || !(IsSecretName(name) || IsSecretValue(v.Plain)) {
			continue
		}
		ref := refFor(name)
		if err := put(ref, v.Plain); err != nil {
			return nil, fmt.Errorf("%s in the keyring: %w", name, err)
		}
		if out == nil {
			out = maps.Clone(values)
		}
		out[name] = Value{SecretRef: ref}
	}
	if out == nil {
		return values, nil
	}
	return out, nil
}

// extractArgs moves the passwords written in URLs in args into the keyring,
// each under a name no placeholder of args uses yet ("arg1", "arg2", ...).
func extractArgs(id string, args []string, put func(ref, value string) error) ([]string, error) {
	used := map[string]bool{}
	for _, a := range args {
		for _, m := range argSecret.FindAllStringSubmatch(a, -1) {
			used[m[1]] = true
		}
	}
	var out []string
	n := 0
	for i, a := range args {
		for off := 0; ; {
			start, end, ok := nextURLPassword(a, off)
			if !ok {
				break
			}
			name := ""
			for name == "" || used[name] {
				n++
				name = "arg" + strconv.Itoa(n)
			}
			used[name] = true
			if err := put(ArgSecretRef(id, name), a[start:end]); err != nil {
				return nil, fmt.Errorf("storing the password in args[%d] in the keyring: %w", i, err)
			}
			ph := ArgSecretPlaceholder(name)
			a = a[:start] + ph + a[end:]
			off = start + len(ph)
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = a
		}
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// ResolveValue returns the text of v: Plain, or the keyring entry named by
// SecretRef, read through get.
func ResolveValue(v Value, get func(ref string) (string, error)) (string, error) {
	if v.SecretRef == "" {
		return v.Plain, nil
	}
	s, err := get(v.SecretRef)
	if err != nil {
		return "", fmt.Errorf("reading secret %s: %w", v.SecretRef, err)
	}
	return s, nil
}

package serverconf

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Call timeout bounds accepted by Validate. Zero means DefaultCallTimeout.
const (
	MinCallTimeout = time.Second
	MaxCallTimeout = time.Hour
)

// OAuth grant and client authentication names used in Auth.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer is an assertion exchanged for a token (RFC 7523):
	// the identity provider's, in enterprise-managed authorization
	// (SEP-990), or the workload's identity token (Auth.AssertionFile).
	GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

	ClientSecretBasic = "client_secret_basic"
	ClientSecretPost  = "client_secret_post"
	PrivateKeyJWT     = "private_key_jwt"
)

var (
	idPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// A FieldError says what is wrong with one field of a Config. Field is the
// field's JSON path ("id", "env.API_KEY", "headers.Authorization",
// "auth.clientId", "args[2]").
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) String() string { return e.Field + ": " + e.Message }

// A ValidationError lists every problem Validate found, in field order.
type ValidationError struct {
	Errors []FieldError `json:"errors"`
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.String()
	}
	return "invalid server config: " + strings.Join(parts, "; ")
}

// Message returns the message for field, or "" when the field is valid.
// When a field has several problems the first is returned.
func (e *ValidationError) Message(field string) string {
	for _, fe := range e.Errors {
		if fe.Field == field {
			return fe.Message
		}
	}
	return ""
}

type validator struct{ errs []FieldError }

func (v *validator) add(field, format string, args ...any) {
	v.errs = append(v.errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Validate checks cfg field by field. It returns nil or a *ValidationError
// that lists every problem, so a form can show them all at once. Fields
// that belong to another transport (a URL on a stdio server) are ignored.
func Validate(cfg *Config) error {
	var v validator
	switch {
	case cfg.ID == "":
		v.add("id", "is required")
	case !idPattern.MatchString(cfg.ID):
		v.add("id", "must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit (got %q)", cfg.ID)
	}
	if len(cfg.Name) > 100 {
		v.add("name", "must be at most 100 characters")
	} else if hasControl(cfg.Name) {
		v.add("name", "must not contain control characters")
	}

	switch cfg.Transport {
	case TransportStdio:
		validateStdio(&v, cfg)
	case TransportSSE, TransportHTTP:
		validateRemote(&v, cfg)
	case TransportCommand:
		validateCommand(&v, cfg)
	case "":
		v.add("transport", "is required: choose stdio, sse, http or command")
	default:
		v.add("transport", "must be stdio, sse, http or command (got %q)", cfg.Transport)
	}

	if cfg.CallTimeout != 0 && (cfg.CallTimeout < MinCallTimeout || cfg.CallTimeout > MaxCallTimeout) {
		v.add("callTimeout", "must be between %v and %v, or 0 for the default (%v); got %v",
			MinCallTimeout, MaxCallTimeout, DefaultCallTimeout, cfg.CallTimeout)
	}
	for i, name := range cfg.DisabledTools {
		if strings.TrimSpace(name) == "" {
			v.add(fmt.Sprintf("disabledTools[%d]", i), "must not be empty")
		}
	}
	if len(cfg.Roots) > MaxRoots {
		v.add("roots", "at most %d folders (got %d)", MaxRoots, len(cfg.Roots))
	}
	for i, r := range cfg.Roots {
		switch {
		case len(r) > 4096:
			v.add(fmt.Sprintf("roots[%d]", i), "is longer than 4096 bytes")
		case !filepath.IsAbs(r):
			v.add(fmt.Sprintf("roots[%d]", i), "must be an absolute folder path (got %q)", r)
		case hasControl(r):
			v.add(fmt.Sprintf("roots[%d]", i), "must not contain control characters")
		case slices.Contains(cfg.Roots[:i], r):
			v.add(fmt.Sprintf("roots[%d]", i), "is listed twice (%s)", r)
		}
	}
	if in := cfg.Install; in != nil {
		switch {
		case cfg.Transport != TransportStdio:
			v.add("install", "is only for stdio servers")
		case !slices.Contains(InstallKinds, in.Kind):
			v.add("install.kind", "must be npm or mcpb (got %q)", in.Kind)
		case in.Package == "" || len(in.Package) > 214 || hasControl(in.Package):
			v.add("install.package", "must be a package name of at most 214 characters")
		case in.Version == "" || len(in.Version) > 256 || hasControl(in.Version):
			v.add("install.version", "must be an exact version")
		}
	}
	if cfg.LogLevel != "" && !slices.Contains(LogLevels, cfg.LogLevel) {
		v.add("logLevel", "must be one of debug, info, notice, warning, error, critical, alert, emergency, or empty for the server's default (got %q)", cfg.LogLevel)
	}
	if cfg.Auth != nil {
		if cfg.Transport.Local() {
			v.add("auth", "is only used by sse and http servers; remove it or change the transport")
		} else {
			validateAuth(&v, cfg, cfg.Auth)
		}
	}
	if len(v.errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: v.errs}
}

func validateStdio(v *validator, cfg *Config) {
	switch {
	case strings.TrimSpace(cfg.Command) == "":
		v.add("command", "is required for a stdio server (for example npx, uvx or a full path)")
	case cfg.Command != strings.TrimSpace(cfg.Command):
		v.add("command", "must not start or end with spaces")
	case strings.ContainsRune(cfg.Command, 0):
		v.add("command", "must not contain a NUL character")
	}
	for i, a := range cfg.Args {
		if strings.ContainsRune(a, 0) {
			v.add(fmt.Sprintf("args[%d]", i), "must not contain a NUL character")
		}
	}
	if strings.ContainsRune(cfg.Cwd, 0) {
		v.add("cwd", "must not contain a NUL character")
	}
	for _, name := range sortedKeys(cfg.Env) {
		field := "env." + name
		if !envNamePattern.MatchString(name) {
			v.add(field, "name must be letters, digits and _, not starting with a digit")
		}
		validateValue(v, cfg, field, cfg.Env[name])
	}
}

func validateRemote(v *validator, cfg *Config) {
	if msg := checkRemoteURL(cfg.URL); msg != "" {
		v.add("url", "%s", msg)
	}
	for _, name := range sortedKeys(cfg.Headers) {
		field := "headers." + name
		if !validHeaderName(name) {
			v.add(field, "name must be a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)")
		}
		validateValue(v, cfg, field, cfg.Headers[name])
		if val := cfg.Headers[name].Plain; strings.ContainsAny(val, "\r\n\x00") {
			v.add(field, "value must not contain line breaks or NUL characters")
		}
	}
}

func checkRemoteURL(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "is required for an sse or http server"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Sprintf("is not a valid URL: %v", unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("must be an absolute http:// or https:// URL (got %q)", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return "must include a host name"
	}
	if u.User != nil {
		return "must not contain a user name or password; put credentials in a header"
	}
	return ""
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

func validateValue(v *validator, cfg *Config, field string, val Value) {
	if val.Plain != "" && val.SecretRef != "" {
		v.add(field, "has both a plain value and a secret reference; keep one")
	}
	validateRef(v, cfg, field, val.SecretRef)
	if strings.ContainsRune(val.Plain, 0) {
		v.add(field, "value must not contain a NUL character")
	}
}

// validateRef refuses a secret reference to another server's keyring
// entries. An invalid ID has its own error, and no entries to compare.
func validateRef(v *validator, cfg *Config, field, ref string) {
	if ref == "" || !idPattern.MatchString(cfg.ID) {
		return
	}
	if CheckSecretRef(cfg.ID, ref) != nil {
		v.add(field, "refers to keyring entry %q, which is not this server's (a server may only use entries under server/%s/); enter the value again", ref, cfg.ID)
	}
}

func validateAuth(v *validator, cfg *Config, a *Auth) {
	validateRef(v, cfg, "auth.clientSecretRef", a.ClientSecretRef)
	validateRef(v, cfg, "auth.privateKeyRef", a.PrivateKeyRef)
	switch a.Grant {
	case "", GrantAuthorizationCode, GrantClientCredentials, GrantJWTBearer:
	default:
		v.add("auth.grant", "must be authorization_code, client_credentials or %s (got %q)", GrantJWTBearer, a.Grant)
	}
	switch a.ClientAuth {
	case "", ClientSecretBasic, ClientSecretPost, PrivateKeyJWT:
	default:
		v.add("auth.clientAuth", "must be client_secret_basic, client_secret_post or private_key_jwt (got %q)", a.ClientAuth)
	}
	if a.ClientID == "" {
		switch {
		case a.Grant == GrantClientCredentials || a.Grant == GrantJWTBearer:
			v.add("auth.clientId", "is required for the %s grant", a.Grant)
		case a.ClientSecretRef != "" || a.ClientSecret != "":
			v.add("auth.clientId", "is required when a client secret is set")
		case a.ClientAuth != "":
			v.add("auth.clientId", "is required when a client authentication method is set")
		}
	}
	switch a.ClientAuth {
	case PrivateKeyJWT:
		if a.PrivateKeyRef == "" && a.PrivateKey == "" {
			v.add("auth.privateKeyRef", "is required for private_key_jwt: add the PEM private key")
		}
		if a.Grant != GrantClientCredentials {
			v.add("auth.clientAuth", "private_key_jwt is supported only with the client_credentials grant")
		}
	case ClientSecretBasic, ClientSecretPost:
		if a.ClientSecretRef == "" && a.ClientSecret == "" {
			v.add("auth.clientSecretRef", "is required for %s: add the client secret", a.ClientAuth)
		}
		if a.PrivateKeyRef != "" {
			v.add("auth.privateKeyRef", "is only used with private_key_jwt")
		}
	case "":
		if a.Grant == GrantClientCredentials && a.ClientSecretRef == "" && a.PrivateKeyRef == "" {
			v.add("auth.clientSecretRef", "the client_credentials grant needs a client secret or a private key")
		}
		if a.PrivateKeyRef != "" && a.ClientSecretRef != "" {
			v.add("auth.clientAuth", "set it to choose between the client secret and the private key")
		}
	}
	switch {
	case a.AssertionFile == "":
	case a.Grant != GrantJWTBearer:
		v.add("auth.assertionFile", "is used only with the %s grant", GrantJWTBearer)
	case !filepath.IsAbs(a.AssertionFile):
		v.add("auth.assertionFile", "must be an absolute path (got %q)", a.AssertionFile)
	}
	for i, s := range a.Scopes {
		if !validScope(s) {
			v.add(fmt.Sprintf("auth.scopes[%d]", i), "must be a non-empty scope without spaces or quotes (got %q)", s)
		}
	}
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validScope reports whether s is an RFC 6749 scope-token.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

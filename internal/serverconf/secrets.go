package serverconf

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
)

var secretNamePattern = regexp.MustCompile(`(?i)KEY|TOKEN|SECRET|PASSWORD|AUTH|CREDENTIAL`)

// IsSecretName reports whether an env variable or header with this name
// holds a secret: its name contains KEY, TOKEN, SECRET, PASSWORD, AUTH or
// CREDENTIAL in any case (which covers Authorization), or it is the Cookie
// header.
func IsSecretName(name string) bool {
	return secretNamePattern.MatchString(name) || http.CanonicalHeaderKey(name) == "Cookie"
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
// secret (IsSecretName) into the keyring through put, and replaces it with
// a SecretRef. Empty values are left alone. Values are stored in name
// order; if put fails, cfg is left unchanged (values already stored stay
// in the keyring, where the next save overwrites them).
func ExtractSecrets(cfg *Config, put func(ref, value string) error) error {
	env, err := extract(cfg.Env, put, func(name string) string { return EnvSecretRef(cfg.ID, name) })
	if err != nil {
		return fmt.Errorf("storing env %w", err)
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
	cfg.Env, cfg.Headers = env, headers
	if auth != nil {
		cfg.Auth = auth
	}
	return nil
}

func extract(values map[string]Value, put func(ref, value string) error, refFor func(string) string) (map[string]Value, error) {
	var out map[string]Value
	for _, name := range sortedKeys(values) {
		v := values[name]
		if v.Plain == "" || v.SecretRef != "" || !IsSecretName(name) {
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

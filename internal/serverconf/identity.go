package serverconf

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

const maxIDLen = 32

// NewID slugs a display name into an ID that matches the ID format and for
// which taken reports false: "My GitHub (work)" becomes "my-github-work",
// then "my-github-work-2" if that is taken. Accents are dropped ("Café" ->
// "cafe"); a name with nothing usable becomes "server". A nil taken means
// no ID is taken.
func NewID(name string, taken func(string) bool) string {
	base := slug(name)
	if taken == nil || !taken(base) {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		id := strings.TrimRight(truncate(base, maxIDLen-len(suffix)), "-_") + suffix
		if !taken(id) {
			return id
		}
	}
}

func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining accent left by NFKD
			continue
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r == '_':
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	s := strings.Trim(truncate(strings.TrimLeft(b.String(), "_"), maxIDLen), "-_")
	if s == "" {
		return "server"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Fingerprint is a stable hash of what makes a server the program it is:
// the transport, and the command, arguments, working directory and
// environment of a stdio server (and for a command server, each tool's
// name, command and folder) or the URL of a remote one. Approval grants
// are tied to it, so any change to what runs drops them. The working
// directory is included because "node index.js" runs a different program
// in another directory, and the environment (Env, and whether the app's
// own is inherited) because a variable such as NODE_OPTIONS or PYTHONPATH
// changes what runs. An env value kept in the
// keyring counts by its reference, not its secret, so rotating a token keeps
// the user's approvals. Headers, name and settings are left out: they say
// how to talk to the program, not which program it is.
func Fingerprint(cfg *Config) string {
	id := struct {
		Transport Transport        `json:"t"`
		Command   string           `json:"c,omitempty"`
		Args      []string         `json:"a,omitempty"`
		Cwd       string           `json:"d,omitempty"`
		Env       map[string]Value `json:"e,omitempty"` // json sorts the keys
		Inherit   bool             `json:"i,omitempty"`
		URL       string           `json:"u,omitempty"`
		Tools     any              `json:"x,omitempty"` // command
	}{Transport: cfg.Transport}
	if cfg.Transport == TransportCommand {
		id.Tools = commandFingerprint(cfg)
	}
	if cfg.Transport.Local() {
		id.Command, id.Args, id.Cwd, id.Inherit = cfg.Command, cfg.Args, cfg.Cwd, cfg.InheritEnv
		if len(cfg.Env) > 0 {
			id.Env = make(map[string]Value, len(cfg.Env))
			for name, v := range cfg.Env {
				if v.SecretRef != "" {
					v = Value{SecretRef: v.SecretRef}
				}
				id.Env[name] = v
			}
		}
	} else {
		id.URL = canonicalURL(cfg.URL)
	}
	data, _ := json.Marshal(id) // cannot fail: strings only
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalURL lowercases the scheme and host, which name the same server
// in any case; the path is kept as written.
func canonicalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

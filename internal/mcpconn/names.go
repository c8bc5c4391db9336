package mcpconn

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolNameLen is the longest tool name every provider accepts; names
// match ^[a-zA-Z0-9_-]{1,64}$.
const MaxToolNameLen = 64

// nameSep joins the server ID and the tool name in an exposed name.
const nameSep = "__"

// A toolKey names a tool exactly: its server and its name there.
type toolKey struct {
	server, tool string
}

// exposedNames gives every (server, tool) a name models accept, unique
// across all servers and stable across restarts: "<server>__<tool>" when
// that is already valid, else the sanitized, shortened form with a suffix
// hashed from the exact server ID and tool name. If two tools still end up
// with the same name (e.g. "a.b" and a real "a_b_<hash>", or server "a__b"
// and tool "c" vs server "a" and tool "b__c"), each of them takes the hashed
// form, with a longer hash if needed; it depends only on its own key, so a
// name changes only while such a clash lasts.
func exposedNames(keys []toolKey) map[toolKey]string {
	names := make(map[toolKey]string, len(keys))
	for _, k := range keys {
		names[k] = plainName(k)
	}
	for hashBytes := 4; ; hashBytes *= 2 {
		count := make(map[string]int, len(keys))
		for _, k := range keys {
			count[names[k]]++
		}
		clash := false
		for _, k := range keys {
			if count[names[k]] > 1 {
				names[k] = hashedNameN(k, hashBytes)
				clash = true
			}
		}
		if !clash || hashBytes >= 16 { // 32 hex digits: a clash is no longer possible
			return names
		}
	}
}

// plainName is "<server>__<tool>" if valid as is, else hashedName.
func plainName(k toolKey) string {
	n := k.server + nameSep + k.tool
	if len(n) <= MaxToolNameLen && sanitize(n) == n {
		return n
	}
	return hashedName(k)
}

// hashedName is "<server>__<tool>_<hash>", sanitized and cut to fit.
func hashedName(k toolKey) string { return hashedNameN(k, 4) }

// hashedNameN is hashedName with n bytes of hash (2n hex digits).
func hashedNameN(k toolKey, n int) string {
	sum := sha256.Sum256([]byte(k.server + "\x00" + k.tool))
	suffix := "_" + hex.EncodeToString(sum[:n])
	base := sanitize(k.server + nameSep + k.tool)
	if room := MaxToolNameLen - len(suffix); len(base) > room {
		base = base[:room]
	}
	return base + suffix
}

// sanitize replaces every byte outside [a-zA-Z0-9_-] with '_' (a multi-byte
// rune becomes one '_').
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

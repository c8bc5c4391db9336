package appview

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Domains are the outside origins a view declares it needs (MCP Apps'
// _meta.ui.csp), as the server sent them: nothing here is trusted yet.
type Domains struct {
	// Connect: fetch, XHR, WebSocket (connect-src).
	Connect []string
	// Resource: scripts, styles, images, fonts, media, workers.
	Resource []string
	// Frame: nested frames (frame-src).
	Frame []string
	// BaseURI: the document's <base> (base-uri).
	BaseURI []string
}

// MaxOrigins bounds the origins kept per kind of Domains; the rest are
// dropped, saying so.
const MaxOrigins = 32

// maxOriginBytes bounds one origin: a scheme, the longest DNS name and a
// port.
const maxOriginBytes = len("https://") + 253 + len(":65535")

// A Policy is the Content-Security-Policy a view is served under.
type Policy struct {
	// Header is the policy of the response's header: Meta, then
	// frame-ancestors 'self' (only the app may show the view) and sandbox
	// allow-scripts (the view runs in an opaque origin wherever it is
	// loaded, even outside a sandboxed frame). Neither can be set by a
	// <meta> tag or an iframe's csp attribute.
	Header string
	// Meta is the policy without those two: what the <meta> tag carries,
	// and what the iframe's csp attribute may require.
	Meta string
	// External are the outside origins the policy lets the view reach,
	// sorted, each once: empty when none (the user is told of any).
	External []string
	// Dropped says which declared entries were refused and why, one line
	// each ("connect: \"http://x\" is not an https:// or wss:// origin").
	Dropped []string
	// Frames are the origins the view may load in frames (frame-src), as
	// checked: a window that vets its frames' navigations lets these
	// through (Registry.FrameAllowed).
	Frames []string
}

// BuildPolicy makes the policy of a view that declared d.
//
// It starts from the extension's restrictive default and adds each
// declared origin to its directives only; an entry that is not a plain
// https:// (or, to connect, wss://) origin, optionally with a "*."
// subdomain wildcard, is dropped. What it does not take from the
// extension's default, and why:
//
//   - No 'self'. Here 'self' is the app's own origin (wails://wails, or the
//     dev server), not the server's: a view has nothing there (it is one
//     document; its relative URLs name the app's files), and 'self' would
//     let it load the app's own scripts and pages. frame-ancestors 'self'
//     is the one use: only the app may frame a view.
//   - script-src adds data: and blob:, and worker-src blob: (as the
//     extension's reference host does): server-pdf starts pdf.js's worker
//     from a blob: URL that imports a data: URL. With 'unsafe-inline'
//     already allowed (every example view is inline script), a script the
//     view builds itself reaches nothing more; the network stays what
//     connect-src and the declared origins allow.
//   - img-src and media-src add blob: for the same reason: bytes the view
//     already holds.
//
// No 'unsafe-eval', as in the extension's default (pdf.js works without).
func BuildPolicy(d Domains) Policy {
	var p Policy
	take := func(kind string, list []string, wss bool) []string {
		var out []string
		for i, s := range list {
			if len(out) == MaxOrigins {
				p.Dropped = append(p.Dropped, fmt.Sprintf("%s: %d entries past the first %d", kind, len(list)-i, MaxOrigins))
				break
			}
			o, err := checkOrigin(s, wss)
			if err != nil {
				p.Dropped = append(p.Dropped, fmt.Sprintf("%s: %s", kind, err))
				continue
			}
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		return out
	}
	connect := take("connect", d.Connect, true)
	resource := take("resource", d.Resource, false)
	frame := take("frame", d.Frame, false)
	base := take("baseUri", d.BaseURI, false)

	or := func(list []string) string {
		if len(list) == 0 {
			return "'none'"
		}
		return strings.Join(list, " ")
	}
	with := func(fixed string, list []string) string {
		return strings.TrimSpace(fixed + " " + strings.Join(list, " "))
	}
	directives := []string{
		"default-src 'none'",
		"script-src " + with("'unsafe-inline' data: blob:", resource),
		"style-src " + with("'unsafe-inline'", resource),
		"img-src " + with("data: blob:", resource),
		"media-src " + with("data: blob:", resource),
		"font-src " + with("data:", resource),
		"worker-src " + with("blob:", resource),
		"connect-src " + or(connect),
		"frame-src " + or(frame),
		"object-src 'none'",
		"base-uri " + or(base),
		"form-action 'none'",
	}
	p.Frames = frame
	p.Meta = strings.Join(directives, "; ")
	p.Header = p.Meta + "; frame-ancestors 'self'; sandbox allow-scripts"
	for _, l := range [][]string{connect, resource, frame, base} {
		for _, o := range l {
			if !slices.Contains(p.External, o) {
				p.External = append(p.External, o)
			}
		}
	}
	slices.Sort(p.External)
	return p
}

// checkOrigin returns s as a CSP source if it is a plain origin:
// https:// (or wss:// when wss), a DNS name of letters, digits and hyphens
// (optionally "*." and at least two labels), an optional port, nothing
// else (a single trailing "/" is let go). Everything that could end a
// source or a directive (whitespace, ";", ",", quotes), any path, query,
// user or other scheme, an IP address and localhost (the user's own
// machine and network are not "outside") is refused, saying why.
func checkOrigin(s string, wss bool) (string, error) {
	q := strconv.Quote(s)
	if len(q) > 80 {
		q = strconv.Quote(s[:min(len(s), 60)]) + "…"
	}
	if s == "" || len(s) > maxOriginBytes {
		return "", fmt.Errorf("%s is empty or longer than %d bytes", q, maxOriginBytes)
	}
	if strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r > 0x7e || strings.ContainsRune(`;,'"\`+"`", r)
	}) {
		return "", fmt.Errorf("%s holds spaces, control characters, quotes, ';', ',' or non-ASCII", q)
	}
	lower := strings.ToLower(s)
	scheme, rest, ok := strings.Cut(lower, "://")
	if !ok || !(scheme == "https" || wss && scheme == "wss") {
		want := "an https://"
		if wss {
			want = "an https:// or wss://"
		}
		return "", fmt.Errorf("%s is not %s origin", q, want)
	}
	rest = strings.TrimSuffix(rest, "/")
	if strings.ContainsAny(rest, "/?#@\\[]") {
		return "", fmt.Errorf("%s is not a bare origin (no path, query, user or brackets)", q)
	}
	host, port, hasPort := strings.Cut(rest, ":")
	if hasPort {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return "", fmt.Errorf("%s has an invalid port", q)
		}
	}
	wild := strings.HasPrefix(host, "*.")
	name := strings.TrimPrefix(host, "*.")
	labels := strings.Split(name, ".")
	if wild && len(labels) < 2 {
		return "", fmt.Errorf("%s puts a wildcard over a top-level domain", q)
	}
	for _, l := range labels {
		if !validLabel(l) {
			return "", fmt.Errorf("%s is not a DNS name (a wildcard is allowed only as the first label, as *.example.com)", q)
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return "", fmt.Errorf("%s names an IP address; views may reach only named outside origins", q)
	}
	if last == "localhost" || last == "local" || last == "internal" || last == "arpa" {
		return "", fmt.Errorf("%s names this machine or the local network; views may reach only outside origins", q)
	}
	return scheme + "://" + rest, nil
}

// validLabel reports whether l is one DNS label: 1 to 63 letters, digits
// and hyphens, not starting or ending with a hyphen.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for _, c := range l {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// originMatches reports whether the origin of u (scheme://host[:port],
// lower case) is source, an origin checkOrigin accepted, which may start
// its host with "*." for any subdomain.
func originMatches(source string, u *url.URL) bool {
	origin := u.Scheme + "://" + strings.ToLower(u.Host)
	if origin == source {
		return true
	}
	scheme, host, ok := strings.Cut(source, "://")
	if !ok || scheme != u.Scheme || !strings.HasPrefix(host, "*.") {
		return false
	}
	return strings.HasSuffix(strings.ToLower(u.Host), host[1:])
}

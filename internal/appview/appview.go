// Package appview serves MCP Apps views (io.modelcontextprotocol/ui): the
// HTML documents servers declare for their tools, shown in the app's
// window inside a sandboxed iframe.
//
// A view is served by the app's own asset server, under a random,
// unguessable id (/mcp-view/<id>), with a Content-Security-Policy header
// built here from what the view declares (BuildPolicy) and repeated in a
// <meta> tag before any of the view's bytes. The id is the only way to a
// view: a Registry holds at most MaxViews of them, each for TTL since it
// was last used, and forgets a server's views when the server goes.
// Serving the view from the app's origin rather than a srcdoc or blob:
// frame keeps the app's own policy (no inline script) off the view, and
// the view's policy (and its sandbox) off the app; the frame's sandbox
// (no allow-same-origin) and the header's sandbox directive give the view
// an opaque origin wherever it is loaded.
//
// The package knows nothing of Wails or MCP.
package appview

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PathPrefix is where views are served: PathPrefix + id.
const PathPrefix = "/mcp-view/"

// Defaults of Options.
const (
	// DefaultMaxViews is how many views live at once when
	// Options.MaxViews is zero; opening one more ends the least recently
	// used.
	DefaultMaxViews = 32
	// DefaultMaxBytes bounds the documents of the live views together
	// when Options.MaxBytes is zero (views of one resource share theirs,
	// but count each).
	DefaultMaxBytes = 256 << 20
	// DefaultTTL is how long a view lives unused when Options.TTL is zero.
	DefaultTTL = 12 * time.Hour
)

// Reasons a Registry ends a view on its own, for Options.OnEnd.
const (
	ReasonLimit   = "too many views are open; the oldest was closed"
	ReasonExpired = "the view was not used for a long time and was closed"
)

// Options configure a Registry; nil and zero fields mean the defaults.
type Options struct {
	MaxViews int
	MaxBytes int
	TTL      time.Duration
	// OnEnd hears of every view the Registry ends other than by Close:
	// past the limits, expired, or through End and CloseServer, with why.
	// It is called with no lock held.
	OnEnd func(v View, reason string)
}

// A View is one shown view.
type View struct {
	// ID is 128 random bits, hex: the capability to load and use the view.
	ID       string
	ServerID string
	// Document is the view's HTML as the server sent it.
	Document string
	Policy   Policy
	// Data is the owner's, kept with the view.
	Data any
}

// URL is where the view is served, relative to the app's origin.
func (v View) URL() string { return PathPrefix + v.ID }

type entry struct {
	v    View
	used time.Time
	// cut is where the <meta> policy goes into Document.
	cut int
}

// A Registry holds the live views and serves them (it is an
// http.Handler). It starts no goroutine: expired views are found whenever
// it is used. Its methods are safe for concurrent use.
type Registry struct {
	opts Options

	mu    sync.Mutex
	views map[string]*entry
	bytes int
}

// NewRegistry returns an empty Registry.
func NewRegistry(opts *Options) *Registry {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxViews <= 0 {
		o.MaxViews = DefaultMaxViews
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	return &Registry{opts: o, views: map[string]*entry{}}
}

// ErrTooLarge means a view's document alone is larger than the Registry
// holds.
var ErrTooLarge = errors.New("the view is larger than Switchboard keeps")

// Add makes v a live view under a new ID and returns it. To stay within
// the limits it ends the least recently used views (ReasonLimit).
func (r *Registry) Add(v View) (View, error) {
	if len(v.Document) > r.opts.MaxBytes {
		return View{}, ErrTooLarge
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return View{}, err
	}
	v.ID = hex.EncodeToString(raw[:])
	now := time.Now()
	r.mu.Lock()
	ended := r.expireLocked(now)
	for len(r.views) >= r.opts.MaxViews || r.bytes+len(v.Document) > r.opts.MaxBytes {
		ended = append(ended, ending{r.removeLocked(r.oldestLocked()), ReasonLimit})
	}
	r.views[v.ID] = &entry{v: v, used: now, cut: metaCut(v.Document)}
	r.bytes += len(v.Document)
	r.mu.Unlock()
	r.tell(ended)
	return v, nil
}

// Get returns the live view id and counts it as used.
func (r *Registry) Get(id string) (View, bool) {
	e, ok := r.use(id)
	if !ok {
		return View{}, false
	}
	return e.v, true
}

// use finds the live view id and marks it used now.
func (r *Registry) use(id string) (entry, bool) {
	now := time.Now()
	r.mu.Lock()
	ended := r.expireLocked(now)
	e, ok := r.views[id]
	var out entry
	if ok {
		e.used = now
		out = *e
	}
	r.mu.Unlock()
	r.tell(ended)
	return out, ok
}

// Close ends view id quietly (its owner asked); it reports whether the
// view was live.
func (r *Registry) Close(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.views[id]; !ok {
		return false
	}
	r.removeLocked(id)
	return true
}

// End ends view id for reason, telling Options.OnEnd; it reports whether
// the view was live.
func (r *Registry) End(id, reason string) bool {
	r.mu.Lock()
	if _, ok := r.views[id]; !ok {
		r.mu.Unlock()
		return false
	}
	v := r.removeLocked(id)
	r.mu.Unlock()
	r.tell([]ending{{v, reason}})
	return true
}

// CloseServer ends every view of serverID for reason (the server went
// away, or changed), telling Options.OnEnd; it returns how many.
func (r *Registry) CloseServer(serverID, reason string) int {
	r.mu.Lock()
	var ended []ending
	for id, e := range r.views {
		if e.v.ServerID == serverID {
			ended = append(ended, ending{r.removeLocked(id), reason})
		}
	}
	r.mu.Unlock()
	r.tell(ended)
	return len(ended)
}

// List returns the live views, in no order.
func (r *Registry) List() []View {
	r.mu.Lock()
	ended := r.expireLocked(time.Now())
	out := make([]View, 0, len(r.views))
	for _, e := range r.views {
		out = append(out, e.v)
	}
	r.mu.Unlock()
	r.tell(ended)
	return out
}

type ending struct {
	v      View
	reason string
}

func (r *Registry) tell(ended []ending) {
	if r.opts.OnEnd == nil {
		return
	}
	for _, e := range ended {
		r.opts.OnEnd(e.v, e.reason)
	}
}

// expireLocked removes the views unused for TTL; r.mu is held.
func (r *Registry) expireLocked(now time.Time) []ending {
	var out []ending
	for id, e := range r.views {
		if now.Sub(e.used) >= r.opts.TTL {
			out = append(out, ending{r.removeLocked(id), ReasonExpired})
		}
	}
	return out
}

func (r *Registry) oldestLocked() string {
	var id string
	var at time.Time
	for k, e := range r.views {
		if id == "" || e.used.Before(at) || e.used.Equal(at) && k < id {
			id, at = k, e.used
		}
	}
	return id
}

func (r *Registry) removeLocked(id string) View {
	e := r.views[id]
	delete(r.views, id)
	r.bytes -= len(e.v.Document)
	return e.v
}

// FrameAllowed reports whether a frame inside the window may navigate to
// rawURL because a live view declared its origin for frames (frameDomains):
// https only, the origin exactly or under a declared "*." wildcard. The
// window refuses its frames every other navigation off the app's origin,
// for a view could otherwise leave its policy by navigating itself.
func (r *Registry) FrameAllowed(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.views {
		for _, o := range e.v.Policy.Frames {
			if originMatches(o, u) {
				return true
			}
		}
	}
	return false
}

// EndAll ends every live view, saying why (OnEnd hears of each); it
// returns how many.
func (r *Registry) EndAll(reason string) int {
	r.mu.Lock()
	var ended []ending
	for id := range r.views {
		ended = append(ended, ending{r.removeLocked(id), reason})
	}
	r.mu.Unlock()
	r.tell(ended)
	return len(ended)
}

// ServeHTTP serves GET PathPrefix+id: the live view's document, the
// policy's <meta> tag first, under the policy's header and headers that
// keep it from being sniffed, cached or leaking a referrer. Anything else
// is 404 (405 for a method other than GET); so is a request a browser
// says is not for a frame (Sec-Fetch-Dest): a view is shown only in one.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "views are only fetched with GET", http.StatusMethodNotAllowed)
		return
	}
	id, ok := ViewID(req.URL.Path)
	if !ok || req.URL.RawQuery != "" {
		http.NotFound(w, req)
		return
	}
	if d := req.Header.Get("Sec-Fetch-Dest"); d != "" && d != "iframe" && d != "frame" {
		http.NotFound(w, req)
		return
	}
	e, ok := r.use(id)
	if !ok {
		http.NotFound(w, req)
		return
	}
	meta := e.v.Policy.metaTag()
	doc := e.v.Document
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", e.v.Policy.Header)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Content-Length", strconv.Itoa(len(doc)+len(meta)))
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, doc[:e.cut])
	io.WriteString(w, meta)
	io.WriteString(w, doc[e.cut:])
}

// ViewID returns the id of a view's path (PathPrefix + 32 lowercase hex
// digits), or false.
func ViewID(path string) (string, bool) {
	id, ok := strings.CutPrefix(path, PathPrefix)
	if !ok || len(id) != 32 || strings.ContainsFunc(id, func(c rune) bool { return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') }) {
		return "", false
	}
	return id, true
}

// Render is doc as a view is served under p: p's <meta> tag before any of
// the document's own bytes (see metaCut).
func Render(doc string, p Policy) string {
	cut := metaCut(doc)
	return doc[:cut] + p.metaTag() + doc[cut:]
}

// metaTag is the <meta> tag of p.Meta.
func (p Policy) metaTag() string {
	return `<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(p.Meta) + `">`
}

// metaCut is where the policy's <meta> tag goes into doc: after a leading
// doctype, else at the very start (after a byte-order mark). Nothing of
// the view's comes before it, so the tag applies to all of the document;
// the parser opens <head> for it, and the view's own <html> and <head>
// tags merge into those.
func metaCut(doc string) int {
	i := 0
	if strings.HasPrefix(doc, "\ufeff") {
		i = len("\ufeff")
	}
	j := i
	for j < len(doc) && slices.Contains([]byte(" \t\r\n\f"), doc[j]) {
		j++
	}
	if len(doc)-j >= len("<!doctype") && strings.EqualFold(doc[j:j+len("<!doctype")], "<!doctype") {
		if end := strings.IndexByte(doc[j:], '>'); end >= 0 {
			return j + end + 1
		}
	}
	return i
}

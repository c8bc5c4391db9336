package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865): a tool
// may name a view, a ui:// resource holding one HTML document that the
// host shows next to the tool's result. The Manager reads what a server
// declares (ToolUI, Tool.Visibility) and fetches views (ReadUIResource);
// what a view may do once shown is decided above it (internal/appview,
// internal/core).
const (
	// UIExtension is the extension's name in the client capabilities,
	// advertised only when Options.AppViews is set.
	UIExtension = "io.modelcontextprotocol/ui"
	// UIMIMEType is the only type of view Switchboard shows.
	UIMIMEType = "text/html;profile=mcp-app"
	// UIScheme starts every view's URI.
	UIScheme = "ui://"
)

// Visibilities of a tool (Tool.Visibility): who may call it.
const (
	// VisibleToModel: models are offered the tool.
	VisibleToModel = "model"
	// VisibleToApp: the server's own views may call it.
	VisibleToApp = "app"
)

// A ToolUI is the view a tool declares (its _meta.ui).
type ToolUI struct {
	// ResourceURI is the view's ui:// resource.
	ResourceURI string `json:"resourceUri"`
	// Visibility repeats Tool.Visibility: nil when the tool sets none
	// (visible to both).
	Visibility []string `json:"visibility,omitempty"`
}

// Bounds on what a server declares about its views.
const (
	// maxVisibilityEntries bounds the entries of a visibility list read.
	maxVisibilityEntries = 16
	// maxCSPEntries bounds each of a view's CSP lists; the entries past it
	// are left out, with a note.
	maxCSPEntries = 32
	// maxCSPEntryBytes: a longer CSP entry is left out (no origin is that
	// long).
	maxCSPEntryBytes = 253 + len("https://") + len(":65535")
	// maxUICacheEntries and maxUICacheBytes bound the views kept per
	// server (see uiCache).
	maxUICacheEntries = 16
	maxUICacheBytes   = 32 << 20
)

// parseToolUI reads a tool's _meta: its view (nil when it names none, or
// one that is not a ui:// URI) and its visibility (see parseVisibility).
// The view's URI is _meta.ui.resourceUri, or the deprecated flat
// _meta["ui/resourceUri"].
func parseToolUI(meta mcp.Meta) (*ToolUI, []string) {
	ui, _ := meta["ui"].(map[string]any)
	vis := parseVisibility(ui["visibility"])
	uri, _ := ui["resourceUri"].(string)
	if uri == "" {
		uri, _ = meta["ui/resourceUri"].(string)
	}
	if !validUIURI(uri) {
		return nil, vis
	}
	return &ToolUI{ResourceURI: uri, Visibility: slices.Clone(vis)}, vis
}

// parseVisibility reads _meta.ui.visibility: nil when it is absent or not
// a list (visible to both, as the extension specifies), otherwise its
// known entries ("model", "app") once each, in order; unknown entries are
// ignored, so a list of none of them is empty (visible to neither).
func parseVisibility(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := []string{}
	for i, e := range list {
		if i == maxVisibilityEntries {
			break
		}
		if s, _ := e.(string); (s == VisibleToModel || s == VisibleToApp) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// validUIURI reports whether uri can name a view: ui://, not empty past
// the scheme, at most maxURIBytes, no control characters.
func validUIURI(uri string) bool {
	if !strings.HasPrefix(uri, UIScheme) || len(uri) == len(UIScheme) || len(uri) > maxURIBytes {
		return false
	}
	return !strings.ContainsFunc(uri, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// appOnly reports whether a visibility (parseVisibility) keeps a tool from
// models: a list without "model".
func appOnlyVisibility(vis []string) bool {
	return vis != nil && !slices.Contains(vis, VisibleToModel)
}

// ForApp reports whether the server lets its views call the tool: its
// visibility is absent (both) or includes "app".
func (t Tool) ForApp() bool {
	return t.Visibility == nil || slices.Contains(t.Visibility, VisibleToApp)
}

// A UIResource is a view as its server sent it: one HTML document, and
// what the server declares it needs.
type UIResource struct {
	ServerID string `json:"serverId"`
	URI      string `json:"uri"`
	// HTML is the document, as sent (text, or a blob decoded).
	HTML string `json:"html"`
	// CSP are the outside origins the view declares it needs, as sent
	// (bounded in number and length, not checked: see appview.Policy).
	CSP UICSP `json:"csp"`
	// Permissions are the browser features the view asks for.
	Permissions UIPermissions `json:"permissions"`
	// PrefersBorder is the view's wish for a border; nil when it has none.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
	// Notes say what of the declaration was left out; empty when nothing.
	Notes []string `json:"notes,omitempty"`
}

// A UICSP is a view's _meta.ui.csp: the origins it declares, per use.
type UICSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// Empty reports whether the view declares no origin at all.
func (c UICSP) Empty() bool {
	return len(c.ConnectDomains)+len(c.ResourceDomains)+len(c.FrameDomains)+len(c.BaseURIDomains) == 0
}

// UIPermissions are a view's _meta.ui.permissions: each set when the view
// asks for that feature.
type UIPermissions struct {
	Camera         bool `json:"camera,omitempty"`
	Microphone     bool `json:"microphone,omitempty"`
	Geolocation    bool `json:"geolocation,omitempty"`
	ClipboardWrite bool `json:"clipboardWrite,omitempty"`
}

// ErrNotAView means a resource read as a view is not one: not a ui://
// URI, not text/html;profile=mcp-app, or not exactly one document.
var ErrNotAView = errors.New("not an MCP Apps view")

// ReadUIResource reads the view uri (ui://) of server id: resources/read,
// bounded by MaxResourceBytes, whose answer must be exactly one part of
// type text/html;profile=mcp-app, as text or a base64 blob. Its _meta.ui
// (csp, permissions, prefersBorder) is the part's, each key falling back
// to the resources/list entry's, as the extension specifies. A view read
// once is kept for the server's session, until the server says its tools
// or resources changed.
//
// A blob is decoded by the SDK as the message is read: the message itself
// is bounded first (MaxMessageBytes), and the decoded document then by
// MaxResourceBytes. The result is shared with later reads: do not change
// it.
func (m *Manager) ReadUIResource(ctx context.Context, id, uri string) (*UIResource, error) {
	if !validUIURI(uri) {
		return nil, fmt.Errorf("%w: %.200q is not a ui:// URI of at most %d bytes", ErrNotAView, uri, maxURIBytes)
	}
	var out *UIResource
	err := m.request(ctx, id, "reading the view "+uri, m.resourcesOffered(id), func(ctx context.Context, sess *session) error {
		if r := m.ui.get(id, sess, uri); r != nil {
			out = r
			return nil
		}
		res, err := sess.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		var parts []*mcp.ResourceContents
		for _, c := range res.Contents {
			if c != nil {
				parts = append(parts, c)
			}
		}
		if len(parts) != 1 {
			return fmt.Errorf("%w: the server sent %d parts for %s; a view is one HTML document", ErrNotAView, len(parts), uri)
		}
		c := parts[0]
		if !isUIMIMEType(c.MIMEType) {
			t, _ := clipBytes(c.MIMEType, 100)
			return fmt.Errorf("%w: %s has type %q; a view must be %s", ErrNotAView, uri, t, UIMIMEType)
		}
		size := len(c.Text) + len(c.Blob)
		if size > MaxResourceBytes {
			return &sentinelError{sentinel: ErrResourceTooLarge, msg: fmt.Sprintf("the view %s is %s; Switchboard shows views of up to %s",
				uri, sizeText(int64(size)), sizeText(MaxResourceBytes))}
		}
		r := &UIResource{ServerID: id, URI: uri, HTML: c.Text}
		if c.Blob != nil {
			r.HTML = string(c.Blob)
		}
		if strings.TrimSpace(r.HTML) == "" {
			return fmt.Errorf("%w: the server sent an empty document for %s", ErrNotAView, uri)
		}
		listed := m.listedUIMeta(ctx, sess, uri)
		r.apply(mergeUIMeta(uiMetaOf(c.Meta), listed))
		m.ui.put(id, sess, r)
		out = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// isUIMIMEType reports whether t is text/html with profile mcp-app, however
// spaced or cased.
func isUIMIMEType(t string) bool {
	mt, params, err := mime.ParseMediaType(t)
	return err == nil && mt == "text/html" && strings.EqualFold(params["profile"], "mcp-app")
}

// listedUIMeta finds uri in the server's resources/list and returns its
// _meta.ui; nil when it is not listed (servers may leave views out) or the
// listing fails. At most maxListPages pages are read.
func (m *Manager) listedUIMeta(ctx context.Context, sess *session, uri string) map[string]any {
	params := &mcp.ListResourcesParams{}
	for page := 1; page <= maxListPages; page++ {
		res, err := sess.cs.ListResources(ctx, params)
		if err != nil {
			return nil
		}
		for _, r := range res.Resources {
			if r != nil && r.URI == uri {
				return uiMetaOf(r.Meta)
			}
		}
		if res.NextCursor == "" {
			return nil
		}
		params = &mcp.ListResourcesParams{Cursor: res.NextCursor}
	}
	return nil
}

func uiMetaOf(meta mcp.Meta) map[string]any {
	ui, _ := meta["ui"].(map[string]any)
	return ui
}

// mergeUIMeta takes each key of a view's _meta.ui from the part read,
// falling back to the listing's.
func mergeUIMeta(part, listed map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"csp", "permissions", "prefersBorder"} {
		if v, ok := part[k]; ok {
			out[k] = v
		} else if v, ok := listed[k]; ok {
			out[k] = v
		}
	}
	return out
}

// apply reads a merged _meta.ui into r, bounded.
func (r *UIResource) apply(ui map[string]any) {
	if csp, ok := ui["csp"].(map[string]any); ok {
		r.CSP.ConnectDomains = r.cspList(csp, "connectDomains")
		r.CSP.ResourceDomains = r.cspList(csp, "resourceDomains")
		r.CSP.FrameDomains = r.cspList(csp, "frameDomains")
		r.CSP.BaseURIDomains = r.cspList(csp, "baseUriDomains")
	}
	if p, ok := ui["permissions"].(map[string]any); ok {
		asked := func(k string) bool { _, ok := p[k].(map[string]any); return ok }
		r.Permissions = UIPermissions{Camera: asked("camera"), Microphone: asked("microphone"),
			Geolocation: asked("geolocation"), ClipboardWrite: asked("clipboardWrite")}
	}
	if b, ok := ui["prefersBorder"].(bool); ok {
		r.PrefersBorder = &b
	}
}

// cspList reads one list of csp: its strings, at most maxCSPEntries of at
// most maxCSPEntryBytes each; what is left out gets a note.
func (r *UIResource) cspList(csp map[string]any, key string) []string {
	list, ok := csp[key].([]any)
	if !ok {
		if _, present := csp[key]; present {
			r.Notes = append(r.Notes, fmt.Sprintf("csp.%s is not a list; left out", key))
		}
		return nil
	}
	var out []string
	bad, more := 0, 0
	for _, e := range list {
		s, ok := e.(string)
		switch {
		case !ok || s == "" || len(s) > maxCSPEntryBytes:
			bad++
		case len(out) == maxCSPEntries:
			more++
		case !slices.Contains(out, s):
			out = append(out, s)
		}
	}
	if bad > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("csp.%s: %d entries are not strings of 1 to %d bytes; left out", key, bad, maxCSPEntryBytes))
	}
	if more > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("csp.%s: %d entries past the first %d left out", key, more, maxCSPEntries))
	}
	return out
}

// A uiCache keeps the views read per server, for the session they were
// read on: a view of an older session is never returned. Each server
// keeps at most maxUICacheEntries views and maxUICacheBytes, the oldest
// dropped first. Its zero value is ready.
type uiCache struct {
	mu      sync.Mutex
	servers map[string]*uiServerCache
}

type uiServerCache struct {
	sess  *session
	views []*UIResource // oldest first
	bytes int
}

// get returns server id's view uri read on sess, or nil.
func (c *uiCache) get(id string, sess *session, uri string) *UIResource {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.servers[id]
	if sc == nil || sc.sess != sess {
		return nil
	}
	for _, r := range sc.views {
		if r.URI == uri {
			return r
		}
	}
	return nil
}

// put keeps r, read on sess, for server id.
func (c *uiCache) put(id string, sess *session, r *UIResource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.servers == nil {
		c.servers = map[string]*uiServerCache{}
	}
	sc := c.servers[id]
	if sc == nil || sc.sess != sess {
		sc = &uiServerCache{sess: sess}
		c.servers[id] = sc
	}
	sc.views = slices.DeleteFunc(sc.views, func(x *UIResource) bool { return x.URI == r.URI })
	sc.views = append(sc.views, r)
	sc.bytes = 0
	for _, x := range sc.views {
		sc.bytes += len(x.HTML)
	}
	for len(sc.views) > maxUICacheEntries || sc.bytes > maxUICacheBytes && len(sc.views) > 1 {
		sc.bytes -= len(sc.views[0].HTML)
		sc.views = sc.views[1:]
	}
}

// drop forgets server id's views: it said its tools or resources changed,
// or it is gone.
func (c *uiCache) drop(id string) {
	c.mu.Lock()
	delete(c.servers, id)
	c.mu.Unlock()
}

// AppViews reports whether the Manager advertises the MCP Apps extension
// (Options.AppViews): whether views are shown at all.
func (m *Manager) AppViews() bool { return m.opts.AppViews }

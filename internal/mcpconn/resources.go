package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Events of resources and prompts, emitted through Options.Emitter.
const (
	// EventResourceUpdated carries a ResourceUpdated when a server says a
	// resource Switchboard subscribed to changed.
	EventResourceUpdated = "resource:updated"
	// EventResourcesChanged carries a ListChanged when a server says its
	// list of resources (or resource templates) changed.
	EventResourcesChanged = "resources:changed"
	// EventPromptsChanged carries a ListChanged when a server says its
	// list of prompts changed.
	EventPromptsChanged = "prompts:changed"
)

// A ResourceUpdated is the payload of EventResourceUpdated.
type ResourceUpdated struct {
	ServerID string `json:"serverId"`
	URI      string `json:"uri"`
}

// A ListChanged is the payload of EventResourcesChanged and
// EventPromptsChanged: the UI lists the server's resources or prompts
// again.
type ListChanged struct {
	ServerID string `json:"serverId"`
}

// Bounds on what a server's resources, prompts and completions may take.
const (
	// MaxResourceBytes bounds what one resources/read returns (its text
	// and decoded blobs together); a larger resource is refused with
	// ErrResourceTooLarge. The message carrying it is bounded anyway by
	// MaxMessageBytes.
	MaxResourceBytes = 8 << 20
	// maxListed bounds the resources, the templates and the prompts kept
	// of one listing each; maxListPages the pages read for it.
	maxListed    = 1000
	maxListPages = 100
	// maxURIBytes: a resource or template whose URI is longer is left out
	// (a clipped URI names another resource).
	maxURIBytes = 4 << 10
	// maxNameBytes bounds names and titles, maxDescBytes descriptions;
	// longer ones are clipped and end with "…".
	maxNameBytes = 256
	maxDescBytes = 2 << 10
	// maxContents bounds the contents of one resources/read.
	maxContents = 64
	// maxSubscriptions bounds the resources subscribed to per server.
	maxSubscriptions = 64
	// notifyInterval is the least time between two events of one
	// resource's updates, or of one server's list changes.
	notifyInterval = 500 * time.Millisecond
)

// A Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Size is the size in bytes the server gives, zero when it gives none.
	Size int64 `json:"size,omitempty"`
}

// A ResourceTemplate is a family of resources a server can read, named by
// an RFC 6570 URI template whose variables the user fills in.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Variables are the template's variable names, in order.
	Variables []string `json:"variables"`
}

// A ResourceList is what a server offers to read.
type ResourceList struct {
	ServerID  string             `json:"serverId"`
	Resources []Resource         `json:"resources"`
	Templates []ResourceTemplate `json:"templates"`
	// Subscribed are the URIs whose updates Switchboard follows.
	Subscribed []string `json:"subscribed"`
	// Notes say what was left out of the listing (past the bounds, or
	// unusable); empty when nothing was.
	Notes []string `json:"notes,omitempty"`
}

// A ResourceContent is one part of a resource as read: text or binary.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	// Text of a text resource.
	Text string `json:"text,omitempty"`
	// Blob of a binary resource, base64 in JSON.
	Blob []byte `json:"blob,omitempty" ts_type:"string"`
	// Binary tells a binary part (even an empty one) from a text one.
	Binary bool `json:"binary,omitempty"`
}

// Size is the part's size in bytes.
func (c ResourceContent) Size() int {
	if c.Binary {
		return len(c.Blob)
	}
	return len(c.Text)
}

// A ResourceContents is a resource as read.
type ResourceContents struct {
	ServerID string            `json:"serverId"`
	URI      string            `json:"uri"`
	Contents []ResourceContent `json:"contents"`
}

// resourceState is the Manager's part for resources: the subscriptions
// per server, kept across reconnects, and the throttle of notifications.
// Its zero value is ready.
type resourceState struct {
	mu   sync.Mutex
	subs map[string]map[string]bool // server ID -> URIs
	// notify throttles the events of updates and list changes.
	notify throttle
}

func (r *resourceState) subscribed(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.subs[id]))
}

func (r *resourceState) isSubscribed(id, uri string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.subs[id][uri]
}

// ListResources lists the resources and resource templates of a connected
// server (every page, up to maxListed of each). Listings the server says
// may be kept (ttlMs) come from the SDK's cache.
func (m *Manager) ListResources(ctx context.Context, id string) (*ResourceList, error) {
	out := &ResourceList{ServerID: id, Resources: []Resource{}, Templates: []ResourceTemplate{}}
	err := m.request(ctx, id, "listing resources", m.resourcesOffered(id), func(ctx context.Context, sess *session) error {
		var more, long int
		params := &mcp.ListResourcesParams{}
		for page := 1; ; page++ {
			res, err := sess.cs.ListResources(ctx, params)
			if err != nil {
				return err
			}
			for _, r := range res.Resources {
				switch {
				case r == nil:
				case len(r.URI) > maxURIBytes || r.URI == "":
					long++
				case len(out.Resources) >= maxListed:
					more++
				default:
					out.Resources = append(out.Resources, Resource{URI: r.URI, Name: clipName(r.Name), Title: clipName(r.Title),
						Description: clipDesc(r.Description), MIMEType: clipName(r.MIMEType), Size: max(r.Size, 0)})
				}
			}
			if res.NextCursor == "" {
				break
			}
			if page >= maxListPages || len(out.Resources) >= maxListed {
				out.Notes = append(out.Notes, fmt.Sprintf("the server lists more resources than the %d shown", len(out.Resources)))
				break
			}
			params = &mcp.ListResourcesParams{Cursor: res.NextCursor}
		}
		more += m.listTemplates(ctx, sess, out, &long)
		if more > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d more left out: Switchboard shows at most %d resources and %d templates", more, maxListed, maxListed))
		}
		if long > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d left out: their URI is empty, longer than %d bytes, or not a valid URI template", long, maxURIBytes))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Subscribed = orEmpty(m.res.subscribed(id)) // [] in JSON, never null
	return out, nil
}

// listTemplates adds the server's resource templates to out and returns
// how many were left out past maxListed; *bad counts the unusable ones. A
// server that does not know resources/templates/list has none.
func (m *Manager) listTemplates(ctx context.Context, sess *session, out *ResourceList, bad *int) int {
	more := 0
	params := &mcp.ListResourceTemplatesParams{}
	for page := 1; ; page++ {
		res, err := sess.cs.ListResourceTemplates(ctx, params)
		if err != nil {
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) {
				out.Notes = append(out.Notes, fmt.Sprintf("the resource templates could not be listed: %v", err))
			}
			return more
		}
		for _, t := range res.ResourceTemplates {
			if t == nil {
				continue
			}
			if len(t.URITemplate) > maxURIBytes || t.URITemplate == "" {
				*bad++
				continue
			}
			tmpl, err := uritemplate.New(t.URITemplate)
			if err != nil {
				*bad++
				continue
			}
			if len(out.Templates) >= maxListed {
				more++
				continue
			}
			vars := tmpl.Varnames()
			if len(vars) > maxArguments {
				*bad++
				continue
			}
			out.Templates = append(out.Templates, ResourceTemplate{URITemplate: t.URITemplate, Name: clipName(t.Name),
				Title: clipName(t.Title), Description: clipDesc(t.Description), MIMEType: clipName(t.MIMEType), Variables: orEmpty(vars)})
		}
		if res.NextCursor == "" || page >= maxListPages || len(out.Templates) >= maxListed {
			return more
		}
		params = &mcp.ListResourceTemplatesParams{Cursor: res.NextCursor}
	}
}

// ExpandTemplate fills in an RFC 6570 URI template with values (missing
// ones are left empty), giving the URI of the resource to read.
func ExpandTemplate(template string, values map[string]string) (string, error) {
	if len(template) > maxURIBytes {
		return "", fmt.Errorf("the URI template is longer than %d bytes", maxURIBytes)
	}
	tmpl, err := uritemplate.New(template)
	if err != nil {
		return "", fmt.Errorf("the server's URI template %q is not valid: %w", template, err)
	}
	vals := uritemplate.Values{}
	for k, v := range values {
		vals.Set(k, uritemplate.String(v))
	}
	uri, err := tmpl.Expand(vals)
	if err != nil {
		return "", fmt.Errorf("filling in %q: %w", template, err)
	}
	if len(uri) > maxURIBytes {
		return "", fmt.Errorf("the resource's URI would be longer than %d bytes; shorten the values", maxURIBytes)
	}
	return uri, nil
}

// ReadResource reads a resource of a connected server: at most maxContents
// parts and MaxResourceBytes in all (ErrResourceTooLarge past it). A
// resource the server says may be kept (ttlMs) comes from the SDK's cache.
func (m *Manager) ReadResource(ctx context.Context, id, uri string) (*ResourceContents, error) {
	if uri == "" || len(uri) > maxURIBytes {
		return nil, fmt.Errorf("a resource URI must be between 1 and %d bytes", maxURIBytes)
	}
	out := &ResourceContents{ServerID: id, URI: uri, Contents: []ResourceContent{}}
	err := m.request(ctx, id, "reading "+uri, m.resourcesOffered(id), func(ctx context.Context, sess *session) error {
		res, err := sess.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		total := 0
		for _, c := range res.Contents {
			if c != nil {
				total += len(c.Text) + len(c.Blob)
			}
		}
		if total > MaxResourceBytes {
			return &sentinelError{sentinel: ErrResourceTooLarge, msg: fmt.Sprintf("%s is %s; Switchboard reads resources of up to %s",
				uri, sizeText(int64(total)), sizeText(MaxResourceBytes))}
		}
		for _, c := range res.Contents {
			if c == nil {
				continue
			}
			if len(out.Contents) == maxContents {
				return fmt.Errorf("the server sent more than %d parts for %s", maxContents, uri)
			}
			part := ResourceContent{URI: c.URI, MIMEType: clipName(c.MIMEType), Text: c.Text, Blob: c.Blob, Binary: c.Blob != nil}
			if len(part.URI) > maxURIBytes {
				part.URI = uri
			}
			out.Contents = append(out.Contents, part)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Subscribe asks a connected server for updates of a resource (MCP
// 2025: resources/subscribe; 2026: subscriptions/listen, which the SDK
// keeps open). Each update then emits EventResourceUpdated, at most one
// per notifyInterval; the subscription is renewed when the server
// reconnects, until Unsubscribe. At most maxSubscriptions per server.
func (m *Manager) Subscribe(ctx context.Context, id, uri string) error {
	if uri == "" || len(uri) > maxURIBytes {
		return fmt.Errorf("a resource URI must be between 1 and %d bytes", maxURIBytes)
	}
	r := &m.res
	r.mu.Lock()
	if r.subs[id][uri] {
		r.mu.Unlock()
		return nil
	}
	if len(r.subs[id]) >= maxSubscriptions {
		r.mu.Unlock()
		return fmt.Errorf("already following %d resources of %s; unsubscribe from one first", maxSubscriptions, id)
	}
	// Recorded before asking, so an update that beats the answer counts.
	if r.subs == nil {
		r.subs = map[string]map[string]bool{}
	}
	if r.subs[id] == nil {
		r.subs[id] = map[string]bool{}
	}
	r.subs[id][uri] = true
	r.mu.Unlock()
	err := m.request(ctx, id, "subscribing to "+uri, m.subscribeOffered(id), func(ctx context.Context, sess *session) error {
		return sess.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	if err != nil {
		r.mu.Lock()
		delete(r.subs[id], uri)
		r.mu.Unlock()
	}
	return err
}

// Unsubscribe stops following a resource's updates. A server that is not
// connected is not asked (its session, and the subscription, are gone).
func (m *Manager) Unsubscribe(ctx context.Context, id, uri string) error {
	r := &m.res
	r.mu.Lock()
	had := r.subs[id][uri]
	delete(r.subs[id], uri)
	r.mu.Unlock()
	if !had {
		return nil
	}
	m.mu.Lock()
	s := m.servers[id]
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil || sess.ended() {
		return nil
	}
	return m.request(ctx, id, "unsubscribing from "+uri, nil, func(ctx context.Context, sess *session) error {
		return sess.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
}

// resubscribe renews a server's subscriptions on its new session; each
// that fails is noted in the server's log and dropped.
func (m *Manager) resubscribe(id string, sess *session) {
	uris := m.res.subscribed(id)
	if len(uris) == 0 || !sess.offers().Subscribe {
		return
	}
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(sess.ctx, m.opts.ConnectTimeout)
		err := sess.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		cancel()
		if err != nil {
			if sess.ctx.Err() != nil {
				return // a newer session renews them
			}
			m.res.mu.Lock()
			delete(m.res.subs[id], uri)
			m.res.mu.Unlock()
			m.Note(id, fmt.Sprintf("could not follow the updates of %s again after reconnecting: %v", uri, err))
		}
	}
}

// forgetSubscriptions drops a removed server's subscriptions.
func (m *Manager) forgetSubscriptions(id string) {
	m.res.mu.Lock()
	delete(m.res.subs, id)
	m.res.mu.Unlock()
}

// onResourceUpdated turns a server's notifications/resources/updated into
// EventResourceUpdated, for subscribed resources only, throttled.
func (m *Manager) onResourceUpdated(id string, p *mcp.ResourceUpdatedNotificationParams) {
	if p == nil || !m.res.isSubscribed(id, p.URI) {
		return
	}
	uri := p.URI
	m.res.notify.do("u\x00"+id+"\x00"+uri, func() {
		m.mu.Lock()
		closed := m.closed
		m.mu.Unlock()
		if !closed && m.res.isSubscribed(id, uri) { // still, when put off
			m.emit(EventResourceUpdated, ResourceUpdated{ServerID: id, URI: uri})
		}
	})
}

// onListChanged turns a server's resources or prompts list_changed into
// event, throttled.
func (m *Manager) onListChanged(id, event string) {
	m.res.notify.do(event+"\x00"+id, func() {
		m.mu.Lock()
		_, known := m.servers[id]
		closed := m.closed
		m.mu.Unlock()
		if known && !closed {
			m.emit(event, ListChanged{ServerID: id})
		}
	})
}

// resourcesOffered checks the server offers resources.
func (m *Manager) resourcesOffered(id string) func(*Offers) error {
	return func(o *Offers) error {
		if !o.Resources {
			return notOffered(m.displayName(id), "resources")
		}
		return nil
	}
}

func (m *Manager) subscribeOffered(id string) func(*Offers) error {
	return func(o *Offers) error {
		if !o.Subscribe {
			return notOffered(m.displayName(id), "updates of its resources")
		}
		return nil
	}
}

// displayName is server id's name as the user set it.
func (m *Manager) displayName(id string) string {
	m.mu.Lock()
	s := m.servers[id]
	m.mu.Unlock()
	if s == nil {
		return id
	}
	cfg := s.config()
	return cfg.DisplayName()
}

// clipName and clipDesc bound a server's short and long strings.
func clipName(s string) string { return clipEllipsis(s, maxNameBytes) }
func clipDesc(s string) string { return clipEllipsis(s, maxDescBytes) }

func clipEllipsis(s string, n int) string {
	if c, cut := clipBytes(s, n); cut {
		return c + "…"
	}
	return s
}

// sizeText says a byte count the way people read it: "812 bytes",
// "3.4 KB", "12.0 MB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

package mcpconn

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A tool's view and visibility are read from _meta.ui (and the deprecated
// flat "ui/resourceUri"); only ui:// URIs name a view, unknown visibility
// entries are ignored, and a tool without "model" stays away from models.
func TestToolUI(t *testing.T) {
	f := newMemServer()
	ui := func(kv ...any) mcp.Meta {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return mcp.Meta{"ui": m}
	}
	f.tools = []*mcp.Tool{
		{Name: "plain", InputSchema: anyObject()},
		{Name: "nested", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://get-time/mcp-app.html")},
		{Name: "legacy", InputSchema: anyObject(), Meta: mcp.Meta{"ui/resourceUri": "ui://legacy/view.html"}},
		{Name: "nested_wins", InputSchema: anyObject(), Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://a"}, "ui/resourceUri": "ui://b"}},
		{Name: "https", InputSchema: anyObject(), Meta: ui("resourceUri", "https://example.com/view.html")},
		{Name: "scheme_only", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://")},
		{Name: "not_string", InputSchema: anyObject(), Meta: ui("resourceUri", 42)},
		{Name: "control", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://x\n<script>")},
		{Name: "long", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://"+strings.Repeat("a", maxURIBytes))},
		{Name: "app_only", InputSchema: anyObject(), Meta: ui("visibility", []any{"app"})},
		{Name: "model_only", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://v", "visibility", []any{"model"})},
		{Name: "both_dup_unknown", InputSchema: anyObject(), Meta: ui("resourceUri", "ui://v", "visibility", []any{"app", "bogus", 7, "model", "app"})},
		{Name: "unknown_only", InputSchema: anyObject(), Meta: ui("visibility", []any{"everyone"})},
		{Name: "vis_not_list", InputSchema: anyObject(), Meta: ui("visibility", "app")},
	}
	m, _ := f.start(t, Options{Logger: testLogger(t)}, serverconf.Config{Name: "Apps"})
	waitState(t, m, "x", 10*time.Second, StateConnected)

	type got struct {
		URI     string
		Vis     []string
		AppOnly bool
		ForApp  bool
	}
	res := map[string]got{}
	for _, tool := range m.Tools() {
		g := got{Vis: tool.Visibility, AppOnly: tool.AppOnly, ForApp: tool.ForApp()}
		if tool.UI != nil {
			g.URI = tool.UI.ResourceURI
			if d := cmp.Diff(tool.Visibility, tool.UI.Visibility); d != "" {
				t.Errorf("%s: UI.Visibility differs from Visibility (-tool +ui):\n%s", tool.OriginalName, d)
			}
		}
		res[tool.OriginalName] = g
	}
	want := map[string]got{
		"plain":            {ForApp: true},
		"nested":           {URI: "ui://get-time/mcp-app.html", ForApp: true},
		"legacy":           {URI: "ui://legacy/view.html", ForApp: true},
		"nested_wins":      {URI: "ui://a", ForApp: true},
		"https":            {ForApp: true},
		"scheme_only":      {ForApp: true},
		"not_string":       {ForApp: true},
		"control":          {ForApp: true},
		"long":             {ForApp: true},
		"app_only":         {Vis: []string{"app"}, AppOnly: true, ForApp: true},
		"model_only":       {URI: "ui://v", Vis: []string{"model"}},
		"both_dup_unknown": {URI: "ui://v", Vis: []string{"app", "model"}, ForApp: true},
		"unknown_only":     {Vis: []string{}, AppOnly: true},
		"vis_not_list":     {ForApp: true},
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("views by tool (-want +got):\n%s", d)
	}
}

// The view and visibility are part of a tool's definition (an "always"
// grant made while a tool was app-only must not cover it once models see
// it); a tool without them hashes as before.
func TestDefinitionHashCountsView(t *testing.T) {
	base := &mcp.Tool{Name: "t", Description: "d", InputSchema: anyObject()}
	withMeta := func(meta mcp.Meta) *mcp.Tool { c := *base; c.Meta = meta; return &c }
	plain := definitionHash(base)
	if got := definitionHash(withMeta(mcp.Meta{"other": 1})); got != plain {
		t.Errorf("unrelated _meta changed the hash")
	}
	appOnly := definitionHash(withMeta(mcp.Meta{"ui": map[string]any{"visibility": []any{"app"}}}))
	both := definitionHash(withMeta(mcp.Meta{"ui": map[string]any{"visibility": []any{"app", "model"}}}))
	view := definitionHash(withMeta(mcp.Meta{"ui": map[string]any{"resourceUri": "ui://a"}}))
	other := definitionHash(withMeta(mcp.Meta{"ui": map[string]any{"resourceUri": "ui://b"}}))
	for name, h := range map[string]string{"app only": appOnly, "both": both, "view a": view, "view b": other} {
		if h == plain {
			t.Errorf("%s hashes like the tool without _meta.ui", name)
		}
	}
	if appOnly == both || view == other {
		t.Error("a change of visibility or view left the hash as it was")
	}
}

// uiServer is an in-process server with views to read; reads counts its
// resources/read requests and caps records the client's capabilities.
type uiServer struct {
	srv   *mcp.Server
	reads atomic.Int32

	mu   sync.Mutex
	caps []*mcp.ClientCapabilities // one per session, in order
}

func newUIServer() *uiServer {
	u := &uiServer{srv: mcp.NewServer(&mcp.Implementation{Name: "views", Version: "1"}, nil)}
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/read" {
				u.reads.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(u.srv, &mcp.Tool{Name: "show", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://v/text"}}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "shown"}}}, nil, nil
		})
	return u
}

// add serves contents at uri, listed with listMeta (nil: not listed).
func (u *uiServer) add(uri string, listMeta mcp.Meta, contents ...*mcp.ResourceContents) {
	u.srv.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: UIMIMEType, Meta: listMeta},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: contents}, nil
		})
}

func (u *uiServer) transport(serverconf.Config) (mcp.Transport, error) {
	st, ct := mcp.NewInMemoryTransports()
	go func() {
		ss, err := u.srv.Connect(context.Background(), st, nil)
		if err != nil {
			return
		}
		// The client's capabilities arrive with its first request
		// (initialize, or server/discover); the session knows them once
		// tools/list is asked, which connecting always does.
		for range 200 {
			if p := ss.InitializeParams(); p != nil && p.Capabilities != nil {
				u.mu.Lock()
				u.caps = append(u.caps, p.Capabilities)
				u.mu.Unlock()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ct, nil
}

func (u *uiServer) lastCaps(t *testing.T) *mcp.ClientCapabilities {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		u.mu.Lock()
		n := len(u.caps)
		var c *mcp.ClientCapabilities
		if n > 0 {
			c = u.caps[n-1]
		}
		u.mu.Unlock()
		if c != nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the client's capabilities")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (u *uiServer) start(t *testing.T, opts Options) *Manager {
	t.Helper()
	opts.Emitter = &recorder{}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	m := NewManager(&opts)
	m.testTransport = u.transport
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.Add(serverconf.Config{ID: "x", Name: "Views", Transport: serverconf.TransportStdio, Enabled: true})
	waitState(t, m, "x", 10*time.Second, StateConnected)
	return m
}

// The extension is advertised only when Options.AppViews says a view can
// be shown, with the one type Switchboard shows.
func TestUICapability(t *testing.T) {
	for _, on := range []bool{false, true} {
		u := newUIServer()
		u.start(t, Options{AppViews: on})
		ext, ok := u.lastCaps(t).Extensions[UIExtension]
		if ok != on {
			t.Fatalf("AppViews %v: extension advertised = %v (extensions %v)", on, ok, u.lastCaps(t).Extensions)
		}
		if !on {
			continue
		}
		want := map[string]any{"mimeTypes": []any{UIMIMEType}}
		if d := cmp.Diff(want, ext); d != "" {
			t.Errorf("extension settings (-want +got):\n%s", d)
		}
	}
}

// A view is one text/html;profile=mcp-app document, as text or a blob,
// within MaxResourceBytes; its _meta.ui comes from the part read, each
// key falling back to the listing's; everything else is refused saying
// why.
func TestReadUIResource(t *testing.T) {
	u := newUIServer()
	const doc = "<!doctype html><html><head></head><body>hi</body></html>"
	uiMeta := func(kv ...any) mcp.Meta {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return mcp.Meta{"ui": m}
	}
	part := func(uri, mime string, meta mcp.Meta) *mcp.ResourceContents {
		return &mcp.ResourceContents{URI: uri, MIMEType: mime, Text: doc, Meta: meta}
	}
	u.add("ui://v/text", nil, part("ui://v/text", UIMIMEType, nil))
	u.add("ui://v/blob", nil, &mcp.ResourceContents{URI: "ui://v/blob", MIMEType: "text/html; profile=MCP-APP", Blob: []byte(doc)})
	u.add("ui://v/merged",
		uiMeta("csp", map[string]any{"connectDomains": []any{"https://listed.example"}}, "prefersBorder", true,
			"permissions", map[string]any{"camera": map[string]any{}}),
		part("ui://v/merged", UIMIMEType, uiMeta(
			"csp", map[string]any{
				"connectDomains":  []any{"https://api.example", 7, "", "https://api.example"},
				"resourceDomains": []any{"https://unpkg.com"},
				"frameDomains":    "https://not-a-list.example",
			},
			"permissions", map[string]any{"clipboardWrite": map[string]any{}, "microphone": true})))
	u.add("ui://v/listed-only", uiMeta("csp", map[string]any{"baseUriDomains": []any{"https://base.example"}}, "prefersBorder", false),
		part("ui://v/listed-only", UIMIMEType, nil))
	u.add("ui://v/plain-html", nil, part("ui://v/plain-html", "text/html", nil))
	u.add("ui://v/two", nil, part("ui://v/two", UIMIMEType, nil), part("ui://v/two", UIMIMEType, nil))
	u.add("ui://v/empty", nil, &mcp.ResourceContents{URI: "ui://v/empty", MIMEType: UIMIMEType, Text: "  "})
	u.add("ui://v/huge", nil, &mcp.ResourceContents{URI: "ui://v/huge", MIMEType: UIMIMEType, Text: strings.Repeat("x", MaxResourceBytes+1)})
	many := make([]any, maxCSPEntries+5)
	for i := range many {
		many[i] = "https://h" + strings.Repeat("x", i) + ".example"
	}
	u.add("ui://v/many", nil, part("ui://v/many", UIMIMEType, uiMeta("csp", map[string]any{"connectDomains": many})))
	m := u.start(t, Options{AppViews: true})

	yes, no := true, false
	tests := []struct {
		uri     string
		want    *UIResource
		wantErr error
		errText string
	}{
		{uri: "ui://v/text", want: &UIResource{ServerID: "x", URI: "ui://v/text", HTML: doc}},
		{uri: "ui://v/blob", want: &UIResource{ServerID: "x", URI: "ui://v/blob", HTML: doc}},
		{uri: "ui://v/merged", want: &UIResource{ServerID: "x", URI: "ui://v/merged", HTML: doc,
			CSP:           UICSP{ConnectDomains: []string{"https://api.example"}, ResourceDomains: []string{"https://unpkg.com"}},
			Permissions:   UIPermissions{ClipboardWrite: true},
			PrefersBorder: &yes, // from the listing: the part says nothing of it
			Notes: []string{
				"csp.connectDomains: 2 entries are not strings of 1 to 267 bytes; left out",
				"csp.frameDomains is not a list; left out",
			}}},
		{uri: "ui://v/listed-only", want: &UIResource{ServerID: "x", URI: "ui://v/listed-only", HTML: doc,
			CSP: UICSP{BaseURIDomains: []string{"https://base.example"}}, PrefersBorder: &no}},
		{uri: "ui://v/plain-html", wantErr: ErrNotAView, errText: `has type "text/html"`},
		{uri: "ui://v/two", wantErr: ErrNotAView, errText: "2 parts"},
		{uri: "ui://v/empty", wantErr: ErrNotAView, errText: "empty document"},
		{uri: "ui://v/huge", wantErr: ErrResourceTooLarge, errText: "Switchboard shows views of up to 8.0 MB"},
		{uri: "https://example.com/", wantErr: ErrNotAView, errText: "not a ui:// URI"},
		{uri: "ui://v/missing", wantErr: ErrServerRefused},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, err := m.ReadUIResource(t.Context(), "x", tt.uri)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v; want %v saying %q", err, tt.wantErr, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}

	got, err := m.ReadUIResource(t.Context(), "x", "ui://v/many")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.CSP.ConnectDomains) != maxCSPEntries || len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "5 entries past the first 32") {
		t.Errorf("many: %d domains kept, notes %q; want %d and one note of 5 left out", len(got.CSP.ConnectDomains), got.Notes, maxCSPEntries)
	}
}

// A view read once is kept for its server's session: read again only
// after the server says its resources (or tools) changed, or reconnects.
func TestUIResourceCache(t *testing.T) {
	u := newUIServer()
	u.add("ui://v/text", nil, &mcp.ResourceContents{URI: "ui://v/text", MIMEType: UIMIMEType, Text: "<html>1</html>"})
	m := u.start(t, Options{AppViews: true})
	read := func() string {
		t.Helper()
		r, err := m.ReadUIResource(t.Context(), "x", "ui://v/text")
		if err != nil {
			t.Fatal(err)
		}
		return r.HTML
	}
	read()
	read()
	if n := u.reads.Load(); n != 1 {
		t.Fatalf("two reads sent %d resources/read; want 1 (kept)", n)
	}

	// A changed resource list (the SDK's server announces AddResource).
	u.add("ui://v/other", nil, &mcp.ResourceContents{URI: "ui://v/other", MIMEType: UIMIMEType, Text: "<html>2</html>"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		read()
		if u.reads.Load() == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the view was not read again after resources/list_changed")
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A reconnect: a new session reads afresh.
	if err := m.Restart("x"); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "x", 10*time.Second, StateConnected)
	read()
	if n := u.reads.Load(); n != 3 {
		t.Errorf("after a reconnect: %d reads in all; want 3", n)
	}
}

// The cache keeps at most maxUICacheEntries views and maxUICacheBytes per
// server, dropping the oldest, and never answers for another session.
func TestUICacheBounds(t *testing.T) {
	var c uiCache
	s1, s2 := &session{}, &session{}
	for i := range maxUICacheEntries + 3 {
		c.put("x", s1, &UIResource{URI: "ui://" + string(rune('a'+i)), HTML: "x"})
	}
	if c.get("x", s1, "ui://a") != nil || c.get("x", s1, "ui://c") != nil {
		t.Error("the oldest views were kept past maxUICacheEntries")
	}
	if c.get("x", s1, "ui://d") == nil {
		t.Error("a recent view was dropped")
	}
	if c.get("x", s2, "ui://d") != nil {
		t.Error("a view of another session was returned")
	}
	big := strings.Repeat("x", maxUICacheBytes/3+1)
	for _, u := range []string{"ui://1", "ui://2", "ui://3"} {
		c.put("y", s1, &UIResource{URI: u, HTML: big})
	}
	if c.get("y", s1, "ui://1") != nil || c.get("y", s1, "ui://3") == nil {
		t.Error("the byte bound did not drop the oldest view")
	}
	c.drop("y")
	if c.get("y", s1, "ui://3") != nil {
		t.Error("drop kept a view")
	}
}

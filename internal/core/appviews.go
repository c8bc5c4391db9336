package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/appview"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/oauth"
	"github.com/switchboard-app/switchboard/internal/store"
)

// MCP Apps views (io.modelcontextprotocol/ui): a tool's own interface,
// shown in its tool-call card. The view is the server's code, so it is
// trusted no more than the server: it is served sandboxed (package
// appview), it may call only its own server's tools that the server lets
// views call, each call goes through the approval a model's call goes
// through (the user is told the view asks), it reads only its own
// server's resources, opens links only after the user agreed (in the
// window), and each view is limited in calls at once and per minute.
//
// The lethal-trifecta guard does not hold a view's calls: it guards what
// a model that read untrusted content may send out, and a view's calls
// are neither the model's nor seen by it (their results go to the view
// only, and are audited apart: store.ToolCall.RequestedBy).

// EventAppViewClosed carries an AppViewClosed when Switchboard ends a view
// on its own: its server went away or changed its tool, the view was not
// used for long, or too many views were open.
const EventAppViewClosed = "appview:closed"

// An AppViewClosed is the payload of EventAppViewClosed.
type AppViewClosed struct {
	ViewID string `json:"viewId"`
	// Reason says why, for the user.
	Reason string `json:"reason"`
}

// An AppView is a view opened for the window to show.
type AppView struct {
	// ID is random and unguessable: the only way to the view.
	ID string `json:"id"`
	// URL is where the window loads the view ("/mcp-view/<id>", on the
	// app's own origin), in an iframe sandboxed with allow-scripts only.
	URL        string `json:"url"`
	ServerID   string `json:"serverId"`
	ServerName string `json:"serverName"`
	// Tool is the server's own name for the tool.
	Tool        string `json:"tool"`
	ResourceURI string `json:"resourceUri"`
	// CSP is the policy the view is served under, without the two
	// directives only a header can carry (frame-ancestors, sandbox): what
	// the iframe's csp attribute may require.
	CSP string `json:"csp"`
	// Allow is the iframe's allow attribute: "" or "clipboard-write" (the
	// only feature Switchboard grants, and only when the view asks).
	Allow string `json:"allow"`
	// PrefersBorder is the view's wish for a border; true when it says
	// nothing.
	PrefersBorder bool `json:"prefersBorder"`
	// ExternalDomains are the outside origins the view may reach, as it
	// declared them; empty when none. The window says so when there are.
	ExternalDomains []string `json:"externalDomains"`
}

// Errors of views, to check with errors.Is.
var (
	// ErrViewClosed means the view is no longer open.
	ErrViewClosed = errors.New("the view is closed; open it again from its tool call")
	// ErrViewRefused means a view asked for what it may not have: another
	// server's tool, a tool not for views, a link that is not http(s).
	ErrViewRefused = errors.New("refused to the view")
	// ErrViewBusy means the view went past its limits.
	ErrViewBusy = errors.New("the view asks too much at once")
	// ErrViewDeclined means the user declined the view's call.
	ErrViewDeclined = errors.New("the user declined the call")
	// ErrViewsOff means this window does not show views.
	ErrViewsOff = errors.New("this window does not show server views (MCP Apps)")
)

// Limits of one view.
const (
	// maxViewCallsInFlight bounds a view's tool calls at once, those
	// waiting for approval included.
	maxViewCallsInFlight = 4
	// viewRatePerSecond and viewBurst shape a view's token bucket: a
	// tool call, a resource read or a link each take one; 60 a minute
	// on average, 20 at once.
	viewRatePerSecond = 1.0
	viewBurst         = 20
	// maxViewArgsBytes bounds the arguments of a view's call, as JSON.
	maxViewArgsBytes = 1 << 20
	// maxLinkBytes bounds a link a view opens.
	maxLinkBytes = 2048
	// maxViewDenials is how many of a view's calls in a row the user may
	// decline before the view is ended: a view that asks again the moment
	// it hears no would otherwise keep the window in approval dialogs.
	maxViewDenials = 3
	// maxViewAuditBytes bounds what the audit keeps of a view's call's
	// arguments and of its result, each, so a call takes at most 64 KiB of
	// it: a view whose tool needs no approval could otherwise fill the disk
	// with its calls (60 a minute of 1 MiB arguments and 16 MiB results).
	maxViewAuditBytes = 32 << 10
)

// ViewDeniedReason is AppViewClosed.Reason of a view ended because the
// user declined maxViewDenials of its calls in a row.
const ViewDeniedReason = "it kept asking after you said no"

// appViews are the open views of a Services.
type appViews struct {
	reg  *appview.Registry
	em   Emitter
	log  *slog.Logger
	open oauth.Opener
}

// A viewState is what core keeps of one view (appview.View.Data).
type viewState struct {
	conversationID       string
	serverID, serverName string
	tool, resourceURI    string
	definitionHash       string
	// ctx lives as long as the view: its calls and their approvals end
	// with it.
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	inFlight int
	tokens   float64
	filled   time.Time // when tokens was last brought up to date
	denied   int       // calls the user declined since the last one allowed
}

func newAppViews(em Emitter, open oauth.Opener, log *slog.Logger) *appViews {
	if open == nil {
		open = oauth.OpenBrowser
	}
	v := &appViews{em: em, log: log, open: open}
	v.reg = appview.NewRegistry(&appview.Options{OnEnd: v.ended})
	return v
}

// ended hears of a view the registry ended (limits, expiry, its server):
// its calls stop, and the window is told.
func (v *appViews) ended(view appview.View, reason string) {
	if st, ok := view.Data.(*viewState); ok {
		st.cancel(errors.New(reason))
	}
	v.log.Info("view closed", "view", view.ID, "server", view.ServerID, "reason", reason)
	v.em.Emit(EventAppViewClosed, AppViewClosed{ViewID: view.ID, Reason: reason})
}

// AppViewHandler serves the open views (GET /mcp-view/<id>) for the window's
// asset server.
func (s *Services) AppViewHandler() http.Handler { return s.views.reg }

// OpenAppView opens the view of tool (the server's own name) of server
// serverID, for conversation conversationID, and returns where the window
// loads it and how to frame it. The view is read from the server (kept
// for its session), served under the policy it declares (appview.Policy;
// the policy and what was refused of it are logged), and lives until
// CloseAppView, its server goes or changes the tool, or it is unused for
// a long time (EventAppViewClosed).
func (s *Services) OpenAppView(ctx context.Context, conversationID, serverID, tool string) (AppView, error) {
	if !s.Manager.AppViews() {
		return AppView{}, ErrViewsOff
	}
	if _, err := s.store.Conversation(ctx, conversationID); err != nil {
		return AppView{}, fmt.Errorf("opening a view for conversation %q: %w", conversationID, err)
	}
	t, ok := s.serverTool(serverID, tool)
	switch {
	case !ok:
		return AppView{}, fmt.Errorf("%s has no tool %q (is it connected?)", s.serverName(serverID), tool)
	case t.UI == nil:
		return AppView{}, fmt.Errorf("the tool %s of %s has no view", tool, t.ServerName)
	case !t.Enabled:
		return AppView{}, fmt.Errorf("the tool %s of %s is switched off; switch it on in the tools panel to see its view", tool, t.ServerName)
	}
	if err := s.conversationAllows(ctx, conversationID, t); err != nil {
		return AppView{}, fmt.Errorf("%w; switch it on in the conversation's tools to see its view", err)
	}
	res, err := s.Manager.ReadUIResource(ctx, serverID, t.UI.ResourceURI)
	if err != nil {
		return AppView{}, err
	}
	pol := appview.BuildPolicy(appview.Domains{Connect: res.CSP.ConnectDomains, Resource: res.CSP.ResourceDomains,
		Frame: res.CSP.FrameDomains, BaseURI: res.CSP.BaseURIDomains})
	dropped := append(append([]string(nil), res.Notes...), pol.Dropped...)
	if len(dropped) > 0 {
		s.Manager.Note(serverID, fmt.Sprintf("the view %s declares what Switchboard does not allow; left out: %s", res.URI, strings.Join(dropped, "; ")))
	}
	st := &viewState{conversationID: conversationID, serverID: serverID, serverName: t.ServerName, tool: tool,
		resourceURI: res.URI, definitionHash: t.DefinitionHash, tokens: viewBurst, filled: time.Now()}
	st.ctx, st.cancel = context.WithCancelCause(context.Background())
	view, err := s.views.reg.Add(appview.View{ServerID: serverID, Document: res.HTML, Policy: pol, Data: st})
	if err != nil {
		st.cancel(err)
		return AppView{}, fmt.Errorf("opening the view %s: %w", res.URI, err)
	}
	s.views.log.Info("view opened", "view", view.ID, "server", serverID, "tool", tool, "uri", res.URI, "csp", pol.Header,
		"external", pol.External, "leftOut", dropped)
	out := AppView{ID: view.ID, URL: view.URL(), ServerID: serverID, ServerName: t.ServerName, Tool: tool, ResourceURI: res.URI,
		CSP: pol.Meta, PrefersBorder: res.PrefersBorder == nil || *res.PrefersBorder, ExternalDomains: pol.External}
	if out.ExternalDomains == nil {
		out.ExternalDomains = []string{} // [] in JSON, never null
	}
	if res.Permissions.ClipboardWrite {
		out.Allow = "clipboard-write"
	}
	return out, nil
}

// CloseAppView closes a view: it is no longer served, and its calls and
// their approvals are cancelled. Closing a closed view does nothing.
func (s *Services) CloseAppView(viewID string) error {
	view, ok := s.views.reg.Get(viewID)
	if !ok {
		return nil
	}
	s.views.reg.Close(viewID)
	if st, ok := view.Data.(*viewState); ok {
		st.cancel(ErrViewClosed)
	}
	return nil
}

// AppViewCallTool runs tool (the server's own name) for view viewID, with
// args, and returns its result.
//
// The view may call only its own server's tools, and of those only the
// ones the server lets views call (visibility absent or with "app");
// another server's tool, a tool for models only, an unknown or switched
// off one is refused (ErrViewRefused). The call goes through approval as a
// model's does (the grants, yolo and read-only policy apply; the user is
// told the view asks: approval.Request.RequestedBy), is audited in the
// view's conversation (store.RequestedByView), and runs on the definition
// approved. A view has at most maxViewCallsInFlight calls at once and
// viewRatePerSecond on average (ErrViewBusy). The call ends with the view.
func (s *Services) AppViewCallTool(ctx context.Context, viewID, tool string, args map[string]any) (*mcpconn.Result, error) {
	st, err := s.views.state(viewID)
	if err != nil {
		return nil, err
	}
	t, err := s.viewTool(ctx, st, tool)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%w: the arguments of %s are not JSON: %v", ErrViewRefused, tool, err)
	}
	if len(raw) > maxViewArgsBytes {
		return nil, fmt.Errorf("%w: the arguments of %s are %d bytes; a view may send at most %d", ErrViewRefused, tool, len(raw), maxViewArgsBytes)
	}
	ctx, done, err := st.enter(ctx, true)
	if err != nil {
		return nil, err
	}
	defer done()
	return s.runViewCall(ctx, viewID, st, t, raw)
}

// runViewCall asks for approval of a view's call of t, runs it and audits
// it (at most maxViewAuditBytes of its arguments and of its result). The
// view viewID ends when the user declined maxViewDenials of its calls in
// a row.
func (s *Services) runViewCall(ctx context.Context, viewID string, st *viewState, t mcpconn.Tool, args json.RawMessage) (*mcpconn.Result, error) {
	save := context.WithoutCancel(ctx) // the audit outlives a cancelled call
	rec := store.ToolCall{ID: store.NewID(), ConversationID: st.conversationID, ServerID: t.ServerID, ServerName: t.ServerName,
		Tool: t.Name, Arguments: clipAudit(string(args)), RequestedAt: time.Now(), RequestedBy: store.RequestedByView}
	if _, err := s.store.InsertToolCall(save, rec); err != nil {
		// Unlike a model's call, a view's does not run unaudited: nobody
		// waits on it but the view.
		return nil, fmt.Errorf("recording the view's call of %s: %w", t.OriginalName, err)
	}
	s.views.log.Info("view calls a tool", "server", t.ServerID, "tool", t.OriginalName, "conversationId", st.conversationID, "record", rec.ID)
	finish := func(end store.ToolCallEnd) {
		if err := s.store.FinishToolCall(save, rec.ID, end); err != nil {
			s.views.log.Warn("recording a view's call end", "id", rec.ID, "err", err)
		}
	}
	if err := s.store.DecideToolCall(save, rec.ID, store.CallWaitingApproval, "", ""); err != nil {
		s.views.log.Warn("recording a view's call", "id", rec.ID, "err", err)
	}
	out, err := s.Broker.Request(ctx, approval.Request{ID: rec.ID, ConversationID: st.conversationID, ServerID: t.ServerID,
		Tool: t.OriginalName, ServerName: t.ServerName, Title: t.Title, Description: t.Description, Hints: ToolHints(t.Annotations),
		Fingerprint: t.Fingerprint, Arguments: args, DefinitionHash: t.DefinitionHash, InputSchema: t.InputSchema,
		RequestedBy: approval.RequestedByView})
	if err != nil && !out.Allowed {
		finish(store.ToolCallEnd{Status: store.CallFailed, IsError: true, Error: err.Error()})
		return nil, fmt.Errorf("the view's call of %s could not be put to the user: %w", t.OriginalName, err)
	}
	if !out.Allowed {
		status, why := store.CallDenied, fmt.Errorf("%w: %s did not run", ErrViewDeclined, t.OriginalName)
		if out.Decision == approval.Cancelled || ctx.Err() != nil {
			status, why = store.CallCancelled, fmt.Errorf("the view's call of %s was cancelled: %v", t.OriginalName, cancelCause(ctx, out.Reason))
		} else if out.Reason != "" {
			why = fmt.Errorf("%w: %s did not run: %s", ErrViewDeclined, t.OriginalName, out.Reason)
		}
		if err := s.store.DecideToolCall(save, rec.ID, status, string(out.Decision), string(out.DecidedBy)); err != nil {
			s.views.log.Warn("recording a view's call decision", "id", rec.ID, "err", err)
		}
		finish(store.ToolCallEnd{Status: status, Error: why.Error()})
		if status == store.CallDenied && st.decided(false) >= maxViewDenials {
			s.views.log.Info("view ended after calls declined in a row", "view", viewID, "server", st.serverID, "declined", maxViewDenials)
			s.views.reg.End(viewID, ViewDeniedReason)
		}
		return nil, why
	}
	st.decided(true)
	start := time.Now()
	if err := s.store.StartToolCall(save, rec.ID, start, string(out.Decision), string(out.DecidedBy)); err != nil {
		s.views.log.Warn("recording a view's call start", "id", rec.ID, "err", err)
	}
	ref := mcpconn.ToolRef{ServerID: t.ServerID, Tool: t.OriginalName, DefinitionHash: t.DefinitionHash, Fingerprint: t.Fingerprint}
	res, err := s.Manager.CallToolRef(ctx, ref, out.Arguments, nil)
	took := time.Since(start)
	switch {
	case err != nil:
		status := store.CallFailed
		if ctx.Err() != nil {
			status, err = store.CallCancelled, fmt.Errorf("the view's call of %s was cancelled: %v", t.OriginalName, cancelCause(ctx, ""))
		}
		finish(store.ToolCallEnd{Status: status, IsError: true, Error: err.Error(), Duration: took})
		return nil, err
	case res.Task != nil:
		// Followed tasks land in a conversation; a view's result has
		// nowhere to land.
		err := fmt.Errorf("%s ran %s as a task, which a view cannot follow", t.ServerName, t.OriginalName)
		finish(store.ToolCallEnd{Status: store.CallFailed, IsError: true, Error: err.Error(), Duration: took})
		return nil, err
	}
	full, _ := json.Marshal(res)
	status := store.CallDone
	if res.IsError {
		status = store.CallFailed
	}
	finish(store.ToolCallEnd{Status: status, Result: clipAuditResult(full, res.IsError), IsError: res.IsError, Duration: took})
	return res, nil
}

// decided counts a decision on one of the view's calls and returns how
// many the user declined in a row, this one included.
func (st *viewState) decided(allowed bool) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if allowed {
		st.denied = 0
	} else {
		st.denied++
	}
	return st.denied
}

// clipAudit returns s whole when it has at most maxViewAuditBytes, or else
// its start, cut between characters, and a marker saying how long it was,
// in maxViewAuditBytes.
func clipAudit(s string) string {
	return clipTo(s, maxViewAuditBytes)
}

// clipTo returns s whole when it has at most limit bytes, or else its
// start, cut between characters, and a marker saying how long it was, in
// limit bytes.
func clipTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	marker := fmt.Sprintf(" … [clipped for the audit: %d bytes in all]", len(s))
	cut := max(0, limit-len(marker))
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

// clipAuditResult returns a view's call's result (JSON) as the audit keeps
// it: whole when it has at most maxViewAuditBytes, or else, in as many
// bytes, a result (still an mcpconn.Result, for what reads the audit)
// whose one text block is the start of the JSON and a marker.
func clipAuditResult(full json.RawMessage, isError bool) json.RawMessage {
	if len(full) <= maxViewAuditBytes {
		return full
	}
	// Escaping the text again makes it longer (a quote takes two bytes):
	// cut shorter until it fits; each round cuts at least the excess.
	limit := maxViewAuditBytes - 64
	for {
		out, _ := json.Marshal(mcpconn.Result{IsError: isError, Content: []mcpconn.Content{{Type: "text", Text: clipTo(string(full), limit)}}})
		if len(out) <= maxViewAuditBytes || limit <= 0 {
			return out
		}
		limit -= len(out) - maxViewAuditBytes
	}
}

// cancelCause says why ctx ended, or reason when it did not.
func cancelCause(ctx context.Context, reason string) any {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	if reason != "" {
		return reason
	}
	return "cancelled before a decision"
}

// AppViewReadResource reads uri of the view's own server for view viewID,
// bounded as every read (mcpconn.MaxResourceBytes); it counts against the
// view's rate.
func (s *Services) AppViewReadResource(ctx context.Context, viewID, uri string) (*mcpconn.ResourceContents, error) {
	st, err := s.views.state(viewID)
	if err != nil {
		return nil, err
	}
	ctx, done, err := st.enter(ctx, false)
	if err != nil {
		return nil, err
	}
	defer done()
	s.views.log.Info("view reads a resource", "server", st.serverID, "uri", uri, "conversationId", st.conversationID)
	return s.Manager.ReadResource(ctx, st.serverID, uri)
}

// AppViewOpenLink opens link in the user's browser for view viewID: an
// http or https URL of at most maxLinkBytes, without a user name. The
// window asks the user first and calls this only on yes.
func (s *Services) AppViewOpenLink(ctx context.Context, viewID, link string) error {
	st, err := s.views.state(viewID)
	if err != nil {
		return err
	}
	if len(link) > maxLinkBytes {
		return fmt.Errorf("%w: the link is %d bytes; a view may open links of up to %d", ErrViewRefused, len(link), maxLinkBytes)
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return fmt.Errorf("%w: a view may open only http and https links, without a user name", ErrViewRefused)
	}
	done, err := st.begin(false)
	if err != nil {
		return err
	}
	defer done()
	s.views.log.Info("view opens a link", "server", st.serverID, "url", u.Redacted(), "conversationId", st.conversationID)
	return s.views.open(ctx, u.String())
}

// state returns the live view's state.
func (v *appViews) state(id string) (*viewState, error) {
	view, ok := v.reg.Get(id)
	if !ok {
		return nil, ErrViewClosed
	}
	st, ok := view.Data.(*viewState)
	if !ok {
		return nil, ErrViewClosed
	}
	if err := context.Cause(st.ctx); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrViewClosed, err)
	}
	return st, nil
}

// enter is begin with ctx bound to the view's life: ending the view
// cancels what the request waits on. done ends both.
func (st *viewState) enter(ctx context.Context, call bool) (context.Context, func(), error) {
	release, err := st.begin(call)
	if err != nil {
		return ctx, nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(st.ctx, func() { cancel(context.Cause(st.ctx)) })
	return ctx, func() { stop(); cancel(nil); release() }, nil
}

// begin takes one token of the view's bucket, and when call one of its
// calls at once; done gives the call back.
func (st *viewState) begin(call bool) (done func(), err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	st.tokens = min(viewBurst, st.tokens+now.Sub(st.filled).Seconds()*viewRatePerSecond)
	st.filled = now
	if call && st.inFlight >= maxViewCallsInFlight {
		return nil, fmt.Errorf("%w: %d of its tool calls are running or waiting for approval; wait for one to end", ErrViewBusy, st.inFlight)
	}
	if st.tokens < 1 {
		return nil, fmt.Errorf("%w: it asked more than %d times a minute; wait a moment", ErrViewBusy, int(viewRatePerSecond*60))
	}
	st.tokens--
	if !call {
		return func() {}, nil
	}
	st.inFlight++
	return func() {
		st.mu.Lock()
		st.inFlight--
		st.mu.Unlock()
	}, nil
}

// viewTool checks the view may call tool and returns it.
func (s *Services) viewTool(ctx context.Context, st *viewState, tool string) (mcpconn.Tool, error) {
	t, ok := s.serverTool(st.serverID, tool)
	switch {
	case !ok:
		return t, fmt.Errorf("%w: %s has no tool %q; a view may call only its own server's tools", ErrViewRefused, st.serverName, tool)
	case !t.Enabled:
		return t, fmt.Errorf("%w: the tool %s of %s is switched off", ErrViewRefused, tool, st.serverName)
	case !t.ForApp():
		return t, fmt.Errorf("%w: %s of %s is for models only (its visibility leaves out \"app\")", ErrViewRefused, tool, st.serverName)
	}
	return t, s.conversationAllows(ctx, st.conversationID, t)
}

// conversationAllows refuses t (ErrViewRefused) when conversation convID
// switched it off (chat.Engine.ViewMayCall): what the user took from the
// model there, a view there does not get either. When the selection cannot
// be read, it refuses.
func (s *Services) conversationAllows(ctx context.Context, convID string, t mcpconn.Tool) error {
	ok, err := s.Chat.ViewMayCall(ctx, convID, chat.ToolKey(t.ServerID, t.OriginalName), t.AppOnly)
	switch {
	case err != nil:
		return fmt.Errorf("%w: reading the tools of conversation %s: %v", ErrViewRefused, convID, err)
	case !ok:
		return fmt.Errorf("%w: the tool %s of %s is switched off for this conversation", ErrViewRefused, t.OriginalName, t.ServerName)
	}
	return nil
}

// serverTool finds tool (the server's own name) of server serverID among
// the connected servers' tools.
func (s *Services) serverTool(serverID, tool string) (mcpconn.Tool, bool) {
	for _, t := range s.Manager.Tools() {
		if t.ServerID == serverID && t.OriginalName == tool {
			return t, true
		}
	}
	return mcpconn.Tool{}, false
}

// serverName is a server's display name, or its ID.
func (s *Services) serverName(serverID string) string {
	if cfgs, err := s.Servers.Configs(context.Background()); err == nil {
		for _, c := range cfgs {
			if c.ID == serverID {
				return c.DisplayName()
			}
		}
	}
	return serverID
}

// toolsChanged closes the views of a server whose tools changed so that a
// view's tool is gone, switched off, or not the one it was opened for.
// The Manager calls it (through watch) as it emits the server's tools.
func (v *appViews) toolsChanged(te mcpconn.ToolsEvent) {
	for _, view := range v.reg.List() {
		st, ok := view.Data.(*viewState)
		if !ok || st.serverID != te.ServerID {
			continue
		}
		reason := ""
		i := -1
		for j, t := range te.Tools {
			if t.OriginalName == st.tool {
				i = j
				break
			}
		}
		switch {
		case len(te.Tools) == 0:
			reason = fmt.Sprintf("%s disconnected", st.serverName)
		case i < 0:
			reason = fmt.Sprintf("%s no longer offers the tool %s", st.serverName, st.tool)
		case te.Tools[i].DefinitionHash != st.definitionHash || te.Tools[i].UI == nil || te.Tools[i].UI.ResourceURI != st.resourceURI:
			reason = fmt.Sprintf("%s changed the tool %s", st.serverName, st.tool)
		case !te.Tools[i].Enabled:
			reason = fmt.Sprintf("the tool %s of %s was switched off", st.tool, st.serverName)
		}
		if reason != "" {
			v.reg.End(view.ID, reason)
		}
	}
}

// close ends every view; their calls stop. No event: the window is going.
func (v *appViews) close() {
	for _, view := range v.reg.List() {
		v.reg.Close(view.ID)
		if st, ok := view.Data.(*viewState); ok {
			st.cancel(errors.New("Switchboard is closing"))
		}
	}
}

// watch returns next, with the views told of every server's tools first.
func (v *appViews) watch(next mcpconn.Emitter) mcpconn.Emitter { return viewWatch{next: next, v: v} }

type viewWatch struct {
	next mcpconn.Emitter
	v    *appViews
}

func (w viewWatch) Emit(name string, payload any) {
	if te, ok := payload.(mcpconn.ToolsEvent); ok && name == mcpconn.EventServerTools {
		w.v.toolsChanged(te)
	}
	if w.next != nil {
		w.next.Emit(name, payload)
	}
}

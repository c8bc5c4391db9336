package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/mcpserve"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// A client sees the four tools, and exactly the conversations shared with
// it, in listings and as resources; each request is audited as allowed.
func TestListsToolsAndSharedConversations(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Claude Desktop", false)
	a := f.conv("Trip to Lisbon", "where to eat?", "try the bakery")
	b := f.conv("Budget 2026", "numbers")
	f.conv("Medical notes", "private")
	f.grant(cl, a, clients.Read, time.Time{})
	f.grant(cl, b, clients.Write, time.Time{})

	c := f.mustConnect(token)
	ctx := context.Background()
	tools, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"list_conversations", "read_conversation", "search_messages", "send_message"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	var list mcpserve.ListOutput
	c.ok(t, "list_conversations", map[string]any{}, &list)
	var got []string
	for _, conv := range list.Conversations {
		got = append(got, conv.Title+"/"+conv.Access)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"Budget 2026/write", "Trip to Lisbon/read"}, got); diff != "" {
		t.Errorf("list_conversations (-want +got):\n%s", diff)
	}

	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	want := []string{mcpserve.ConversationsURI, mcpserve.ConversationURI(a.ID), mcpserve.ConversationURI(b.ID)}
	slices.Sort(want)
	if diff := cmp.Diff(want, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	read, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserve.ConversationURI(a.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if txt := read.Contents[0].Text; !strings.Contains(txt, "# Trip to Lisbon") || !strings.Contains(txt, "try the bakery") {
		t.Errorf("the resource reads %q", txt)
	}

	var ops []string
	for _, e := range f.audit() {
		if e.ClientID != cl.ID || !e.Allowed || e.Transport != mcpserve.TransportStdio {
			t.Errorf("audit entry %+v: want allowed, by %s, over stdio", e, cl.ID)
		}
		ops = append(ops, e.Operation)
	}
	for _, op := range []string{"initialize", "tools/list", "tools/call list_conversations", "resources/list", "resources/read"} {
		if !slices.Contains(ops, op) {
			t.Errorf("audit %q has no %q", ops, op)
		}
	}
	if len(f.rec.Named(mcpserve.EventActivity)) < len(ops) {
		t.Errorf("%d activity events for %d audit entries", len(f.rec.Named(mcpserve.EventActivity)), len(ops))
	}
}

// Without a token, with a wrong one or a revoked one, nothing is served,
// over stdio and HTTP (401 with WWW-Authenticate), and the refusals are
// audited.
func TestRefusedWithoutWrongOrRevokedToken(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Cursor", false)
	hs := f.httpServer()
	for _, bad := range []string{"", "sbc_" + strings.Repeat("A", 43), "not a token"} {
		if _, err := f.connect(bad); !errors.Is(err, clients.ErrBadToken) {
			t.Errorf("stdio with token %q: %v, want ErrBadToken", bad, err)
		}
		if _, err := f.connectHTTP(hs.URL, bad); err == nil {
			t.Errorf("HTTP with token %q: connected", bad)
		}
		req, _ := http.NewRequest(http.MethodPost, hs.URL+mcpserve.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if bad != "" {
			req.Header.Set("Authorization", "Bearer "+bad)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("HTTP with token %q: %d, WWW-Authenticate %q", bad, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("a CORS header was sent")
		}
	}
	if _, err := f.connectHTTP(hs.URL, token); err != nil {
		t.Fatalf("the good token: %v", err)
	}
	if err := f.reg.Revoke(context.Background(), cl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.connect(token); !errors.Is(err, clients.ErrBadToken) {
		t.Errorf("stdio with a revoked token: %v", err)
	}
	if _, err := f.connectHTTP(hs.URL, token); err == nil {
		t.Errorf("HTTP with a revoked token: connected")
	}
	var auth []clients.AuditEntry
	for _, e := range f.audit() {
		if e.Operation == "auth" {
			auth = append(auth, e)
			if e.Allowed || e.ClientID != "" || !strings.HasPrefix(e.Reason, "no valid token") || strings.Contains(e.Reason, token) {
				t.Errorf("auth audit entry %+v", e)
			}
		}
	}
	if len(auth) == 0 {
		t.Error("no refused token was audited")
	}
}

// A flood of bad tokens is audited as a summary, not a row each.
func TestBadTokenFloodAuditedAsSummary(t *testing.T) {
	f := newFixture(t, nil)
	hs := f.httpServer()
	for i := range 200 {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+mcpserve.Path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", fmt.Sprintf("Bearer sbc_guess%d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := len(f.audit()); n == 0 || n > 2 {
		t.Errorf("200 refused tokens made %d audit entries, want 1 or 2", n)
	}
}

// An expired grant is gone from listings, and reading or subscribing to
// it is refused saying it expired.
func TestExpiredGrant(t *testing.T) {
	var now = time.Now()
	f := newFixture(t, func(o *mcpserve.Options) { o.Now = func() time.Time { return now } })
	cl, token := f.client("VS Code", false)
	conv := f.conv("Plans", "hello")
	f.grant(cl, conv, clients.Read, f.clock.Now().Add(time.Hour))
	c := f.mustConnect(token)
	var list mcpserve.ListOutput
	c.ok(t, "list_conversations", nil, &list)
	if len(list.Conversations) != 1 || list.Conversations[0].ExpiresAt == "" {
		t.Fatalf("before expiry: %+v", list)
	}
	f.clock.Add(2 * time.Hour)
	c.ok(t, "list_conversations", nil, &list)
	if len(list.Conversations) != 0 {
		t.Errorf("after expiry the conversation is still listed: %+v", list)
	}
	msg := c.refused(t, "read_conversation", map[string]any{"conversationId": conv.ID})
	if !strings.Contains(msg, "expired") || strings.Contains(msg, "Plans") {
		t.Errorf("reading an expired grant says %q", msg)
	}
	if _, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserve.ConversationURI(conv.ID)}); err == nil {
		t.Error("the expired conversation's resource was read")
	}
	last := f.audit()[len(f.audit())-1]
	if last.Allowed || last.Operation != "resources/read" || last.ConversationID != conv.ID || !strings.Contains(last.Reason, "expired") {
		t.Errorf("last audit entry %+v", last)
	}
}

// A client cannot read, write, subscribe to or find another client's
// conversation, and is told the same as for one that does not exist:
// nothing of its title or text.
func TestAnotherClientsConversation(t *testing.T) {
	f := newFixture(t, nil)
	alice, aliceToken := f.client("Alice's agent", true)
	_, bobToken := f.client("Bob's agent", false)
	ac := f.mustConnect(aliceToken)
	var sent mcpserve.SendOutput
	ac.ok(t, "send_message", map[string]any{"text": "the launch code is swordfish"}, &sent)
	if sent.ConversationID == "" || sent.Status != store.StatusDone {
		t.Fatalf("alice's send: %+v", sent)
	}
	g, err := f.reg.Grants(context.Background(), alice.ID)
	if err != nil || len(g) != 1 || !g[0].Owned {
		t.Fatalf("alice's grants: %+v %v", g, err)
	}

	bc := f.mustConnect(bobToken)
	missing := "NOSUCHCONVERSATION0000000000"
	redact := func(s, id string) string { return strings.ReplaceAll(s, id, "ID") }
	for _, tool := range []string{"read_conversation", "send_message"} {
		args := func(id string) map[string]any {
			if tool == "send_message" {
				return map[string]any{"conversationId": id, "text": "hi"}
			}
			return map[string]any{"conversationId": id}
		}
		theirs := bc.refused(t, tool, args(sent.ConversationID))
		none := bc.refused(t, tool, args(missing))
		if redact(theirs, sent.ConversationID) != redact(none, missing) {
			t.Errorf("%s: another's conversation says %q, a missing one %q", tool, theirs, none)
		}
		if strings.Contains(theirs, "swordfish") || strings.Contains(theirs, "launch") {
			t.Errorf("%s leaks: %q", tool, theirs)
		}
	}
	ctx := context.Background()
	_, e1 := bc.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserve.ConversationURI(sent.ConversationID)})
	_, e2 := bc.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserve.ConversationURI(missing)})
	if e1 == nil || e2 == nil || redact(e1.Error(), sent.ConversationID) != redact(e2.Error(), missing) {
		t.Errorf("resources/read: another's %v, a missing one %v", e1, e2)
	}
	if err := bc.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: mcpserve.ConversationURI(sent.ConversationID)}); err == nil {
		t.Error("bob subscribed to alice's conversation")
	}
	var hits mcpserve.SearchOutput
	bc.ok(t, "search_messages", map[string]any{"query": "swordfish"}, &hits)
	if len(hits.Hits) != 0 {
		t.Errorf("bob's search found %+v", hits)
	}
	// Bob may not start conversations; Alice reads hers.
	if msg := bc.refused(t, "send_message", map[string]any{"text": "new"}); !strings.Contains(msg, "may not start") {
		t.Errorf("bob starting a conversation: %q", msg)
	}
	var read mcpserve.ReadOutput
	ac.ok(t, "read_conversation", map[string]any{"conversationId": sent.ConversationID}, &read)
	if len(read.Messages) != 2 || read.Access != "write" {
		t.Errorf("alice reads %+v", read)
	}
	for _, e := range f.audit() {
		if e.ClientName == "Bob's agent" && e.Operation != "initialize" && strings.Contains(e.Operation, "tools/call") &&
			e.ConversationID == sent.ConversationID && e.Allowed {
			t.Errorf("bob's request on alice's conversation audited as allowed: %+v", e)
		}
		if strings.Contains(e.Reason, "swordfish") {
			t.Errorf("the audit holds the text: %+v", e)
		}
	}
}

// Search finds only what is shared: not the text, nor the title, of
// another conversation, and nothing of either in any answer.
func TestSearchDoesNotLeakUngrantedText(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Agent", false)
	shared := f.conv("Garden", "the tomato seedlings need water", "water them at dawn")
	f.conv("Secret zucchini plans", "the tomato secret: zucchini under the porch")
	f.grant(cl, shared, clients.Read, time.Time{})
	c := f.mustConnect(token)
	for _, q := range []string{"tomato", "zucchini", "secret", "porch", "plans"} {
		res, err := c.call(t, "search_messages", map[string]any{"query": q})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %s", q, err, text(res))
		}
		raw, _ := json.Marshal(res)
		for _, leak := range []string{"zucchini", "porch", "Secret"} {
			if strings.Contains(string(raw), leak) && q != leak && !strings.Contains(q, strings.ToLower(leak)) {
				t.Errorf("search %q answers with %q: %s", q, leak, raw)
			}
		}
		var out mcpserve.SearchOutput
		json.Unmarshal(mustJSON(res.StructuredContent), &out)
		for _, h := range out.Hits {
			if h.ConversationID != shared.ID {
				t.Errorf("search %q found %+v", q, h)
			}
		}
		if q == "tomato" && len(out.Hits) != 1 {
			t.Errorf("search tomato: %+v", out.Hits)
		}
	}
}

func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

// send_message runs a turn the fake provider answers, in a shared
// conversation with write access, and returns the reply; read-only
// access is refused, as is a text past the bound.
func TestSendMessage(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Agent", true)
	rw := f.conv("Writable", "hi")
	ro := f.conv("Read only", "hi")
	f.grant(cl, rw, clients.Write, time.Time{})
	f.grant(cl, ro, clients.Read, time.Time{})
	c := f.mustConnect(token)
	var out mcpserve.SendOutput
	c.ok(t, "send_message", map[string]any{"conversationId": rw.ID, "text": "what is 2+2?"}, &out)
	if out.Status != store.StatusDone || !strings.Contains(out.Reply, "what is 2+2?") {
		t.Errorf("send: %+v", out)
	}
	ms, _ := f.st.Messages(context.Background(), rw.ID, store.MessagePage{})
	if len(ms) != 3 || ms[1].Content != "what is 2+2?" || ms[2].Content != out.Reply {
		t.Errorf("stored: %+v", ms)
	}
	if msg := c.refused(t, "send_message", map[string]any{"conversationId": ro.ID, "text": "x"}); !strings.Contains(msg, "read-only") {
		t.Errorf("read-only: %q", msg)
	}
	big := strings.Repeat("a", mcpserve.MaxMessageBytes+1)
	if msg := c.refused(t, "send_message", map[string]any{"conversationId": rw.ID, "text": big}); !strings.Contains(msg, "at most") {
		t.Errorf("too long: %q", msg)
	}
	if n := len(f.llm.ChatRequests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	var read mcpserve.ReadOutput
	c.ok(t, "read_conversation", map[string]any{"conversationId": rw.ID, "limit": 1000}, &read)
	if len(read.Messages) != 3 {
		t.Errorf("read: %+v", read)
	}
	c.ok(t, "read_conversation", map[string]any{"conversationId": rw.ID, "limit": 2}, &read)
	if len(read.Messages) != 2 || read.Messages[0].Seq != 2 || read.NextCursor == "" {
		t.Fatalf("page 1: %+v", read)
	}
	cursor := read.NextCursor
	read = mcpserve.ReadOutput{}
	c.ok(t, "read_conversation", map[string]any{"conversationId": rw.ID, "limit": 2, "cursor": cursor}, &read)
	if len(read.Messages) != 1 || read.Messages[0].Seq != 1 || read.NextCursor != "" {
		t.Errorf("page 2: %+v", read)
	}
}

// Revoking a client ends its open sessions: at once when the server is
// told (Disconnect), and within a poll when another process revoked it;
// over stdio Serve returns ErrDisconnected, over HTTP the next request is
// refused.
func TestRevocationCutsOpenSessions(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Agent", false)
	conv := f.conv("Notes", "hello")
	f.grant(cl, conv, clients.Read, time.Time{})
	hs := f.httpServer()

	told := f.mustConnect(token)
	polled := f.mustConnect(token)
	web, err := f.connectHTTP(hs.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	var read mcpserve.ReadOutput
	web.ok(t, "read_conversation", map[string]any{"conversationId": conv.ID}, &read)

	// Another process revokes: only the database changes; the poll sees it.
	if err := f.reg.Revoke(context.Background(), cl.ID); err != nil {
		t.Fatal(err)
	}
	if err := polled.servedErr(t); !errors.Is(err, mcpserve.ErrDisconnected) {
		t.Errorf("stdio session after a revoke elsewhere: %v", err)
	}
	if err := told.servedErr(t); !errors.Is(err, mcpserve.ErrDisconnected) {
		t.Errorf("stdio session: %v", err)
	}
	if _, err := web.call(t, "read_conversation", map[string]any{"conversationId": conv.ID}); err == nil {
		t.Error("the HTTP session still reads after the revoke")
	}
}

// Disconnect ends a session at once, also mid-turn.
func TestDisconnectEndsSessionNow(t *testing.T) {
	f := newFixture(t, func(o *mcpserve.Options) { o.Poll = time.Hour })
	cl, token := f.client("Agent", false)
	c := f.mustConnect(token)
	if err := f.reg.Revoke(context.Background(), cl.ID); err != nil {
		t.Fatal(err)
	}
	f.srv.Disconnect(cl.ID)
	if err := c.servedErr(t); !errors.Is(err, mcpserve.ErrDisconnected) {
		t.Errorf("after Disconnect: %v", err)
	}
}

// A subscribed conversation's changes are notified; once its grant is
// removed the list change is, and its changes no longer are.
func TestSubscriptionsFollowGrants(t *testing.T) {
	f := newFixture(t, nil)
	cl, token := f.client("Agent", false)
	conv := f.conv("Live", "one")
	f.grant(cl, conv, clients.Read, time.Time{})
	c := f.mustConnect(token)
	uri := mcpserve.ConversationURI(conv.ID)
	if err := c.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	f.st.AppendMessage(context.Background(), store.Message{ConversationID: conv.ID, Role: store.RoleAssistant, Content: "two"})
	timetest.WaitFor(t, 10*time.Second, "the update", func() bool { return slices.Contains(c.notifications(), "updated "+uri) })

	if err := f.reg.Ungrant(context.Background(), cl.ID, conv.ID); err != nil {
		t.Fatal(err)
	}
	timetest.WaitFor(t, 10*time.Second, "list_changed", func() bool { return slices.Contains(c.notifications(), "list_changed") })
	before := len(c.notifications())
	f.st.AppendMessage(context.Background(), store.Message{ConversationID: conv.ID, Role: store.RoleUser, Content: "three"})
	time.Sleep(300 * time.Millisecond) // several polls
	for _, n := range c.notifications()[before:] {
		if n == "updated "+uri {
			t.Errorf("an ungranted conversation's change was notified: %q", c.notifications())
		}
	}
}

// A flood of requests is refused by the rate limit and audited as one
// summary, not a row each.
func TestRateLimit(t *testing.T) {
	f := newFixture(t, func(o *mcpserve.Options) { o.Rate, o.Burst = 1, 5 })
	_, token := f.client("Flood", false)
	c := f.mustConnect(token)
	refused := 0
	for range 50 {
		if _, err := c.call(t, "list_conversations", nil); err != nil {
			if !strings.Contains(err.Error(), "too many requests") {
				t.Fatal(err)
			}
			refused++
		}
	}
	if refused < 40 {
		t.Errorf("%d of 50 refused", refused)
	}
	limited := 0
	for _, e := range f.audit() {
		if strings.Contains(e.Reason, "too many requests") {
			limited++
		}
	}
	if limited != 1 {
		t.Errorf("%d audit entries for the flood, want 1", limited)
	}
}

// One client keeps at most MaxSessions HTTP sessions open.
func TestHTTPSessionsPerClientBounded(t *testing.T) {
	f := newFixture(t, nil)
	_, token := f.client("Many", false)
	hs := f.httpServer()
	for i := range mcpserve.MaxSessions {
		if _, err := f.connectHTTP(hs.URL, token); err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
	}
	if _, err := f.connectHTTP(hs.URL, token); err == nil {
		t.Errorf("session %d opened", mcpserve.MaxSessions+1)
	}
}

// The SDK's DNS-rebinding protection stays on: a request naming another
// host is refused before its token is looked at; so is a web page's
// cross-site request.
func TestDNSRebindingRefused(t *testing.T) {
	f := newFixture(t, nil)
	_, token := f.client("Agent", false)
	hs := f.httpServer()
	req, _ := http.NewRequest(http.MethodPost, hs.URL+mcpserve.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Host = "evil.example:80"
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %d, want 403", resp.StatusCode)
	}
	// A web page's request (a browser marks it cross-site) is refused too.
	req, _ = http.NewRequest(http.MethodPost, hs.URL+mcpserve.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a cross-site request: %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// Each request looks the client up again: revoked in the database alone
// (no poll, no Disconnect), its next request is refused and its session
// ends.
func TestEachRequestRechecksTheClient(t *testing.T) {
	f := newFixture(t, func(o *mcpserve.Options) { o.Poll = time.Hour })
	cl, token := f.client("Agent", false)
	c := f.mustConnect(token)
	var list mcpserve.ListOutput
	c.ok(t, "list_conversations", nil, &list)
	if err := f.reg.Revoke(context.Background(), cl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(t, "list_conversations", nil); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("after the revoke: %v", err)
	}
	if err := c.servedErr(t); !errors.Is(err, mcpserve.ErrDisconnected) {
		t.Errorf("the session: %v", err)
	}
	last := f.audit()[len(f.audit())-1]
	if last.Allowed || !strings.Contains(last.Reason, "revoked") {
		t.Errorf("last audit entry %+v", last)
	}
}

package mcpserve

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Tool names, fixed: clients' configs and prompts name them.
const (
	ToolList   = "list_conversations"
	ToolRead   = "read_conversation"
	ToolSearch = "search_messages"
	ToolSend   = "send_message"
)

// newMCPServer builds the MCP server of one session.
func (s *Server) newMCPServer(sess *session) *mcp.Server {
	srv := mcp.NewServer(implementation(), &mcp.ServerOptions{
		Instructions: instructions,
		// The handshake-era versions only: the sessionless protocol's
		// subscriptions/listen holds a request open per listen, which a
		// client could multiply without bound.
		SupportedProtocolVersions: legacyVersions(),
		Logger:                    discard,
		PageSize:                  MaxPage,
		SchemaCache:               s.schemas,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
		SubscribeHandler:   func(ctx context.Context, r *mcp.SubscribeRequest) error { return s.subscribe(ctx, sess, r.Params.URI) },
		UnsubscribeHandler: func(ctx context.Context, r *mcp.UnsubscribeRequest) error { return s.unsubscribe(sess, r.Params.URI) },
		// Conversations are private to the user and change: nothing is
		// to be cached by anyone but this client, and not for long.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope, c.TTLMs = "private", 0 },
	})
	srv.AddReceivingMiddleware(s.middleware(sess))
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(srv, &mcp.Tool{Name: ToolList, Title: "List shared conversations", Annotations: readOnly,
		Description: "Lists the Switchboard conversations the user shared with this app, most recently shared first, with what this app may do in each (read, or read and write)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
			out, err := s.listConversations(ctx, sess, in.Cursor, in.Limit)
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: ToolRead, Title: "Read a conversation", Annotations: readOnly,
		Description: "Reads a shared conversation's messages, oldest first within a page. The first page holds the newest messages; pass nextCursor to read the page before it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, ReadOutput, error) {
			out, err := s.readConversation(ctx, sess, in)
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSearch, Title: "Search messages", Annotations: readOnly,
		Description: fmt.Sprintf("Searches the messages of the conversations shared with this app (every word must match; the last also as a prefix), best first, at most %d hits.", MaxSearchResults)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
			out, err := s.search(ctx, sess, in)
			return nil, out, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSend, Title: "Send a message",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(true)},
		Description: "Sends a message to a conversation this app may write to, or, without conversationId, starts a new one (if the user lets this app start conversations), and waits for the reply of that conversation's model, which may use the conversation's tools (the user approves them). Returns the reply."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in SendInput) (*mcp.CallToolResult, SendOutput, error) {
			out, err := s.send(ctx, sess, in)
			if err == nil && out.Status != store.StatusDone {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sendFailure(out)}}}, out, nil
			}
			return nil, out, err
		})
	s.addListResource(sess, srv)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ConversationURIPrefix + "{id}", Name: "conversation",
		Title: "A shared conversation", MIMEType: "text/markdown",
		Description: "A Switchboard conversation shared with this app: its title and newest messages, as Markdown."},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return s.readResource(ctx, sess, r.Params.URI)
		})
	return srv
}

// legacyVersions are the protocol versions before 2026-07-28 (SEP-2575).
func legacyVersions() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}

// ListInput is list_conversations' input.
type ListInput struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page; empty for the first page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many conversations a page holds, 1 to 100; default 50"`
}

// A ConversationInfo is a conversation as listed to a client.
type ConversationInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Access is "read" or "write" (read and write).
	Access string `json:"access"`
	// Owned is set when this app started the conversation.
	Owned bool `json:"owned,omitempty"`
	// ExpiresAt (RFC 3339) is when the grant ends; empty for never.
	ExpiresAt string `json:"expiresAt,omitempty"`
	UpdatedAt string `json:"updatedAt"`
}

// ListOutput is list_conversations' output.
type ListOutput struct {
	Conversations []ConversationInfo `json:"conversations"`
	NextCursor    string             `json:"nextCursor,omitempty"`
}

// pageLimit bounds a client's page size.
func pageLimit(n int) int {
	if n <= 0 {
		return DefaultPage
	}
	return min(n, MaxPage)
}

// Cursors are opaque to clients: base64 of "kind:number".
func encodeCursor(kind string, n int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatInt(n, 10)))
}

var errCursor = errors.New("this cursor is not one Switchboard gave; pass the nextCursor of the previous page, or none for the first")

func decodeCursor(kind, c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(raw) > 40 {
		return 0, errCursor
	}
	k, num, ok := strings.Cut(string(raw), ":")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || k != kind || err != nil || n < 0 {
		return 0, errCursor
	}
	return n, nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// granted returns the client's live grants, most recently shared first.
func (s *Server) granted(ctx context.Context, sess *session) ([]clients.Grant, error) {
	live, err := s.opts.Registry.Live(ctx, sess.client.ID)
	if err != nil {
		return nil, errors.New("Switchboard could not read what is shared with this app just now; try again")
	}
	slices.SortStableFunc(live, func(a, b clients.Grant) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.ConversationID, b.ConversationID))
	})
	return live, nil
}

func (s *Server) listConversations(ctx context.Context, sess *session, cursor string, limit int) (ListOutput, error) {
	out := ListOutput{Conversations: []ConversationInfo{}}
	offset, err := decodeCursor("list", cursor)
	if err != nil {
		return out, err
	}
	live, err := s.granted(ctx, sess)
	if err != nil {
		return out, err
	}
	limit = pageLimit(limit)
	if offset >= int64(len(live)) {
		return out, nil
	}
	page := live[offset:]
	if len(page) > limit {
		page = page[:limit]
		out.NextCursor = encodeCursor("list", offset+int64(limit))
	}
	for _, g := range page {
		conv, err := s.opts.Store.Conversation(ctx, g.ConversationID)
		if err != nil { // deleted meanwhile: its grant goes with it
			continue
		}
		out.Conversations = append(out.Conversations, ConversationInfo{ID: conv.ID, Title: conv.Title, Access: string(g.Access),
			Owned: g.Owned, ExpiresAt: stamp(g.ExpiresAt), UpdatedAt: stamp(conv.UpdatedAt)})
	}
	return out, nil
}

// ReadInput is read_conversation's input.
type ReadInput struct {
	ConversationID string `json:"conversationId" jsonschema:"the conversation's id, as list_conversations gives it"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page (older messages); empty for the newest"`
	Limit          int    `json:"limit,omitempty" jsonschema:"how many messages a page holds, 1 to 100; default 50"`
}

// A MessageInfo is one message as a client reads it.
type MessageInfo struct {
	Seq int64 `json:"seq"`
	// Role is "user", "assistant" or "tool" (a tool's result).
	Role string `json:"role"`
	Text string `json:"text"`
	// Status is set when the message is not a finished one: "streaming",
	// "stopped" or "error" (Error says why).
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// ToolCalls names the tools an assistant message called.
	ToolCalls []string `json:"toolCalls,omitempty"`
	CreatedAt string   `json:"createdAt"`
}

// ReadOutput is read_conversation's output.
type ReadOutput struct {
	ID         string        `json:"id"`
	Title      string        `json:"title"`
	Access     string        `json:"access"`
	Messages   []MessageInfo `json:"messages"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

func (s *Server) readConversation(ctx context.Context, sess *session, in ReadInput) (ReadOutput, error) {
	out := ReadOutput{Messages: []MessageInfo{}}
	noteOf(ctx).conv = clipID(in.ConversationID)
	if err := s.opts.Registry.Check(ctx, sess.client.ID, in.ConversationID, clients.Read); err != nil {
		return out, denied(ctx, in.ConversationID, err)
	}
	before, err := decodeCursor("before", in.Cursor)
	if err != nil {
		return out, err
	}
	conv, msgs, next, err := s.page(ctx, in.ConversationID, before, pageLimit(in.Limit))
	if err != nil {
		return out, err
	}
	out.ID, out.Title, out.Messages, out.NextCursor = conv.ID, conv.Title, msgs, next
	out.Access = string(clients.Read)
	if s.opts.Registry.Check(ctx, sess.client.ID, conv.ID, clients.Write) == nil {
		out.Access = string(clients.Write)
	}
	return out, nil
}

// page reads the newest limit messages before seq before (0: the newest
// of all), within maxPageBytes of text, and the cursor of the page before.
func (s *Server) page(ctx context.Context, convID string, before int64, limit int) (store.Conversation, []MessageInfo, string, error) {
	conv, err := s.opts.Store.Conversation(ctx, convID)
	if errors.Is(err, store.ErrNotFound) {
		return conv, nil, "", deny(ctx, convID, notShared)
	}
	if err != nil {
		return conv, nil, "", errors.New("Switchboard could not read the conversation just now; try again")
	}
	ms, err := s.opts.Store.Messages(ctx, convID, store.MessagePage{BeforeSeq: before, Limit: limit})
	if err != nil {
		return conv, nil, "", errors.New("Switchboard could not read the conversation just now; try again")
	}
	out := []MessageInfo{}
	size := 0
	first := 0 // index in ms of the oldest message kept
	for i := len(ms) - 1; i >= 0; i-- {
		m := messageInfo(ms[i])
		size += len(m.Text) + len(m.Error) + 64
		if size > maxPageBytes && len(out) > 0 {
			break
		}
		out = append(out, m)
		first = i
	}
	slices.Reverse(out)
	next := ""
	if len(out) > 0 && ms[first].Seq > 1 {
		if older, err := s.opts.Store.Messages(ctx, convID, store.MessagePage{BeforeSeq: ms[first].Seq, Limit: 1}); err == nil && len(older) > 0 {
			next = encodeCursor("before", ms[first].Seq)
		}
	}
	return conv, out, next, nil
}

// notShared is the one answer for a conversation that does not exist and
// one not shared with the client.
const notShared = "no conversation with this id is shared with this app"

func messageInfo(m store.Message) MessageInfo {
	out := MessageInfo{Seq: m.Seq, Role: m.Role, Text: cut(m.Content, maxMessageText), Error: cut(m.Error, 2000), CreatedAt: stamp(m.CreatedAt)}
	if m.Status != store.StatusDone {
		out.Status = m.Status
	}
	for _, c := range toolCallNames(m.ToolCalls) {
		out.ToolCalls = append(out.ToolCalls, c)
	}
	return out
}

// cut shortens s to n characters and says how long it was.
func cut(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + fmt.Sprintf("\n\n[cut: %d characters in all]", utf8.RuneCountInString(s))
}

// SearchInput is search_messages' input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"the words to find"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many hits, 1 to 50; default 20"`
}

// A SearchHit is one message matching a search.
type SearchHit struct {
	ConversationID string `json:"conversationId"`
	Title          string `json:"title"`
	Seq            int64  `json:"seq"`
	Role           string `json:"role"`
	// Snippet is the matching passage, matches in **bold**.
	Snippet   string `json:"snippet"`
	CreatedAt string `json:"createdAt"`
}

// SearchOutput is search_messages' output.
type SearchOutput struct {
	Hits []SearchHit `json:"hits"`
}

func (s *Server) search(ctx context.Context, sess *session, in SearchInput) (SearchOutput, error) {
	out := SearchOutput{Hits: []SearchHit{}}
	if len(in.Query) > MaxQueryBytes {
		return out, fmt.Errorf("the query is %d bytes; at most %d", len(in.Query), MaxQueryBytes)
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, MaxSearchResults)
	hits, err := s.opts.Registry.SearchIn(ctx, sess.client.ID, in.Query, limit)
	if err != nil {
		return out, errors.New("Switchboard could not search just now; try again")
	}
	for _, h := range hits {
		var b strings.Builder
		for _, p := range h.Snippet {
			if p.Match {
				b.WriteString("**" + p.Text + "**")
			} else {
				b.WriteString(p.Text)
			}
		}
		out.Hits = append(out.Hits, SearchHit{ConversationID: h.ConversationID, Title: h.ConversationTitle, Seq: h.Seq, Role: h.Role,
			Snippet: cut(b.String(), 1000), CreatedAt: stamp(h.CreatedAt)})
		if len(out.Hits) == MaxSearchResults {
			break
		}
	}
	return out, nil
}

// SendInput is send_message's input.
type SendInput struct {
	ConversationID string `json:"conversationId,omitempty" jsonschema:"the conversation to continue; empty to start a new one"`
	Text           string `json:"text" jsonschema:"the message, at most 64 KiB"`
}

// SendOutput is send_message's output.
type SendOutput struct {
	ConversationID string `json:"conversationId"`
	// Status is "done", or "stopped" or "error" (Error says why).
	Status string `json:"status"`
	Reply  string `json:"reply"`
	Error  string `json:"error,omitempty"`
}

func sendFailure(out SendOutput) string {
	return fmt.Sprintf("The reply in conversation %s did not finish (%s): %s", out.ConversationID, out.Status, cmp.Or(out.Error, "no reason given"))
}

func (s *Server) send(ctx context.Context, sess *session, in SendInput) (SendOutput, error) {
	out := SendOutput{ConversationID: in.ConversationID}
	noteOf(ctx).conv = clipID(in.ConversationID)
	switch {
	case strings.TrimSpace(in.Text) == "":
		return out, errors.New("the text is empty")
	case len(in.Text) > MaxMessageBytes:
		return out, fmt.Errorf("the text is %d bytes; at most %d", len(in.Text), MaxMessageBytes)
	case !utf8.ValidString(in.Text):
		return out, errors.New("the text is not valid UTF-8")
	case s.opts.Chat == nil:
		return out, errors.New("sending messages is not available in this Switchboard process")
	}
	cl, err := s.opts.Registry.Get(ctx, sess.client.ID)
	if err != nil {
		return out, deny(ctx, in.ConversationID, "Switchboard could not check this app's access just now; try again")
	}
	if in.ConversationID != "" {
		if err := s.opts.Registry.Check(ctx, cl.ID, in.ConversationID, clients.Write); err != nil {
			return out, denied(ctx, in.ConversationID, err)
		}
	} else if !cl.CanStart {
		return out, deny(ctx, "", fmt.Sprintf("%s may not start conversations; ask the user to allow it (in Connected apps, or switchboard clients can-start %q on), or to share an existing conversation with it", cl.Name, cl.Name))
	}
	done, ok := s.startTurn(sess)
	if !ok {
		return out, fmt.Errorf("this app already has %d replies being written, the most at once; wait for one to finish", MaxTurns)
	}
	defer done()
	if in.ConversationID == "" {
		conv, err := s.opts.Store.CreateConversation(ctx, store.Conversation{})
		if err != nil {
			return out, errors.New("Switchboard could not start a conversation just now; try again")
		}
		if err := s.opts.Registry.Claim(ctx, cl.ID, conv.ID); err != nil {
			_ = s.opts.Store.DeleteConversation(context.WithoutCancel(ctx), conv.ID)
			return out, denied(ctx, "", err)
		}
		out.ConversationID = conv.ID
		noteOf(ctx).conv = conv.ID
	}
	tctx, cancel := context.WithTimeout(chat.WithClient(ctx, cl.ID, cl.Name), s.opts.TurnTimeout)
	defer cancel()
	res, err := s.opts.Chat.Run(tctx, out.ConversationID, in.Text)
	if err != nil {
		return out, err
	}
	out.Status, out.Error = res.Status, res.Error
	if res.Status == store.StatusStopped {
		out.Error = "the reply was stopped"
		if errors.Is(tctx.Err(), context.DeadlineExceeded) {
			out.Error = fmt.Sprintf("the reply took longer than %s and was stopped", s.opts.TurnTimeout)
		} else if ctx.Err() != nil {
			out.Error = "the request was cancelled or this app's session ended"
		}
	}
	if res.MessageID != 0 {
		if m, err := s.opts.Store.Message(context.WithoutCancel(ctx), res.MessageID); err == nil {
			out.Reply = cut(m.Content, 4*maxMessageText)
		}
	}
	return out, nil
}

package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/store"
)

// Resource URIs: the list of shared conversations, and each of them.
const (
	ConversationsURI      = "switchboard://conversations"
	ConversationURIPrefix = ConversationsURI + "/"
)

// ConversationURI is the resource URI of conversation id.
func ConversationURI(id string) string { return ConversationURIPrefix + id }

// conversationOf returns the conversation ID a resource URI names.
func conversationOf(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, ConversationURIPrefix)
	if !ok || id == "" || len(id) > 128 || strings.ContainsAny(id, "/?#") {
		return "", false
	}
	return id, true
}

// addListResource (re)registers the list of shared conversations on the
// session's server; registering it again sends resources/list_changed.
func (s *Server) addListResource(sess *session, srv ...*mcp.Server) {
	target := sess.srv
	if len(srv) > 0 {
		target = srv[0]
	}
	target.AddResource(&mcp.Resource{URI: ConversationsURI, Name: "conversations", Title: "Conversations shared with this app",
		MIMEType: "application/json", Description: "The Switchboard conversations the user shared with this app (the first page of list_conversations)."},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			out, err := s.listConversations(ctx, sess, "", MaxPage)
			if err != nil {
				return nil, err
			}
			raw, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ConversationsURI, MIMEType: "application/json", Text: string(raw)}}}, nil
		})
}

// listResources answers resources/list: the list resource, then one per
// shared conversation, a page at a time.
func (s *Server) listResources(ctx context.Context, sess *session, req mcp.Request) (mcp.Result, error) {
	var cursor string
	if r, ok := req.(*mcp.ListResourcesRequest); ok && r.Params != nil {
		cursor = r.Params.Cursor
	}
	out, err := s.listConversations(ctx, sess, cursor, MaxPage)
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, NextCursor: out.NextCursor}
	res.CacheScope = "private"
	if cursor == "" {
		res.Resources = append(res.Resources, &mcp.Resource{URI: ConversationsURI, Name: "conversations",
			Title: "Conversations shared with this app", MIMEType: "application/json"})
	}
	for _, c := range out.Conversations {
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		res.Resources = append(res.Resources, &mcp.Resource{URI: ConversationURI(c.ID), Name: c.ID, Title: title,
			MIMEType: "text/markdown", Description: "access: " + c.Access})
	}
	return res, nil
}

// notFound is the error of a resource that is missing or not shared: the
// same either way.
func notFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": clip(uri, 200)})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found: " + notShared, Data: data}
}

// readResource reads a conversation as Markdown: its title and newest
// page of messages.
func (s *Server) readResource(ctx context.Context, sess *session, uri string) (*mcp.ReadResourceResult, error) {
	id, ok := conversationOf(uri)
	if !ok {
		_ = deny(ctx, "", notShared)
		return nil, notFound(uri)
	}
	if err := s.opts.Registry.Check(ctx, sess.client.ID, id, clients.Read); err != nil {
		_ = denied(ctx, id, err)
		return nil, notFound(uri)
	}
	noteOf(ctx).conv = id
	conv, msgs, next, err := s.page(ctx, id, 0, MaxPage)
	if err != nil {
		if noteOf(ctx).denied {
			return nil, notFound(uri)
		}
		return nil, err
	}
	var b strings.Builder
	title := conv.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if next != "" {
		b.WriteString("_Earlier messages: read_conversation with this conversation's id._\n\n")
	}
	for _, m := range msgs {
		fmt.Fprintf(&b, "## %s (#%d, %s)\n\n", m.Role, m.Seq, m.CreatedAt)
		if len(m.ToolCalls) > 0 {
			fmt.Fprintf(&b, "_called: %s_\n\n", strings.Join(m.ToolCalls, ", "))
		}
		if m.Text != "" {
			b.WriteString(m.Text + "\n\n")
		}
		if m.Status != "" {
			fmt.Fprintf(&b, "_%s", m.Status)
			if m.Error != "" {
				b.WriteString(": " + m.Error)
			}
			b.WriteString("_\n\n")
		}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
}

// subscribe follows a shared conversation for sess, at most
// MaxSubscriptions of them.
func (s *Server) subscribe(ctx context.Context, sess *session, uri string) error {
	if uri == ConversationsURI { // list changes come as resources/list_changed
		return nil
	}
	id, ok := conversationOf(uri)
	if !ok {
		_ = deny(ctx, "", notShared)
		return notFound(uri)
	}
	noteOf(ctx).conv = id
	if err := s.opts.Registry.Check(ctx, sess.client.ID, id, clients.Read); err != nil {
		_ = denied(ctx, id, err)
		return notFound(uri)
	}
	version, err := s.opts.Store.ConversationVersion(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		_ = deny(ctx, id, notShared)
		return notFound(uri)
	}
	if err != nil {
		return errors.New("Switchboard could not read the conversation just now; try again")
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if _, ok := sess.subs[id]; !ok && len(sess.subs) >= MaxSubscriptions {
		return deny(ctx, id, fmt.Sprintf("this session follows %d conversations, the most it may; unsubscribe from one first", MaxSubscriptions))
	}
	sess.subs[id] = version
	return nil
}

func (s *Server) unsubscribe(sess *session, uri string) error {
	if id, ok := conversationOf(uri); ok {
		sess.mu.Lock()
		delete(sess.subs, id)
		sess.mu.Unlock()
	}
	return nil
}

// toolCallNames returns the names of the tools an assistant message
// called (its tool_calls JSON).
func toolCallNames(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var calls []llm.ToolCall
	if json.Unmarshal(raw, &calls) != nil {
		return nil
	}
	var out []string
	for _, c := range calls {
		out = append(out, clip(c.Name, 128))
	}
	return out
}

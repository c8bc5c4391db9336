package clients

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Grant lets the client see conversation convID (Read), or see and write
// it (Write), until expires (zero: never). Granting again replaces the
// access and expiry. The conversation must exist; a past expiry is
// refused.
func (r *Registry) Grant(ctx context.Context, nameOrID, convID string, access Access, expires time.Time) error {
	if access != Read && access != Write {
		return fmt.Errorf("access %q is neither %q nor %q; pick one", access, Read, Write)
	}
	if !expires.IsZero() && !expires.After(r.now()) {
		return fmt.Errorf("the expiry %s has passed; give a time in the future, or none for a grant that does not expire",
			expires.Local().Format(time.DateTime))
	}
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	if _, err := r.st.Conversation(ctx, convID); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no conversation %q; it may have been deleted (the sidebar shows the conversations)", convID)
	} else if err != nil {
		return err
	}
	err = r.st.PutClientGrant(ctx, store.ClientGrant{ClientID: c.ID, ConversationID: convID, Access: string(access),
		ExpiresAt: expires.Truncate(time.Millisecond), CreatedAt: r.now().Truncate(time.Millisecond)})
	return notFound(err, fmt.Errorf("%s or conversation %q was removed meanwhile; look again and retry", c.Name, convID))
}

// Ungrant takes conversation convID back from the client.
func (r *Registry) Ungrant(ctx context.Context, nameOrID, convID string) error {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return notFound(r.st.DeleteClientGrant(ctx, c.ID, convID),
		fmt.Errorf("conversation %q is not shared with %s; nothing to take back", convID, c.Name))
}

// Grants returns the client's grants, expired ones too, the most recently
// updated conversation first.
func (r *Registry) Grants(ctx context.Context, nameOrID string) ([]Grant, error) {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return nil, err
	}
	list, err := r.st.ClientGrants(ctx, c.ID)
	return r.grants(list, err)
}

// GrantsFor returns who may see conversation convID (expired grants and
// revoked clients' too), by client name.
func (r *Registry) GrantsFor(ctx context.Context, convID string) ([]Grant, error) {
	list, err := r.st.ConversationGrants(ctx, convID)
	return r.grants(list, err)
}

// Live returns the grants that work now: none for a revoked or unknown
// client, and no expired one.
func (r *Registry) Live(ctx context.Context, clientID string) ([]Grant, error) {
	list, err := r.st.LiveClientGrants(ctx, clientID, r.now())
	return r.grants(list, err)
}

func (r *Registry) grants(list []store.ClientGrant, err error) ([]Grant, error) {
	if err != nil {
		return nil, err
	}
	now := r.now()
	out := make([]Grant, len(list))
	for i, g := range list {
		out[i] = Grant{ClientID: g.ClientID, ClientName: g.ClientName, ClientRevoked: !g.ClientRevokedAt.IsZero(), ConversationID: g.ConversationID, Title: g.Title,
			Access: Access(g.Access), Owned: g.Owned, ExpiresAt: g.ExpiresAt, CreatedAt: g.CreatedAt,
			Expired: expired(g.ExpiresAt, now)}
	}
	return out, nil
}

func expired(expiresAt, now time.Time) bool { return !expiresAt.IsZero() && !now.Before(expiresAt) }

// Check says whether client clientID may do what need asks with
// conversation convID: nil, or a *Denied whose reason the client may read.
// A conversation that does not exist and one not granted get the same
// answer; a revoked or removed client is refused everything.
func (r *Registry) Check(ctx context.Context, clientID, convID string, need Access) error {
	if need != Read && need != Write {
		return fmt.Errorf("checking access %q: not %q or %q", need, Read, Write)
	}
	c, err := r.active(ctx, clientID)
	if err != nil {
		return err
	}
	convID = clip(convID, maxRefLen)
	if convID == "" {
		return &Denied{Reason: "no conversation given; list_conversations shows the ones shared with this app"}
	}
	g, err := r.st.ClientGrant(ctx, c.ID, convID)
	if errors.Is(err, store.ErrNotFound) {
		return deniedNotShared(c.Name, convID)
	} else if err != nil {
		return err
	}
	if expired(g.ExpiresAt, r.now()) {
		return &Denied{Reason: fmt.Sprintf("the grant of conversation %q to %s expired at %s; ask the user to share it again",
			convID, c.Name, g.ExpiresAt.UTC().Format(time.RFC3339))}
	}
	if need == Write && Access(g.Access) != Write {
		return &Denied{Reason: fmt.Sprintf("conversation %q is shared with %s read-only; ask the user to share it with write access "+
			"(Share with… in the conversation's menu, read and write; or switchboard clients grant %q %s --write)", convID, c.Name, c.Name, convID)}
	}
	return nil
}

func deniedNotShared(name, convID string) *Denied {
	return &Denied{Reason: fmt.Sprintf("conversation %q is not shared with %s; ask the user to share it "+
		"(Share with… in the conversation's menu in Switchboard, or switchboard clients grant %q %s)", convID, name, name, convID)}
}

func deniedRevoked(name string) *Denied {
	return &Denied{Reason: fmt.Sprintf("%s's access to Switchboard was revoked; ask the user to connect it again "+
		"(Rotate in Connected apps, or switchboard clients rotate %q, gives a new token)", name, name)}
}

// active returns client clientID (by ID only), or a *Denied where it was
// removed or revoked.
func (r *Registry) active(ctx context.Context, clientID string) (store.Client, error) {
	c, err := r.byID(ctx, clientID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Client{}, deniedGone()
	} else if err != nil {
		return store.Client{}, err
	}
	if !c.RevokedAt.IsZero() {
		return store.Client{}, deniedRevoked(c.Name)
	}
	return c, nil
}

func deniedGone() *Denied {
	return &Denied{Reason: "this app is no longer connected to Switchboard; ask the user to connect it again (Connected apps, or switchboard clients add NAME)"}
}

// Claim gives client clientID an owned write grant of conversation
// convID, which it just created. It requires CanStart, and a conversation
// created within ClaimWindow that no client has a grant of, so that a
// client can claim nothing the user has.
func (r *Registry) Claim(ctx context.Context, clientID, convID string) error {
	c, err := r.active(ctx, clientID)
	if err != nil {
		return err
	}
	if !c.CanStart {
		return &Denied{Reason: fmt.Sprintf("%s may not start conversations; ask the user to allow it "+
			"(in Connected apps, or switchboard clients can-start %q on), or to share an existing conversation with it", c.Name, c.Name)}
	}
	convID = clip(convID, maxRefLen)
	conv, err := r.st.Conversation(ctx, convID)
	if errors.Is(err, store.ErrNotFound) {
		return deniedNotShared(c.Name, convID)
	} else if err != nil {
		return err
	}
	now := r.now()
	if conv.CreatedAt.Before(now.Add(-r.opts.ClaimWindow)) {
		return deniedNotShared(c.Name, convID)
	}
	ok, err := r.st.ClaimClientGrant(ctx, c.ID, convID, now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return deniedNotShared(c.Name, convID)
	case err != nil:
		return err
	case !ok:
		return deniedNotShared(c.Name, convID)
	}
	return nil
}

// SearchIn finds the messages matching query, as store.Search does, in the
// conversations client clientID may read now, and nowhere else: the
// restriction is part of the database query. limit <= 0 means
// store.DefaultSearchLimit; it is at most 200.
func (r *Registry) SearchIn(ctx context.Context, clientID, query string, limit int) ([]store.SearchHit, error) {
	if len(query) > maxQuery {
		return nil, &Denied{Reason: fmt.Sprintf("the search is longer than %d bytes; search for fewer words", maxQuery)}
	}
	live, err := r.Live(ctx, clientID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(live))
	for i, g := range live {
		ids[i] = g.ConversationID
	}
	if limit <= 0 {
		limit = store.DefaultSearchLimit
	}
	return r.st.SearchWithin(ctx, query, ids, min(limit, maxHits))
}

// AllowTool lets the client's turns run tool of server serverID (the
// server's own tool name) without anyone asking, also when no window is
// open.
func (r *Registry) AllowTool(ctx context.Context, nameOrID, serverID, tool string) error {
	if err := checkToolRef(serverID, tool); err != nil {
		return err
	}
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return r.gone(r.st.AllowClientTool(ctx, c.ID, serverID, tool), nameOrID)
}

// DisallowTool undoes AllowTool.
func (r *Registry) DisallowTool(ctx context.Context, nameOrID, serverID, tool string) error {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return notFound(r.st.DisallowClientTool(ctx, c.ID, serverID, tool),
		fmt.Errorf("%s was not allowed %s of server %s; its allowed tools are listed in Connected apps, or by switchboard clients show %q",
			c.Name, tool, serverID, c.Name))
}

// AllowedTools returns the tools the client's turns run without asking,
// by server and tool.
func (r *Registry) AllowedTools(ctx context.Context, nameOrID string) ([]ToolRef, error) {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return nil, err
	}
	list, err := r.st.ClientTools(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]ToolRef, len(list))
	for i, t := range list {
		out[i] = ToolRef{ServerID: t.ServerID, Tool: t.Tool}
	}
	return out, nil
}

// ToolAllowed reports whether client clientID's turns may run tool of
// server serverID without asking: never for a revoked or unknown client.
func (r *Registry) ToolAllowed(ctx context.Context, clientID, serverID, tool string) (bool, error) {
	return r.st.ClientToolAllowed(ctx, clientID, serverID, tool)
}

func checkToolRef(serverID, tool string) error {
	switch {
	case serverID == "" || tool == "":
		return errors.New("give both a server ID and a tool name (switchboard servers tools lists them)")
	case len(serverID) > maxRefLen || len(tool) > maxRefLen:
		return fmt.Errorf("the server ID or tool name is longer than %d bytes; check it (switchboard servers tools lists them)", maxRefLen)
	}
	return nil
}

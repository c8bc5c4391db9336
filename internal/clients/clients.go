// Package clients keeps the other apps (external MCP clients) the user
// connected to Switchboard: who they are, what each may see, which tools
// their turns may run without asking, and the audit of every request.
// Nothing is shared by default: a client sees only the conversations
// granted to it, and a revoked one nothing at all.
//
// A client proves who it is with a token, "sbc_" and 32 random bytes,
// shown to the user once; the database keeps only its SHA-256, so a token
// is checked by one indexed lookup of its hash and a copied database holds
// no working token. Every refusal of a token reads the same (ErrBadToken),
// and every refusal of a conversation a client may not see reads the same
// whether or not the conversation exists (Denied), so neither a token nor
// a conversation can be probed.
package clients

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Access is what a grant lets a client do with a conversation.
type Access string

// The accesses a grant gives: Write includes Read.
const (
	Read  Access = "read"
	Write Access = "write"
)

// Accesses lists every Access, for the generated TypeScript union.
var Accesses = []Access{Read, Write}

// A Client is an app the user connected. Its token is never part of it.
type Client struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// CanStart lets the client start conversations of its own.
	CanStart  bool      `json:"canStart"`
	CreatedAt time.Time `json:"createdAt" ts_type:"string"`
	// LastSeenAt is when the client last authenticated, to the minute;
	// zero (absent) if never.
	LastSeenAt time.Time `json:"lastSeenAt,omitzero,omitempty" ts_type:"string"`
	// RevokedAt is when the user revoked the client; zero (absent) while
	// its token works.
	RevokedAt time.Time `json:"revokedAt,omitzero,omitempty" ts_type:"string"`
	// Grants is the number of conversations granted to it, expired ones
	// too.
	Grants int `json:"grants"`
	// TokenTag tells the client's tokens apart (the first bytes of the
	// token's hash): a session opened with a token that was since
	// replaced (Rotate) sees another tag and ends. Never sent anywhere.
	TokenTag string `json:"-"`
}

// Revoked reports whether the client's token is refused.
func (c Client) Revoked() bool { return !c.RevokedAt.IsZero() }

// A Grant lets one client see, or see and write, one conversation.
type Grant struct {
	ClientID   string `json:"clientId"`
	ClientName string `json:"clientName"`
	// ClientRevoked marks a grant of a revoked client: kept, to show, but
	// not working until the client's token is rotated.
	ClientRevoked  bool   `json:"clientRevoked,omitempty"`
	ConversationID string `json:"conversationId"`
	// Title is the conversation's title, for the user's own window and
	// CLI only: it is never sent to a client.
	Title  string `json:"title"`
	Access Access `json:"access" ts_type:"Access"`
	// Owned marks a conversation the client started itself.
	Owned bool `json:"owned"`
	// ExpiresAt is when the grant stops working; zero (absent) means
	// never.
	ExpiresAt time.Time `json:"expiresAt,omitzero,omitempty" ts_type:"string"`
	CreatedAt time.Time `json:"createdAt" ts_type:"string"`
	// Expired reports that ExpiresAt has passed: the grant is kept, to
	// show, but works no more.
	Expired bool `json:"expired"`
}

// A ToolRef names one tool of one server: the server's ID and the
// server's own name of the tool (not the namespaced one).
type ToolRef struct {
	ServerID string `json:"serverId"`
	Tool     string `json:"tool"`
}

// An AuditEntry records one request of a client.
type AuditEntry struct {
	ID int64 `json:"id"`
	// ClientID and ClientName are empty for a request with no valid token.
	ClientID   string `json:"clientId"`
	ClientName string `json:"clientName"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	// Operation is what was asked: "initialize", "auth",
	// "tools/call read_conversation", "resources/read", ...
	Operation string `json:"operation"`
	// ConversationID is the conversation the request named; empty if none.
	ConversationID string `json:"conversationId"`
	Allowed        bool   `json:"allowed"`
	// Reason says why a request was denied (or, optionally, allowed).
	Reason string    `json:"reason"`
	At     time.Time `json:"at" ts_type:"string"`
}

// An AuditFilter selects the entries Audit returns; its zero value selects
// the newest 200.
type AuditFilter struct {
	// Client is a client's name (ignoring case) or ID; empty means all.
	Client         string `json:"client"`
	Operation      string `json:"operation"`
	ConversationID string `json:"conversationId"`
	// Allowed keeps only allowed (true) or denied (false) requests; nil
	// (absent) keeps both.
	Allowed *bool `json:"allowed,omitempty" ts_type:"boolean | null"`
	// Since (inclusive) and Until (exclusive) bound the time; zero
	// (absent) means unbounded.
	Since time.Time `json:"since,omitzero,omitempty" ts_type:"string"`
	Until time.Time `json:"until,omitzero,omitempty" ts_type:"string"`
	// Query keeps entries whose operation or reason holds it.
	Query string `json:"query"`
	// Before pages back: only entries with smaller IDs; zero means none.
	Before int64 `json:"before"`
	// Limit is at most 1000; zero means 200.
	Limit int `json:"limit"`
}

// Sentinel errors, returned wrapped with what to do.
var (
	// ErrNoClient means no client has the name or ID asked for.
	ErrNoClient = errors.New("no such connected app")
	// ErrBadToken is returned, unwrapped and alike, for an unknown, a
	// malformed and a revoked token.
	ErrBadToken = errors.New("the Switchboard token is not valid (unknown, malformed or revoked); " +
		"the user can make a new one with Rotate in Switchboard's Connected apps, or switchboard clients rotate NAME, " +
		"and put it in this app's config (SWITCHBOARD_CLIENT_TOKEN over stdio, the bearer token over HTTP)")
	// ErrNameTaken means another client has the name (ignoring case).
	ErrNameTaken = errors.New("a connected app with this name exists")
)

// Denied is the error of a request the client may not make. Its Reason is
// meant for the client: it never holds a conversation's title or a
// message's text, and reads the same for a conversation that does not
// exist and one not granted.
type Denied struct{ Reason string }

func (d *Denied) Error() string { return d.Reason }

// Options tune a Registry; nil means defaults.
type Options struct {
	// Now tells the time; nil means time.Now. Tests set it to pass an
	// expiry without sleeping.
	Now func() time.Time
	// AuditKeep is how many audit entries are kept; zero means
	// store.MaxClientAudit.
	AuditKeep int
	// ClaimWindow is how new a conversation must be for Claim; zero
	// means 10 minutes.
	ClaimWindow time.Duration
}

// A Registry is the clients, their grants, allowed tools and audit, kept
// in the store. It holds no state of its own, so the window and any number
// of `switchboard mcp serve` processes share one database safely; it is
// safe for concurrent use.
type Registry struct {
	st   *store.Store
	opts Options
}

// New returns a Registry over st with the default options.
func New(st *store.Store) *Registry { return NewWith(st, nil) }

// NewWith returns a Registry over st tuned by opts (nil: defaults).
func NewWith(st *store.Store, opts *Options) *Registry {
	r := &Registry{st: st}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	if r.opts.ClaimWindow <= 0 {
		r.opts.ClaimWindow = 10 * time.Minute
	}
	return r
}

func (r *Registry) now() time.Time { return r.opts.Now() }

// Bounds of what a client or a user gives.
const (
	MaxNameLen = 64   // characters of a client's name
	maxRefLen  = 256  // bytes of a server ID, tool name or conversation ID
	maxAuditOp = 200  // bytes of an audited operation
	maxReason  = 1000 // bytes of an audited reason
	maxQuery   = 1000 // bytes of a search
	maxHits    = 200  // hits of one search
)

const tokenPrefix = "sbc_"

// tokenLen is the length of a token: the prefix and 32 bytes in unpadded
// base64url.
var tokenLen = len(tokenPrefix) + base64.RawURLEncoding.EncodedLen(32)

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func wellFormed(token string) bool {
	if len(token) != tokenLen || !strings.HasPrefix(token, tokenPrefix) {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token[len(tokenPrefix):])
	return err == nil && len(b) == 32
}

// CheckName trims name and returns it, or says why it cannot name a
// client: it must be 1 to MaxNameLen characters with no control
// characters.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errors.New("the name is empty; give the app a name, such as Claude Desktop")
	case !utf8.ValidString(name):
		return "", errors.New("the name is not valid UTF-8; type it again")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return "", fmt.Errorf("the name is longer than %d characters; give a shorter one", MaxNameLen)
	case strings.ContainsFunc(name, unicode.IsControl):
		return "", errors.New("the name holds a control character (a tab or a line break, say); give it on one line")
	}
	return name, nil
}

// Add registers a client named name and returns it with its token, which
// is never shown again: only its hash is kept. canStart lets it start
// conversations of its own.
func (r *Registry) Add(ctx context.Context, name string, canStart bool) (Client, string, error) {
	name, err := CheckName(name)
	if err != nil {
		return Client{}, "", err
	}
	token := newToken()
	c := store.Client{ID: store.NewID(), Name: name, TokenHash: hashToken(token), CanStart: canStart,
		CreatedAt: r.now().Truncate(time.Millisecond)}
	if err := r.st.InsertClient(ctx, c); err != nil {
		if errors.Is(err, store.ErrClientNameTaken) {
			return Client{}, "", fmt.Errorf("%w: %q; pick another name, or rotate that app's token to connect it again", ErrNameTaken, name)
		}
		return Client{}, "", fmt.Errorf("adding %q: %w", name, err)
	}
	return fromStore(c), token, nil
}

// Rotate gives the client a new token and returns it; the old one stops
// at once. A revoked client's new token works: rotating is how the user
// lets a revoked app in again.
func (r *Registry) Rotate(ctx context.Context, nameOrID string) (string, error) {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return "", err
	}
	token := newToken()
	if err := r.st.SetClientToken(ctx, c.ID, hashToken(token)); err != nil {
		return "", r.gone(err, nameOrID)
	}
	return token, nil
}

// List returns every client, by name.
func (r *Registry) List(ctx context.Context) ([]Client, error) {
	list, err := r.st.Clients(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Client, len(list))
	for i, c := range list {
		out[i] = fromStore(c)
	}
	return out, nil
}

// Get returns the client whose ID or name (ignoring case) is nameOrID.
func (r *Registry) Get(ctx context.Context, nameOrID string) (Client, error) {
	c, err := r.lookup(ctx, nameOrID)
	return fromStore(c), err
}

// Revoke refuses the client's token from now on. Its grants are kept (and
// shown as not working), so Rotate lets it in again as it was.
func (r *Registry) Revoke(ctx context.Context, nameOrID string) error {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return r.gone(r.st.RevokeClient(ctx, c.ID, r.now()), nameOrID)
}

// Remove deletes the client with its grants and allowed tools; its audit
// stays.
func (r *Registry) Remove(ctx context.Context, nameOrID string) error {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return r.gone(r.st.DeleteClient(ctx, c.ID), nameOrID)
}

// SetCanStart sets whether the client may start conversations of its own.
func (r *Registry) SetCanStart(ctx context.Context, nameOrID string, on bool) error {
	c, err := r.lookup(ctx, nameOrID)
	if err != nil {
		return err
	}
	return r.gone(r.st.SetClientCanStart(ctx, c.ID, on), nameOrID)
}

// Authenticate returns the client whose token this is. An unknown, a
// malformed and a revoked token all get ErrBadToken and nothing else. The
// work does not depend on which clients exist: one lookup of the token's
// hash. LastSeenAt is written at most once a minute.
func (r *Registry) Authenticate(ctx context.Context, token string) (Client, error) {
	token = strings.TrimSpace(token)
	if !wellFormed(token) {
		return Client{}, ErrBadToken
	}
	c, err := r.st.ClientByTokenHash(ctx, hashToken(token))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Client{}, ErrBadToken
	case err != nil:
		return Client{}, fmt.Errorf("checking the token: %w", err)
	case !c.RevokedAt.IsZero():
		return Client{}, ErrBadToken
	}
	if now := r.now(); now.Sub(c.LastSeenAt) >= time.Minute {
		// Bookkeeping only: a busy database does not refuse a good token.
		if r.st.TouchClient(ctx, c.ID, now) == nil {
			c.LastSeenAt = now.Truncate(time.Millisecond)
		}
	}
	return fromStore(c), nil
}

// lookup finds a client by ID or name, or says how to find the right one.
func (r *Registry) lookup(ctx context.Context, nameOrID string) (store.Client, error) {
	c, err := r.st.Client(ctx, strings.TrimSpace(nameOrID))
	if errors.Is(err, store.ErrNotFound) {
		return store.Client{}, noClient(nameOrID)
	}
	return c, err
}

// byID finds a client by its ID only (a name is no ID): the calls made for
// a connected client's requests name it by ID.
func (r *Registry) byID(ctx context.Context, id string) (store.Client, error) {
	c, err := r.st.Client(ctx, id)
	if err == nil && c.ID != id {
		err = store.ErrNotFound
	}
	return c, err
}

// gone maps a store's ErrNotFound (the client was removed meanwhile) to
// ErrNoClient.
func (r *Registry) gone(err error, nameOrID string) error {
	return notFound(err, noClient(nameOrID))
}

// notFound returns instead where err is a store's ErrNotFound (what was
// to change is not there), and err otherwise.
func notFound(err, instead error) error {
	if errors.Is(err, store.ErrNotFound) {
		return instead
	}
	return err
}

func noClient(nameOrID string) error {
	return fmt.Errorf("%w: %q; the Connected apps view, or switchboard clients list, shows them", ErrNoClient, nameOrID)
}

func fromStore(c store.Client) Client {
	return Client{ID: c.ID, Name: c.Name, CanStart: c.CanStart, CreatedAt: c.CreatedAt,
		LastSeenAt: c.LastSeenAt, RevokedAt: c.RevokedAt, Grants: c.Grants, TokenTag: clip(c.TokenHash, 16)}
}

// clip cuts s to at most n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

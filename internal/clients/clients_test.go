package clients

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/timetest"
)

// newTest returns a Registry over a fresh database file, with a clock
// that starts now.
func newTest(t *testing.T, opts *Options) (*Registry, *store.Store, *timetest.Clock) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "switchboard.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := timetest.New(time.Now().Truncate(time.Millisecond))
	if opts == nil {
		opts = &Options{}
	}
	opts.Now = clk.Now
	return NewWith(st, opts), st, clk
}

func mustAdd(t *testing.T, r *Registry, name string, canStart bool) (Client, string) {
	t.Helper()
	c, token, err := r.Add(context.Background(), name, canStart)
	if err != nil {
		t.Fatal(err)
	}
	return c, token
}

func mustConv(t *testing.T, st *store.Store, title string, messages ...string) string {
	t.Helper()
	ctx := context.Background()
	c, err := st.CreateConversation(ctx, store.Conversation{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range messages {
		if _, err := st.AppendMessage(ctx, store.Message{ConversationID: c.ID, Role: "user", Content: m}); err != nil {
			t.Fatal(err)
		}
	}
	return c.ID
}

func TestAddStoresOnlyTheHash(t *testing.T) {
	r, st, _ := newTest(t, nil)
	ctx := context.Background()
	c, token := mustAdd(t, r, "  Claude Desktop  ", true)
	if c.Name != "Claude Desktop" || !c.CanStart || c.ID == "" || c.CreatedAt.IsZero() {
		t.Errorf("Add = %+v", c)
	}
	if !strings.HasPrefix(token, "sbc_") || len(token) != 4+43 || !wellFormed(token) {
		t.Errorf("token %q is not sbc_ and 32 bytes of base64url", token)
	}
	var hash string
	if err := st.DB().QueryRow(`SELECT token_hash FROM clients WHERE id = ?`, c.ID).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(token))
	if hash != hex.EncodeToString(sum[:]) {
		t.Errorf("token_hash = %q; want the token's hex SHA-256", hash)
	}
	// The token is nowhere in the database.
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM clients WHERE instr(id || name || token_hash, ?) > 0`, token[4:20]).Scan(&n); err != nil || n != 0 {
		t.Errorf("the token is stored (%d rows, %v)", n, err)
	}
	got, err := r.Get(ctx, "claude desktop")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	_, other := mustAdd(t, r, "Cursor", false)
	if other == token {
		t.Error("two clients got the same token")
	}
}

func TestNames(t *testing.T) {
	r, _, _ := newTest(t, nil)
	mustAdd(t, r, "Cursor", false)
	tests := []struct {
		name    string
		wantErr string
		is      error
	}{
		{"", "empty", nil},
		{"   ", "empty", nil},
		{strings.Repeat("é", 65), "longer than 64", nil},
		{"two\nlines", "control character", nil},
		{"tab\there", "control character", nil},
		{"bad\xffutf8", "UTF-8", nil},
		{"cursor", "pick another name", ErrNameTaken},
		{" CURSOR ", "pick another name", ErrNameTaken},
	}
	for _, tt := range tests {
		_, _, err := r.Add(context.Background(), tt.name, false)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("Add(%q) = %v; want an error saying %q", tt.name, err, tt.wantErr)
		}
	}
	if _, _, err := r.Add(context.Background(), strings.Repeat("é", 64), false); err != nil {
		t.Errorf("a 64-character name: %v", err)
	}
}

// TestAuthenticate: an unknown, a malformed and a revoked token get the
// same error; rotating stops the old token at once and lets a revoked
// client in again.
func TestAuthenticate(t *testing.T) {
	r, _, clk := newTest(t, nil)
	ctx := context.Background()
	c, token := mustAdd(t, r, "Claude", false)
	got, err := r.Authenticate(ctx, token)
	if err != nil || got.ID != c.ID {
		t.Fatalf("Authenticate(good) = %+v, %v", got, err)
	}
	if got, err := r.Authenticate(ctx, " "+token+"\n"); err != nil || got.ID != c.ID {
		t.Errorf("a token with surrounding space: %+v, %v", got, err)
	}
	_, revokedToken := mustAdd(t, r, "Old", false)
	if err := r.Revoke(ctx, "Old"); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"unknown":       newToken(),
		"revoked":       revokedToken,
		"empty":         "",
		"no prefix":     token[4:],
		"short":         token[:len(token)-1],
		"long":          token + "A",
		"not base64url": "sbc_" + strings.Repeat("+", 43),
		"other prefix":  "sbx_" + token[4:],
		"the hash":      hashToken(token),
	}
	for name, tok := range bad {
		_, err := r.Authenticate(ctx, tok)
		if err != ErrBadToken { // the very same value, so the same message
			t.Errorf("Authenticate(%s) = %v; want exactly ErrBadToken", name, err)
		}
	}
	if !strings.Contains(ErrBadToken.Error(), "rotate") {
		t.Errorf("ErrBadToken %q does not say what to do", ErrBadToken)
	}

	newTok, err := r.Rotate(ctx, "Claude")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Authenticate(ctx, token); err != ErrBadToken {
		t.Errorf("the old token after Rotate: %v; want ErrBadToken", err)
	}
	if _, err := r.Authenticate(ctx, newTok); err != nil {
		t.Errorf("the new token: %v", err)
	}

	clk.Add(time.Hour)
	again, err := r.Rotate(ctx, "Old")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Authenticate(ctx, again); err != nil || got.Revoked() {
		t.Errorf("a revoked client's rotated token: %+v, %v; want it to work", got, err)
	}
	if _, err := r.Authenticate(ctx, revokedToken); err != ErrBadToken {
		t.Errorf("the token revoked before rotating: %v", err)
	}
}

// TestLastSeenOncePerMinute: Authenticate writes LastSeenAt at most once a
// minute.
func TestLastSeenOncePerMinute(t *testing.T) {
	r, _, clk := newTest(t, nil)
	ctx := context.Background()
	_, token := mustAdd(t, r, "Claude", false)
	first := clk.Now()
	steps := []struct {
		advance time.Duration
		want    time.Time
	}{
		{0, first},
		{30 * time.Second, first},
		{29 * time.Second, first},
		{time.Second, first.Add(time.Minute)},
		{10 * time.Second, first.Add(time.Minute)},
	}
	for i, s := range steps {
		clk.Add(s.advance)
		if _, err := r.Authenticate(ctx, token); err != nil {
			t.Fatal(err)
		}
		got, _ := r.Get(ctx, "Claude")
		if !got.LastSeenAt.Equal(s.want) {
			t.Errorf("step %d: LastSeenAt = %v; want %v", i, got.LastSeenAt, s.want)
		}
	}
}

// TestCheck: what each client may do with each conversation, and that a
// refusal says why without a title and reads the same for a missing and
// an ungranted conversation.
func TestCheck(t *testing.T) {
	r, st, clk := newTest(t, nil)
	ctx := context.Background()
	claude, _ := mustAdd(t, r, "Claude", false)
	cursor, _ := mustAdd(t, r, "Cursor", false)
	gone, _ := mustAdd(t, r, "Gone", false)
	revoked, _ := mustAdd(t, r, "Revoked", false)
	readable := mustConv(t, st, "Secret title one")
	writable := mustConv(t, st, "Secret title two")
	expiring := mustConv(t, st, "Secret title three")
	cursors := mustConv(t, st, "Secret title four")
	for _, g := range []struct {
		client, conv string
		access       Access
		expires      time.Time
	}{
		{"Claude", readable, Read, time.Time{}},
		{"Claude", writable, Write, time.Time{}},
		{"Claude", expiring, Write, clk.Now().Add(time.Hour)},
		{"Cursor", cursors, Write, time.Time{}},
		{"Revoked", readable, Write, time.Time{}},
		{"Gone", readable, Write, time.Time{}},
	} {
		if err := r.Grant(ctx, g.client, g.conv, g.access, g.expires); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Revoke(ctx, "Revoked"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "Gone"); err != nil {
		t.Fatal(err)
	}
	deleted := mustConv(t, st, "Secret title five")
	if err := r.Grant(ctx, "Claude", deleted, Read, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteConversation(ctx, deleted); err != nil {
		t.Fatal(err)
	}

	notShared := func(conv string) string {
		return `conversation "` + conv + `" is not shared with Claude; ask the user to share it`
	}
	tests := []struct {
		name         string
		client, conv string
		need         Access
		later        time.Duration
		want         string // "" allowed; else the start of the reason
	}{
		{"read a read grant", claude.ID, readable, Read, 0, ""},
		{"write a read grant", claude.ID, readable, Write, 0, `conversation "` + readable + `" is shared with Claude read-only; ask the user`},
		{"write a write grant", claude.ID, writable, Write, 0, ""},
		{"read a write grant", claude.ID, writable, Read, 0, ""},
		{"before the expiry", claude.ID, expiring, Write, 59 * time.Minute, ""},
		{"at the expiry", claude.ID, expiring, Read, time.Hour, `the grant of conversation "` + expiring + `" to Claude expired at`},
		{"another client's conversation", claude.ID, cursors, Read, 0, notShared(cursors)},
		{"a missing conversation", claude.ID, "NOSUCHCONVERSATION", Read, 0, notShared("NOSUCHCONVERSATION")},
		{"a deleted conversation", claude.ID, deleted, Read, 0, notShared(deleted)},
		{"no conversation", claude.ID, "", Read, 0, "no conversation given"},
		{"the other client's own", cursor.ID, cursors, Write, 0, ""},
		{"the other client on ours", cursor.ID, readable, Read, 0, `conversation "` + readable + `" is not shared with Cursor`},
		{"a revoked client", revoked.ID, readable, Read, 0, "Revoked's access to Switchboard was revoked; ask the user"},
		{"a removed client", gone.ID, readable, Read, 0, "this app is no longer connected"},
		{"a name is not an ID", "Claude", readable, Read, 0, "this app is no longer connected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewWith(st, &Options{Now: func() time.Time { return clk.Now().Add(tt.later) }})
			err := r.Check(ctx, tt.client, tt.conv, tt.need)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check = %v; want allowed", err)
				}
				return
			}
			var d *Denied
			if !errors.As(err, &d) {
				t.Fatalf("Check = %v; want a *Denied", err)
			}
			if !strings.HasPrefix(d.Reason, tt.want) {
				t.Errorf("reason %q\nwant it to start %q", d.Reason, tt.want)
			}
			if strings.Contains(d.Reason, "Secret title") {
				t.Errorf("reason %q holds a title", d.Reason)
			}
		})
	}
	// The very same words for a missing and an ungranted conversation,
	// once the ID is taken out.
	missing := r.Check(ctx, claude.ID, "X", Read).Error()
	ungranted := r.Check(ctx, claude.ID, cursors, Read).Error()
	if strings.ReplaceAll(missing, `"X"`, "") != strings.ReplaceAll(strings.ReplaceAll(ungranted, `"`+cursors+`"`, ""), cursors, "X") {
		t.Errorf("a missing and an ungranted conversation read differently:\n%s\n%s", missing, ungranted)
	}
	if err := r.Check(ctx, claude.ID, readable, "admin"); err == nil {
		t.Error("an unknown access was allowed")
	}
}

// TestExpiry: past its expiry a grant stops working everywhere, and is
// still shown, as expired; measured on a clock moved by hand.
func TestExpiry(t *testing.T) {
	r, st, clk := newTest(t, nil)
	ctx := context.Background()
	c, _ := mustAdd(t, r, "Claude", false)
	conv := mustConv(t, st, "Plans", "the word is marmalade")
	if err := r.Grant(ctx, "Claude", conv, Write, clk.Now().Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	state := func() (live int, hits int, expired bool, checkErr error) {
		t.Helper()
		l, err := r.Live(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.SearchIn(ctx, c.ID, "marmalade", 10)
		if err != nil {
			t.Fatal(err)
		}
		g, err := r.Grants(ctx, "Claude")
		if err != nil || len(g) != 1 {
			t.Fatalf("Grants = %v, %v", g, err)
		}
		return len(l), len(h), g[0].Expired, r.Check(ctx, c.ID, conv, Read)
	}
	if live, hits, expired, err := state(); live != 1 || hits != 1 || expired || err != nil {
		t.Fatalf("before: live %d, hits %d, expired %v, check %v", live, hits, expired, err)
	}
	clk.Add(24 * time.Hour)
	live, hits, expired, err := state()
	if live != 0 || hits != 0 || !expired || err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("after: live %d, hits %d, expired %v, check %v; want none, none, true, expired", live, hits, expired, err)
	}
	if err := r.Grant(ctx, "Claude", conv, Read, clk.Now().Add(-time.Second)); err == nil || !strings.Contains(err.Error(), "in the future") {
		t.Errorf("a grant expiring in the past: %v", err)
	}
}

// TestSearchInOnlyGranted: a word in an ungranted conversation is never
// found, not even in a snippet; nor once the client is revoked.
func TestSearchInOnlyGranted(t *testing.T) {
	r, st, _ := newTest(t, nil)
	ctx := context.Background()
	c, _ := mustAdd(t, r, "Claude", false)
	other, _ := mustAdd(t, r, "Cursor", false)
	shared := mustConv(t, st, "Shared", "the picnic is on friday")
	private := mustConv(t, st, "Private", "the picnic password is xylophone")
	if err := r.Grant(ctx, "Claude", shared, Read, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Grant(ctx, "Cursor", private, Read, time.Time{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"xylophone", []string{}},
		{"password", []string{}},
		{"picnic", []string{shared}},
		{"pic", []string{shared}},
	}
	for _, tt := range tests {
		hits, err := r.SearchIn(ctx, c.ID, tt.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, h := range hits {
			got = append(got, h.ConversationID)
			for _, p := range h.Snippet {
				if strings.Contains(p.Text, "xylophone") || strings.Contains(p.Text, "password") {
					t.Errorf("snippet %q comes from the ungranted conversation", p.Text)
				}
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SearchIn(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
	if hits, _ := r.SearchIn(ctx, other.ID, "xylophone", 0); len(hits) != 1 {
		t.Errorf("the client it is shared with finds %d hits; want 1", len(hits))
	}
	if err := r.Revoke(ctx, "Claude"); err != nil {
		t.Fatal(err)
	}
	if hits, err := r.SearchIn(ctx, c.ID, "picnic", 0); err != nil || len(hits) != 0 {
		t.Errorf("a revoked client's search = %d hits, %v; want none", len(hits), err)
	}
	if _, err := r.SearchIn(ctx, other.ID, strings.Repeat("a ", 600), 0); err == nil {
		t.Error("an unbounded search was run")
	}
}

func TestClaim(t *testing.T) {
	r, st, clk := newTest(t, nil)
	ctx := context.Background()
	starter, _ := mustAdd(t, r, "Starter", true)
	plain, _ := mustAdd(t, r, "Plain", false)
	mine := mustConv(t, st, "mine")
	users := mustConv(t, st, "user's")
	if err := r.Grant(ctx, "Plain", users, Read, time.Time{}); err != nil {
		t.Fatal(err)
	}
	oldConv := mustConv(t, st, "old")
	tests := []struct {
		name, client, conv string
		later              time.Duration
		want               string // "" allowed; else in the reason
	}{
		{"without CanStart", plain.ID, mine, 0, "may not start conversations"},
		{"a conversation shared with another", starter.ID, users, 0, "is not shared with Starter"},
		{"an old conversation", starter.ID, oldConv, 11 * time.Minute, "is not shared with Starter"},
		{"a missing conversation", starter.ID, "NOPE", 0, "is not shared with Starter"},
		{"its new conversation", starter.ID, mine, 0, ""},
		{"the same again", starter.ID, mine, 0, "is not shared with Starter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewWith(st, &Options{Now: func() time.Time { return clk.Now().Add(tt.later) }})
			err := r.Claim(ctx, tt.client, tt.conv)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var d *Denied
			if !errors.As(err, &d) || !strings.Contains(d.Reason, tt.want) {
				t.Errorf("Claim = %v; want a refusal saying %q", err, tt.want)
			}
		})
	}
	grants, err := r.Grants(ctx, "Starter")
	if err != nil {
		t.Fatal(err)
	}
	want := []Grant{{ClientID: starter.ID, ClientName: "Starter", ConversationID: mine, Title: "mine", Access: Write, Owned: true}}
	if diff := cmp.Diff(want, grants, cmpopts.IgnoreFields(Grant{}, "CreatedAt")); diff != "" {
		t.Errorf("Grants after Claim (-want +got):\n%s", diff)
	}
	if err := r.Check(ctx, starter.ID, mine, Write); err != nil {
		t.Errorf("Check of the claimed conversation: %v", err)
	}
}

func TestGrantsAndRemove(t *testing.T) {
	r, st, clk := newTest(t, nil)
	ctx := context.Background()
	c, _ := mustAdd(t, r, "Claude", false)
	d, _ := mustAdd(t, r, "Cursor", false)
	conv := mustConv(t, st, "Plans")
	until := clk.Now().Add(time.Hour)
	if err := r.Grant(ctx, "claude", conv, Read, until); err != nil {
		t.Fatal(err)
	}
	if err := r.Grant(ctx, d.ID, conv, Write, time.Time{}); err != nil {
		t.Fatal(err)
	}
	got, err := r.GrantsFor(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	want := []Grant{
		{ClientID: c.ID, ClientName: "Claude", ConversationID: conv, Title: "Plans", Access: Read, ExpiresAt: until, CreatedAt: now},
		{ClientID: d.ID, ClientName: "Cursor", ConversationID: conv, Title: "Plans", Access: Write, CreatedAt: now},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GrantsFor (-want +got):\n%s", diff)
	}
	if got, _ := r.Get(ctx, "Claude"); got.Grants != 1 {
		t.Errorf("Grants = %d; want 1", got.Grants)
	}

	for name, err := range map[string]error{
		"Grant to no one":            r.Grant(ctx, "Nobody", conv, Read, time.Time{}),
		"Grant a missing conv":       r.Grant(ctx, "Claude", "NOPE", Read, time.Time{}),
		"Grant an unknown access":    r.Grant(ctx, "Claude", conv, "admin", time.Time{}),
		"Ungrant what is not shared": r.Ungrant(ctx, "Claude", "NOPE"),
		"Revoke no one":              r.Revoke(ctx, "Nobody"),
		"Rotate no one":              func() error { _, err := r.Rotate(ctx, "Nobody"); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), ";") {
			t.Errorf("%s: %v; want an error that says what to do", name, err)
		}
	}
	if err := r.Revoke(ctx, "Nobody"); !errors.Is(err, ErrNoClient) {
		t.Errorf("Revoke(Nobody) = %v; want ErrNoClient", err)
	}

	if err := r.Revoke(ctx, "Cursor"); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.GrantsFor(ctx, conv); len(got) != 2 || got[0].ClientRevoked || !got[1].ClientRevoked {
		t.Errorf("GrantsFor after revoking Cursor = %+v; want its grant marked ClientRevoked", got)
	}
	if err := r.Ungrant(ctx, "Cursor", conv); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(ctx, AuditEntry{ClientID: c.ID, ClientName: "Claude", Transport: "stdio", Operation: "initialize", Allowed: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.AllowTool(ctx, "Claude", "files", "read_file"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "Claude"); err != nil {
		t.Fatal(err)
	}
	if got, err := r.GrantsFor(ctx, conv); err != nil || len(got) != 0 {
		t.Errorf("GrantsFor after Remove and Ungrant = %v, %v; want none", got, err)
	}
	if audit, _ := r.Audit(ctx, AuditFilter{Client: "Claude"}); len(audit) != 1 {
		t.Errorf("the audit of a removed client holds %d entries; want 1 (it stays)", len(audit))
	}
	if ok, _ := r.ToolAllowed(ctx, c.ID, "files", "read_file"); ok {
		t.Error("a removed client's tool is still allowed")
	}
	if _, err := r.Get(ctx, "Claude"); !errors.Is(err, ErrNoClient) {
		t.Errorf("Get after Remove = %v; want ErrNoClient", err)
	}
}

func TestTools(t *testing.T) {
	r, _, _ := newTest(t, nil)
	ctx := context.Background()
	c, _ := mustAdd(t, r, "Claude", false)
	for _, tool := range []string{"write_file", "read_file"} {
		if err := r.AllowTool(ctx, "Claude", "files", tool); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.AllowedTools(ctx, "Claude")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ToolRef{{"files", "read_file"}, {"files", "write_file"}}, got); diff != "" {
		t.Errorf("AllowedTools (-want +got):\n%s", diff)
	}
	if ok, err := r.ToolAllowed(ctx, c.ID, "files", "read_file"); !ok || err != nil {
		t.Errorf("ToolAllowed = %v, %v", ok, err)
	}
	if err := r.DisallowTool(ctx, "Claude", "files", "read_file"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.ToolAllowed(ctx, c.ID, "files", "read_file"); ok {
		t.Error("a disallowed tool is allowed")
	}
	if err := r.DisallowTool(ctx, "Claude", "files", "read_file"); err == nil || !strings.Contains(err.Error(), "was not allowed") {
		t.Errorf("disallowing twice: %v", err)
	}
	if err := r.Revoke(ctx, "Claude"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.ToolAllowed(ctx, c.ID, "files", "write_file"); ok {
		t.Error("a revoked client's tool is allowed")
	}
	for _, bad := range [][2]string{{"", "x"}, {"files", ""}, {"files", strings.Repeat("x", 300)}} {
		if err := r.AllowTool(ctx, "Claude", bad[0], bad[1]); err == nil {
			t.Errorf("AllowTool(%q, %q) was accepted", bad[0], bad[1])
		}
	}
}

// TestAudit: entries are recorded bounded, filtered, paged, and only the
// newest AuditKeep are kept.
func TestAudit(t *testing.T) {
	r, _, clk := newTest(t, &Options{AuditKeep: 4})
	ctx := context.Background()
	start := clk.Now()
	record := func(e AuditEntry) {
		t.Helper()
		clk.Add(time.Second)
		if err := r.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	record(AuditEntry{ClientID: "C1", ClientName: "Claude", Transport: "stdio", Operation: "initialize", Allowed: true})
	record(AuditEntry{ClientID: "C1", ClientName: "Claude", Transport: "stdio", Operation: "tools/call read_conversation",
		ConversationID: "V1", Allowed: true})
	record(AuditEntry{ClientID: "C2", ClientName: "Cursor", Transport: "http", Operation: "tools/call read_conversation",
		ConversationID: "V2", Reason: "not shared"})
	record(AuditEntry{Transport: "http", Operation: "auth\nwith a line break " + strings.Repeat("x", 500), Reason: strings.Repeat("r", 5000)})

	all, err := r.Audit(ctx, AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Fatalf("Audit = %d entries; want 4", len(all))
	}
	long := all[0]
	if len(long.Operation) > maxAuditOp || strings.Contains(long.Operation, "\n") || len(long.Reason) > maxReason {
		t.Errorf("an entry was stored unbounded: operation %d bytes %q, reason %d bytes", len(long.Operation), long.Operation[:20], len(long.Reason))
	}
	if want := start.Add(4 * time.Second); !long.At.Equal(want) {
		t.Errorf("At = %v; want the Registry's clock %v", long.At, want)
	}

	ops := func(f AuditFilter) []string {
		t.Helper()
		list, err := r.Audit(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, e := range list {
			out = append(out, e.ClientName+" "+e.ConversationID)
		}
		return out
	}
	tests := []struct {
		name string
		f    AuditFilter
		want []string
	}{
		{"by name", AuditFilter{Client: "claude"}, []string{"Claude V1", "Claude "}},
		{"by id", AuditFilter{Client: "C2"}, []string{"Cursor V2"}},
		{"denied", AuditFilter{Allowed: new(false)}, []string{" ", "Cursor V2"}},
		{"query", AuditFilter{Query: "read_conversation", Allowed: new(true)}, []string{"Claude V1"}},
		{"page", AuditFilter{Limit: 2, Before: all[1].ID}, []string{"Claude V1", "Claude "}},
		{"since", AuditFilter{Since: start.Add(3 * time.Second)}, []string{" ", "Cursor V2"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ops(tt.f)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	record(AuditEntry{ClientID: "C1", ClientName: "Claude", Transport: "stdio", Operation: "resources/read", Allowed: true})
	if got := ops(AuditFilter{}); len(got) != 4 || got[3] != "Claude V1" {
		t.Errorf("after a fifth entry with AuditKeep 4: %q; want the oldest gone", got)
	}
}

// TestTwoProcessesAtOnce: the window and `mcp serve` each open the same
// database file; their writes (audit, grants, last-seen) interleave
// without an error or a lost entry.
func TestTwoProcessesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	ctx := context.Background()
	var regs []*Registry
	for range 2 {
		st, err := store.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		regs = append(regs, New(st))
	}
	c, token := mustAdd(t, regs[0], "Claude", false)
	st := regs[0].st
	var convs []string
	for range 4 {
		convs = append(convs, mustConv(t, st, "c"))
	}
	const perWorker = 40
	var wg sync.WaitGroup
	errs := make(chan error, 4*perWorker*3)
	for w := range 4 {
		r := regs[w%2]
		wg.Go(func() {
			for i := range perWorker {
				if _, err := r.Authenticate(ctx, token); err != nil {
					errs <- err
				}
				if err := r.Grant(ctx, c.ID, convs[(w+i)%len(convs)], Read, time.Time{}); err != nil {
					errs <- err
				}
				if err := r.Record(ctx, AuditEntry{ClientID: c.ID, ClientName: c.Name, Transport: "stdio", Operation: "ping", Allowed: true}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := regs[1].Audit(ctx, AuditFilter{Limit: 1000})
	if err != nil || len(got) != 4*perWorker {
		t.Errorf("Audit = %d entries, %v; want %d", len(got), err, 4*perWorker)
	}
	if live, _ := regs[1].Live(ctx, c.ID); len(live) != len(convs) {
		t.Errorf("Live = %d grants; want %d", len(live), len(convs))
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustClient(t *testing.T, s *Store, id, name string) Client {
	t.Helper()
	c := Client{ID: id, Name: name, TokenHash: "hash-" + id, CreatedAt: at(0)}
	if err := s.InsertClient(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientRoundTrip(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	want := Client{ID: "C1", Name: "Claude Desktop", TokenHash: "h1", CanStart: true, CreatedAt: at(0)}
	if err := s.InsertClient(ctx, want); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"C1", "Claude Desktop", "claude desktop", "CLAUDE DESKTOP"} {
		got, err := s.Client(ctx, key)
		if err != nil {
			t.Fatalf("Client(%q): %v", key, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Client(%q) (-want +got):\n%s", key, diff)
		}
	}
	if got, err := s.ClientByTokenHash(ctx, "h1"); err != nil || got.ID != "C1" {
		t.Errorf("ClientByTokenHash = %+v, %v", got, err)
	}

	// A name is unique ignoring case; a name equal to another's ID finds
	// the client with that ID first.
	err := s.InsertClient(ctx, Client{ID: "C2", Name: "claude DESKTOP", TokenHash: "h2"})
	if !errors.Is(err, ErrClientNameTaken) {
		t.Errorf("duplicate name: %v; want ErrClientNameTaken", err)
	}
	mustClient(t, s, "C3", "C1")
	if got, _ := s.Client(ctx, "C1"); got.ID != "C1" {
		t.Errorf("Client(C1) = %s; want the client with that ID", got.ID)
	}

	if err := s.RevokeClient(ctx, "C1", at(5)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeClient(ctx, "C1", at(9)); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Client(ctx, "C1")
	if !got.RevokedAt.Equal(at(5)) {
		t.Errorf("RevokedAt = %v; want the first revocation %v", got.RevokedAt, at(5))
	}
	if err := s.SetClientToken(ctx, "C1", "h1b"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Client(ctx, "C1")
	if got.TokenHash != "h1b" || !got.RevokedAt.IsZero() {
		t.Errorf("after SetClientToken: %+v", got)
	}
	if _, err := s.ClientByTokenHash(ctx, "h1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the old hash still finds a client: %v", err)
	}
	if err := s.SetClientCanStart(ctx, "C1", false); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchClient(ctx, "C1", at(70)); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Client(ctx, "C1")
	if got.CanStart || !got.LastSeenAt.Equal(at(70)) {
		t.Errorf("after SetClientCanStart and TouchClient: %+v", got)
	}

	list, err := s.Clients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"C1", "Claude Desktop"}, names); diff != "" {
		t.Errorf("Clients by name (-want +got):\n%s", diff)
	}

	for name, err := range map[string]error{
		"Client":            func() error { _, err := s.Client(ctx, "nope"); return err }(),
		"ClientByTokenHash": func() error { _, err := s.ClientByTokenHash(ctx, "nope"); return err }(),
		"SetClientToken":    s.SetClientToken(ctx, "nope", "x"),
		"RevokeClient":      s.RevokeClient(ctx, "nope", at(0)),
		"SetClientCanStart": s.SetClientCanStart(ctx, "nope", true),
		"DeleteClient":      s.DeleteClient(ctx, "nope"),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of a missing client: %v; want ErrNotFound", name, err)
		}
	}
}

// TestDeleteClientKeepsAudit: a client's grants and tools go with it, its
// audit stays; a conversation's grants go with the conversation.
func TestDeleteClientKeepsAudit(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	mustClient(t, s, "C1", "one")
	c1, c2 := mustConversation(t, s, "a"), mustConversation(t, s, "b")
	for _, conv := range []string{c1.ID, c2.ID} {
		if err := s.PutClientGrant(ctx, ClientGrant{ClientID: "C1", ConversationID: conv, Access: "read"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AllowClientTool(ctx, "C1", "files", "read_file"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertClientAudit(ctx, ClientAuditEntry{ClientID: "C1", ClientName: "one", Transport: "stdio", Operation: "initialize", Allowed: true}, 0); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Client(ctx, "C1"); c.Grants != 2 {
		t.Errorf("Grants = %d; want 2", c.Grants)
	}
	if err := s.DeleteConversation(ctx, c2.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Client(ctx, "C1"); c.Grants != 1 {
		t.Errorf("Grants after deleting a conversation = %d; want 1", c.Grants)
	}
	if err := s.DeleteClient(ctx, "C1"); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{"client_grants": 0, "client_tools": 0, "client_audit": 1} {
		var n int
		if err := s.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil || n != want {
			t.Errorf("%s holds %d rows (%v); want %d", table, n, err, want)
		}
	}
}

func TestClientGrants(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	mustClient(t, s, "C1", "one")
	mustClient(t, s, "C2", "two")
	old, live, expiring := mustConversation(t, s, "old"), mustConversation(t, s, "live"), mustConversation(t, s, "expiring")
	for i, id := range []string{old.ID, live.ID, expiring.ID} {
		if _, err := s.db.Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`, i, id); err != nil {
			t.Fatal(err)
		}
	}

	put := func(g ClientGrant) {
		t.Helper()
		if err := s.PutClientGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	put(ClientGrant{ClientID: "C1", ConversationID: old.ID, Access: "write", Owned: true, CreatedAt: at(1)})
	// Granting again changes access and expiry; it stays owned and keeps
	// its CreatedAt.
	put(ClientGrant{ClientID: "C1", ConversationID: old.ID, Access: "read", CreatedAt: at(2)})
	put(ClientGrant{ClientID: "C1", ConversationID: live.ID, Access: "write", ExpiresAt: at(1000), CreatedAt: at(3)})
	put(ClientGrant{ClientID: "C1", ConversationID: expiring.ID, Access: "read", ExpiresAt: at(500), CreatedAt: at(4)})
	put(ClientGrant{ClientID: "C2", ConversationID: live.ID, Access: "read", CreatedAt: at(5)})

	g, err := s.ClientGrant(ctx, "C1", old.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := ClientGrant{ClientID: "C1", ConversationID: old.ID, Access: "read", Owned: true, CreatedAt: at(1), ClientName: "one", Title: "old"}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("ClientGrant after granting again (-want +got):\n%s", diff)
	}

	ids := func(list []ClientGrant, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, g := range list {
			out = append(out, g.ClientID+":"+g.Title)
		}
		return out
	}
	// Most recently updated conversation first: expiring was made last.
	if diff := cmp.Diff([]string{"C1:expiring", "C1:live", "C1:old"}, ids(s.ClientGrants(ctx, "C1"))); diff != "" {
		t.Errorf("ClientGrants (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"C1:live", "C1:old"}, ids(s.LiveClientGrants(ctx, "C1", at(500)))); diff != "" {
		t.Errorf("LiveClientGrants at the expiry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"C1:expiring", "C1:live", "C1:old"}, ids(s.LiveClientGrants(ctx, "C1", at(499)))); diff != "" {
		t.Errorf("LiveClientGrants before the expiry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"C1:live", "C2:live"}, ids(s.ConversationGrants(ctx, live.ID))); diff != "" {
		t.Errorf("ConversationGrants (-want +got):\n%s", diff)
	}
	if err := s.RevokeClient(ctx, "C1", at(9)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{}, ids(s.LiveClientGrants(ctx, "C1", at(0)))); diff != "" {
		t.Errorf("LiveClientGrants of a revoked client (-want +got):\n%s", diff)
	}

	if err := s.DeleteClientGrant(ctx, "C2", live.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"ClientGrant of another client's": func() error { _, err := s.ClientGrant(ctx, "C2", old.ID); return err }(),
		"ClientGrant of a missing conv":   func() error { _, err := s.ClientGrant(ctx, "C1", "nope"); return err }(),
		"DeleteClientGrant again":         s.DeleteClientGrant(ctx, "C2", live.ID),
		"PutClientGrant missing conv":     s.PutClientGrant(ctx, ClientGrant{ClientID: "C1", ConversationID: "nope", Access: "read"}),
		"PutClientGrant missing client":   s.PutClientGrant(ctx, ClientGrant{ClientID: "nope", ConversationID: old.ID, Access: "read"}),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v; want ErrNotFound", name, err)
		}
	}
	if err := s.PutClientGrant(ctx, ClientGrant{ClientID: "C1", ConversationID: old.ID, Access: "admin"}); err == nil {
		t.Error("an access other than read or write was stored")
	}
}

func TestClaimClientGrant(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	mustClient(t, s, "C1", "one")
	mustClient(t, s, "C2", "two")
	fresh, shared := mustConversation(t, s, "fresh"), mustConversation(t, s, "shared")
	if err := s.PutClientGrant(ctx, ClientGrant{ClientID: "C2", ConversationID: shared.ID, Access: "read"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		client, conv string
		want         bool
		wantErr      error
	}{
		{"C1", fresh.ID, true, nil},
		{"C2", fresh.ID, false, nil}, // C1 has it now
		{"C1", fresh.ID, false, nil}, // once
		{"C1", shared.ID, false, nil},
		{"C1", "nope", false, ErrNotFound},
	}
	for _, tt := range tests {
		got, err := s.ClaimClientGrant(ctx, tt.client, tt.conv, at(0))
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("ClaimClientGrant(%s, %s) = %v, %v; want %v, %v", tt.client, tt.conv, got, err, tt.want, tt.wantErr)
		}
	}
	g, err := s.ClientGrant(ctx, "C1", fresh.ID)
	if err != nil || g.Access != "write" || !g.Owned {
		t.Errorf("claimed grant = %+v, %v; want an owned write grant", g, err)
	}
}

func TestClientTools(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	mustClient(t, s, "C1", "one")
	for _, tool := range []string{"write_file", "read_file", "read_file"} {
		if err := s.AllowClientTool(ctx, "C1", "files", tool); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ClientTools(ctx, "C1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ClientTool{{"files", "read_file"}, {"files", "write_file"}}, got); diff != "" {
		t.Errorf("ClientTools (-want +got):\n%s", diff)
	}
	tests := []struct {
		client, server, tool string
		want                 bool
	}{
		{"C1", "files", "read_file", true},
		{"C1", "other", "read_file", false},
		{"C1", "files", "delete", false},
		{"C2", "files", "read_file", false},
	}
	for _, tt := range tests {
		if got, err := s.ClientToolAllowed(ctx, tt.client, tt.server, tt.tool); got != tt.want || err != nil {
			t.Errorf("ClientToolAllowed(%s, %s, %s) = %v, %v; want %v", tt.client, tt.server, tt.tool, got, err, tt.want)
		}
	}
	if err := s.RevokeClient(ctx, "C1", at(0)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ClientToolAllowed(ctx, "C1", "files", "read_file"); ok {
		t.Error("a revoked client's tool is allowed")
	}
	if err := s.DisallowClientTool(ctx, "C1", "files", "read_file"); err != nil {
		t.Fatal(err)
	}
	if err := s.DisallowClientTool(ctx, "C1", "files", "read_file"); !errors.Is(err, ErrNotFound) {
		t.Errorf("disallowing twice: %v; want ErrNotFound", err)
	}
	if err := s.AllowClientTool(ctx, "nope", "files", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("allowing for a missing client: %v; want ErrNotFound", err)
	}
}

// TestClientAuditKeepsNewest: the audit never holds more than keep
// records, and the ones it keeps are the newest.
func TestClientAuditKeepsNewest(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	const keep = 5
	for i := range 12 {
		if _, err := s.InsertClientAudit(ctx, ClientAuditEntry{Transport: "stdio", Operation: fmt.Sprint("op", i), At: at(int64(i))}, keep); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ClientAudit(ctx, ClientAuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range got {
		ops = append(ops, e.Operation)
	}
	if diff := cmp.Diff([]string{"op11", "op10", "op9", "op8", "op7"}, ops); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if MaxClientAudit != 100_000 {
		t.Errorf("MaxClientAudit = %d; the audit keeps 100,000 records", MaxClientAudit)
	}
}

func TestClientAuditFilter(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	entries := []ClientAuditEntry{
		{ClientID: "C1", ClientName: "Claude", Transport: "stdio", Operation: "initialize", Allowed: true, At: at(0)},
		{ClientID: "C1", ClientName: "Claude", Transport: "stdio", Operation: "tools/call read_conversation", ConversationID: "V1", Allowed: true, At: at(10)},
		{ClientID: "C2", ClientName: "Cursor", Transport: "http", Operation: "tools/call read_conversation", ConversationID: "V2", Allowed: false, Reason: "not shared with Cursor", At: at(20)},
		{Transport: "http", Operation: "auth", Allowed: false, Reason: "bad token", At: at(30)},
	}
	for i := range entries {
		id, err := s.InsertClientAudit(ctx, entries[i], 0)
		if err != nil {
			t.Fatal(err)
		}
		entries[i].ID = id
	}
	tests := []struct {
		name string
		f    ClientAuditFilter
		want []int // indexes into entries, newest first
	}{
		{"all", ClientAuditFilter{}, []int{3, 2, 1, 0}},
		{"client by id", ClientAuditFilter{Client: "C1"}, []int{1, 0}},
		{"client by name ignoring case", ClientAuditFilter{Client: "cursor"}, []int{2}},
		{"operation", ClientAuditFilter{Operation: "tools/call read_conversation"}, []int{2, 1}},
		{"conversation", ClientAuditFilter{ConversationID: "V1"}, []int{1}},
		{"denied", ClientAuditFilter{Allowed: new(false)}, []int{3, 2}},
		{"allowed", ClientAuditFilter{Allowed: new(true)}, []int{1, 0}},
		{"since inclusive", ClientAuditFilter{Since: at(10)}, []int{3, 2, 1}},
		{"until exclusive", ClientAuditFilter{Until: at(10)}, []int{0}},
		{"query in reason", ClientAuditFilter{Query: "TOKEN"}, []int{3}},
		{"query in operation", ClientAuditFilter{Query: "read_conv"}, []int{2, 1}},
		{"query is not a pattern", ClientAuditFilter{Query: "%"}, nil},
		{"before", ClientAuditFilter{Before: entries[2].ID}, []int{1, 0}},
		{"limit", ClientAuditFilter{Limit: 2}, []int{3, 2}},
		{"combined", ClientAuditFilter{Client: "C2", Allowed: new(false), Query: "shared"}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ClientAudit(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			want := []ClientAuditEntry{}
			for _, i := range tt.want {
				want = append(want, entries[i])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSearchWithin: the words of a conversation outside the set are
// never found, not even in a snippet, whichever order the search takes.
func TestSearchWithin(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	shared, secret := mustConversation(t, s, "shared"), mustConversation(t, s, "secret")
	mustAppend(t, s, shared.ID, "user", "the plan for the garden")
	mustAppend(t, s, secret.ID, "user", "the garden code is zanzibar")
	mustAppend(t, s, secret.ID, "assistant", "noted: zanzibar opens the garden")

	tests := []struct {
		query string
		ids   []string
		want  []string // conversation IDs of the hits
	}{
		{"zanzibar", []string{shared.ID}, []string{}},
		{"garden", []string{shared.ID}, []string{shared.ID}},
		{"garden", []string{secret.ID}, []string{secret.ID, secret.ID}},
		{"garden", nil, []string{}},
		{"garden", []string{"no-such-conversation"}, []string{}},
	}
	for _, tt := range tests {
		hits, err := s.SearchWithin(ctx, tt.query, tt.ids, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, h := range hits {
			got = append(got, h.ConversationID)
			for _, p := range h.Snippet {
				if strings.Contains(p.Text, "zanzibar") && h.ConversationID != secret.ID {
					t.Errorf("a snippet of %s holds the secret word", h.ConversationID)
				}
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SearchWithin(%q, %v) (-want +got):\n%s", tt.query, tt.ids, diff)
		}
	}
	// The unrestricted search still finds both.
	if hits, err := s.Search(ctx, "garden", 10); err != nil || len(hits) != 3 {
		t.Errorf("Search = %d hits, %v; want 3", len(hits), err)
	}
}

// TestSearchWithinPastRankLimit: past RankLimit matches the search orders
// by recency; the restriction holds there too.
func TestSearchWithinPastRankLimit(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	shared, secret := mustConversation(t, s, "shared"), mustConversation(t, s, "secret")
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range RankLimit + 10 {
		if _, err := tx.Exec(`INSERT INTO messages(conversation_id, seq, role, content, created_at, updated_at) VALUES (?, ?, 'user', ?, 0, 0)`,
			secret.ID, i, "common word zanzibar"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, shared.ID, "user", "a common word")
	hits, err := s.SearchWithin(ctx, "common", []string{shared.ID}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ConversationID != shared.ID {
		t.Errorf("hits = %+v; want the one shared message", hits)
	}
}

func TestConversationByPrefix(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	for _, id := range []string{"ABCD1", "ABCD2", "XYZ9", "A_C%"} {
		if _, err := s.CreateConversation(ctx, Conversation{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		ref     string
		want    string
		wantErr error
	}{
		{"ABCD1", "ABCD1", nil},
		{"XY", "XYZ9", nil},
		{"xyz", "XYZ9", nil},
		{"ABCD", "", ErrAmbiguous},
		{"Q", "", ErrNotFound},
		{"", "", ErrNotFound},
		{"A_", "A_C%", nil}, // _ and % are characters, not patterns
		{"%", "", ErrNotFound},
	}
	for _, tt := range tests {
		got, err := s.ConversationByPrefix(ctx, tt.ref)
		if got.ID != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("ConversationByPrefix(%q) = %q, %v; want %q, %v", tt.ref, got.ID, err, tt.want, tt.wantErr)
		}
	}
}

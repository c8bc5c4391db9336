package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFTSQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"quokka", `"quokka"*`},
		{"holiday quokka", `"holiday" "quokka"*`},
		{`say "hi"`, `"say" """hi"""*`},
		{"NOT AND OR", `"NOT" "AND" "OR"*`},
		{"content:foo (bar", `"content:foo" "(bar"*`},
		{"* - ^ ( ) :", ""},
		{"naïve café", `"naïve" "café"*`},
	}
	for _, tt := range tests {
		if got := FTSQuery(tt.in); got != tt.want {
			t.Errorf("FTSQuery(%q) = %s; want %s", tt.in, got, tt.want)
		}
	}
}

func TestSearchFindsMessagesWithHighlights(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c1 := mustConversation(t, s, "Holiday")
	c2 := mustConversation(t, s, "Work")
	mustAppend(t, s, c1.ID, RoleUser, "where is the quokka picture")
	mustAppend(t, s, c1.ID, RoleAssistant, "The quokka is in the holiday folder.")
	mustAppend(t, s, c1.ID, RoleTool, "quokka.jpg") // tool output is not indexed
	mustAppend(t, s, c2.ID, RoleUser, "quarterly report, no animals")

	hits, err := s.Search(ctx, "QUOKKA", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits = %+v; want 2", hits)
	}
	for _, h := range hits {
		if h.ConversationTitle != "Holiday" || h.ConversationID != c1.ID {
			t.Errorf("hit %+v: wrong conversation", h)
		}
		var marked []string
		for _, p := range h.Snippet {
			if p.Match {
				marked = append(marked, p.Text)
			}
		}
		if diff := cmp.Diff([]string{"quokka"}, marked); diff != "" {
			t.Errorf("highlights (-want +got):\n%s", diff)
		}
	}
	// Prefix match on the last word, AND of words.
	if hits, _ := s.Search(ctx, "holiday quok", 10); len(hits) != 1 || hits[0].Role != RoleAssistant {
		t.Errorf("prefix search: %+v", hits)
	}
	// Edited and deleted messages follow the index.
	if _, err := s.EditMessage(ctx, c1.ID, 1, "where is the wombat picture"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "quokka", 10); len(hits) != 0 {
		t.Errorf("after deleting later messages and editing: %+v", hits)
	}
	if hits, _ := s.Search(ctx, "wombat", 10); len(hits) != 1 {
		t.Errorf("edited text not found: %+v", hits)
	}
}

func TestSearchNeverFailsOnUserInput(t *testing.T) {
	s, _ := openTemp(t, nil)
	c := mustConversation(t, s, "x")
	mustAppend(t, s, c.ID, RoleUser, `he said "NOT" near(a b) and content:foo * ^bar`)
	inputs := []string{`"`, `""`, `"unbalanced`, `NOT`, `AND OR NOT`, `near(a b)`, `content:foo`, `*`, `a*b`, `^bar`,
		`(`, `)`, `-x`, `+`, `{a b}`, `a:b:c`, `'`, `\`, "\x00", `NEAR/2`, `"NOT"`, "🙂", strings.Repeat("a ", 500)}
	for _, in := range inputs {
		if _, err := s.Search(context.Background(), in, 5); err != nil {
			t.Errorf("Search(%q): %v", in, err)
		}
	}
	hits, err := s.Search(context.Background(), `"NOT" near(a`, 5)
	if err != nil || len(hits) != 1 {
		t.Errorf("quoted operators as words: %+v, %v", hits, err)
	}
}

// TestSearch100kMessages inserts 100,000 messages in one transaction and
// times searches. Timing belongs in BenchmarkSearch; the bound here only
// guards against a full scan. Under the race detector SQLite (transpiled to
// Go) runs about 40 times slower, so the test uses 5,000 messages there and
// the 100,000-message figure comes from a run without -race.
func TestSearch100kMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 100,000 messages")
	}
	n, bound := 100_000, time.Second
	if raceEnabled() {
		n = 5_000
		t.Logf("race detector on: %d messages instead of 100,000", n)
	}
	s, _ := openTemp(t, nil)
	convs := fill(t, s, n)

	for _, q := range []string{"zanzibar", "alpha beta", "gam"} {
		start := time.Now()
		hits, err := s.Search(context.Background(), q, 50)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("search %q over %d messages: %d hits in %s", q, n, len(hits), took)
		if len(hits) == 0 {
			t.Errorf("search %q found nothing", q)
		}
		if took > bound {
			t.Errorf("search %q took %s; want well under %s", q, took, bound)
		}
	}
	start := time.Now()
	page, err := s.Messages(context.Background(), convs[0], MessagePage{Limit: 100})
	t.Logf("last page of a %d-message conversation in %s", n/len(convs), time.Since(start))
	if err != nil || len(page) != 100 {
		t.Errorf("page: %d, %v", len(page), err)
	}
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func BenchmarkSearch(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fill(b, s, 100_000)
	for b.Loop() {
		if _, err := s.Search(context.Background(), "alpha beta", 50); err != nil {
			b.Fatal(err)
		}
	}
}

// fill inserts n messages over 10 conversations in one transaction; ten of
// them, spread out, mention "zanzibar".
func fill(tb testing.TB, s *Store, n int) []string {
	tb.Helper()
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")
	for i := range 200 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	var convs []string
	for i := range 10 {
		convs = append(convs, mustConversation(tb, s, fmt.Sprintf("conversation %d", i)).ID)
	}
	start := time.Now()
	tx, err := s.db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO messages(conversation_id, seq, role, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		for j := range 12 + r.IntN(30) {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		if i%(n/10) == 0 {
			sb.WriteString(" zanzibar")
		}
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		if _, err := stmt.Exec(convs[i%len(convs)], i/len(convs)+1, role, sb.String(), int64(i), int64(i)); err != nil {
			tb.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("inserted %d messages in %s", n, time.Since(start))
	return convs
}

func mustConversation(tb testing.TB, s *Store, title string) Conversation {
	tb.Helper()
	c, err := s.CreateConversation(context.Background(), Conversation{Title: title})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func mustAppend(tb testing.TB, s *Store, convID, role, content string) Message {
	tb.Helper()
	m, err := s.AppendMessage(context.Background(), Message{ConversationID: convID, Role: role, Content: content})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestSearchCommonWordShowsNewestFirst: past RankLimit matches, ranking
// every match would be slow, so the newest come first.
func TestSearchCommonWordShowsNewestFirst(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "Logs")
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range RankLimit + 10 {
		if _, err := tx.Exec(`INSERT INTO messages(conversation_id, seq, role, content, created_at, updated_at) VALUES (?, ?, 'user', ?, 1, 1)`,
			c.ID, i+1, fmt.Sprintf("error number %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "error", 3)
	if err != nil || len(hits) != 3 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	if hits[0].Seq != int64(RankLimit+10) || hits[1].Seq != int64(RankLimit+9) {
		t.Errorf("first hits have seq %d, %d; want the newest", hits[0].Seq, hits[1].Seq)
	}
}

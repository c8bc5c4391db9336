package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A script pins and archives conversations, and the list shows it as the
// sidebar would: pinned first, archived ones only with -archived.
func TestConversationsPinAndArchive(t *testing.T) {
	dir := t.TempDir()
	ids := map[string]string{}
	withStore(t, dir, func(st *store.Store) {
		for _, title := range []string{"Budget", "Holiday", "Recipes"} {
			c, err := st.CreateConversation(context.Background(), store.Conversation{Title: title})
			if err != nil {
				t.Fatal(err)
			}
			ids[title] = c.ID
		}
	})
	list := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := run(t, dir, "", append([]string{"conversations", "list", "-json"}, args...)...)
		if code != 0 {
			t.Fatalf("conversations list %v: %d %s", args, code, stderr)
		}
		var cs []store.Conversation
		if err := json.Unmarshal([]byte(stdout), &cs); err != nil {
			t.Fatalf("list -json: %v in %q", err, stdout)
		}
		out := []string{}
		for _, c := range cs {
			s := c.Title
			if c.Pinned {
				s += " (pinned)"
			}
			out = append(out, s)
		}
		return out
	}
	if code, stdout, stderr := run(t, dir, "", "conversations", "pin", ids["Budget"][:8]); code != 0 || !strings.Contains(stdout, "pinned conversation "+ids["Budget"]) {
		t.Fatalf("pin by a start of the ID: %d %q %q", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, dir, "", "conversations", "archive", ids["Recipes"]); code != 0 || !strings.Contains(stdout, "archived conversation") {
		t.Fatalf("archive: %d %q %q", code, stdout, stderr)
	}
	if diff := cmp.Diff([]string{"Budget (pinned)", "Holiday"}, list()); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Recipes"}, list("-archived")); diff != "" {
		t.Errorf("list -archived (-want +got):\n%s", diff)
	}
	_, stdout, _ := run(t, dir, "", "conversations")
	if !strings.Contains(stdout, "PINNED") || !strings.Contains(stdout, "pinned") || strings.Contains(stdout, "Recipes") {
		t.Errorf("table: %q", stdout)
	}
	for _, args := range [][]string{{"unarchive", ids["Recipes"]}, {"unpin", ids["Budget"]}} {
		if code, _, stderr := run(t, dir, "", append([]string{"conversations"}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	if got := list(); len(got) != 3 || strings.Contains(strings.Join(got, ","), "pinned") {
		t.Errorf("after unpin and unarchive: %v", got)
	}

	if code, _, stderr := run(t, dir, "", "conversations", "pin", "NOPE"); code != 1 || !strings.Contains(stderr, `no conversation "NOPE"`) {
		t.Errorf("pin unknown: %d %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "", "conversations", "pin"); code != 2 || !strings.Contains(stderr, "usage:") {
		t.Errorf("pin without ID: %d %q", code, stderr)
	}
	if code, _, _ := run(t, dir, "", "conversations", "frob"); code != 2 {
		t.Errorf("unknown subcommand: %d", code)
	}
}

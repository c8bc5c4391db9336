package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-app/switchboard/internal/clients"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

// withStore opens the data directory's database for f, as another process
// (the window, mcp serve) would while the commands run.
func withStore(t *testing.T, dir string, f func(*store.Store)) {
	t.Helper()
	if code, _, stderr := run(t, dir, "", "clients", "list"); code != 0 { // creates the data directory
		t.Fatalf("clients list: %s", stderr)
	}
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f(st)
}

// A step is one command and what it must say.
type step struct {
	args       []string
	code       int
	stdout     []string // each in stdout
	stderr     []string // each in stderr
	notStdout  []string // none in stdout
	saveStdout *string
}

func runSteps(t *testing.T, dir string, steps []step) {
	t.Helper()
	for _, s := range steps {
		code, stdout, stderr := run(t, dir, "", append([]string{"clients"}, s.args...)...)
		if code != s.code {
			t.Fatalf("clients %q: exit %d; want %d\nstdout: %s\nstderr: %s", s.args, code, s.code, stdout, stderr)
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("clients %q: stdout does not say %q:\n%s", s.args, w, stdout)
			}
		}
		for _, w := range s.notStdout {
			if strings.Contains(stdout, w) {
				t.Errorf("clients %q: stdout says %q:\n%s", s.args, w, stdout)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("clients %q: stderr does not say %q:\n%s", s.args, w, stderr)
			}
		}
		if s.saveStdout != nil {
			*s.saveStdout = stdout
		}
	}
}

// A script's whole path: register an app, share a conversation by a
// prefix of its ID, look, revoke, rotate, remove; the token printed is
// the one that works.
func TestClientsFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	var plans, other string
	withStore(t, dir, func(st *store.Store) {
		for _, c := range []struct {
			id, title string
			out       *string
		}{{"PLANS7QX", "Holiday plans", &plans}, {"OTHER2AB", "Other", &other}} {
			if _, err := st.CreateConversation(context.Background(), store.Conversation{ID: c.id, Title: c.title}); err != nil {
				t.Fatal(err)
			}
			*c.out = c.id
		}
	})
	var token, rotated, list string
	runSteps(t, dir, []step{
		{args: []string{"list"}, stdout: []string{"No connected apps", "clients add NAME"}},
		{args: []string{"add", "Claude Desktop", "--can-start"}, stderr: []string{"this once only", "SWITCHBOARD_CLIENT_TOKEN", `"mcp","serve"`,
			`switchboard clients grant "Claude Desktop" CONVERSATION`}, saveStdout: &token},
		{args: []string{"add", "claude desktop"}, code: 1, stderr: []string{"with this name exists", "pick another name"}},
		{args: []string{"grant", "Claude Desktop", "plans", "--write", "--expires", "7d"},
			stdout: []string{"shared conversation " + plans + " (Holiday plans) with Claude Desktop to read and write, until"}},
		{args: []string{"--write", "grant", "Claude Desktop", "OTHER"}, code: 2, stderr: []string{"usage: switchboard clients"}},
		{args: []string{"grant", "claude desktop", "oth"}, stdout: []string{"to read, until it is ungranted"}},
		{args: []string{"grant", "Claude Desktop", "ZZZ"}, code: 1, stderr: []string{`no conversation "ZZZ"; copy its ID`}},
		{args: []string{"grant", "Nobody", "plans"}, code: 1, stderr: []string{`"Nobody"`, "switchboard clients list"}},
		{args: []string{"grant", "Claude Desktop", "plans", "--expires", "soon"}, code: 1, stderr: []string{"neither a duration"}},
		{args: []string{"list"}, stdout: []string{"Claude Desktop", "active", "2", "yes", "never"}, saveStdout: &list},
		{args: []string{"show", "Claude Desktop"}, stdout: []string{"can start:  yes", plans, "write", "Holiday plans", "works", other, "read",
			"No tool runs without asking"}},
		{args: []string{"ungrant", "Claude Desktop", "oth"}, stdout: []string{"no longer shared"}},
		{args: []string{"ungrant", "Claude Desktop", "oth"}, code: 1, stderr: []string{"is not shared with Claude Desktop; nothing to take back"}},
		{args: []string{"can-start", "Claude Desktop", "off"}, stdout: []string{"may no longer start"}},
		{args: []string{"can-start", "Claude Desktop", "maybe"}, code: 1, stderr: []string{"neither on nor off"}},
	})
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, "sbc_") || strings.Contains(token, "\n") {
		t.Fatalf("add printed %q on stdout; want the token alone", token)
	}
	authenticate := func(tok string) error {
		var err error
		withStore(t, dir, func(st *store.Store) { _, err = clients.New(st).Authenticate(context.Background(), tok) })
		return err
	}
	if err := authenticate(token); err != nil {
		t.Fatalf("the printed token: %v", err)
	}
	if strings.Contains(list, token) {
		t.Error("list shows the token")
	}

	runSteps(t, dir, []step{
		{args: []string{"revoke", "Claude Desktop"}, stdout: []string{"revoked Claude Desktop", "rotate"}},
		{args: []string{"list"}, stdout: []string{"revoked"}},
		{args: []string{"show", "Claude Desktop"}, stdout: []string{"app revoked"}},
	})
	if err := authenticate(token); err != clients.ErrBadToken {
		t.Errorf("the token after revoke: %v; want ErrBadToken", err)
	}
	runSteps(t, dir, []step{
		{args: []string{"rotate", "Claude Desktop"}, stderr: []string{"new token", "SWITCHBOARD_CLIENT_TOKEN"}, saveStdout: &rotated},
	})
	if err := authenticate(strings.TrimSpace(rotated)); err != nil {
		t.Errorf("the rotated token: %v", err)
	}
	runSteps(t, dir, []step{
		{args: []string{"remove", "Claude Desktop"}, stdout: []string{"removed Claude Desktop", "audit stays"}},
		{args: []string{"show", "Claude Desktop"}, code: 1, stderr: []string{"no such connected app"}},
		{args: []string{"list"}, stdout: []string{"No connected apps"}},
	})
}

func TestClientsAllow(t *testing.T) {
	dir := t.TempDir()
	withStore(t, dir, func(st *store.Store) {
		err := st.PutServers(context.Background(), store.Server{ID: "files", Name: "My Files", Transport: "stdio", Enabled: true, Config: "{}"})
		if err != nil {
			t.Fatal(err)
		}
	})
	runSteps(t, dir, []step{
		{args: []string{"add", "Cursor"}},
		{args: []string{"allow", "Cursor", "my files", "read_file"}, stdout: []string{"run read_file of files without asking"}},
		{args: []string{"allow", "Cursor", "files", "search"}},
		{args: []string{"allow", "Cursor", "nope", "read_file"}, code: 1, stderr: []string{`no server "nope"; switchboard servers list`}},
		{args: []string{"allow", "Cursor", "files"}, code: 2},
		{args: []string{"show", "Cursor"}, stdout: []string{"Tools its turns run without asking:", "files/read_file", "files/search"}},
		{args: []string{"disallow", "Cursor", "files", "search"}, stdout: []string{"ask again"}},
		{args: []string{"disallow", "Cursor", "files", "search"}, code: 1, stderr: []string{"was not allowed search of server files"}},
		{args: []string{"show", "Cursor"}, stdout: []string{"files/read_file"}, notStdout: []string{"files/search"}},
	})
}

func TestClientsAudit(t *testing.T) {
	dir := t.TempDir()
	runSteps(t, dir, []step{
		{args: []string{"add", "Claude"}},
		{args: []string{"add", "Cursor"}},
		{args: []string{"audit"}, stdout: []string{"No requests recorded."}},
		{args: []string{"audit", "Nobody"}, code: 1, stderr: []string{`no such connected app: "Nobody"`}},
	})
	entries := []clients.AuditEntry{
		{ClientName: "Claude", Transport: "stdio", Operation: "initialize", Allowed: true},
		{ClientName: "Claude", Transport: "stdio", Operation: "tools/call read_conversation", ConversationID: "V1",
			Reason: `conversation "V1" is not shared with Claude`},
		{ClientName: "Cursor", Transport: "http", Operation: "tools/call list_conversations", Allowed: true},
		{Transport: "http", Operation: "auth", Reason: "bad token"},
	}
	withStore(t, dir, func(st *store.Store) {
		r := clients.New(st)
		base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
		for i := range entries {
			c, err := r.Get(context.Background(), entries[i].ClientName)
			if err == nil {
				entries[i].ClientID = c.ID
			}
			entries[i].At = base.Add(time.Duration(i) * time.Second)
			if err := r.Record(context.Background(), entries[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	var js string
	runSteps(t, dir, []step{
		{args: []string{"audit"}, stdout: []string{"(no valid token)", "auth", "denied", "list_conversations", "allowed", "initialize"}},
		{args: []string{"audit", "--denied", "claude", "--json"}, saveStdout: &js},
		{args: []string{"audit", "--limit", "2"}, stderr: []string{"(older entries: --before 3)"}, notStdout: []string{"initialize"}},
		{args: []string{"audit", "--before", "2"}, stdout: []string{"initialize"}, notStdout: []string{"auth"}},
		{args: []string{"audit", "--limit", "0"}, code: 2},
		{args: []string{"audit", "a", "b"}, code: 2},
	})
	var got []clients.AuditEntry
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, js)
	}
	if diff := cmp.Diff([]clients.AuditEntry{entries[1]}, got, cmpopts.IgnoreFields(clients.AuditEntry{}, "ID"),
		cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("audit --denied claude --json (-want +got):\n%s", diff)
	}
}

func TestClientsUsage(t *testing.T) {
	dir := t.TempDir()
	code, stdout, _ := run(t, dir, "", "clients", "-h")
	if code != 0 || !strings.Contains(stdout, "switchboard clients grant NAME CONVERSATION [--write] [--expires WHEN]") {
		t.Errorf("clients -h: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"frob"}, {"add"}, {"add", "a", "b"}, {"grant", "a"}, {"revoke"}, {"list", "x"}} {
		if code, _, stderr := run(t, dir, "", append([]string{"clients"}, args...)...); code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("clients %q: exit %d; stderr %q", args, code, stderr)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"90m", now.Add(90 * time.Minute), false},
		{"24h", now.Add(24 * time.Hour), false},
		{"7d", now.Add(7 * 24 * time.Hour), false},
		{"2031-05-06T07:08:09Z", time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC), false},
		{"0d", time.Time{}, true},
		{"-1h", time.Time{}, true},
		{"1.5d", time.Time{}, true},
		{"tomorrow", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseExpiry(tt.in, now)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestClientsConnect: connect prints Cursor's entry with a working token,
// connecting again replaces the token, and --write merges the entry into
// the file, keeping what was there.
func TestClientsConnect(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")

	code, stdout, stderr := run(t, dir, "", "clients", "connect", "cursor")
	if code != 0 {
		t.Fatalf("connect: exit %d: %s", code, stderr)
	}
	var entry struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(stdout), &entry); err != nil {
		t.Fatalf("the entry is not JSON: %v\n%s", err, stdout)
	}
	e := entry.MCPServers["switchboard"]
	first := e.Env["SWITCHBOARD_CLIENT_TOKEN"]
	if !strings.HasPrefix(first, "sbc_") || !cmp.Equal(e.Args, []string{"mcp", "serve"}) || e.Env["SWITCHBOARD_DATA_DIR"] != dir {
		t.Fatalf("entry = %+v", e)
	}

	cfg := home + "/.cursor/mcp.json"
	if err := os.MkdirAll(home+"/.cursor", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"other": {"command": "other-server"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, dir, "", "clients", "connect", "cursor", "--write")
	if code != 0 {
		t.Fatalf("connect --write: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "new token") || !strings.Contains(stdout, cfg) {
		t.Errorf("connect --write said:\n%s\n%s", stdout, stderr)
	}
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &entry); err != nil {
		t.Fatalf("the written file is not JSON: %v\n%s", err, data)
	}
	second := entry.MCPServers["switchboard"].Env["SWITCHBOARD_CLIENT_TOKEN"]
	if entry.MCPServers["other"].Command != "other-server" || second == "" || second == first {
		t.Fatalf("written file: %s", data)
	}
	withStore(t, dir, func(st *store.Store) {
		r := clients.New(st)
		if _, err := r.Authenticate(context.Background(), first); err == nil {
			t.Error("the replaced token still works")
		}
		if c, err := r.Authenticate(context.Background(), second); err != nil || c.Name != "Cursor" {
			t.Errorf("the written token: %+v, %v", c, err)
		}
	})

	// A file with comments is refused before any token changes.
	if err := os.WriteFile(cfg, []byte("// mine\n{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr = run(t, dir, "", "clients", "connect", "cursor", "--write"); code == 0 || !strings.Contains(stderr, "without --write") {
		t.Errorf("a file with comments: exit %d: %s", code, stderr)
	}
	withStore(t, dir, func(st *store.Store) {
		if _, err := clients.New(st).Authenticate(context.Background(), second); err != nil {
			t.Errorf("a refused write replaced the token: %v", err)
		}
	})
}

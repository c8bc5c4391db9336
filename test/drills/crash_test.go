package drills

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestDrillKillMidStream kills the app (switchboard ask, the same core and
// chat engine as the window) with SIGKILL while a reply streams, then
// checks the database: intact, every earlier message there, the partial
// reply kept up to its last save. A restart marks the reply interrupted
// (with a message that says what to do) and the conversation goes on.
//
// Unit tests pin the pieces: store's TestMarkInterrupted, chat's
// TestStopMidStreamKeepsPartial and sink tests for the save throttle;
// test/e2e/window.sh kills the real window and runs integrity_check.
func TestDrillKillMidStream(t *testing.T) {
	bin := binary(t)
	const rate, tokens = 40.0, 400
	var pieces []string
	for i := range tokens {
		pieces = append(pieces, fmt.Sprintf("p%03d ", i))
	}
	full := strings.Join(pieces, "")
	provider := llmtest.NewServer(t, &llmtest.Options{Models: []string{"m"}, Replies: []llmtest.Reply{
		llmtest.Text("The first ", "answer is 42."),
		{Content: pieces, TokensPerSecond: rate},
	}})
	dir := t.TempDir()
	env := dataEnv(dir)
	ask := func(args ...string) []string {
		return append([]string{"ask", "--base-url", provider.URL, "--model", "m"}, args...)
	}

	out, errOut, code := run(t, bin, env, ask("What is the answer?")...)
	if code != 0 || !strings.Contains(out, "The first answer is 42.") {
		t.Fatalf("first turn: exit %d\n%s\n%s", code, out, errOut)
	}
	m := regexp.MustCompile(`\[conversation (\S+): done\]`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no conversation ID in %q", errOut)
	}
	convID := m[1]

	// The second turn streams at 40 tokens/s; it is killed once 63 tokens
	// reached the terminal (about 1.6 s in, several 250 ms saves along).
	cmd := exec.Command(bin, ask("--conversation", convID, "Now count slowly.")...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var printed strings.Builder
	go func() {
		r := bufio.NewReader(stdout)
		buf := make([]byte, 256)
		for {
			n, err := r.Read(buf)
			mu.Lock()
			printed.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	var seen string
	for {
		mu.Lock()
		seen = printed.String()
		mu.Unlock()
		if len(seen) >= 63*5 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the reply did not stream (printed %q)", seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	t.Logf("killed after %d characters of the reply reached the terminal", len(seen))

	db := filepath.Join(dir, "switchboard.db")
	before := openAndCheck(t, db, convID)
	if len(before) != 4 {
		t.Fatalf("after the kill: %d messages, want 4 (question, answer, question, partial reply): %+v", len(before), before)
	}
	for i, want := range []string{"What is the answer?", "The first answer is 42.", "Now count slowly."} {
		if before[i].Content != want || before[i].Status != store.StatusDone {
			t.Errorf("message %d = %q (%s), want %q (done)", i+1, before[i].Content, before[i].Status, want)
		}
	}
	partial := before[3]
	lost := len(seen) - len(partial.Content)
	t.Logf("partial reply kept: %d characters (%d printed; %d behind the terminal, the save throttle is 250 ms = %d characters at this rate)",
		len(partial.Content), len(seen), lost, int(rate/4)*5)
	switch {
	case partial.Content == "":
		t.Error("the partial reply was not saved at all")
	case !strings.HasPrefix(full, partial.Content):
		t.Errorf("the saved partial reply is not a prefix of the reply: %q", partial.Content)
	case lost > 25*5: // more than 600 ms of tokens behind what the user saw
		t.Errorf("the saved partial reply is %d characters behind what was printed", lost)
	}
	if partial.Status != store.StatusStreaming {
		t.Errorf("before a restart the partial reply's status is %q, want streaming", partial.Status)
	}

	// Restart: the next turn in the same conversation works, and the cut
	// reply is marked with what to do.
	out, errOut, code = run(t, bin, env, ask("--conversation", convID, "Are you still there?")...)
	if code != 0 || !strings.Contains(out, "You said: Are you still there?") {
		t.Fatalf("after the restart: exit %d\n%s\n%s", code, out, errOut)
	}
	after := openAndCheck(t, db, convID)
	if len(after) != 6 {
		t.Fatalf("after the restart: %d messages, want 6", len(after))
	}
	for i := range 4 {
		if after[i].Content != before[i].Content {
			t.Errorf("message %d changed across the restart: %q → %q", i+1, before[i].Content, after[i].Content)
		}
	}
	if got := after[3]; got.Status != store.StatusError || got.Error != store.InterruptedError {
		t.Errorf("the cut reply: status %q, error %q; want error %q", got.Status, got.Error, store.InterruptedError)
	}
}

// openAndCheck opens the database as the app would after a crash, checks
// its integrity and returns the conversation's messages.
func openAndCheck(t *testing.T, path, convID string) []store.Message {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("opening the database after the kill: %v", err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("PRAGMA integrity_check = %q, %v", res, err)
	}
	msgs, err := st.Messages(ctx, convID, store.MessagePage{})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A script's whole path through a task: ask starts a call the server runs
// as a task and is interrupted; tasks lists it as running; the task
// completes; tasks wait follows it again, prints its result and lands it in
// the conversation.
func TestTasksFromTheCommandLine(t *testing.T) {
	ts := mcptest.NewTaskServer(nil)
	t.Cleanup(ts.Close)
	hs := httptest.NewServer(ts.Handler())
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	importHTTP(t, dir, "jobs", hs.URL)
	if code, stdout, _ := run(t, dir, "", "tasks"); code != 0 || !strings.Contains(stdout, "no running tasks") {
		t.Fatalf("tasks before any: %d %q", code, stdout)
	}

	llm := llmtest.NewServer(t, &llmtest.Options{Replies: []llmtest.Reply{
		llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "jobs__slow_task", Arguments: []string{`{"label":"report"}`}}),
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var askErr bytes.Buffer
	go func() {
		done <- Run(ctx, &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &askErr},
			[]string{"ask", "--base-url", llm.URL, "--model", "m", "--wait-servers", "20s", "--allow", "jobs__slow_task", "make the report"})
	}()
	var taskID string
	select {
	case taskID = <-ts.Created():
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("no task was created; ask said: %s", askErr.String())
	}
	// The task record is written right after the handle arrives.
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == ""; {
		if _, stdout, _ := run(t, dir, "", "tasks"); strings.Contains(stdout, "working") {
			id = strings.Fields(strings.Split(stdout, "\n")[1])[0]
		} else if time.Now().After(deadline) {
			t.Fatalf("tasks never listed the running task: %q", stdout)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel() // the script is interrupted; the task goes on
	<-done

	if err := ts.Complete(taskID, "done: report"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, "", "tasks", "wait", "-timeout", "30s", id)
	if code != 0 || stdout != "done: report\n" {
		t.Fatalf("tasks wait: %d %q %q", code, stdout, stderr)
	}
	if _, stdout, _ := run(t, dir, "", "tasks", "-all"); !strings.Contains(stdout, "completed") {
		t.Errorf("tasks -all: %q", stdout)
	}
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := st.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := st.Messages(context.Background(), rec.ConversationID, store.MessagePage{})
	if len(msgs) < 3 || msgs[2].Content != "done: report" {
		t.Errorf("the result did not land in the conversation: %+v", msgs)
	}
	if code, _, stderr := run(t, dir, "", "tasks", "wait", "nope"); code != 1 || !strings.Contains(stderr, `no task "nope"`) {
		t.Errorf("waiting on an unknown task: %d %q", code, stderr)
	}
	if code, _, stderr := run(t, dir, "", "tasks", "cancel"); code != 2 || !strings.Contains(stderr, "usage") {
		t.Errorf("cancel without an ID: %d %q", code, stderr)
	}
}
